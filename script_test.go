package rodin_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/internal/release"
	"github.com/rodin-gate/rodin/pkg/cli"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/route"
	"github.com/rodin-gate/rodin/pkg/route/artifacts"
	"github.com/rodin-gate/rodin/pkg/safefile"
	"github.com/rodin-gate/rodin/pkg/verifygate"
)

var update = flag.Bool("u", false, "update testscript output files")

// mains are the executables, as their hooks/<name>/main.go run them.
var mains = map[string]func(){
	"pretooluse":  func() { os.Exit(route.MainPre(os.Stdin, os.Stdout, os.Stderr)) },
	"posttooluse": func() { os.Exit(route.MainPost(os.Stdin, os.Stdout, os.Stderr)) },
	"stop":        func() { os.Exit(route.MainStop(os.Stdin, os.Stdout, os.Stderr)) },
	"artifacts":   func() { os.Exit(artifacts.Main(os.Stdin, os.Stdout, os.Stderr)) },
	"rodin":       func() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
}

func TestMain(m *testing.M) {
	commands := map[string]func(){
		// The real runner around a decision that panics: shows, through a
		// whole process, that a panic in the gate denies.
		"pretooluse-panics": func() {
			os.Exit(hookio.RunPre(os.Stdin, os.Stdout, os.Stderr, 0, func(hookio.Input) hookio.PreOutcome { panic("forced") }))
		},
	}
	// PostToolUse that stops at a point of its write, says so by creating
	// $RODIN_CRASH_READY, and waits to be killed: the crash tests' process.
	for _, point := range []string{"mid-write", "before-rename"} {
		commands["posttooluse-crash-"+point] = func() {
			safefile.Crash = func(at string) {
				if at == point {
					os.WriteFile(os.Getenv("RODIN_CRASH_READY"), nil, 0o644)
					select {}
				}
			}
			os.Exit(route.MainPost(os.Stdin, os.Stdout, os.Stderr))
		}
	}
	for name, main := range mains {
		commands[name] = main
		// The names the launcher runs from plugin/libexec.
		commands[release.BinaryName(name, runtime.GOOS, runtime.GOARCH)] = main
	}
	testscript.Main(m, commands)
}

func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Setup:               setup,
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "root": // root reads and writes whatever the permissions say
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"exitcode":   cmdExitcode,
			"expand":     cmdExpand,
			"snapshot":   cmdSnapshot,
			"unchanged":  cmdUnchanged,
			"replace":    cmdReplace,
			"append":     cmdAppend,
			"crlf":       cmdCRLF,
			"bom":        cmdBOM,
			"mtime":      cmdMtime,
			"plugin":     cmdPlugin,
			"mkfifo":     cmdMkfifo,
			"bigfile":    cmdBigfile,
			"release":    cmdRelease,
			"serve":      cmdServe,
			"hookcmd":    cmdHookcmd,
			"transcript": cmdTranscript,
			"agentrun":   cmdAgentrun,
			"verifyline": cmdVerifyline,
			"holdlock":   cmdHoldlock,
		},
	})
}

// setup gives every script a home with an empty plans directory, a project
// directory, and a fixed clock. $PLANS is the default plans directory.
func setup(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, "home")
	plans := filepath.Join(home, ".claude", "plans")
	project := filepath.Join(env.WorkDir, "project")
	for _, d := range []string{plans, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	env.Setenv("HOME", home)
	env.Setenv("PLANS", plans)
	env.Setenv("PROJECT", project)
	env.Setenv("RODIN_NOW", "2026-11-21T12:00:00Z")
	env.Setenv("CLAUDE_PLUGIN_DATA", filepath.Join(env.WorkDir, "data"))
	// This machine's managed Claude Code settings (a sandbox turned on by
	// an administrator) must not change what the scripts see.
	env.Setenv("RODIN_MANAGED_SETTINGS", filepath.Join(env.WorkDir, "no-managed-settings.json"))
	// A fixed seal key, so that sealed files compare with their goldens.
	if err := os.MkdirAll(filepath.Join(env.WorkDir, "data"), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(env.WorkDir, "data", "seal.key"), []byte(testSealKey), 0o600); err != nil {
		return err
	}
	env.Setenv("SESSION", "b89c8bbf-0567-4b71-9765-23162d176ca0")
	// The checks the task files of the scripts name, as programs on PATH
	// (rodin reads a title as a command only when it starts with one).
	bin := filepath.Join(env.WorkDir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	for _, name := range []string{"unit-tests", "go-vet-ok", "release-build", "other-check", "never-run-here", "lint-it"} {
		if err := writeExecutable(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			return err
		}
	}
	env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
	// PATH as it is on a machine without Claude Code, for the scripts that
	// show what rodin does then: a user's own claude is left out.
	env.Setenv("PATH_NO_CLAUDE", withoutProgram(env.Getenv("PATH"), "claude"))
	// What a build by the launcher needs from the developer's Go setup.
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN"} {
		if val := goEnv(v); val != "" {
			env.Setenv(v, val)
		}
	}
	repo, err := filepath.Abs(".")
	if err != nil {
		return err
	}
	env.Setenv("REPO", repo)
	env.Setenv("PLATFORM", runtime.GOOS+"-"+runtime.GOARCH)
	return nil
}

