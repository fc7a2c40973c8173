package rodin_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/route"
)

// The hook inputs the E2E tier captured from each pinned Claude Code
// release (testdata/fixtures/claude-code-<v>, `just capture`) are fed to
// the hooks again, in the order Claude Code sent them, with each tool's
// effect on the plan file applied first: the honest /rodin:plan-gate run,
// background subagents included, must end in the gate's no decision on
// every release, exactly as in the session.
func TestReplayCapturedSessions(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "fixtures", "claude-code-*"))
	replayed := 0
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "[0-9][0-9]-*.json"))
		if len(files) == 0 {
			continue // a hand-made set (2.1.197), not a captured session
		}
		sort.Strings(files)
		replayed++
		t.Run(filepath.Base(dir), func(t *testing.T) { replay(t, files) })
	}
	if replayed < 2 {
		t.Fatalf("captured sessions of %d releases, want the current and the oldest supported", replayed)
	}
}

func replay(t *testing.T, files []string) {
	planfile.SetSealKey([]byte(testSealKey))
	defer planfile.SetSealKey(nil)
	root := t.TempDir()
	for _, d := range []string{".claude/plans", "project"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	env := map[string]string{"HOME": root, "CLAUDE_PLUGIN_DATA": filepath.Join(root, "data"), "RODIN_NOW": "2026-11-21T12:00:00Z"}
	getenv := func(k string) string { return env[k] }
	fix := strings.NewReplacer("/home/user", root)

	var last hookio.PreOutcome
	var contexts []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		raw := []byte(fix.Replace(string(b)))
		in := hookio.NewInput(raw)
		name := filepath.Base(f)
		switch gjson.GetBytes(raw, "hook_event_name").String() + " " + gjson.GetBytes(raw, "tool_name").String() {
		case "PostToolUse Write":
			path := gjson.GetBytes(raw, "tool_input.file_path").String()
			if err := os.WriteFile(path, []byte(gjson.GetBytes(raw, "tool_input.content").String()), 0o644); err != nil {
				t.Fatal(err)
			}
		case "PostToolUse Edit":
			path := gjson.GetBytes(raw, "tool_input.file_path").String()
			old, _ := os.ReadFile(path)
			from, to := gjson.GetBytes(raw, "tool_input.old_string").String(), gjson.GetBytes(raw, "tool_input.new_string").String()
			if !strings.Contains(string(old), from) {
				t.Fatalf("%s: the plan as replayed does not hold the edit's old_string %q:\n%s", name, from, old)
			}
			os.WriteFile(path, []byte(strings.Replace(string(old), from, to, 1)), 0o644)
		case "PreToolUse ExitPlanMode":
			last = route.Pre(in, getenv)
			continue
		case "PreToolUse Read", "PreToolUse Write", "PreToolUse Edit":
			if out := route.Pre(in, getenv); out.Deny {
				t.Errorf("%s: denied: %s", name, out.Reason)
			}
			continue
		}
		out := route.Post(in, getenv)
		if out.SystemMessage != "" {
			t.Errorf("%s: the user was told: %s", name, out.SystemMessage)
		}
		contexts = append(contexts, out.Context)
	}
	joined := strings.Join(contexts, "\n")
	for _, want := range []string{"started in the background", "Recorded the verdict at the end of "} {
		if !strings.Contains(joined, want) {
			t.Errorf("no hook said %q; they said:\n%s", want, joined)
		}
	}
	if last.Deny || last.SystemMessage != "" {
		t.Errorf("ExitPlanMode at the end of the captured session: %+v, want no decision", last)
	}
}
