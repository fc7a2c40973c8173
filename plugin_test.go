package rodin_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/internal/claudecli"
	"github.com/rodin-gate/rodin/internal/release"
	"github.com/rodin-gate/rodin/pkg/cli"
	"github.com/rodin-gate/rodin/pkg/provenance"
)

func runClaude(t *testing.T, claude, home, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(claude, args...)
	cmd.Dir = dir
	cmd.Env = claudecli.Env(home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// forEachRelease runs test once for each Claude Code release tested
// (claudecli.Releases), as a subtest named by the version.
func forEachRelease(t *testing.T, test func(t *testing.T, claude string)) {
	for _, r := range claudecli.Releases(t) {
		name := r.Version
		if name == "" {
			name = "RODIN_CLAUDE"
		}
		t.Run(name, func(t *testing.T) { test(t, r.Path) })
	}
}

// The plugin and the marketplace pass Claude Code's own offline validator,
// without a single warning, on every release tested.
// Releases before the current one do not know the fields it added and warn
// that they ignore them: that is all they may say.
func TestPluginValidates(t *testing.T) {
	for _, r := range claudecli.Releases(t) {
		t.Run(r.Version, func(t *testing.T) { testPluginValidates(t, r.Path, r.Version != claudecli.Current) })
	}
}

// newerFields are the plugin.json fields that releases before 2.1.32x do
// not know (and ignore at load time, as their validator says).
var newerFields = regexp.MustCompile(`^\s*❯ (plugins\[0\] plugin\.json → )?(engines|network|icon): Unknown field '(engines|network|icon)'`)

func testPluginValidates(t *testing.T, claude string, older bool) {
	home := t.TempDir()
	for _, dir := range []string{"plugin", "."} {
		abs, _ := filepath.Abs(dir)
		out := runClaude(t, claude, home, t.TempDir(), "plugin", "validate", abs)
		if !strings.Contains(out, "Validation passed") {
			t.Errorf("claude plugin validate %s:\n%s", dir, out)
		}
		for _, line := range strings.Split(out, "\n") {
			if older && (newerFields.MatchString(line) || strings.Contains(line, "Found") && strings.Contains(line, "warning") || strings.Contains(line, "passed with warnings")) {
				continue
			}
			if strings.Contains(strings.ToLower(line), "warning") || strings.Contains(line, "⚠") || strings.Contains(line, "❯ ") && strings.Contains(line, "Unknown") {
				t.Errorf("claude plugin validate %s warns: %s\n%s", dir, line, out)
				break
			}
		}
	}
}

// Installed from a local marketplace with the real CLI, into a throwaway
// HOME, the plugin's hooks.json prepares the executables at SessionStart
// through the launcher and starts the hooks directly; running the
// installed commands as Claude Code would gives the gate's deny and the
// keeper's silence.
func TestPluginInstallsFromLocalMarketplace(t *testing.T) {
	forEachRelease(t, testPluginInstallsFromLocalMarketplace)
}

func testPluginInstallsFromLocalMarketplace(t *testing.T, claude string) {
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
	runClaude(t, claude, home, market, "plugin", "marketplace", "add", market)
	runClaude(t, claude, home, market, "plugin", "install", "rodin@rodin")

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
	for _, name := range []string{"pretooluse", "posttooluse", "stop", "rodin"} {
		if _, err := os.Stat(filepath.Join(root, "libexec", release.BinaryName(name, runtime.GOOS, runtime.GOARCH))); err != nil {
			t.Errorf("the install did not carry the %s executable: %v", name, err)
		}
	}

	// Run the installed commands the way Claude Code does: placeholders
	// filled in, exec form without a shell, shell form through one.
	data := filepath.Join(home, "data")
	run := func(path string, input map[string]any) (string, string, int) {
		h := gjson.GetBytes(hooks, path)
		if !h.Exists() {
			t.Fatalf("hooks.json has no %s", path)
		}
		fill := strings.NewReplacer("${CLAUDE_PLUGIN_ROOT}", root, "${CLAUDE_PLUGIN_DATA}", data).Replace
		var cmd *exec.Cmd
		if h.Get("args").IsArray() {
			var args []string
			for _, a := range h.Get("args").Array() {
				args = append(args, fill(a.String()))
			}
			cmd = exec.Command(fill(h.Get("command").String()), args...)
		} else {
			cmd = exec.Command("sh", "-c", h.Get("command").String())
		}
		cmd.Env = append(claudecli.Env(home), "CLAUDE_PLUGIN_ROOT="+root, "CLAUDE_PLUGIN_DATA="+data)
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
	stdout, stderr, code := run("hooks.SessionStart.0.hooks.0", map[string]any{"session_id": "s-1", "cwd": home, "hook_event_name": "SessionStart", "source": "startup"})
	if code != 0 || stdout != "" || stderr != "" {
		t.Fatalf("installed SessionStart: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	stdout, stderr, code = run(`hooks.PreToolUse.#(matcher=="ExitPlanMode").hooks.0`, map[string]any{"session_id": "s-1", "cwd": home, "tool_name": "ExitPlanMode", "tool_input": map[string]any{}})
	if code != 2 || !strings.Contains(stdout, `"permissionDecision":"deny"`) || !strings.HasPrefix(stderr, "[rodin] No assessment found for this session") {
		t.Errorf("installed PreToolUse: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	stdout, stderr, code = run(`hooks.PostToolUse.#(matcher=="Edit").hooks.0`, map[string]any{"session_id": "s-1", "cwd": home, "permission_mode": "default", "tool_name": "Edit", "tool_input": map[string]any{"file_path": "/tmp/x.md"}})
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

// TestAgentModelsAgree: the model family the plan gate expects a critic or
// validator run to resolve to is the one its agent file names.
func TestAgentModelsAgree(t *testing.T) {
	for _, agent := range []string{provenance.CriticAgent, provenance.ValidatorAgent} {
		want := provenance.AgentModel(agent)
		b, err := os.ReadFile(filepath.Join("plugin", "agents", strings.TrimPrefix(agent, "rodin:")+".md"))
		if err != nil {
			t.Fatal(err)
		}
		front, _, _ := strings.Cut(strings.TrimPrefix(string(b), "---\n"), "\n---")
		got := ""
		for _, l := range strings.Split(front, "\n") {
			if v, ok := strings.CutPrefix(l, "model:"); ok {
				got = strings.TrimSpace(v)
			}
		}
		if got != want {
			t.Errorf("%s: the agent file says model %q, provenance.AgentModel %q", agent, got, want)
		}
	}
}
