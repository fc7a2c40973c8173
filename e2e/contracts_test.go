package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rodin-gate/rodin/internal/claudecli"
	"github.com/rodin-gate/rodin/pkg/contracts"
)

// deskFiles is an rlp-desk project with rodin's contracts for it, and the
// worker agent.
func deskFiles() map[string]string {
	return map[string]string{
		".rodin/contracts.json":       contracts.RLPDesk,
		".rlp-desk/plans/prd-demo.md": "# PRD: demo\n\n## US-001: Sum two numbers\n",
		".claude/agents/worker.md":    workerAgent,
		".rlp-desk/memos/.keep":       "",
	}
}

// TestUnattendedWorkerPermission: an unattended worker (`claude -p --agent
// worker`, default mode) whose Write needs a permission nobody can give: the
// PermissionRequest hook denies it with rodin's message, which the worker
// reads in its own turn (the run does not wait), and `rodin events` shows it
// to the leader.
func TestUnattendedWorkerPermission(t *testing.T) { eachRelease(t, testUnattendedWorkerPermission) }

func testUnattendedWorkerPermission(t *testing.T, rel claudecli.Release) {
	srv := newServer(t)
	srv.agentTurns = map[string][]turn{"worker": {
		func(s *server, _ int) []block {
			return []block{tool("Write", map[string]any{"file_path": filepath.Join(s.vars["project"], ".rlp-desk", "memos", "demo-iter-signal.json"),
				"content": `{"slug":"demo","iteration":1,"signal_type":"signal","us_id":"US-001","status":"verify"}` + "\n"})}
		},
		say("Stopping: the signal could not be written."),
	}}
	opt := options{mode: "default", args: []string{"--agent", "worker"}, files: deskFiles(), setup: func(s *session, _ []string) {
		srv.mu.Lock()
		srv.vars["project"] = s.project
		srv.mu.Unlock()
	}}
	start := time.Now()
	s, out := runHeadless(t, rel.Path, srv, opt, "Write the iteration signal.", 2*time.Minute)
	t.Logf("claude -p printed %q after %v", out, time.Since(start).Round(time.Millisecond))
	want := "[rodin] worker runs unattended (role worker in .rodin/contracts.json)"
	if !srv.told("worker", want) {
		t.Fatalf("no request of the worker carries rodin's deny %q", want)
	}
	if _, err := os.Stat(filepath.Join(s.project, ".rlp-desk", "memos", "demo-iter-signal.json")); err == nil {
		t.Errorf("the denied Write happened")
	}
	events := s.rodin("events")
	if !strings.Contains(events, "permission denied  worker  Write ") || !strings.Contains(events, "demo-iter-signal.json") {
		t.Errorf("rodin events:\n%s", events)
	}
	t.Logf("rodin events:\n%s", events)
}

// TestRlpDeskCampaign plays rlp-desk's handover files in one real session,
// as its 0.13 design describes them, with each violation it meets: a worker
// subagent writes a bad iteration signal (told every broken rule in its own
// turn, it writes it again and passes), claims a check it never ran (told,
// it runs the check and claims again, and passes); the leader's
// Bash-written bad verdict is blocked right after the command; a verifier
// subagent tries to write the worker's claim (refused: not its writer, and
// the first writer's file stays) and writes its verdict; the leader's
// blocked sentinel is kept, a second one by Bash is put back and by Write
// refused. rodin contracts check agrees with the hooks on every file left.
// (An unattended worker's permission dialog: TestUnattendedWorkerPermission.)
func TestRlpDeskCampaign(t *testing.T) { eachRelease(t, testRlpDeskCampaign) }

