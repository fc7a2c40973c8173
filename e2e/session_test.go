package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/sjson"

	"github.com/rodin-gate/rodin/internal/claudecli"
	"github.com/rodin-gate/rodin/internal/release"
)

// apiKey is a fake key; Claude Code only checks its shape and whether the
// user approved it (its last 20 characters, in ~/.claude.json).
const apiKey = "sk-ant-api03-rodin-e2e-00000000000000000000000000000000000000000000000000000000000000000000000000-AAAAAAAA"

type options struct {
	mode       string            // --permission-mode
	noBinaries bool              // a plugin without libexec, and no go on PATH
	env        []string          // more of Claude Code's environment (KEY=value)
	allow      []string          // permission rules the user allowed (settings.json permissions.allow)
	files      map[string]string // project files written before Claude Code starts
	// installed: Claude Code loads rodin as the user registered it (no
	// --plugin-dir); setup, run before Claude Code starts, registers it.
	installed bool
	setup     func(s *session, env []string)
	args      []string // more of Claude Code's command line (runHeadless)
	// share runs the session in another's HOME and project: a second
	// session of the same user in the same project.
	share *session
}

// session is one interactive Claude Code session in tmux, with the plugin
// loaded by --plugin-dir, against the scripted server.
type session struct {
	t       *testing.T
	srv     *server
	home    string
	project string
	plugin  string
	socket  string
	target  string
}

var (
	buildOnce sync.Once
	builtDir  string
	buildErr  error
)

// builtExecutables builds the real executables once per test run.
func builtExecutables(t *testing.T) string {
	buildOnce.Do(func() {
		builtDir, buildErr = os.MkdirTemp("", "rodin-e2e-bin")
		if buildErr != nil {
			return
		}
		root, _ := filepath.Abs("..")
		var pkgs []string
		for _, name := range release.Executables {
			pkgs = append(pkgs, "./hooks/"+name)
		}
		buildErr = release.Build(root, builtDir, pkgs, [][2]string{{runtime.GOOS, runtime.GOARCH}}, io.Discard)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtDir
}

// eachRelease runs a scenario on each Claude Code release tested
// (claudecli.Releases: the current and the oldest supported), as subtests
// named by the version.
func eachRelease(t *testing.T, scenario func(t *testing.T, rel claudecli.Release)) {
	if testing.Short() {
		t.Skip("skipping the end-to-end tier in -short mode")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("skipping the end-to-end tier: tmux is not on PATH (.ci/run installs it)")
	}
	t.Parallel() // the scenarios run side by side too, within -parallel and sessionSlots
	for _, r := range claudecli.Releases(t) {
		name := r.Version
		if name == "" {
			name = "RODIN_CLAUDE"
		}
		t.Run(name, func(t *testing.T) {
			// Sessions are independent (each its own server, HOME, tmux
			// socket) and spend most of their time waiting.
			t.Parallel()
			scenarioRuns(t)
			scenario(t, r)
		})
	}
}

// sessionSlots bounds the interactive sessions (tmux, a full terminal UI)
// that run at once: two, what two cores keep responsive under a cold CI
// run. The headless tests (rodin exercise, plugin eval) mostly wait, and
// run beside them: TestMain raises -parallel for that.
var sessionSlots = make(chan struct{}, 2)

func startSession(t *testing.T, claude string, srv *server, opt options) *session {
	return startSessionWith(t, claude, srv, opt, "")
}

// startSessionWith is startSession with the user's settings.json given
// whole (its permissions.allow is set from opt.allow), "" for the default.
func startSessionWith(t *testing.T, claude string, srv *server, opt options, settings string) *session {
	sessionSlots <- struct{}{}
	t.Cleanup(func() { <-sessionSlots }) // registered first: runs after the session's own cleanup
	s, env, top := prepareSession(t, srv, &opt)
	if settings != "" {
		allow, _ := json.Marshal(append([]string{}, opt.allow...))
		b, err := sjson.SetRawBytes([]byte(settings), "permissions.allow", allow)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(s.home, ".claude", "settings.json"), string(b)+"\n")
	}
	s.socket = fmt.Sprintf("rodin-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())
	s.target = "e2e"
	args := []string{"-L", s.socket, "new-session", "-d", "-s", s.target, "-x", "220", "-y", "60", "-c", s.project, "--",
		"env", "-i"}
	args = append(args, env...)
	args = append(args, claude, "--permission-mode", opt.mode)
	if !opt.installed {
		args = append(args, "--plugin-dir", s.plugin)
	}
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("last tool results:\n%s\npane:\n%s", s.srv.summary(), s.pane())
		}
		s.stop()
		os.RemoveAll(top)
	})
	s.waitPane("the prompt", 30*time.Second, func(p string) bool { return strings.Contains(p, "❯") })
	return s
}