// withoutProgram is the list of directories path, less those that hold an
// executable named name.
func withoutProgram(path, name string) string {
	var keep []string
	for _, dir := range filepath.SplitList(path) {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			continue
		}
		keep = append(keep, dir)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

var (
	goEnvOnce  sync.Once
	goEnvCache = map[string]string{}
)

// goEnv is `go env NAME`, asked once per test binary (scripts run in
// parallel, so the cache is filled once, up front).
func goEnv(name string) string {
	goEnvOnce.Do(func() {
		names := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN"}
		out, _ := exec.Command("go", append([]string{"env"}, names...)...).Output()
		for i, v := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
			if i < len(names) {
				goEnvCache[names[i]] = strings.TrimSpace(v)
			}
		}
	})
	return goEnvCache[name]
}

// plugin DIR [--no-binaries] assembles an installed plugin in DIR: the
// repository's plugin/ (launcher, hooks.json, skill, agents) and, unless
// --no-binaries, this test binary as the executables in libexec, under the
// names the launcher runs.
func cmdPlugin(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 || (len(args) == 2 && args[1] != "--no-binaries") {
		ts.Fatalf("usage: plugin DIR [--no-binaries]")
	}
	ts.Check(assemblePlugin(ts.MkAbs(args[0]), len(args) == 1))
}

// assemblePlugin copies the repository's plugin/ to dst and, with binaries,
// installs this test binary as the executables in libexec under the names
// the launcher runs (TestMain dispatches on the name).
func assemblePlugin(dst string, binaries bool) error {
	src, err := filepath.Abs("plugin")
	if err != nil {
		return err
	}
	err = release.CopyTree(src, dst, "libexec") // not whatever a developer built locally
	if err != nil || !binaries {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dst, "libexec"), 0o755); err != nil {
		return err
	}
	for name := range mains {
		if err := copyFile(self, filepath.Join(dst, "libexec", release.BinaryName(name, runtime.GOOS, runtime.GOARCH))); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	return writeExecutable(dst, data, fi.Mode().Perm())
}

// writeExecutable writes a file some process will exec, with no fork in
// between: a child forked while the file is open for writing holds that
// descriptor until it execs, and an exec of the file meanwhile fails with
// "text file busy" (ETXTBSY; seen once in five CI runs, scripts run in
// parallel). syscall.ForkLock is what os/exec takes around fork.
func writeExecutable(path string, data []byte, perm os.FileMode) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return os.WriteFile(path, data, perm)
}