func testRlpDeskCampaign(t *testing.T, rel claudecli.Release) {
	srv := newServer(t)
	memo := func(s *server, name string) string {
		return filepath.Join(s.vars["project"], ".rlp-desk", "memos", "demo-"+name)
	}
	write := func(name, body string) turn {
		return func(s *server, _ int) []block {
			return []block{tool("Write", map[string]any{"file_path": memo(s, name), "content": body})}
		}
	}
	const claim = `{"slug":"demo","signal_type":"done_claim","us_id":"US-001","claims":["sum works"],"execution_steps":[{"step":1,"ac_id":"AC1","command":"sh check.sh","exit_code":0,"summary":"tests pass"}]}`
	srv.agentTurns = map[string][]turn{
		"worker": {
			write("iter-signal.json", `{"slug":"demo","iteration":0,"us_id":"US-999","status":"done"}`),
			write("iter-signal.json", `{"slug":"demo","iteration":1,"us_id":"US-001","status":"verify"}`),
			write("done-claim.json", claim), // before running the check
			bashStep("sh check.sh"),
			write("done-claim.json", claim),
			say("Claimed US-001."),
		},
		"verifier": {
			write("done-claim.json", `{"slug":"demo","signal_type":"done_claim","execution_steps":[]}`),
			write("verify-verdict.json", `{"slug":"demo","signal_type":"verdict","us_id":"US-001","verdict":"pass"}`),
			say("US-001 passes."),
		},
	}
	agent := func(kind, prompt string) turn {
		return func(*server, int) []block {
			return []block{tool("Agent", map[string]any{"subagent_type": kind, "description": kind, "prompt": prompt, "run_in_background": false})}
		}
	}
	srv.main = []turn{
		agent("worker", "Iterate on US-001."),
		bashStep(`printf '{"verdict":"maybe"}' > .rlp-desk/memos/demo-verify-verdict.json`),
		agent("verifier", "Verify US-001."),
		write("blocked.md", "BLOCKED: US-002\nReason: waiting for a review\n"),
		bashStep(`printf 'BLOCKED: ALL\n' > .rlp-desk/memos/demo-blocked.md`),
		write("blocked.md", "BLOCKED: ALL\n"),
		say("Done."),
	}
	files := deskFiles()
	files[".claude/agents/verifier.md"] = verifierAgent
	files["check.sh"] = "exit 0\n"
	opt := options{mode: "acceptEdits", allow: []string{"Bash"}, files: files, setup: func(s *session, _ []string) {
		srv.mu.Lock()
		srv.vars["project"] = s.project
		srv.mu.Unlock()
	}}
	s, _ := runHeadless(t, rel.Path, srv, opt, "Run one iteration.", 4*time.Minute)

	for _, c := range []struct{ who, what, want string }{
		{"worker", "a bad signal", "breaks the iter-signal contract (.rodin/contracts.json): at iteration: expected >= 1, got 0; at status: expected one of [continue, verify, verify_partial, blocked], got \\\"done\\\"; at us_id: expected one of [US-001, ALL], got \\\"US-999\\\""},
		{"worker", "a claim of a check that never ran", "breaks the done-claim contract (.rodin/contracts.json): at execution_steps[0].command: expected a run of `sh check.sh` from the project root that rodin observed in this session (evidence: observed), got no such run"},
		{"main", "a Bash-written bad verdict", "artifacts break their contracts (.rodin/contracts.json): .rlp-desk/memos/demo-verify-verdict.json (the verdict contract): at (writer): expected verifier, got main (role leader)"},
		{"verifier", "the worker's claim", "breaks the done-claim contract (.rodin/contracts.json): at (writer): expected worker, got verifier (role verifier); at (once): expected the first writer's file to stay, got a second write"},
		{"main", "a second blocked sentinel by Bash", "demo-blocked.md (the blocked contract): at (once): expected the first writer's file to stay, got a second write; rodin put the first back"},
		{"main", "a second blocked sentinel by Write", "breaks the blocked contract (.rodin/contracts.json): at (once): expected the first writer's file to stay, got a second write"},
	} {
		if !srv.told(c.who, c.want) {
			t.Errorf("%s: the %s was not told, in its own turn, %q", c.what, c.who, c.want)
		}
	}

	// The honest run: each file as its rightful writer left it, and
	// rodin contracts check (with the session's runs for the claim)
	// agrees with the hooks on every one.
	snaps, _ := filepath.Glob(filepath.Join(s.home, ".claude", "plugins", "data", "*", "contracts", "*.seen.json"))
	if len(snaps) != 1 {
		t.Fatalf("the session's record of artifacts: %v", snaps)
	}
	session := strings.TrimSuffix(filepath.Base(snaps[0]), ".seen.json")
	for _, f := range []struct{ name, has string }{
		{"iter-signal.json", `"status":"verify"`},
		{"done-claim.json", `"command":"sh check.sh"`},
		{"verify-verdict.json", `"verdict":"pass"`},
		{"blocked.md", "BLOCKED: US-002"},
	} {
		rel := filepath.Join(".rlp-desk", "memos", "demo-"+f.name)
		got, _ := os.ReadFile(filepath.Join(s.project, rel))
		if !strings.Contains(string(got), f.has) {
			t.Errorf("%s at the end: %q, want it to hold %q", rel, got, f.has)
		}
		cmd := exec.Command("sh", filepath.Join(s.plugin, "bin", "rodin"), "contracts", "check", "--session", session, rel)
		cmd.Dir = s.project
		cmd.Env = []string{"HOME=" + s.home, "PATH=" + os.Getenv("PATH")}
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "keeps the ") || strings.Contains(string(out), "not checked") {
			t.Errorf("rodin contracts check --session %s %s: %v %s", session, rel, err, out)
		}
	}
}