// runHeadless runs one `claude -p PROMPT` session, as unattended loops do,
// with the plugin loaded and the project, home and settings startSession
// would give it; it returns the session's stdout. It is bounded: a session
// that has not ended after timeout is killed and fails the test.
func runHeadless(t *testing.T, claude string, srv *server, opt options, prompt string, timeout time.Duration) (*session, string) {
	if opt.share == nil { // a second session runs in its first's slot
		sessionSlots <- struct{}{}
		t.Cleanup(func() { <-sessionSlots })
	}
	s, env, top := prepareSession(t, srv, &opt)
	t.Cleanup(func() { os.RemoveAll(top) })
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := append([]string{"-p", prompt, "--permission-mode", opt.mode}, opt.args...)
	if !opt.installed {
		args = append(args, "--plugin-dir", s.plugin)
	}
	cmd := exec.CommandContext(ctx, claude, args...)
	cmd.Dir, cmd.Env = s.project, env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ctx.Err() != nil {
		t.Fatalf("claude -p had not ended after %v (the scripted model answered %d steps)\nstdout: %s\nstderr: %s\n%s", timeout, srv.stepsAnswered(), out, stderr.String(), srv.summary())
	}
	if err != nil {
		t.Logf("claude -p: %v\nstderr: %s", err, stderr.String())
	}
	return s, string(out)
}

