// Package sandbox works out whether a session's Bash tool can run a
// command outside Claude Code's sandbox without asking anyone. Same-user
// Bash can write anything the user can, rodin's evidence included; only
// Claude Code's sandbox (bubblewrap on Linux, Seatbelt on macOS) stops it.
//
// It reads the settings Claude Code reads (managed, the project's local
// and shared settings, the user's; highest first) and the permission mode
// of the hook input. It cannot see `--settings` given on the command line,
// nor what Claude Code decides for a command in auto mode.
package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/pkg/safefile"
)

// Settings is a settings file as read.
type Settings struct {
	Path string
	JSON gjson.Result
}

// Files are the settings files Claude Code reads for a project, highest
// precedence first. RODIN_MANAGED_SETTINGS names another managed settings
// file (the tests name none, so that a machine's own does not change them).
func Files(getenv func(string) string, project string) []string {
	home := getenv("HOME")
	var out []string
	switch managed := getenv("RODIN_MANAGED_SETTINGS"); {
	case managed != "":
		out = append(out, managed)
	case runtime.GOOS == "darwin":
		out = append(out, "/Library/Application Support/ClaudeCode/managed-settings.json")
	default:
		out = append(out, "/etc/claude-code/managed-settings.json")
	}
	if project != "" {
		out = append(out, filepath.Join(project, ".claude", "settings.local.json"), filepath.Join(project, ".claude", "settings.json"))
	}
	if home != "" {
		out = append(out, filepath.Join(home, ".claude", "settings.json"))
	}
	return out
}

// Read reads the settings files that exist and hold JSON, highest first;
// the others are named in unreadable.
func Read(paths []string) (found []Settings, unreadable []string) {
	for _, p := range paths {
		b, err := safefile.ReadFile(p, 4<<20)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil || !gjson.ValidBytes(b) {
			unreadable = append(unreadable, p)
			continue
		}
		found = append(found, Settings{Path: p, JSON: gjson.ParseBytes(b)})
	}
	return found, unreadable
}

// Status is what a session's Bash can do.
type Status struct {
	Mode string `json:"permission_mode,omitempty"`
	// Sandboxed: sandbox.enabled is true in the setting that wins.
	Sandboxed bool `json:"sandboxed"`
	// Escapable: a command may ask to leave the sandbox
	// (dangerouslyDisableSandbox), allowUnsandboxedCommands not false.
	Escapable bool `json:"escapable"`
	// RunsUnasked names what lets Bash run without asking anyone: the
	// permission mode, or an allow rule for every Bash command and its file.
	RunsUnasked string `json:"runs_unasked,omitempty"`
	// Unsandboxed: a Bash command can run outside the sandbox without
	// asking anyone. The gates' evidence is then only as safe as the
	// agent is honest.
	Unsandboxed bool     `json:"unsandboxed"`
	Settings    []string `json:"settings"`             // the files read
	Unreadable  []string `json:"unreadable,omitempty"` // settings files that are not JSON
	Why         string   `json:"why,omitempty"`        // one line, when Unsandboxed
	Fix         string   `json:"fix,omitempty"`        // the exact setting that fixes it
}

// FixSetting is what turns the sandbox on with no way out, in a settings
// file: what `rodin sandbox --enable` writes into the user's settings.
const FixSetting = `"sandbox": {"enabled": true, "allowUnsandboxedCommands": false}`

// unattendedModes run Bash without asking the user (auto mode lets a
// classifier decide; dontAsk denies what is not allowed, so it is not one).
func unattendedMode(mode string) bool { return mode == "bypassPermissions" || mode == "auto" }

// Detect works out the status for a session in mode (the hook input's
// permission_mode), reading the settings of the user (HOME) and project.
func Detect(getenv func(string) string, project, mode string) Status {
	found, unreadable := Read(Files(getenv, project))
	return decide(found, unreadable, mode)
}

func decide(found []Settings, unreadable []string, mode string) Status {
	st := Status{Mode: mode, Escapable: true, Unreadable: unreadable, Settings: []string{}}
	enabledSet, escapeSet := false, false
	for _, s := range found {
		st.Settings = append(st.Settings, s.Path)
		if v := s.JSON.Get("sandbox.enabled"); v.Exists() && !enabledSet {
			st.Sandboxed, enabledSet = v.Bool(), true
		}
		if v := s.JSON.Get("sandbox.allowUnsandboxedCommands"); v.Exists() && !escapeSet {
			st.Escapable, escapeSet = v.Bool(), true
		}
		if st.RunsUnasked == "" {
			s.JSON.Get("permissions.allow").ForEach(func(_, r gjson.Result) bool {
				if allowsAllBash(r.String()) {
					st.RunsUnasked = fmt.Sprintf("the allow rule %q in %s", r.String(), s.Path)
					return false
				}
				return true
			})
		}
		if st.RunsUnasked == "" && unattendedMode(s.JSON.Get("permissions.defaultMode").String()) && mode == "" {
			st.RunsUnasked = fmt.Sprintf("permissions.defaultMode %q in %s", s.JSON.Get("permissions.defaultMode").String(), s.Path)
		}
	}
	if unattendedMode(mode) {
		st.RunsUnasked = fmt.Sprintf("the permission mode %s", mode)
	}
	if st.RunsUnasked == "" {
		return st
	}
	switch {
	case !st.Sandboxed:
		st.Unsandboxed = true
		st.Why = "Bash runs without asking (" + st.RunsUnasked + ") and Claude Code's sandbox is off"
	case st.Escapable:
		st.Unsandboxed = true
		st.Why = "Bash runs without asking (" + st.RunsUnasked + ") and may leave the sandbox (allowUnsandboxedCommands is not false)"
	default:
		return st
	}
	st.Fix = "add " + FixSetting + " to ~/.claude/settings.json (`rodin sandbox --enable`; on Linux it needs bubblewrap and socat)"
	return st
}