// hookcmd N DIR EVENT [TOOL] runs the command that DIR/hooks/hooks.json
// registers for EVENT (and, when given, the entry whose matcher matches
// TOOL) the way Claude Code does: ${CLAUDE_PLUGIN_ROOT} and
// ${CLAUDE_PLUGIN_DATA} filled in, exec form (command and args) started
// directly, shell form through sh; with the stdin set by `stdin`. Like
// exitcode, it takes the wanted exit status first.
func cmdHookcmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || len(args) > 5 {
		ts.Fatalf("usage: hookcmd N DIR EVENT [TOOL [FILE]]")
	}
	dir := ts.MkAbs(args[1])
	hooks := ts.ReadFile(filepath.Join(dir, "hooks", "hooks.json"))
	var found []gjson.Result
	for _, entry := range gjson.Get(hooks, "hooks."+args[2]).Array() {
		if m := entry.Get("matcher").String(); len(args) >= 4 && m != "" { // no matcher: every tool or agent
			re, err := regexp.Compile("^(" + m + ")$")
			if err != nil || !re.MatchString(args[3]) {
				continue
			}
		}
		found = append(found, entry.Get("hooks").Array()...)
	}
	// Hooks with an `if` filter (`Write(**/*.json)`) run for the FILE the
	// call writes, whatever its case, as Claude Code matches them.
	if len(args) == 5 {
		var kept []gjson.Result
		for _, h := range found {
			cond := h.Get("if").String()
			_, glob, _ := strings.Cut(strings.TrimSuffix(cond, ")"), "(")
			if cond == "" || strings.HasPrefix(glob, "**/*") && strings.HasSuffix(strings.ToLower(args[4]), strings.ToLower(strings.TrimPrefix(glob, "**/*"))) {
				kept = append(kept, h)
			}
		}
		found = kept
	}
	// Hooks of one entry that start the same command with different `if`
	// filters (Markdown and JSON files) are one command here.
	for len(found) > 1 && found[0].Get("command").String() == found[1].Get("command").String() && found[0].Get("args").Raw == found[1].Get("args").Raw {
		found = found[1:]
	}
	if len(found) != 1 {
		ts.Fatalf("hooks.json has no single %s command for %v (give the FILE the call writes when its if filters differ): %v", args[2], args[3:], found)
	}
	fill := func(s string) string {
		s = strings.ReplaceAll(s, "${CLAUDE_PLUGIN_ROOT}", dir)
		return strings.ReplaceAll(s, "${CLAUDE_PLUGIN_DATA}", ts.Getenv("CLAUDE_PLUGIN_DATA"))
	}
	h := found[0]
	ts.Setenv("CLAUDE_PLUGIN_ROOT", dir)
	if h.Get("args").IsArray() {
		argv := []string{args[0], fill(h.Get("command").String())}
		for _, a := range h.Get("args").Array() {
			argv = append(argv, fill(a.String()))
		}
		cmdExitcode(ts, false, argv)
	} else {
		cmdExitcode(ts, false, []string{args[0], "sh", "-c", h.Get("command").String()})
	}
	ts.Setenv("CLAUDE_PLUGIN_ROOT", "")
}

// exitcode N command [args...] runs a command (as exec does, with the stdin
// set by `stdin`) and fails unless it exits with exactly N.
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = exit.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// expand FILE... replaces $VAR and ${VAR} in each file with the script's
// environment, so hook inputs can name paths under $WORK.
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	for _, f := range args {
		path := ts.MkAbs(f)
		data := os.Expand(ts.ReadFile(f), ts.Getenv)
		ts.Check(os.WriteFile(path, []byte(data), 0o644))
	}
}

// verifyline VAR ARGS... runs `rodin verify ARGS...` for $SESSION (its
// commands may fail) and sets VAR to the digest of the checks a passing
// run would end with (verifygate.ChecksLine; the CLI prints it at its
// start under the test seam RODIN_TEST_CHECKS, and a passing run at its
// end, which is taken first): a script's record of a rodin verify run
// carries what a real run prints.
func cmdVerifyline(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: verifyline VAR ARGS...")
	}
	if ts.Getenv("CLAUDE_CODE_SESSION_ID") == "" {
		ts.Setenv("CLAUDE_CODE_SESSION_ID", ts.Getenv("SESSION"))
		defer ts.Setenv("CLAUDE_CODE_SESSION_ID", "")
	}
	ts.Setenv("RODIN_TEST_CHECKS", "1")
	ts.Exec("rodin", append([]string{"verify"}, args[1:]...)...) // a failing run prints the seam's line too
	ts.Setenv("RODIN_TEST_CHECKS", "")
	out := ts.ReadFile("stdout")
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(verifygate.ChecksLine) + `(\S+)$`).FindStringSubmatch(out) // a pass's own line
	if m == nil {
		m = regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(cli.TestChecksLine) + `(\S+)$`).FindStringSubmatch(out)
	}
	if m == nil {
		ts.Fatalf("rodin verify printed no checks line")
	}
	ts.Setenv(args[0], m[1])
}

