package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rodin-gate/rodin/internal/claudecli"
)

// The verify gate in an execution-mode session (acceptEdits, Bash allowed
// by the user's settings), as issue 14 asks:
//  1. ticking a [VERIFY] box before its command ran is denied, and the
//     reason reaches the model as the Edit's error;
//  2. after the command passed, the same tick goes through;
//  3. after a later source edit, ticking another task that needs the same
//     command is denied again (the evidence is stale);
//  4. a box ticked with sed through Bash makes the Stop hook block once:
//     the reason reaches the model, and the next stop goes through with
//     that box unticked in the file;
//  5. V1, justified when it was ticked, stays ticked after the later source
//     edit: a tick is judged once, when it is made (the multi-task day).
func TestVerifyGate(t *testing.T) { eachRelease(t, testVerifyGate) }

const verifyTasks = `# Tasks

- [x] 1.1 Write the parser
- [ ] V1 [VERIFY] Quality check: full test suite
  - **Do**: run the suite, fix what fails
  - **Verify**: ` + "`sh check.sh`" + `
- [ ] V2 [VERIFY] Tests again: sh check.sh
- [ ] V3 [VERIFY] Final check
  - **Verify**: ` + "`sh check.sh`" + `
`

func testVerifyGate(t *testing.T, rel claudecli.Release) {
	srv := newServer(t)
	var project string
	edit := func(file, old, new string) turn {
		return func(*server, int) []block {
			return []block{tool("Edit", map[string]any{"file_path": filepath.Join(project, file), "old_string": old, "new_string": new})}
		}
	}
	bash := func(cmd string) turn {
		return func(*server, int) []block {
			return []block{tool("Bash", map[string]any{"command": cmd, "description": "run " + cmd})}
		}
	}
	srv.main = []turn{
		edit("tasks.md", "- [ ] V1", "- [x] V1"),         // 0: denied, nothing ran
		bash("sh check.sh"),                              // 1: passes
		edit("tasks.md", "- [ ] V1", "- [x] V1"),         // 2: goes through
		edit("src/main.go", "return 1", "return 2"),      // 3: a source edit
		edit("tasks.md", "- [ ] V2", "- [x] V2"),         // 4: denied, stale
		bash(`sed -i 's/- \[ \] V3/- [x] V3/' tasks.md`), // 5: ticked behind the gate's back
		say("All tasks are done."),                       // 6: the stop is blocked
		say("V3 is not verified; I leave that to you."),  // 7: the next stop goes through
	}
	s := startSession(t, rel.Path, srv, options{mode: "acceptEdits", allow: []string{"Bash"}, files: map[string]string{
		"tasks.md":    verifyTasks,
		"check.sh":    "echo checks passed\n",
		"src/main.go": "package main\n\nfunc f() int { return 1 }\n",
	}})
	project = s.project
	s.prompt("Work through tasks.md.")

	first := s.waitResult("Edit", 0)
	if !first.IsError || !strings.Contains(first.Text, "[rodin] This Edit ticks V1 [VERIFY] Quality check before its checks passed") || !strings.Contains(first.Text, "`sh check.sh` (Verify line) has not run in this session") {
		t.Fatalf("ticking V1 before its check ran: is_error=%v %s", first.IsError, first.Text)
	}
	t.Logf("the denied tick, as the model saw it: %s", first.Text)
	if run := s.waitResult("Bash", 0); run.IsError {
		t.Fatalf("sh check.sh failed: %s", run.Text)
	}
	if second := s.waitResult("Edit", 1); second.IsError {
		t.Fatalf("ticking V1 after its check passed was refused: %s", second.Text)
	}
	if src := s.waitResult("Edit", 2); src.IsError {
		t.Fatalf("the source edit failed: %s", src.Text)
	}
	stale := s.waitResult("Edit", 3)
	if !stale.IsError || !strings.Contains(stale.Text, "`sh check.sh` (title text) passed at") || !strings.Contains(stale.Text, "src/main.go changed after it") {
		t.Fatalf("ticking V2 after a source edit: is_error=%v %s", stale.IsError, stale.Text)
	}
	t.Logf("the stale tick, as the model saw it: %s", stale.Text)
	s.waitStep(7)
	// V1 was justified when it was ticked: the source edit after it (the
	// next phase) does not make it wrong. Only V3, ticked by sed without
	// its checks passing for the code as it stood then, is named.
	reason := "[rodin] V3 [VERIFY] Final check is checked without passing checks for the code as it stands."
	var seen string
	for _, r := range srv.mainRequests() {
		if i := strings.Index(string(r), reason); i >= 0 {
			seen = string(r[i:min(len(r), i+600)])
		}
	}
	if seen == "" {
		t.Fatalf("no request to the model carries the Stop hook's reason %q", reason)
	}
	t.Logf("the Stop hook's block, as the model saw it: %s", seen)
	// Once in a row: after step 7 the session stops; no step 8 is asked for.
	time.Sleep(2 * time.Second)
	if n := srv.stepsAnswered(); n != 8 {
		t.Fatalf("the model was asked for %d steps, want 8 (the Stop hook blocked more than once?)", n)
	}
	// The stop it let through unticked V3 (ticked by sed without its
	// checks) and left V1, justified when ticked: boxes ticked without
	// their checks do not outlive the session, and verified ones stay.
	tasks, _ := os.ReadFile(filepath.Join(project, "tasks.md"))
	for _, want := range []string{"- [x] 1.1", "- [x] V1", "- [ ] V2", "- [ ] V3"} {
		if !strings.Contains(string(tasks), want) {
			t.Fatalf("tasks.md after the session lacks %q:\n%s", want, tasks)
		}
	}
}