// allowsAllBash reports whether a permission rule allows every Bash
// command: `Bash`, `Bash(*)`, `Bash(:*)` and the like.
func allowsAllBash(rule string) bool {
	rule = strings.TrimSpace(rule)
	if rule == "Bash" {
		return true
	}
	inner, ok := strings.CutPrefix(rule, "Bash(")
	if !ok || !strings.HasSuffix(inner, ")") {
		return false
	}
	inner = strings.TrimSpace(strings.TrimSuffix(inner, ")"))
	return strings.Trim(inner, "*: ") == ""
}

// Message is the one line a session is told at its start, "" when there
// is nothing to say.
func (st Status) Message() string {
	if !st.Unsandboxed {
		return ""
	}
	return "this session's Bash can run commands outside Claude Code's sandbox without asking (" + st.Why + "): an agent can then write rodin's evidence itself, so the gates hold only as far as it is honest. To fix: " + st.Fix
}

// Strict reports whether the user asked the gates to deny while Bash is
// unsandboxed (RODIN_REQUIRE_SANDBOX=1): for unattended loops.
func Strict(getenv func(string) string) bool {
	v := getenv("RODIN_REQUIRE_SANDBOX")
	return v == "1" || v == "true" || v == "yes"
}

// StrictDenial is the reason a gate gives under RODIN_REQUIRE_SANDBOX when
// the session's Bash is unsandboxed, "" otherwise.
func StrictDenial(getenv func(string) string, project, mode, what string) string {
	if !Strict(getenv) {
		return ""
	}
	st := Detect(getenv, project, mode)
	if !st.Unsandboxed {
		return ""
	}
	return fmt.Sprintf("RODIN_REQUIRE_SANDBOX is set and %s, so %s: evidence a Bash command could have written is not trusted. To fix: %s, then start a new session; or unset RODIN_REQUIRE_SANDBOX.", st.Why, what, st.Fix)
}

// Summary is one line for `rodin status` and `rodin doctor`, run where the
// permission mode is not known.
func (st Status) Summary() string {
	switch {
	case st.Unsandboxed:
		return "Bash can run outside the sandbox without asking: " + st.Why + "; to fix: " + st.Fix
	case st.Sandboxed && !st.Escapable:
		return "on, with no way out (allowUnsandboxedCommands false): a Bash command cannot write outside the project"
	case st.Sandboxed:
		return "on, but a command may ask to leave it (allowUnsandboxedCommands is not false): in bypassPermissions it would not ask; to fix: add " + FixSetting + " to ~/.claude/settings.json"
	}
	return "off: a session in bypassPermissions or auto mode, or one allowing every Bash command, runs Bash outside it without asking; to fix: " + "add " + FixSetting + " to ~/.claude/settings.json (`rodin sandbox --enable`)"
}

// ModeFromProcess is the permission mode Claude Code was started with, read
// from the command line of the nearest ancestor process that gave one
// (`--permission-mode MODE`, `--dangerously-skip-permissions`): the
// SessionStart input carries no permission_mode (2.1.295, 2.1.330). Linux
// only (/proc); "" when it cannot tell.
func ModeFromProcess() string {
	pid := os.Getppid()
	for i := 0; i < 12 && pid > 1; i++ {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			return ""
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		// Up through the shells that start hooks (and rodin's launcher) to
		// the first other process, which must be Claude Code: anything else
		// (a test runner, an editor) says nothing of a session.
		if !startsHooks(filepath.Base(args[0])) {
			return modeFlag(args)
		}
		if pid, err = parentPID(pid); err != nil {
			return ""
		}
	}
	return ""
}

// startsHooks are the programs between Claude Code and a hook executable.
func startsHooks(prog string) bool {
	switch prog {
	case "sh", "bash", "dash", "zsh", "ash", "busybox", "env", "rodin":
		return true
	}
	return false
}

// modeFlag reads the permission mode from Claude Code's command line, ""
// when the process is not Claude Code or gave none (its default).
func modeFlag(args []string) string {
	if !strings.Contains(strings.Join(args, " "), "claude") {
		return ""
	}
	for j, a := range args {
		switch {
		case a == "--dangerously-skip-permissions":
			return "bypassPermissions"
		case a == "--permission-mode" && j+1 < len(args):
			return args[j+1]
		case strings.HasPrefix(a, "--permission-mode="):
			return strings.TrimPrefix(a, "--permission-mode=")
		}
	}
	return ""
}

// parentPID reads a process's parent from /proc/PID/stat: the second field
// after the command name, which is in parentheses and may hold spaces.
func parentPID(pid int) (int, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(f) < 2 {
		return 0, fmt.Errorf("/proc/%d/stat has no parent", pid)
	}
	return strconv.Atoi(f[1])
}

// MissingTools are the programs Claude Code's sandbox needs on this
// machine (bubblewrap and socat on Linux) that are not on PATH.
func MissingTools() []string {
	missing := []string{}
	if runtime.GOOS != "linux" {
		return missing
	}
	for _, p := range []string{"bwrap", "socat"} {
		if _, err := exec.LookPath(p); err != nil {
			missing = append(missing, p)
		}
	}
	return missing
}
