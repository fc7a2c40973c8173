package rodin_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/internal/claudecli"
	"github.com/rodin-gate/rodin/internal/release"
	"github.com/rodin-gate/rodin/pkg/cli"
)

func runClaude(t *testing.T, home, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(claudecli.Path(t), args...)
	cmd.Dir = dir
	cmd.Env = claudecli.Env(home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// The plugin and the marketplace pass Claude Code's own offline validator,
// without a single warning.
func TestPluginValidates(t *testing.T) {
	home := t.TempDir()
	for _, dir := range []string{"plugin", "."} {
		abs, _ := filepath.Abs(dir)
		out := runClaude(t, home, t.TempDir(), "plugin", "validate", abs)
		if !strings.Contains(out, "Validation passed") {
			t.Errorf("claude plugin validate %s:\n%s", dir, out)
		}
		if strings.Contains(strings.ToLower(out), "warning") || strings.Contains(out, "⚠") {
			t.Errorf("claude plugin validate %s has warnings:\n%s", dir, out)
		}
	}
}

// Installed from a local marketplace with the real CLI, into a throwaway
// HOME, the plugin's hooks.json resolves to the launcher, and running the
// installed commands as Claude Code would gives the gate's deny and the
// keeper's silence.
func TestPluginInstallsFromLocalMarketplace(t *testing.T) {
	home := t.TempDir()
	market := t.TempDir()
	if err := os.MkdirAll(filepath.Join(market, ".claude-plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(filepath.Join(".claude-plugin", "marketplace.json"), filepath.Join(market, ".claude-plugin", "marketplace.json")); err != nil {
		t.Fatal(err)
	}
	if err := assemblePlugin(filepath.Join(market, "plugin"), true); err != nil {
		t.Fatal(err)
	}
	runClaude(t, home, market, "plugin", "marketplace", "add", market)
	runClaude(t, home, market, "plugin", "install", "rodin@rodin")

	installed, err := os.ReadFile(filepath.Join(home, ".claude", "plugins", "installed_plugins.json"))
	if err != nil {
		t.Fatal(err)
	}
	root := gjson.GetBytes(installed, `plugins.rodin@rodin.0.installPath`).String()
	if root == "" || !strings.HasPrefix(root, home) {
		t.Fatalf("rodin@rodin not installed under %s:\n%s", home, installed)
	}
	hooks, err := os.ReadFile(filepath.Join(root, "hooks", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ event, matcher, kind string }{
		{"PreToolUse", "ExitPlanMode", "pretooluse"},
		{"PostToolUse", "Write|Edit|MultiEdit|Agent|Task", "posttooluse"},
	} {
		entry := gjson.GetBytes(hooks, "hooks."+c.event+".0")
		if got := entry.Get("matcher").String(); got != c.matcher {
			t.Errorf("%s matcher = %q, want %q", c.event, got, c.matcher)
		}
		command := entry.Get("hooks.0.command").String()
		if want := `sh "${CLAUDE_PLUGIN_ROOT}/bin/rodin" hook ` + c.kind; command != want {
			t.Errorf("%s command = %q, want %q", c.event, command, want)
		}
		launcher := filepath.Join(root, "bin", "rodin")
		if _, err := os.Stat(launcher); err != nil {
			t.Errorf("%s resolves to %s: %v", c.event, launcher, err)
		}
		if _, err := os.Stat(filepath.Join(root, "libexec", release.BinaryName(c.kind, runtime.GOOS, runtime.GOARCH))); err != nil {
			t.Errorf("the install did not carry the %s executable: %v", c.kind, err)
		}
	}

	// Run the installed commands the way Claude Code does.
	run := func(event string, input map[string]any) (string, string, int) {
		command := gjson.GetBytes(hooks, "hooks."+event+".0.hooks.0.command").String()
		cmd := exec.Command("sh", "-c", command)
		cmd.Env = append(claudecli.Env(home), "CLAUDE_PLUGIN_ROOT="+root, "CLAUDE_PLUGIN_DATA="+filepath.Join(home, "data"))
		b, _ := json.Marshal(input)
		cmd.Stdin = bytes.NewReader(b)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String(), code
	}
	stdout, stderr, code := run("PreToolUse", map[string]any{"session_id": "s-1", "cwd": home, "tool_name": "ExitPlanMode", "tool_input": map[string]any{}})
	if code != 2 || !strings.Contains(stdout, `"permissionDecision":"deny"`) || !strings.HasPrefix(stderr, "[rodin] No assessment found for this session") {
		t.Errorf("installed PreToolUse: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	stdout, stderr, code = run("PostToolUse", map[string]any{"session_id": "s-1", "cwd": home, "permission_mode": "default", "tool_name": "Edit", "tool_input": map[string]any{"file_path": "/tmp/x.go"}})
	if code != 0 || stdout != "" || stderr != "" {
		t.Errorf("installed PostToolUse: exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
	}
}

// The manifest, the marketplace entry and the rodin command agree on the
// version.
func TestVersionsAgree(t *testing.T) {
	for _, f := range []struct{ file, path string }{
		{"plugin/.claude-plugin/plugin.json", "version"},
		{".claude-plugin/marketplace.json", "plugins.0.version"},
	} {
		b, err := os.ReadFile(f.file)
		if err != nil {
			t.Fatal(err)
		}
		if got := gjson.GetBytes(b, f.path).String(); got != cli.Version {
			t.Errorf("%s %s = %q, rodin says %q", f.file, f.path, got, cli.Version)
		}
	}
}