// verifierAgent is a project agent, a loop's verifier.
const verifierAgent = "---\nname: verifier\ndescription: Verifies the worker's claim.\ntools: Write, Read, Bash\n---\nYou are the loop's verifier. Check the claim and write the verdict.\n"

// TestTeammateNamedWorker: with agent teams on, a lead names a
// general-purpose teammate "worker"; its calls carry agent_type "worker",
// as a worker subagent's would. Its Write of the worker's signal is refused
// in its own turn as teammate:worker's, while the same Write by a worker
// subagent in the same session passes.
func TestTeammateNamedWorker(t *testing.T) { eachRelease(t, testTeammateNamedWorker) }

func testTeammateNamedWorker(t *testing.T, rel claudecli.Release) {
	srv := newServer(t)
	signal := func(s *server, _ int) []block {
		return []block{tool("Write", map[string]any{"file_path": filepath.Join(s.vars["project"], ".rlp-desk", "memos", "demo-iter-signal.json"),
			"content": `{"slug":"demo","iteration":1,"us_id":"US-001","status":"verify"}`})}
	}
	srv.agentTurns = map[string][]turn{
		"teammate": {signal, say("Tried.")},
		"worker":   {signal, say("Signal written.")},
	}
	srv.main = []turn{
		func(*server, int) []block {
			return []block{tool("Agent", map[string]any{"name": "worker", "description": "iterate", "prompt": "Write the iteration signal."})}
		},
		func(*server, int) []block {
			return []block{tool("Agent", map[string]any{"subagent_type": "worker", "description": "iterate", "prompt": "Write the iteration signal.", "run_in_background": false})}
		},
		say("Done."),
	}
	opt := options{mode: "acceptEdits", env: []string{"CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1"}, files: deskFiles(), setup: func(s *session, _ []string) {
		srv.mu.Lock()
		srv.vars["project"] = s.project
		srv.mu.Unlock()
	}}
	s := startSession(t, rel.Path, srv, opt)
	s.prompt("Run one iteration with a teammate.")
	want := "at (writer): expected worker or leader, got teammate:worker (role unknown)"
	// Both run in the background: wait (two minutes at most) for the
	// teammate to be told and the worker's signal to land.
	var got []byte
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		got, _ = os.ReadFile(filepath.Join(s.project, ".rlp-desk", "memos", "demo-iter-signal.json"))
		if len(got) > 0 && srv.told("teammate", want) {
			break
		}
	}
	if !srv.told("teammate", want) {
		t.Errorf("the teammate named worker was not told, in its own turn, %q\n%s", want, srv.summary())
	}
	if !strings.Contains(string(got), `"status":"verify"`) {
		t.Errorf("the worker subagent's signal: %q", got)
	}
}

// told reports whether a request of that kind of agent carries want: what
// the model was told, in its own turn.
func (s *server) told(kind, want string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.requests {
		if r.Kind == kind && strings.Contains(string(r.Body), want) {
			return true
		}
	}
	return false
}