// prepareSession lays out a session's directories, plugin, files, user
// settings and environment, for startSession and runHeadless.
func prepareSession(t *testing.T, srv *server, opt *options) (*session, []string, string) {
	// Directories are removed by the session's own cleanup, once Claude Code
	// has exited (t.TempDir would race with its last writes).
	top, err := os.MkdirTemp("", "rodin-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	top, _ = filepath.EvalSymlinks(top)
	s := &session{t: t, srv: srv, home: filepath.Join(top, "home"), project: filepath.Join(top, "project")}
	if opt.share != nil {
		s.home, s.project = opt.share.home, opt.share.project
	}
	s.plugin = filepath.Join(top, "rodin plugin") // a space, as users' paths have
	for _, d := range []string{s.home, s.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := release.CopyTree(filepath.Join("..", "plugin"), s.plugin, "libexec"); err != nil {
		t.Fatal(err)
	}
	if !opt.noBinaries {
		if err := release.CopyTree(builtExecutables(t), filepath.Join(s.plugin, "libexec")); err != nil {
			t.Fatal(err)
		}
	}
	if opt.mode == "" {
		opt.mode = "plan"
	}
	for name, text := range opt.files {
		p := filepath.Join(s.project, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, text)
	}
	writeFile(t, filepath.Join(s.home, ".claude.json"), fmt.Sprintf(`{
  "hasCompletedOnboarding": true,
  "bypassPermissionsModeAccepted": true,
  "numStartups": 1,
  "customApiKeyResponses": {"approved": [%q], "rejected": []},
  "projects": {%q: {"hasTrustDialogAccepted": true, "allowedTools": []}}
}`, apiKey[len(apiKey)-20:], s.project))
	if err := os.MkdirAll(filepath.Join(s.home, ".claude", "plans"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Plan mode on 2.1.3xx follows auto mode, whose safety check runs on
	// Anthropic's servers; against the scripted server it would ask the user
	// before every Agent launch. useAutoModeDuringPlan=false is the user
	// setting for plain plan mode, what a user of another endpoint sets.
	allow, _ := json.Marshal(append([]string{}, opt.allow...))
	writeFile(t, filepath.Join(s.home, ".claude", "settings.json"), `{"useAutoModeDuringPlan": false, "permissions": {"allow": `+string(allow)+`}}`+"\n")
	// A fixed seal key in the plugin's data directory (Claude Code names it
	// <plugin>-inline for --plugin-dir), so that captured sessions replay
	// byte for byte (replay_test.go uses the same key).
	data := filepath.Join(s.home, ".claude", "plugins", "data", "rodin-inline")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "seal.key"), []byte("rodin-test-seal-key-0123456789ab"), 0o600); err != nil {
		t.Fatal(err)
	}

	path := os.Getenv("PATH")
	if opt.noBinaries {
		path = toolsWithoutGo(t)
	}
	env := []string{
		"HOME=" + s.home, "PATH=" + path, "TERM=xterm-256color", "LANG=C.UTF-8",
		"ANTHROPIC_BASE_URL=" + srv.url, "ANTHROPIC_API_KEY=" + apiKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		"RODIN_NOW=2026-11-21T12:00:00Z",
	}
	env = append(env, opt.env...)
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "TMPDIR"} {
		if val := os.Getenv(v); val != "" && !opt.noBinaries {
			env = append(env, v+"="+val)
		}
	}
	if opt.setup != nil {
		opt.setup(s, env)
	}
	return s, env, top
}

// rodin runs the plugin's rodin command as a user would in a terminal of
// this session's machine (HOME, no CLAUDE_PLUGIN_DATA: it finds the data
// directory the SessionStart hook recorded), and returns its output.
func (s *session) rodin(args ...string) string {
	s.t.Helper()
	cmd := exec.Command("sh", append([]string{filepath.Join(s.plugin, "bin", "rodin")}, args...)...)
	cmd.Env = []string{"HOME=" + s.home, "PATH=" + os.Getenv("PATH")}
	cmd.Dir = s.project // as the user runs it, in the project
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Errorf("rodin %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// stop ends the tmux server and waits for Claude Code to exit.
func (s *session) stop() {
	out, _ := exec.Command("tmux", "-L", s.socket, "display-message", "-p", "-t", s.target, "#{pane_pid}").Output()
	exec.Command("tmux", "-L", s.socket, "kill-server").Run()
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
	}
	syscall.Kill(pid, syscall.SIGKILL)
}

// toolsWithoutGo is a PATH of the tools a session needs, without go.
func toolsWithoutGo(t *testing.T) string {
	dir := t.TempDir()
	for _, name := range []string{"sh", "bash", "env", "uname", "sed", "tr", "grep", "mkdir", "rm", "chmod", "cp", "mv", "cat", "ln", "ls", "head", "tail", "which", "git", "rg"} {
		if p, err := exec.LookPath(name); err == nil {
			os.Symlink(p, filepath.Join(dir, name))
		}
	}
	return dir
}

func (s *session) pane() string {
	out, _ := exec.Command("tmux", "-L", s.socket, "capture-pane", "-p", "-t", s.target, "-S", "-200").Output()
	return string(out)
}

// keys sends keys to the session's pane (tmux send-keys).
func (s *session) keys(args ...string) {
	exec.Command("tmux", append([]string{"-L", s.socket, "send-keys", "-t", s.target}, args...)...).Run()
}

// prompt types a line into Claude Code and submits it. On a loaded
// machine the TUI can miss keys typed while it redraws, so it waits until
// the line shows in the pane before pressing Enter, and presses it again
// if no request reaches the model.
func (s *session) prompt(line string) {
	s.t.Helper()
	before := len(s.srv.mainRequests())
	keys := func(args ...string) {
		exec.Command("tmux", append([]string{"-L", s.socket, "send-keys", "-t", s.target}, args...)...).Run()
	}
	shown := line
	if len(shown) > 30 {
		shown = shown[:30]
	}
	for attempt := 0; attempt < 3; attempt++ {
		keys("-l", line)
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(s.pane(), shown) && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if strings.Contains(s.pane(), shown) {
			break
		}
		keys("C-u") // clear whatever part of it arrived, and type it again
	}
	time.Sleep(200 * time.Millisecond)
	keys("Enter")
	for attempt := 0; attempt < 3; attempt++ {
		deadline := time.Now().Add(15 * time.Second)
		for len(s.srv.mainRequests()) == before && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if len(s.srv.mainRequests()) > before {
			return
		}
		keys("Enter")
	}
}

// dialogs are what Claude Code shows when it wants the user to decide.
var dialogs = []string{"Do you want to", "Would you like to proceed", "Do you want to proceed"}

// waitPane waits for cond on the pane text.
func (s *session) waitPane(what string, timeout time.Duration, cond func(string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		p := s.pane()
		if cond(p) {
			return p
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// waitResult waits for the n-th result of a tool call by the scripted
// model. An unexpected dialog in the pane fails the test at once, with the
// dialog's text.
func (s *session) waitResult(toolName string, n int) toolResult {
	s.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		if r, ok := s.srv.result(toolName, n); ok {
			return r
		}
		p := s.pane()
		for _, d := range dialogs {
			if strings.Contains(p, d) {
				// The result may have come in between the look at the
				// results and the pane, and the dialog be the next
				// step's (a Bash question right after the Edit waited
				// for): a result in now is the one waited for.
				if r, ok := s.srv.result(toolName, n); ok {
					return r
				}
				s.t.Fatalf("unexpected dialog while waiting for the %s result:\n%s", toolName, dialogText(p, d))
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for the result of %s #%d", toolName, n+1)
		}
		select {
		case <-s.srv.changed:
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// waitStep waits until the scripted model has answered main step n and
// Claude Code is idle again, ready for the user's next line.
func (s *session) waitStep(n int) {
	s.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for s.srv.stepsAnswered() <= n {
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for the model's step %d", n)
		}
		select {
		case <-s.srv.changed:
		case <-time.After(200 * time.Millisecond):
		}
	}
	s.waitPane("Claude Code to be idle", 30*time.Second, func(p string) bool { return !strings.Contains(p, "esc to interrupt") })
}

// dialogText is the part of the pane around a dialog.
func dialogText(pane, marker string) string {
	i := strings.LastIndex(pane, marker)
	start := max(0, i-1500)
	return pane[start:]
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	// No fork while the file is open for writing: a child forked then
	// holds the descriptor until it execs, and an exec of the file (a
	// wrapper script the test writes) would fail with "text file busy".
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// countStarts wraps the hook executable the SessionStart hook linked as
// name with a script that counts its starts, in the file it returns (one
// "start" line each).
func (s *session) countStarts(name string) (count string) {
	s.t.Helper()
	links := s.hookLinks(name)
	real, err := filepath.EvalSymlinks(links[0])
	if err != nil {
		s.t.Fatal(err)
	}
	count = filepath.Join(s.home, "starts-"+name)
	os.Remove(links[0])
	writeFile(s.t, links[0], fmt.Sprintf("#!/bin/sh\necho start >> '%s'\nexec '%s' \"$@\"\n", count, real))
	os.Chmod(links[0], 0o755)
	return count
}

// hookLinks waits until the SessionStart hook has linked all four hook
// executables (Claude Code shows its prompt before that hook ends; on a
// loaded machine the links come later), for at most a minute, and returns
// the links named name.
func (s *session) hookLinks(name string) []string {
	s.t.Helper()
	var links []string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		all := 0
		for _, n := range []string{"pretooluse", "posttooluse", "stop", "artifacts"} {
			l, _ := filepath.Glob(filepath.Join(s.home, ".claude", "plugins", "data", "*", "bin", n))
			if len(l) == 1 {
				if _, err := filepath.EvalSymlinks(l[0]); err == nil {
					all++
				}
			}
			if n == name {
				links = l
			}
		}
		if all == 4 && len(links) == 1 {
			return links
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the SessionStart hook had not linked the four hook executables after a minute (%s: %v)", name, links)
		}
	}
}