// agentrun OUT launch|stop AGENT ID FILE writes to OUT the hook input of
// a background subagent run as Claude Code 2.1.330 and later send it, in
// plan mode, for $SESSION in $PROJECT: `launch` is the Agent tool's
// PostToolUse (async_launched) with FILE as its prompt, `stop` the
// SubagentStop with FILE as its last message. Scripts build runs on the
// exact prompts `rodin prompt` printed without spelling them out in JSON.
//
// agentrun OUT read AGENT ID FILE START NUM writes the PostToolUse of that
// agent's Read of FILE (an absolute path) that returned NUM lines from
// START, as the file holds them now (FILE @F: the file F names); agentrun OUT preread AGENT ID FILE the
// PreToolUse of a Read of FILE (AGENT "main": the main thread's).
func cmdAgentrun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 5 {
		ts.Fatalf("usage: agentrun OUT launch|stop|read|preread AGENT ID FILE [START NUM]")
	}
	in := map[string]any{"session_id": ts.Getenv("SESSION"), "cwd": ts.Getenv("PROJECT"), "permission_mode": "plan"}
	if args[1] == "read" || args[1] == "preread" {
		if prompt, ok := strings.CutPrefix(args[4], "@"); ok {
			// The file a prompt names (rodin prompt critic's output).
			m := regexp.MustCompile(`(/\S+\.md)`).FindString(ts.ReadFile(prompt))
			if m == "" {
				ts.Fatalf("agentrun: %s names no file", prompt)
			}
			args[4] = m
		}
		if args[2] != "main" {
			in["agent_id"], in["agent_type"] = args[3], args[2]
		}
		in["tool_name"], in["tool_input"], in["tool_use_id"] = "Read", map[string]any{"file_path": args[4]}, "toolu_read_"+args[3]
		in["hook_event_name"] = "PreToolUse"
		if args[1] == "read" {
			if len(args) != 7 {
				ts.Fatalf("usage: agentrun OUT read AGENT ID FILE START NUM")
			}
			data, err := os.ReadFile(args[4])
			ts.Check(err)
			// As Claude Code 2.1.332 counts them: the empty line after the
			// last newline is a line too.
			lines := strings.Split(string(data), "\n")
			start, _ := strconv.Atoi(args[5])
			num, _ := strconv.Atoi(args[6])
			num = min(num, len(lines)-start+1)
			in["hook_event_name"] = "PostToolUse"
			in["tool_response"] = map[string]any{"type": "text", "file": map[string]any{"filePath": args[4],
				"content": strings.Join(lines[start-1:start-1+num], "\n"), "numLines": num, "startLine": start, "totalLines": len(lines)}}
		}
		b, err := json.Marshal(in)
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), b, 0o644))
		return
	}
	text := ts.ReadFile(args[4])
	switch args[1] {
	case "launch":
		in["hook_event_name"], in["tool_name"] = "PostToolUse", "Agent"
		in["tool_input"] = map[string]any{"description": "run", "prompt": text, "subagent_type": args[2]}
		in["tool_response"] = map[string]any{"isAsync": true, "status": "async_launched", "agentId": args[3], "prompt": text}
		in["tool_use_id"] = "toolu_" + args[3]
	case "stop":
		in["hook_event_name"], in["agent_id"], in["agent_type"] = "SubagentStop", args[3], args[2]
		in["stop_hook_active"], in["last_assistant_message"] = false, text
		in["agent_transcript_path"] = ts.MkAbs("no-such-transcript.jsonl")
	default:
		ts.Fatalf("agentrun: %q is not launch or stop", args[1])
	}
	b, err := json.Marshal(in)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), b, 0o644))
}

// snapshots are shared by scripts that run in parallel.
var (
	snapshotsMu sync.Mutex
	snapshots   = map[string]snapshot{}
)

type snapshot struct {
	data  []byte
	mtime time.Time
	info  os.FileInfo
}

