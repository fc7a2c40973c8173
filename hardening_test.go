package rodin_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rodin-gate/rodin/pkg/contracts"
	"github.com/rodin-gate/rodin/pkg/planfile"
)

// hook runs this test binary as one of the commands TestMain registers.
// These tests are about writes, so verdict signals need no provenance.
func hook(t *testing.T, name, home string, stdin []byte, extraEnv ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{Path: self, Args: []string{name}}
	cmd.Env = append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "RODIN_NOW=2026-11-21T12:00:00Z", "RODIN_PROVENANCE=off"}, extraEnv...)
	cmd.Stdin = bytes.NewReader(stdin)
	return cmd
}

const concurrentPlan = "# Plan\n\n## Goals\n- ship\n\n<!-- rodin:gaps:start -->\n### GAP-1: Rollback\n- **Severity**: low\n- **Description**: d\n<!-- rodin:gaps:end -->\n"

func planHome(t *testing.T, text string) (home, plan string) {
	home = t.TempDir()
	dir := filepath.Join(home, ".claude", "plans")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	plan = filepath.Join(dir, "p.md")
	if err := os.WriteFile(plan, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return home, plan
}

func editInput(tool, plan string) []byte {
	return []byte(fmt.Sprintf(`{"session_id":"s-1","cwd":"/","permission_mode":"plan","hook_event_name":"PostToolUse","tool_name":%q,"tool_input":{"file_path":%q}}`, tool, plan))
}

func leftovers(t *testing.T, plan string) []string {
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(plan), ".*.tmp"))
	return m
}

// 32 PostToolUse processes at once on one plan, Write and Edit inputs
// mixed, with a verdict signal waiting: one session marker, one validation
// line, the signal consumed, plan and gaps content intact, one writer, no
// temporary files left. Repeated, because races are rare.
func TestConcurrentPostToolUse(t *testing.T) {
	const trials, procs = 20, 32
	for trial := 0; trial < trials; trial++ {
		home, plan := planHome(t, concurrentPlan+"\n<!-- rodin:verdict:signal={\"status\":\"pass\",\"reason\":\"ok\"} -->\n")
		before := planfile.Parse([]byte(concurrentPlan))
		var wg sync.WaitGroup
		outs := make([]string, procs)
		for i := 0; i < procs; i++ {
			tool := []string{"Write", "Edit", "MultiEdit"}[i%3]
			cmd := hook(t, "posttooluse", home, editInput(tool, plan))
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				out, err := cmd.Output()
				if err != nil {
					t.Errorf("trial %d process %d: %v", trial, i, err)
				}
				outs[i] = string(out)
			}(i)
		}
		wg.Wait()
		data, _ := os.ReadFile(plan)
		text := string(data)
		d := planfile.Parse(data)
		writers := 0
		for _, o := range outs {
			if strings.Contains(o, "Updated the metadata") {
				writers++
			}
		}
		switch {
		case d.Malformed():
			t.Fatalf("trial %d: malformed: %v\n%s", trial, d.Problems(), text)
		case strings.Count(text, "rodin:session=") != 1 || strings.Count(text, "rodin:validation=") != 1:
			t.Fatalf("trial %d: want one session and one validation line:\n%s", trial, text)
		case strings.Contains(text, "verdict:signal"):
			t.Fatalf("trial %d: the signal was not consumed:\n%s", trial, text)
		case !strings.Contains(d.Trailer().Validation, `"status":"pass"`):
			t.Fatalf("trial %d: the pass was not recorded:\n%s", trial, text)
		case d.PlanDigest() != before.PlanDigest() || d.GapsDigest() != before.GapsDigest():
			t.Fatalf("trial %d: plan or gaps content changed:\n%s", trial, text)
		case writers != 1:
			t.Fatalf("trial %d: %d processes wrote, want exactly 1", trial, writers)
		case len(leftovers(t, plan)) > 0:
			t.Fatalf("trial %d: temporary files left: %v", trial, leftovers(t, plan))
		}
	}
	t.Logf("%d trials of %d concurrent PostToolUse processes", trials, procs)
}

