// Package claudecli gives tests the real Claude Code CLI and a throwaway
// environment to run it in.
//
// The CLI is $RODIN_CLAUDE, else `claude` on PATH, else a copy installed from
// the npm registry into the user's cache directory (once; .ci/run does it
// up front). Without any of these, and without npm, tests skip.
package claudecli

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Version is the Claude Code release rodin is tested against; the captured
// hook inputs in testdata/fixtures come from it.
const Version = "2.1.197"

var (
	once sync.Once
	path string
	why  string
)

// CacheDir is where Path installs the CLI when it has to.
func CacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "rodin-test", "claude-code-"+Version)
}

// Path returns the claude executable, or skips the test saying why not.
func Path(t testing.TB) string {
	t.Helper()
	once.Do(func() { path, why = find() })
	if path == "" {
		t.Skipf("skipping: the Claude Code CLI is not available: %s", why)
	}
	return path
}

func find() (string, string) {
	if p := os.Getenv("RODIN_CLAUDE"); p != "" {
		return p, ""
	}
	if p, err := exec.LookPath("claude"); err == nil {
		return p, ""
	}
	bin := filepath.Join(CacheDir(), "node_modules", ".bin", "claude")
	if _, err := os.Stat(bin); err == nil {
		return bin, ""
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", "no claude on PATH, RODIN_CLAUDE unset, and npm is not on PATH to install @anthropic-ai/claude-code"
	}
	if err := os.MkdirAll(CacheDir(), 0o755); err != nil {
		return "", err.Error()
	}
	cmd := exec.Command(npm, "install", "--no-audit", "--no-fund", "--prefix", CacheDir(), "@anthropic-ai/claude-code@"+Version)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "npm install @anthropic-ai/claude-code@" + Version + " failed: " + err.Error() + "\n" + string(out)
	}
	return bin, ""
}

// Env is an environment for the CLI with HOME set to home and every
// non-essential connection (telemetry, updates, error reports) turned off.
func Env(home string) []string {
	env := []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"TERM=xterm-256color",
	}
	for _, v := range []string{"TMPDIR", "LANG", "GOCACHE", "GOMODCACHE", "GOPATH"} {
		if val := os.Getenv(v); val != "" {
			env = append(env, v+"="+val)
		}
	}
	return env
}