// snapshot FILE sets FILE's mtime into the past and remembers its bytes,
// mtime and inode; `unchanged FILE` then checks that nothing touched it. The
// old mtime makes a rewrite visible even within the same second.
func cmdSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	for _, f := range args {
		path := ts.MkAbs(f)
		past := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
		ts.Check(os.Chtimes(path, past, past))
		data, err := os.ReadFile(path)
		ts.Check(err)
		fi, err := os.Stat(path)
		ts.Check(err)
		snapshotsMu.Lock()
		snapshots[path] = snapshot{data, fi.ModTime(), fi}
		snapshotsMu.Unlock()
	}
}

func cmdUnchanged(ts *testscript.TestScript, neg bool, args []string) {
	for _, f := range args {
		path := ts.MkAbs(f)
		snapshotsMu.Lock()
		snap, ok := snapshots[path]
		snapshotsMu.Unlock()
		if !ok {
			ts.Fatalf("unchanged %s: no snapshot", f)
		}
		data, err := os.ReadFile(path)
		ts.Check(err)
		fi, err := os.Stat(path)
		ts.Check(err)
		same := bytes.Equal(data, snap.data) && fi.ModTime().Equal(snap.mtime) && os.SameFile(fi, snap.info)
		switch {
		case neg && same:
			ts.Fatalf("%s was not changed", f)
		case !neg && !same:
			ts.Fatalf("%s changed:\n%s", f, describeChange(snap, data, fi))
		}
	}
}

func describeChange(snap snapshot, data []byte, fi os.FileInfo) string {
	return fmt.Sprintf("bytes equal: %v, mtime %v -> %v, same inode: %v\n--- now:\n%s",
		bytes.Equal(data, snap.data), snap.mtime, fi.ModTime(), os.SameFile(fi, snap.info), data)
}

// replace FILE OLD NEW replaces the one occurrence of OLD in FILE, as
// Claude Code's Edit tool does; Go-quoted strings allow \n and \r.
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	old, new := unquote(ts, args[1]), unquote(ts, args[2])
	data := ts.ReadFile(args[0])
	if n := strings.Count(data, old); n != 1 {
		ts.Fatalf("replace: %q occurs %d times in %s, want once", old, n, args[0])
	}
	writeKeepMode(ts, args[0], strings.Replace(data, old, new, 1))
}

// append FILE SRC appends the contents of SRC to FILE.
func cmdAppend(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: append FILE SRC")
	}
	writeKeepMode(ts, args[0], ts.ReadFile(args[0])+ts.ReadFile(args[1]))
}

func unquote(ts *testscript.TestScript, s string) string {
	if strings.HasPrefix(s, `"`) {
		u, err := strconv.Unquote(s)
		ts.Check(err)
		return u
	}
	return s
}

func writeKeepMode(ts *testscript.TestScript, f, data string) {
	path := ts.MkAbs(f)
	fi, err := os.Stat(path)
	ts.Check(err)
	ts.Check(os.WriteFile(path, []byte(data), fi.Mode().Perm()))
}

// crlf FILE turns FILE's LF line endings into CRLF.
func cmdCRLF(ts *testscript.TestScript, neg bool, args []string) {
	for _, f := range args {
		writeKeepMode(ts, f, strings.ReplaceAll(ts.ReadFile(f), "\n", "\r\n"))
	}
}

// bom FILE puts a UTF-8 byte order mark in front of FILE.
func cmdBOM(ts *testscript.TestScript, neg bool, args []string) {
	for _, f := range args {
		writeKeepMode(ts, f, "\ufeff"+ts.ReadFile(f))
	}
}

// mtime FILE RFC3339 sets FILE's modification time.
func cmdMtime(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mtime FILE RFC3339")
	}
	t, err := time.Parse(time.RFC3339, args[1])
	ts.Check(err)
	ts.Check(os.Chtimes(ts.MkAbs(args[0]), t, t))
}

// mkfifo FILE makes a named pipe.
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	for _, f := range args {
		ts.Check(syscall.Mkfifo(ts.MkAbs(f), 0o644))
	}
}

// held are the files holdlock locked, by name, until "holdlock -release".
var held sync.Map

