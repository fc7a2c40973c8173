package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/internal/claudecli"
	"github.com/rodin-gate/rodin/internal/release"
)

// 9. `rodin install` in a checkout copies the plugin and its executables
// to ~/.local/share/rodin and registers that copy with the real Claude
// Code; the checkout then moves away. Claude Code still loads rodin (`claude
// plugin list`), a `claude -p` session's tick of a [VERIFY] task is denied
// by the verify gate (-p has no ExitPlanMode), and `rodin doctor` in a terminal says Claude Code loads it. The install
// runs without Go (the executables at hand are copied), as a user's would
// after the no-Go command.
func TestInstallSurvivesMove(t *testing.T) { eachRelease(t, testInstallSurvivesMove) }

func testInstallSurvivesMove(t *testing.T, rel claudecli.Release) {
	srv := newServer(t)
	srv.main = []turn{
		func(s *server, _ int) []block {
			return []block{tool("Edit", map[string]any{"file_path": filepath.Join(s.vars["project"], "tasks.md"), "old_string": "- [ ] V1", "new_string": "- [x] V1"})}
		},
		say("The tick was denied."),
	}
	var checkout, tools string
	var run func(name string, args ...string) (string, error)
	opt := options{installed: true, mode: "acceptEdits", files: map[string]string{
		"tasks.md": "# Tasks\n\n- [ ] V1 [VERIFY] Quality check\n  - **Verify**: `sh check.sh`\n",
		"check.sh": "exit 1\n",
	}, setup: func(s *session, env []string) {
		srv.mu.Lock()
		srv.vars["project"] = s.project
		srv.mu.Unlock()
		checkout = filepath.Join(filepath.Dir(s.plugin), "checkout")
		if err := os.MkdirAll(filepath.Join(checkout, ".claude-plugin"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(checkout, "go.mod"), "module github.com/rodin-gate/rodin\n\ngo 1.24\n")
		mkt, err := os.ReadFile(filepath.Join("..", ".claude-plugin", "marketplace.json"))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(checkout, ".claude-plugin", "marketplace.json"), string(mkt))
		if err := release.CopyTree(s.plugin, filepath.Join(checkout, "plugin")); err != nil {
			t.Fatal(err)
		}
		tools = toolsWithoutGo(t)
		if err := os.Symlink(rel.Path, filepath.Join(tools, "claude")); err != nil {
			t.Fatal(err)
		}
		run = func(name string, args ...string) (string, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, name, args...)
			cmd.Dir = s.home
			cmd.Env = append(append([]string{}, env...), "PATH="+tools)
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("%s %v: no answer within 2 minutes\n%s", name, args, out)
			}
			return string(out), err
		}
		rodin := filepath.Join(builtExecutables(t), release.BinaryName("rodin", runtime.GOOS, runtime.GOARCH))
		cmd := exec.Command(rodin, "install")
		cmd.Dir = checkout
		cmd.Env = append(append([]string{}, env...), "PATH="+tools)
		out, err := cmd.CombinedOutput() // bounded: its claude calls time out after 2 minutes
		t.Logf("rodin install:\n%s", out)
		if err != nil || !strings.Contains(string(out), "registered: rodin@rodin") {
			t.Fatalf("rodin install: %v\n%s", err, out)
		}
		if err := os.Rename(checkout, checkout+"-moved"); err != nil {
			t.Fatal(err)
		}
	}}
	s, _ := runHeadless(t, rel.Path, srv, opt, "Tick V1 in tasks.md.", 3*time.Minute)
	installed := filepath.Join(s.home, ".local", "share", "rodin", "plugin")

	out, err := run(filepath.Join(tools, "claude"), "plugin", "list", "--json")
	var entry gjson.Result
	for _, p := range gjson.Parse(out).Array() {
		if p.Get("id").String() == "rodin@rodin" {
			entry = p
		}
	}
	if err != nil || !entry.Get("enabled").Bool() || len(entry.Get("errors").Array()) > 0 {
		t.Fatalf("claude plugin list --json after the checkout moved: %v\n%s", err, out)
	}
	if from := entry.Get("readFromFolder").String(); from != "" && from != installed {
		t.Errorf("Claude Code reads rodin from %s, want %s", from, installed)
	}

	edit, ok := srv.result("Edit", 0)
	if !ok || !edit.IsError || !strings.Contains(edit.Text, "[rodin] ") {
		t.Fatalf("a tick in a session of the installed plugin (the verify gate should deny it): found=%v is_error=%v %s\n%s", ok, edit.IsError, edit.Text, srv.summary())
	}
	t.Logf("the tick's result: %s", edit.Text)

	doctor, err := run(filepath.Join(s.home, ".local", "bin", "rodin"), "doctor", "-v")
	if err != nil || !strings.Contains(doctor, "ok   Claude Code loads rodin@rodin (user scope) from "+installed) ||
		!strings.Contains(doctor, "rodin-rodin/bin/pretooluse is ready") {
		t.Errorf("rodin doctor after the checkout moved: %v\n%s", err, doctor)
	}
	t.Logf("rodin doctor:\n%s", doctor)
}
