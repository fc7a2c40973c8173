package exercise

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/rodin-gate/rodin/pkg/sandbox"
)

// The exercised session is contained: it runs in Claude Code's sandbox,
// with no way out and GitHub denied, and it is judged by a copy of the
// evaluator's definition taken before it starts. Run unsandboxed, an
// exercised session ran gh from a script, wrote into the user's
// repository, and rewrote the evaluator's definition, and the run was
// reported PASSED (issue 23).

// sandboxSettings is given to the exercised session with --settings.
func sandboxSettings() string {
	b, _ := json.Marshal(map[string]any{
		"sandbox": map[string]any{"enabled": true, "allowUnsandboxedCommands": false, "autoAllowBashIfSandboxed": true},
		"permissions": map[string]any{"deny": []string{
			"Bash(gh:*)", "WebFetch(domain:github.com)", "WebFetch(domain:*.github.com)", "WebFetch(domain:*.githubusercontent.com)",
		}},
	})
	return string(b)
}

// sandboxMissing names a program Claude Code's sandbox needs on this
// machine that is not on PATH ("" when nothing is missing).
func sandboxMissing() string {
	if m := sandbox.MissingTools(); len(m) > 0 {
		return m[0]
	}
	return ""
}

// copyEvaluator copies what the evaluator's session needs of rodin's
// plugin (its manifest and the evaluator's definition, no hooks) into dir,
// before the exercised session starts, and returns dir: the session can
// then not change what judges it.
func copyEvaluator(plugin, dir string) (string, error) {
	for _, rel := range []string{filepath.Join(".claude-plugin", "plugin.json"), filepath.Join("agents", "exercise-evaluator.md")} {
		b, err := os.ReadFile(filepath.Join(plugin, rel))
		if err != nil {
			return "", err
		}
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(dst, b, 0o444); err != nil {
			return "", err
		}
	}
	return dir, nil
}