// holdlock FILE takes an exclusive flock on FILE (made empty when missing)
// through a read-only descriptor, as any process that can read it could;
// "holdlock -release FILE" lets it go.
func cmdHoldlock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: holdlock [-release] FILE")
	}
	if args[0] == "-release" {
		if f, ok := held.LoadAndDelete(ts.MkAbs(args[1])); ok {
			f.(*os.File).Close()
		}
		return
	}
	p := ts.MkAbs(args[0])
	if _, err := os.Stat(p); os.IsNotExist(err) {
		ts.Check(os.MkdirAll(filepath.Dir(p), 0o700))
		ts.Check(os.WriteFile(p, nil, 0o600))
	}
	f, err := os.Open(p)
	ts.Check(err)
	ts.Check(syscall.Flock(int(f.Fd()), syscall.LOCK_EX))
	held.Store(p, f)
}

// bigfile FILE MiB writes a plan of that many MiB: a heading, then lines.
func cmdBigfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || (len(args) != 2 && len(args) != 3) {
		ts.Fatalf("usage: bigfile FILE MiB | bigfile FILE BYTES CHAR")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	if len(args) == 3 {
		// BYTES bytes of CHAR: a file of one character, e.g. all quotes.
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), bytes.Repeat([]byte(args[2]), n), 0o644))
		return
	}
	line := []byte("- a step of a very long plan, repeated until the file is large enough\n")
	data := append([]byte("# Big plan\n\n"), bytes.Repeat(line, n<<20/len(line)+1)...)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
}

// testSealKey keys the seals in the scripts and the replayed sessions, as
// the E2E tier's sessions do (e2e/session_test.go), so that files compare.
const testSealKey = "rodin-test-seal-key-0123456789ab"

// release PLUGIN OUT packages this test binary, as the three executables
// for this machine, the way `rodin release` does (release.Package) into OUT,
// and puts the checksums where the plugin carries them
// (PLUGIN/release/SHA256SUMS), for the version PLUGIN's plugin.json says.
func cmdRelease(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: release PLUGIN OUT")
	}
	plugin, out := ts.MkAbs(args[0]), ts.MkAbs(args[1])
	version := gjson.Get(ts.ReadFile(filepath.Join(plugin, ".claude-plugin", "plugin.json")), "version").String()
	self, err := os.Executable()
	ts.Check(err)
	bin := filepath.Join(out, ".bin")
	ts.Check(os.MkdirAll(bin, 0o755))
	for _, name := range release.Executables {
		ts.Check(copyFile(self, filepath.Join(bin, release.BinaryName(name, runtime.GOOS, runtime.GOARCH))))
	}
	sums, err := release.Package(bin, out, version, [][2]string{{runtime.GOOS, runtime.GOARCH}})
	ts.Check(err)
	os.RemoveAll(bin)
	ts.Check(os.MkdirAll(filepath.Join(plugin, "release"), 0o755))
	ts.Check(copyFile(sums, filepath.Join(plugin, "release", "SHA256SUMS")))
}

// serve DIR [--hang] serves DIR over HTTP on 127.0.0.1 for the rest of the
// script, sets $URL to it, and appends each request's path to
// $WORK/served. With --hang it accepts every request and never answers (a
// release host that hangs).
func cmdServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 || (len(args) == 2 && args[1] != "--hang") {
		ts.Fatalf("usage: serve DIR [--hang]")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	files := http.FileServer(http.Dir(ts.MkAbs(args[0])))
	log := ts.MkAbs("served")
	hang := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(f, r.URL.Path)
			f.Close()
		}
		if len(args) == 2 {
			select {
			case <-hang:
			case <-r.Context().Done():
			}
			return
		}
		files.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	ts.Defer(func() { close(hang); srv.Close() })
	ts.Setenv("URL", "http://"+ln.Addr().String())
}

// transcript OUT FILE writes a subagent transcript (JSONL) whose first user
// message is FILE's text: the prompt a subagent was started with.
func cmdTranscript(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: transcript OUT FILE [MESSAGE-FILE...]")
	}
	// The prompt as the first user message; each MESSAGE-FILE a later one
	// (what SendMessage delivers), after an assistant answer and a tool
	// result, as Claude Code writes a subagent's transcript.
	var out []byte
	add := func(v map[string]any) {
		line, err := json.Marshal(v)
		ts.Check(err)
		out = append(append(out, line...), '\n')
	}
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": ts.ReadFile(args[1])}})
	for _, m := range args[2:] {
		add(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t1", "name": "Bash", "input": map[string]any{}}}}})
		add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}}}})
		add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": ts.ReadFile(m)}})
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), out, 0o644))
}
