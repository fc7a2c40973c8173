package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/sjson"

	"github.com/rodin-gate/rodin/internal/claudecli"
)

// captureEvents are the hook events the writer captures listen to.
var captureEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
	"PermissionRequest", "Notification", "SubagentStart", "SubagentStop", "Stop", "TaskCompleted", "TeammateIdle"}

// workerAgent is a project agent, a loop's worker that writes an iteration
// signal.
const workerAgent = "---\nname: worker\ndescription: Writes the loop's iteration signal.\ntools: Write, Read, Bash\n---\nYou are the loop's worker. Write the iteration signal when told.\n"

// TestCaptureWriters records what hook inputs say about who writes a file
// (for artifact contracts, CONTRACTS-SPEC.md), on each release tested, into
// $RODIN_CAPTURE/claude-code-<version>/writers-<case>/: every event a
// settings hook on each event saw, named as TestCapture names them. The
// cases: a subagent's Write (acceptEdits), a session started with `claude
// --agent worker` (acceptEdits), and that session in the default mode in
// `claude -p`, where its Write needs a permission nobody can give (an
// unattended worker). Run by `just capture`.
func TestCaptureWriters(t *testing.T) {
	eachCapture(t, func(t *testing.T, rel claudecli.Release, out string) {
		for _, c := range []struct {
			name, mode string
			args       []string
			main       []turn
		}{
			{"subagent", "acceptEdits", nil, []turn{
				func(*server, int) []block {
					return []block{tool("Agent", map[string]any{"subagent_type": "worker", "description": "iterate", "prompt": "Write the iteration signal.", "run_in_background": false})}
				},
				say("The worker wrote it."),
			}},
			{"agent-session", "acceptEdits", []string{"--agent", "worker"}, nil},
			{"unattended", "default", []string{"--agent", "worker"}, nil},
		} {
			t.Run(c.name, func(t *testing.T) {
				raw := t.TempDir()
				srv := newServer(t)
				srv.main = c.main
				srv.agentTurns = map[string][]turn{"worker": {
					func(s *server, _ int) []block {
						return []block{tool("Write", map[string]any{"file_path": filepath.Join(s.vars["project"], ".rlp-desk", "memos", "demo-iter-signal.json"),
							"content": `{"slug":"demo","signal_type":"signal","iteration":1,"status":"continue","us_id":"ALL"}` + "\n"})}
					},
					say("Written."),
				}}
				var top string
				opt := options{mode: c.mode, args: c.args, files: map[string]string{".claude/agents/worker.md": workerAgent}, setup: func(s *session, env []string) {
					top = filepath.Dir(s.home)
					srv.mu.Lock()
					srv.vars["project"] = s.project
					srv.mu.Unlock()
					settings := filepath.Join(s.home, ".claude", "settings.json")
					b, err := os.ReadFile(settings)
					if err != nil {
						t.Fatal(err)
					}
					dump := `cat > "` + raw + `/$(date +%s%N)-$$.json"`
					for _, event := range captureEvents {
						b, _ = sjson.SetBytes(b, "hooks."+event, []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": dump}}}})
					}
					writeFile(t, settings, string(b))
				}}
				_, stdout := runHeadless(t, rel.Path, srv, opt, "Write the iteration signal.", 2*time.Minute)
				t.Logf("claude -p printed: %q", stdout)
				dir := filepath.Join(out, "claude-code-"+rel.Version, "writers-"+c.name)
				if err := writeCapture(raw, dir, top); err != nil {
					t.Fatal(err)
				}
				names, _ := filepath.Glob(filepath.Join(dir, "*.json"))
				var got []string
				for _, n := range names {
					got = append(got, strings.TrimSuffix(filepath.Base(n), ".json"))
				}
				t.Logf("captured into %s: %s", dir, strings.Join(got, " "))
			})
		}
	})
}
