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
		".rodin/contracts.json":       contracts.Templates["rlp-desk"],
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

// TestWorkerBadSignal: a worker subagent writes a bad iteration signal and
// is told in its own turn what is wrong; it writes it again, right, and
// passes; a Bash-written bad verdict by the leader is blocked right after
// the command.
func TestWorkerBadSignal(t *testing.T) { eachRelease(t, testWorkerBadSignal) }

func testWorkerBadSignal(t *testing.T, rel claudecli.Release) {
	srv := newServer(t)
	signal := func(body string) turn {
		return func(s *server, _ int) []block {
			return []block{tool("Write", map[string]any{"file_path": filepath.Join(s.vars["project"], ".rlp-desk", "memos", "demo-iter-signal.json"), "content": body})}
		}
	}
	srv.agentTurns = map[string][]turn{"worker": {
		signal(`{"slug":"demo","iteration":0,"us_id":"US-999","status":"done"}`),
		signal(`{"slug":"demo","iteration":1,"us_id":"US-001","status":"verify"}`),
		say("Signal written."),
	}}
	srv.main = []turn{
		func(*server, int) []block {
			return []block{tool("Agent", map[string]any{"subagent_type": "worker", "description": "iterate", "prompt": "Write the iteration signal.", "run_in_background": false})}
		},
		bashStep(`printf '{"verdict":"maybe"}' > .rlp-desk/memos/demo-verify-verdict.json`),
		say("Done."),
	}
	opt := options{mode: "acceptEdits", allow: []string{"Bash"}, files: deskFiles(), setup: func(s *session, _ []string) {
		srv.mu.Lock()
		srv.vars["project"] = s.project
		srv.mu.Unlock()
	}}
	s, _ := runHeadless(t, rel.Path, srv, opt, "Run one iteration.", 3*time.Minute)
	want := "breaks the iter-signal contract (.rodin/contracts.json): at iteration: expected >= 1, got 0; at status: expected one of [continue, verify, verify_partial, blocked], got \\\"done\\\"; at us_id: expected one of [US-001, ALL], got \\\"US-999\\\""
	if !srv.told("worker", want) {
		t.Errorf("the worker was not told, in its turn, %q", want)
	}
	got, _ := os.ReadFile(filepath.Join(s.project, ".rlp-desk", "memos", "demo-iter-signal.json"))
	if !strings.Contains(string(got), `"status":"verify"`) {
		t.Errorf("the signal after the worker's second Write: %q", got)
	}
	bash, ok := srv.result("Bash", 0)
	blocked := srv.told("main", "left artifacts that break their contracts (.rodin/contracts.json): .rlp-desk/memos/demo-verify-verdict.json (the verdict contract): at (writer): expected verifier, got main (role leader)")
	if !ok || !blocked {
		t.Errorf("the leader's Bash-written verdict: result %v %q; blocked in the leader's turn: %v", ok, bash.Text, blocked)
	}
	cmd := exec.Command("sh", filepath.Join(s.plugin, "bin", "rodin"), "contracts", "check", ".rlp-desk/memos/demo-iter-signal.json")
	cmd.Dir = s.project
	cmd.Env = []string{"HOME=" + s.home, "PATH=" + os.Getenv("PATH")}
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "keeps the iter-signal contract") {
		t.Errorf("rodin contracts check of the final signal: %v %s", err, out)
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