// A PostToolUse process killed in the middle of its write (after half the
// data, or after the flush just before the rename) leaves the plan exactly
// as it was; the next run writes the new version and removes the leftover.
func TestCrashMidWrite(t *testing.T) {
	const trials = 10
	for _, point := range []string{"mid-write", "before-rename"} {
		for trial := 0; trial < trials; trial++ {
			old := concurrentPlan + "\n<!-- rodin:verdict:signal={\"status\":\"fail\",\"reason\":\"r\"} -->\n"
			home, plan := planHome(t, old)
			ready := filepath.Join(home, "ready")
			cmd := hook(t, "posttooluse-crash-"+point, home, editInput("Edit", plan), "RODIN_CRASH_READY="+ready)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(20 * time.Second)
			for {
				if _, err := os.Stat(ready); err == nil {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("%s: the process never reached the crash point", point)
				}
				time.Sleep(5 * time.Millisecond)
			}
			// Paused at the crash point: readers see the old file, whole.
			if data, _ := os.ReadFile(plan); string(data) != old {
				t.Fatalf("%s: while paused the plan is not the old version:\n%s", point, data)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			if data, _ := os.ReadFile(plan); string(data) != old {
				t.Fatalf("%s: after the kill the plan is not exactly the old version:\n%s", point, data)
			}
			if len(leftovers(t, plan)) != 1 {
				t.Fatalf("%s: want the killed writer's temporary file, found %v", point, leftovers(t, plan))
			}
			// The next run: the new version, and the leftover gone.
			out, err := hook(t, "posttooluse", home, editInput("Edit", plan)).Output()
			if err != nil || !strings.Contains(string(out), "validation: fail recorded") {
				t.Fatalf("%s: the run after the crash: %v %s", point, err, out)
			}
			if d := planfile.Parse(mustRead(t, plan)); d.Malformed() || !strings.Contains(d.Trailer().Validation, `"status":"fail"`) {
				t.Fatalf("%s: the run after the crash did not record the verdict", point)
			}
			if l := leftovers(t, plan); len(l) != 0 {
				t.Fatalf("%s: leftovers after the next write: %v", point, l)
			}
		}
	}
	t.Logf("%d crash trials at each of 2 points", trials)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// 20 PreToolUse processes at once, each a different worker run writing
// the same first-writer sentinel: exactly one is let through, the other 19
// denied naming the once rule. Repeated, because races are rare.
func TestFirstWriterRaceProcesses(t *testing.T) {
	const trials, procs = 10, 20
	const session = "b89c8bbf-0567-4b71-9765-23162d176ca0"
	for trial := 0; trial < trials; trial++ {
		home, root, data := t.TempDir(), t.TempDir(), t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, ".rodin"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, contracts.File), []byte(contracts.RLPDesk), 0o644); err != nil {
			t.Fatal(err)
		}
		env := []string{"CLAUDE_PLUGIN_DATA=" + data, "CLAUDE_PROJECT_DIR=" + root}
		start := hook(t, "rodin", home, fmt.Appendf(nil, `{"session_id":%q,"cwd":%q,"hook_event_name":"SessionStart","source":"startup"}`, session, root), env...)
		start.Args = append(start.Args, "setup")
		if out, err := start.CombinedOutput(); err != nil {
			t.Fatalf("rodin setup: %v\n%s", err, out)
		}
		sentinel := filepath.Join(root, ".rlp-desk", "memos", "race-blocked.md")
		var wg sync.WaitGroup
		codes := make([]int, procs)
		outs := make([]string, procs)
		for i := 0; i < procs; i++ {
			cmd := hook(t, "pretooluse", home, fmt.Appendf(nil, `{"session_id":%q,"cwd":%q,"agent_id":"w%d","agent_type":"worker","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":%q,"content":"BLOCKED: ALL\n"}}`, session, root, i, sentinel), env...)
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				out, err := cmd.Output()
				outs[i] = string(out)
				var exit *exec.ExitError
				if errors.As(err, &exit) {
					codes[i] = exit.ExitCode()
				} else if err != nil {
					t.Errorf("trial %d process %d: %v", trial, i, err)
				}
			}(i)
		}
		wg.Wait()
		through, denied := 0, 0
		for i, c := range codes {
			switch {
			case c == 0 && outs[i] == "":
				through++
			case c == 2 && strings.Contains(outs[i], "at (once): expected the first writer's file to stay, got a write after another writer claimed it"):
				denied++
			default:
				t.Fatalf("trial %d process %d: exit %d %s", trial, i, c, outs[i])
			}
		}
		if through != 1 || denied != procs-1 {
			t.Fatalf("trial %d: %d let through, %d denied; want exactly one through", trial, through, denied)
		}
	}
	t.Logf("%d trials of %d concurrent PreToolUse processes racing for one first-writer file: one through each time", trials, procs)
}
