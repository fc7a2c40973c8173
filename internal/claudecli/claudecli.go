// Package claudecli gives tests the real Claude Code CLI and a throwaway
// environment to run it in.
//
// rodin is tested on two releases, each pinned by exact version: Current
// (what users run: they auto-update) and Oldest (the oldest rodin supports,
// claudecode.MinVersion). RODIN_CLAUDE_VERSION=x.y.z tests another release
// instead; RODIN_CLAUDE=/path/to/claude tests one binary as it is. A release
// is found as `claude` on PATH when that is the version asked for, else in
// the user's cache directory, else installed there from the npm registry
// (once; .ci/run does it up front). Without any of these, tests skip.
package claudecli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The releases rodin is tested against; testdata/fixtures/claude-code-<v>
// holds the hook inputs captured from each (just capture).
// Unsupported is the release just before Oldest: it loads the plugin (it
// does not read engines) and has no onFailure "block"; the tests show what
// rodin does there. .ci/run installs all three.
const (
	Current     = "2.1.332"
	Oldest      = "2.1.295"
	Unsupported = "2.1.294"
)

// Release is one Claude Code CLI to test with.
type Release struct {
	Version string // "" for RODIN_CLAUDE, whose version is what it is
	Path    string
}

// Versions are the releases the tests run on: RODIN_CLAUDE_VERSION, or the
// two pinned ones.
func Versions() []string {
	if v := os.Getenv("RODIN_CLAUDE_VERSION"); v != "" {
		return []string{v}
	}
	return []string{Current, Oldest}
}

// installTimeout bounds one release's npm install (a cold one took under 4
// minutes here, three side by side).
const installTimeout = 8 * time.Minute

var (
	mu       sync.Mutex
	found    = map[string]result{}
	installs = map[string]*sync.Once{} // one install per release, however many ask
)

type result struct{ path, why string }

// CacheDir is where a release is installed when it has to be.
func CacheDir(version string) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "rodin-test", "claude-code-"+version)
}

// Releases returns the CLIs to test with, or skips the test saying why
// there are none.
func Releases(t testing.TB) []Release {
	t.Helper()
	if p := os.Getenv("RODIN_CLAUDE"); p != "" {
		return []Release{{Path: p}}
	}
	var out []Release
	var why []string
	for _, v := range Versions() {
		if p, reason := find(v); p != "" {
			out = append(out, Release{Version: v, Path: p})
		} else {
			why = append(why, reason)
		}
	}
	if len(out) == 0 {
		t.Skipf("skipping: no Claude Code CLI is available: %s", strings.Join(why, "; "))
	}
	for _, w := range why {
		t.Logf("not tested: %s", w)
	}
	return out
}

// Find returns the CLI of one release, or logs why there is none (and the
// caller skips what needs it). RODIN_CLAUDE, when set, is not that release:
// it is not found.
func Find(t testing.TB, version string) (Release, bool) {
	t.Helper()
	if os.Getenv("RODIN_CLAUDE") != "" || os.Getenv("RODIN_CLAUDE_VERSION") != "" && os.Getenv("RODIN_CLAUDE_VERSION") != version {
		t.Skipf("skipping: Claude Code %s is not the release under test", version)
	}
	p, why := find(version)
	if p == "" {
		t.Skipf("skipping: %s", why)
		return Release{}, false
	}
	return Release{Version: version, Path: p}, true
}

// Path returns the current release's CLI (or RODIN_CLAUDE, or the one
// RODIN_CLAUDE_VERSION names), or skips.
func Path(t testing.TB) string {
	t.Helper()
	return Releases(t)[0].Path
}

// Prepare installs the releases the tests will ask for, side by side: a
// cold run downloads them at once instead of one after another, each as
// the first test that needs it comes.
func Prepare(versions ...string) {
	if os.Getenv("RODIN_CLAUDE") != "" {
		return
	}
	var wg sync.WaitGroup
	for _, v := range versions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			find(v)
		}()
	}
	wg.Wait()
}

func find(version string) (string, string) {
	mu.Lock()
	once, ok := installs[version]
	if !ok {
		once = &sync.Once{}
		installs[version] = once
	}
	mu.Unlock()
	once.Do(func() {
		p, why := install(version)
		mu.Lock()
		found[version] = result{p, why}
		mu.Unlock()
	})
	mu.Lock()
	defer mu.Unlock()
	r := found[version]
	return r.path, r.why
}

func install(version string) (string, string) {
	if p, err := exec.LookPath("claude"); err == nil {
		if out, err := exec.Command(p, "--version").Output(); err == nil && strings.HasPrefix(string(out), version+" ") {
			return p, ""
		}
	}
	dir := CacheDir(version)
	bin := filepath.Join(dir, "node_modules", ".bin", "claude")
	if _, err := os.Stat(bin); err == nil {
		return bin, ""
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", "Claude Code " + version + " is not installed, and npm is not on PATH to install @anthropic-ai/claude-code@" + version
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err.Error()
	}
	// Said once per release (find caches the result): what is downloaded,
	// where, and why, and when it is done. On stderr, which `go test ./...`
	// shows for a passing package only with -v, and on the terminal, which
	// it does not capture: a cold run is not silent for minutes.
	start := time.Now()
	Tell("rodin tests: installing Claude Code %s (npm @anthropic-ai/claude-code@%s, 250 to 400 MB) into %s for the end-to-end tier, once; it stays there for later runs (`rodin uninstall` removes it)\n", version, version, dir)
	// Bounded: a registry that stalls ends in a skip that says so, not in
	// go test's timeout.
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir, "@anthropic-ai/claude-code@"+version)
	if out, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Sprintf("npm install @anthropic-ai/claude-code@%s did not end within %s", version, installTimeout)
		}
		return "", "npm install @anthropic-ai/claude-code@" + version + " failed: " + err.Error() + "\n" + string(out)
	}
	Tell("rodin tests: installed Claude Code %s in %s\n", version, time.Since(start).Round(time.Second))
	return bin, ""
}

// Tell says something on stderr and on the terminal, which go test does
// not capture (it shows a passing package's output only with -v).
func Tell(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprint(os.Stderr, msg)
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		fmt.Fprint(tty, msg)
		tty.Close()
	}
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
