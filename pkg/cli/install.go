package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/internal/buildid"
	"github.com/rodin-gate/rodin/internal/every"
	"github.com/rodin-gate/rodin/internal/release"
	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/plansdir"
	"github.com/rodin-gate/rodin/pkg/project"
	"github.com/rodin-gate/rodin/pkg/sandbox"
)

func runVersion(e *env, args []string) error {
	var asJSON bool
	pos, err := flags("version", args, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "print it as JSON")
	})
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{"version takes no arguments"}
	}
	if asJSON {
		return writeJSON(e.stdout, map[string]string{"version": Version, "commit": strings.TrimSuffix(strings.TrimPrefix(commit(), " (commit "), ")"),
			"platform": runtime.GOOS + "/" + runtime.GOARCH, "go": runtime.Version()})
	}
	fmt.Fprintf(e.stdout, "rodin %s%s %s/%s %s\n", Version, commit(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	return nil
}

// commit is " (commit 1234abcd)" from the build's version control stamp,
// " (commit 1234abcd, modified)" for a build of uncommitted changes, ""
// when the build carries none (go run, go test).
func commit() string {
	if c := buildid.Commit; c != "" {
		return " (commit " + strings.Replace(c, "-modified", ", modified", 1) + ")"
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, modified := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified {
		return " (commit " + rev + ", modified)"
	}
	return " (commit " + rev + ")"
}

// pluginRoot finds the plugin directory: CLAUDE_PLUGIN_ROOT, or
// RODIN_PLUGIN_ROOT (set by the launcher), or the directory above the
// libexec folder this binary runs from, or plugin/ in a source checkout.
func pluginRoot(e *env) string {
	for _, v := range []string{"CLAUDE_PLUGIN_ROOT", "RODIN_PLUGIN_ROOT"} {
		if d := e.getenv(v); d != "" {
			return d
		}
	}
	if exe, err := os.Executable(); err == nil && filepath.Base(filepath.Dir(exe)) == "libexec" {
		return filepath.Dir(filepath.Dir(exe))
	}
	if cwd, err := os.Getwd(); err == nil {
		if root, err := sourceRoot(cwd); err == nil {
			return filepath.Join(root, "plugin")
		}
	}
	return ""
}

// doctorCheck is one line of rodin doctor: ok, FAIL, or a note.
type doctorCheck struct {
	Result string `json:"result"` // ok, fail, note
	Text   string `json:"text"`
	// Group names checks of one kind (the executables, hooks.json, the
	// prepared links): a run of them that all pass, or all are notes, is
	// one line unless -v.
	Group string `json:"group,omitempty"`
}

// groupLine is the one line a run of n checks of a group stands as.
func groupLine(group string, n int, checks []doctorCheck) string {
	switch group {
	case "executables":
		if checks[0].Result == "note" {
			return fmt.Sprintf("%d executables missing in %s; the launcher builds them with go on first use", n, filepath.Dir(strings.Fields(checks[0].Text)[0]))
		}
		return fmt.Sprintf("%d executables present (%s)", n, filepath.Dir(strings.Fields(checks[0].Text)[0]))
	case "hooks.json":
		return fmt.Sprintf("hooks.json: all %d hooks rodin needs are there, each guarding hook blocking when it fails", n)
	case "links":
		if checks[0].Result == "note" {
			return fmt.Sprintf("%d hook executables not prepared yet in %s: the next Claude Code session start prepares them", n, filepath.Dir(strings.Fields(checks[0].Text)[0]))
		}
		return fmt.Sprintf("%d hook executables ready in %s", n, filepath.Dir(strings.Fields(checks[0].Text)[0]))
	}
	return fmt.Sprintf("%d checks of %s", n, group)
}

func runDoctor(e *env, args []string) error {
	var asJSON, verbose bool
	args, err := flags("doctor", args, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "print the checks as JSON")
		fs.BoolVar(&verbose, "v", false, "one line per check, also where a group of them passes")
	})
	if err != nil {
		return err
	}
	if len(args) > 0 {
		return usageError{"doctor takes no arguments"}
	}
	var checks []doctorCheck
	problems := 0
	group := ""
	report := func(ok bool, format string, args ...any) {
		c := doctorCheck{Result: "ok", Text: fmt.Sprintf(format, args...), Group: group}
		if !ok {
			c.Result = "fail"
			problems++
		}
		checks = append(checks, c)
	}
	note := func(format string, args ...any) {
		checks = append(checks, doctorCheck{Result: "note", Text: fmt.Sprintf(format, args...), Group: group})
	}
	defer func() {
		if asJSON {
			writeJSON(e.stdout, map[string]any{"version": Version, "platform": runtime.GOOS + "/" + runtime.GOARCH, "checks": checks, "problems": problems})
			return
		}
		fmt.Fprintf(e.stdout, "rodin %s on %s/%s\n", Version, runtime.GOOS, runtime.GOARCH)
		for i := 0; i < len(checks); {
			c := checks[i]
			j := i + 1
			for j < len(checks) && c.Group != "" && checks[j].Group == c.Group && checks[j].Result == c.Result {
				j++
			}
			mark := map[string]string{"ok": "ok  ", "fail": "FAIL", "note": "note"}[c.Result]
			whole := j == len(checks) || checks[j].Group != c.Group // the group's every check is in the run
			if j-i > 1 && !verbose && c.Result != "fail" && whole && (i == 0 || checks[i-1].Group != c.Group) {
				fmt.Fprintf(e.stdout, "%s %s\n", mark, groupLine(c.Group, j-i, checks[i:j]))
			} else {
				for _, c := range checks[i:j] {
					fmt.Fprintf(e.stdout, "%s %s\n", map[string]string{"ok": "ok  ", "fail": "FAIL", "note": "note"}[c.Result], c.Text)
				}
			}
			i = j
		}
	}()

	root := pluginRoot(e)
	if root == "" {
		report(false, "plugin directory not found (set CLAUDE_PLUGIN_ROOT, or run in a source checkout)")
	} else {
		report(true, "plugin directory %s", root)
		_, goErr := exec.LookPath("go")
		// Without executables of its own, a plugin runs those the launcher
		// built or downloaded into a data directory, under its version.
		version := gjson.Get(readString(filepath.Join(root, ".claude-plugin", "plugin.json")), "version").String()
		var dataDirs []string
		for _, d := range []string{e.getenv("CLAUDE_PLUGIN_DATA"), evidence.DataDir(e.getenv), launcherCache(e.getenv)} {
			if d != "" && version != "" {
				dataDirs = append(dataDirs, filepath.Join(d, "libexec", version))
			}
		}
		group = "executables"
		for _, name := range release.Executables {
			exe := release.BinaryName(name, runtime.GOOS, runtime.GOARCH)
			bin := filepath.Join(root, "libexec", exe)
			prepared := ""
			for _, d := range dataDirs {
				if fi, err := os.Stat(filepath.Join(d, exe)); err == nil && fi.Mode().IsRegular() {
					prepared = filepath.Join(d, exe)
					break
				}
			}
			switch fi, err := os.Stat(bin); {
			case err == nil && fi.Mode().IsRegular():
				report(true, "%s present", bin)
			case prepared != "":
				report(true, "%s present (the launcher built or downloaded it)", prepared)
			case goErr == nil:
				note("%s missing; the launcher builds it with go on first use", bin)
			default:
				report(false, "%s missing and go is not on PATH: the gate denies every ExitPlanMode until it is installed", bin)
			}
		}
		group = "hooks.json"
		checkHooksJSON(root, report)
		group = ""
	}
	if home := installHome(e.getenv); home != "" {
		if src, at, ok := installedFrom(home); ok {
			note("installed copy %s (from %s, %s): the checkout may move or go", home, src, at)
		}
	}
	group = "links"
	checkHookLinks(e.getenv, report, note)
	group = ""

	cwd, _ := os.Getwd()
	for _, d := range plansdir.Dirs(plansdir.Env{Getenv: e.getenv, Cwd: cwd}) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			n := 0
			if entries, err := os.ReadDir(d); err == nil {
				for _, de := range entries {
					if strings.HasSuffix(de.Name(), ".md") {
						n++
					}
				}
			}
			report(true, "plans directory %s (%d plan files)", d, n)
		} else {
			note("plans directory %s does not exist yet (Claude Code creates it)", d)
		}
	}
	if e.getenv("RODIN_GATE") == "off" {
		note("RODIN_GATE=off: the plan gate is off")
	}
	cwd, _ = os.Getwd()
	note("sandbox: %s", sandbox.Detect(e.getenv, project.Root(e.getenv, cwd), "").Summary())
	if claude, err := exec.LookPath("claude"); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := boundedCommand(ctx, claude, "--version").Output()
		report(err == nil, "Claude Code %s", strings.TrimSpace(string(out)))
		installed := ""
		if home := installHome(e.getenv); home != "" {
			if _, _, ok := installedFrom(home); ok {
				installed = home
			}
		}
		checkRegistration(claude, installed, report, note)
	} else {
		note("the claude CLI is not on PATH")
	}
	if problems > 0 {
		return withHint(fmt.Errorf("%d problem(s) found", problems), "each FAIL line says what is missing; `rodin install` in a source checkout rebuilds the executables, and a new Claude Code session runs the SessionStart hook again")
	}
	return nil
}

// linkOnPath puts rodin on the user's PATH: a link in $XDG_BIN_HOME or
// ~/.local/bin to the executable just built (which finds its plugin from
// where it really is). It never replaces a file it did not make, and says
// the exact line to add when that directory is not on PATH.
func linkOnPath(e *env, exe string) {
	dir := e.getenv("XDG_BIN_HOME")
	if dir == "" {
		home := e.getenv("HOME")
		if home == "" {
			return
		}
		dir = filepath.Join(home, ".local", "bin")
	}
	link := filepath.Join(dir, "rodin")
	if cur, err := os.Readlink(link); err != nil || cur != exe {
		if _, err := os.Lstat(link); err == nil && !isRodinLink(link) {
			fmt.Fprintf(e.stdout, "rodin: %s exists and is not rodin's; leaving it. Run rodin as %s\n", link, exe)
			return
		}
		os.Remove(link)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintf(e.stdout, "rodin: could not create %s: %v\n", dir, err)
			return
		}
		if err := os.Symlink(exe, link); err != nil {
			fmt.Fprintf(e.stdout, "rodin: could not link %s: %v\n", link, err)
			return
		}
	}
	fmt.Fprintf(e.stdout, "linked %s -> %s\n", link, exe)
	for _, p := range filepath.SplitList(e.getenv("PATH")) {
		if filepath.Clean(p) == filepath.Clean(dir) {
			return
		}
	}
	fmt.Fprintf(e.stdout, "%s is not on your PATH; add it, for example in ~/.profile:\n\n    export PATH=\"%s:$PATH\"\n\n", dir, dir)
}

// isRodinLink reports whether link points at a rodin executable in a libexec
// directory (one that an earlier install made).
func isRodinLink(link string) bool {
	target, err := os.Readlink(link)
	return err == nil && filepath.Base(filepath.Dir(target)) == "libexec" && strings.HasPrefix(filepath.Base(target), "rodin-")
}

// checkHooksJSON checks that the plugin's hooks.json prepares the
// executables at session start through the launcher, starts the gate on
// ExitPlanMode so that a failure blocks, and runs the metadata hook on plan
// edits, Agent results and subagent stops.
func checkHooksJSON(root string, report func(bool, string, ...any)) {
	path := filepath.Join(root, "hooks", "hooks.json")
	b, err := os.ReadFile(path)
	if err != nil || !gjson.ValidBytes(b) {
		report(false, "%s is missing or not valid JSON", path)
		return
	}
	find := func(event, matcher string, ok func(h gjson.Result) bool) bool {
		for _, m := range gjson.GetBytes(b, "hooks."+event).Array() {
			if m.Get("matcher").String() != matcher {
				continue
			}
			for _, h := range m.Get("hooks").Array() {
				if ok(h) {
					return true
				}
			}
		}
		return false
	}
	execs := func(name string) func(gjson.Result) bool {
		return func(h gjson.Result) bool {
			return h.Get("command").String() == "${CLAUDE_PLUGIN_DATA}/bin/"+name && h.Get("args").IsArray()
		}
	}
	launcher := filepath.Join(root, "bin", "rodin")
	_, lerr := os.Stat(launcher)
	report(lerr == nil && find("SessionStart", "", func(h gjson.Result) bool {
		return strings.Contains(h.Get("command").String(), "${CLAUDE_PLUGIN_ROOT}/bin/rodin\" setup")
	}), "hooks.json prepares the executables at SessionStart through the launcher (%s)", launcher)
	report(find("PreToolUse", "ExitPlanMode", func(h gjson.Result) bool {
		return execs("pretooluse")(h) && h.Get("onFailure").String() == "block"
	}), "hooks.json starts the gate on ExitPlanMode, blocking when it fails")
	for _, tool := range []string{"Write", "Edit", "MultiEdit"} {
		report(find("PreToolUse", tool, func(h gjson.Result) bool {
			return execs("pretooluse")(h) && h.Get("onFailure").String() == "block"
		}), "hooks.json guards the plan's own lines before %s, blocking when it fails", tool)
	}
	for _, tool := range []string{"Write", "Edit", "MultiEdit", "Agent|Task"} {
		report(find("PostToolUse", tool, execs("posttooluse")), "hooks.json runs posttooluse after %s", tool)
	}
	report(find("PostToolUse", "ExitPlanMode", execs("posttooluse")) && find("PostToolUseFailure", "ExitPlanMode", execs("posttooluse")), "hooks.json checks the plan approved against the plan assessed")
	report(find("SubagentStop", "rodin:critic|rodin:validator|rodin:leakage-detector|rodin:qa-engineer", execs("posttooluse")), "hooks.json runs posttooluse when a critic, validator, leakage detector or qa-engineer stops")
	report(find("PostToolUse", "Bash", execs("posttooluse")) && find("PostToolUseFailure", "Bash", execs("posttooluse")), "hooks.json records every Bash command's outcome (the verify gate's evidence)")
	for _, event := range []string{"Stop", "TaskCompleted"} {
		report(find(event, "", execs("stop")), "hooks.json runs the verify gate's stop hook on %s", event)
	}
	report(find("UserPromptSubmit", "", execs("posttooluse")), "hooks.json records the waivers the user types (/rodin:waive)")
	report(find("PreToolUse", "SendMessage", execs("pretooluse")), "hooks.json records the messages sent to subagents (first answers only)")
	report(find("PreToolUse", "Read", func(h gjson.Result) bool {
		return execs("pretooluse")(h) && h.Get("onFailure").String() == "block" && strings.Contains(h.Get("if").String(), "plugins/data/rodin")
	}), "hooks.json denies Reads of rodin's data directory, blocking when it fails")
}

// checkHookLinks checks the executables hooks.json starts, in the plugin's
// data directory: CLAUDE_PLUGIN_DATA in a hook, and in a terminal the one
// the last session start recorded (or Claude Code's default for rodin@rodin).
func checkHookLinks(getenv func(string) string, report func(bool, string, ...any), note func(string, ...any)) {
	data, inSession := getenv("CLAUDE_PLUGIN_DATA"), true
	if data == "" {
		inSession = false
		if data = evidence.DataDir(getenv); data == "" {
			if home := getenv("HOME"); home != "" {
				data = filepath.Join(home, ".claude", "plugins", "data", "rodin-rodin")
			}
		}
	}
	if data == "" {
		return
	}
	for _, name := range hookExecutables {
		bin := filepath.Join(data, "bin", name)
		target, linkErr := os.Readlink(bin)
		fi, err := os.Stat(bin)
		switch {
		case linkErr == nil && target == "unavailable":
			why, _ := os.ReadFile(filepath.Join(data, "bin", "unavailable.why"))
			report(false, "%s is rodin's stand-in: the last session start could not prepare the executables (%s); it denies every ExitPlanMode until a session start can", bin, strings.TrimSpace(firstLine(string(why))))
		case err == nil && fi.Mode().IsRegular():
			report(true, "%s is ready", bin)
		case linkErr == nil:
			report(false, "%s points at %s, which is gone: Claude Code reports the hook missing at every call until a new session start links it again", bin, target)
		case inSession:
			report(false, "%s is missing: the gate denies every ExitPlanMode until the SessionStart hook prepares it (start a new session, or run `rodin setup`)", bin)
		default:
			note("%s is not there yet: the next Claude Code session start prepares it", bin)
		}
	}
}

// checkRegistration asks Claude Code, as the user's sessions will see it,
// whether rodin@rodin is installed, enabled and loads (`claude plugin list
// --json`; a plugin whose marketplace directory is gone lists "failed to
// load").
func checkRegistration(claude, installed string, report func(bool, string, ...any), note func(string, ...any)) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := boundedCommand(ctx, claude, "plugin", "list", "--json").Output()
	if ctx.Err() != nil {
		report(false, "`claude plugin list --json` gave no answer within 30s, so whether Claude Code loads rodin is unknown")
		return
	}
	if err != nil {
		note("`claude plugin list --json` failed (%v), so whether Claude Code loads rodin is unknown", err)
		return
	}
	if !gjson.ValidBytes(out) || !gjson.ParseBytes(out).IsArray() {
		note("`claude plugin list --json` printed no list of plugins, so whether Claude Code loads rodin is unknown")
		return
	}
	var found bool
	for _, p := range gjson.ParseBytes(out).Array() {
		if p.Get("id").String() != "rodin@rodin" {
			continue
		}
		found = true
		var errs []string
		for _, e := range p.Get("errors").Array() {
			errs = append(errs, e.String())
		}
		switch {
		case len(errs) > 0:
			report(false, "Claude Code cannot load rodin@rodin (%s scope): %s; the gates are off in every session until `rodin install` is run again from a checkout", p.Get("scope").String(), strings.Join(errs, "; "))
		case !p.Get("enabled").Bool():
			report(false, "rodin@rodin is installed (%s scope) but disabled: `claude plugin enable rodin@rodin` turns the gates on", p.Get("scope").String())
		default:
			from := p.Get("readFromFolder").String()
			if from == "" {
				from = p.Get("installPath").String()
			}
			report(true, "Claude Code loads rodin@rodin (%s scope) from %s", p.Get("scope").String(), from)
			if installed != "" && p.Get("readFromFolder").Exists() && filepath.Clean(from) != filepath.Join(installed, "plugin") {
				note("that is not the copy rodin install made (%s): run `rodin install` again to register it, or `rodin uninstall` the copy", filepath.Join(installed, "plugin"))
			}
		}
	}
	if !found {
		report(false, "Claude Code has no rodin@rodin installed: `rodin install` in a checkout registers it (or start claude with --plugin-dir for one session)")
	}
}

// installedFrom says where rodin install copied the plugin from; ok only
// for a record rodin wrote (source, version and time), which is what marks
// the directory as rodin's.
func installedFrom(home string) (source, at string, ok bool) {
	b, err := os.ReadFile(filepath.Join(home, installRecordName))
	if err != nil || !gjson.ValidBytes(b) {
		return "", "", false
	}
	source, at = gjson.GetBytes(b, "source").String(), gjson.GetBytes(b, "installed_at").String()
	return source, at, filepath.IsAbs(source) && at != "" && gjson.GetBytes(b, "version").String() != ""
}

func runBuild(e *env, args []string) error {
	var all bool
	var out string
	args, err := flags("build", args, func(fs *flag.FlagSet) {
		fs.BoolVar(&all, "all", false, "cross-compile every release platform")
		fs.StringVar(&out, "out", "", "output directory (default: plugin/libexec in the checkout)")
	})
	if err != nil {
		return err
	}
	if len(args) > 0 {
		return usageError{"build takes no arguments"}
	}
	root, err := checkoutRoot()
	if err != nil {
		return err
	}
	if out == "" {
		out = filepath.Join(root, "plugin", "libexec")
	}
	targets := [][2]string{{runtime.GOOS, runtime.GOARCH}}
	if all {
		targets = release.Platforms
	}
	return build(e, root, out, targets)
}

// runRelease builds every platform and writes the release archives with
// their SHA256SUMS into --out (dist/ by default), and the checksums into
// plugin/release/SHA256SUMS: the plugin carries the checksums it trusts, so
// a marketplace install without Go can fetch its executables and check
// them (the launcher's setup).
func runRelease(e *env, args []string) error {
	var out, platforms string
	args, err := flags("release", args, func(fs *flag.FlagSet) {
		fs.StringVar(&out, "out", "", "where the archives go (default: dist/ in the checkout)")
		fs.StringVar(&platforms, "platform", "", "only these platforms, os/arch, comma-separated (default: every release platform)")
	})
	if err != nil {
		return err
	}
	if len(args) > 0 {
		return usageError{"release takes no arguments"}
	}
	targets := release.Platforms
	if platforms != "" {
		targets = nil
		for _, p := range strings.Split(platforms, ",") {
			goos, goarch, ok := strings.Cut(strings.TrimSpace(p), "/")
			if !ok || goos == "" || goarch == "" {
				return usageError{fmt.Sprintf("--platform %q: want os/arch, such as linux/amd64", p)}
			}
			targets = append(targets, [2]string{goos, goarch})
		}
	}
	root, err := checkoutRoot()
	if err != nil {
		return err
	}
	if out == "" {
		out = filepath.Join(root, "dist")
	}
	bin, err := os.MkdirTemp("", "rodin-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	fmt.Fprintf(e.stderr, "rodin: building rodin %s for %d platforms\n", Version, len(targets))
	if err := build(e, root, bin, targets); err != nil {
		return err
	}
	sums, err := release.Package(bin, out, Version, targets)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(sums)
	if err != nil {
		return err
	}
	dst := filepath.Join(root, "plugin", "release", "SHA256SUMS")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		return err
	}
	layout := filepath.Join(out, "marketplace")
	if err := releaseLayout(root, layout, b); err != nil {
		return fmt.Errorf("cannot lay out the marketplace of the release: %w", err)
	}
	fmt.Fprintf(e.stdout, "wrote the archives and %s\nwrote %s (commit it with the release)\n", sums, dst)
	fmt.Fprintf(e.stdout, "wrote %s: the marketplace of this release (its plugin carries the checksums), committed and tagged v%s\n", layout, Version)
	fmt.Fprintf(e.stdout, "to publish: upload %s/*.tar.gz to the GitHub release v%s of rodin-gate/rodin, and push the marketplace:\n  git -C %s push --force git@github.com:rodin-gate/rodin-marketplace.git HEAD:refs/heads/main v%s\n", out, Version, layout, Version)
	return nil
}

// releaseLayout writes dir as the marketplace a Claude Code user without Go
// adds: the checkout's marketplace.json (its entry's source ./plugin) and
// the plugin without executables, carrying the release's checksums, as a
// git repository committed and tagged v<version>. Its launcher downloads
// the archives and checks them against those checksums.
func releaseLayout(root, dir string, sums []byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := release.CopyTree(filepath.Join(root, "plugin"), filepath.Join(dir, "plugin"), "libexec"); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "plugin", "release"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "plugin", "release", "SHA256SUMS"), sums, 0o644); err != nil {
		return err
	}
	mkt, err := os.ReadFile(filepath.Join(root, ".claude-plugin", "marketplace.json"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, ".claude-plugin"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ".claude-plugin", "marketplace.json"), mkt, 0o644); err != nil {
		return err
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil // the files are the release; a repository is for publishing it
	}
	for _, args := range [][]string{
		{"init", "--quiet", "--initial-branch=main"},
		{"add", "-A"},
		{"-c", "user.name=rodin release", "-c", "user.email=release@rodin.invalid", "-c", "commit.gpgsign=false", "commit", "--quiet", "-m", "rodin " + Version},
		{"-c", "tag.gpgsign=false", "tag", "v" + Version},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", args[0], err, out)
		}
	}
	return nil
}

// build compiles the executables the way releases are built (see
// internal/release).
func build(e *env, root, out string, targets [][2]string) error {
	if _, err := exec.LookPath("go"); err != nil {
		return withHint(errors.New("go is not on PATH"), "install Go from https://go.dev/dl/")
	}
	pkgs := make([]string, len(release.Executables))
	for i, name := range release.Executables {
		pkgs[i] = "./hooks/" + name
	}
	// A cold build (modules downloaded, the standard library compiled) can
	// take a minute before the first executable is done: a line every 10 s
	// says it still works.
	start := time.Now()
	defer every.Start(10*time.Second, func(el time.Duration) {
		fmt.Fprintf(e.stderr, "rodin: still building (%s)\n", el.Round(time.Second))
	})()
	if err := release.Build(root, out, pkgs, targets, e.stdout); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "rodin: built in %s\n", time.Since(start).Round(100*time.Millisecond))
	return nil
}

func runInstall(e *env, args []string) error {
	if len(args) > 0 {
		return usageError{"install takes no arguments"}
	}
	root, err := checkoutRoot()
	if err != nil {
		// sh plugin/bin/rodin install, run from outside the clone.
		if r, err2 := sourceRoot(filepath.Dir(e.getenv("RODIN_PLUGIN_ROOT"))); e.getenv("RODIN_PLUGIN_ROOT") != "" && err2 == nil {
			root, err = r, nil
		} else {
			return err
		}
	}
	home := installHome(e.getenv)
	if home == "" {
		return withHint(errors.New("HOME is not set"), "run it as the user who will run Claude Code")
	}
	if err := checkInstallHome(home); err != nil {
		return err
	}
	exeDir := filepath.Join(root, "plugin", "libexec")
	if _, goErr := exec.LookPath("go"); goErr == nil {
		fmt.Fprintf(e.stderr, "rodin: building rodin for %s/%s into %s\n", runtime.GOOS, runtime.GOARCH, exeDir)
		if err := build(e, root, exeDir, [][2]string{{runtime.GOOS, runtime.GOARCH}}); err != nil {
			return err
		}
	} else if self, err := os.Executable(); err == nil && haveExecutables(filepath.Dir(self)) {
		exeDir = filepath.Dir(self) // the release the launcher downloaded
		if want := gjson.Get(readString(filepath.Join(root, "plugin", ".claude-plugin", "plugin.json")), "version").String(); want != Version {
			return withHint(fmt.Errorf("this rodin is %s and the checkout is %s: its executables are not the checkout's", Version, want), "run `sh plugin/bin/rodin install` in the checkout (it fetches the checkout's release), or install Go")
		}
	} else if !haveExecutables(exeDir) {
		return withHint(errors.New("go is not on PATH, and there are no rodin executables for this machine to install"), "install Go (https://go.dev/dl/), or run `sh plugin/bin/rodin install`, which downloads the release")
	}
	if err := copyPlugin(root, home, exeDir); err != nil {
		return fmt.Errorf("copying the plugin to %s: %w", home, err)
	}
	fmt.Fprintf(e.stdout, "copied the plugin and its executables to %s (Claude Code loads it from there: the checkout may move)\n", home)
	linkOnPath(e, filepath.Join(home, "plugin", "libexec", release.BinaryName("rodin", runtime.GOOS, runtime.GOARCH)))
	claude, err := exec.LookPath("claude")
	if err != nil {
		fmt.Fprintf(e.stdout, `
The claude CLI is not on PATH, so rodin is installed but not registered.
Either load the plugin for one session:

    claude --plugin-dir %q

or register it for good:

    claude plugin marketplace add %q
    claude plugin install rodin@rodin

`, filepath.Join(home, "plugin"), home)
		return doctorOf(e, home)
	}
	run := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := boundedCommand(ctx, claude, args...)
		cmd.Dir = home
		b, err := cmd.CombinedOutput()
		if ctx.Err() != nil {
			err = fmt.Errorf("no answer within 2 minutes")
		}
		return strings.TrimSpace(string(b)), err
	}
	// Adding the marketplace again from another directory (an earlier
	// install from the checkout itself) points it here; removing it first
	// would delete rodin's data with it.
	if out, err := run("plugin", "marketplace", "add", home); err != nil {
		if !strings.Contains(strings.ToLower(out), "already") {
			return fmt.Errorf("claude plugin marketplace add %s: %v\n%s", home, err, out)
		}
		if out, err := run("plugin", "marketplace", "update", "rodin"); err != nil {
			return fmt.Errorf("claude plugin marketplace update rodin: %v\n%s", err, out)
		}
	}
	if out, err := run("plugin", "install", "rodin@rodin"); err != nil && !strings.Contains(strings.ToLower(out), "already") {
		return fmt.Errorf("claude plugin install rodin@rodin: %v\n%s", err, out)
	}
	fmt.Fprintf(e.stdout, "\nregistered: rodin@rodin (marketplace %s). Start claude and use /rodin:plan-gate in plan mode.\n\n", home)
	return doctorOf(e, home)
}

// doctorOf runs rodin doctor on the copy install made, whatever plugin
// directory this process was started from.
func doctorOf(e *env, home string) error {
	copied := *e
	copied.getenv = func(k string) string {
		if k == "CLAUDE_PLUGIN_ROOT" || k == "RODIN_PLUGIN_ROOT" {
			return filepath.Join(home, "plugin")
		}
		return e.getenv(k)
	}
	return runDoctor(&copied, nil)
}

// installHome is rodin's own copy of its plugin, the marketplace Claude
// Code is told to load: a directory that stays put when the checkout moves
// or goes ($XDG_DATA_HOME/rodin, or ~/.local/share/rodin).
func installHome(getenv func(string) string) string {
	if d := getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "rodin")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "share", "rodin")
	}
	return ""
}

// installRecordName is the file in installHome that says where the copy
// came from; its presence marks the directory as rodin's.
const installRecordName = "installed.json"

// boundedCommand is exec.CommandContext whose wait is bounded too: a
// claude that leaves a child holding its output (a shim) cannot keep rodin
// waiting past ctx.
func boundedCommand(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// checkInstallHome refuses anything at home that rodin did not make: a
// file, a link, a directory with other things in it.
func checkInstallHome(home string) error {
	refuse := func(what string) error {
		return withHint(fmt.Errorf("%s %s", home, what), "move it away, or set XDG_DATA_HOME to put rodin's copy elsewhere")
	}
	fi, err := os.Lstat(home)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return refuse(fmt.Sprintf("cannot be read (%v)", err))
	case fi.Mode()&fs.ModeSymlink != 0:
		return refuse("is a symbolic link, and rodin keeps a directory of its own there")
	case !fi.IsDir():
		return refuse("exists and is not rodin's install (not a directory)")
	}
	entries, err := os.ReadDir(home)
	if err != nil {
		return refuse(fmt.Sprintf("cannot be read (%v)", err))
	}
	if len(entries) == 0 {
		return nil
	}
	if _, _, ok := installedFrom(home); ok {
		return nil
	}
	return refuse("exists and is not rodin's install")
}

// haveExecutables reports whether dir holds every rodin executable for
// this machine.
func haveExecutables(dir string) bool {
	for _, name := range release.Executables {
		if fi, err := os.Stat(filepath.Join(dir, release.BinaryName(name, runtime.GOOS, runtime.GOARCH))); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// copyPlugin makes home a copy of the checkout's marketplace manifest and
// plugin, with the executables for this machine from exeDir, and swaps it
// in for an earlier copy with renames: a session starting meanwhile sees
// the old copy or the new one, never half of one.
func copyPlugin(root, home, exeDir string) error {
	if err := os.MkdirAll(filepath.Dir(home), 0o755); err != nil {
		return err
	}
	sweepInstallLeftovers(home)
	tmp, err := os.MkdirTemp(filepath.Dir(home), fmt.Sprintf(".rodin-new-%d-", os.Getpid()))
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(tmp, ".claude-plugin"), 0o755); err != nil {
		return err
	}
	if err := copyFile(filepath.Join(root, ".claude-plugin", "marketplace.json"), filepath.Join(tmp, ".claude-plugin", "marketplace.json"), 0o644); err != nil {
		return err
	}
	if err := release.CopyTree(filepath.Join(root, "plugin"), filepath.Join(tmp, "plugin"), "libexec"); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(tmp, "plugin", "libexec"), 0o755); err != nil {
		return err
	}
	for _, name := range release.Executables {
		exe := release.BinaryName(name, runtime.GOOS, runtime.GOARCH)
		if err := copyFile(filepath.Join(exeDir, exe), filepath.Join(tmp, "plugin", "libexec", exe), 0o755); err != nil {
			return err
		}
	}
	rec, _ := json.MarshalIndent(map[string]string{
		"source": root, "version": Version, "installed_at": time.Now().UTC().Format(time.RFC3339),
	}, "", "  ")
	if err := os.WriteFile(filepath.Join(tmp, installRecordName), append(rec, '\n'), 0o644); err != nil {
		return err
	}
	old := ""
	if _, err := os.Lstat(home); err == nil {
		old = fmt.Sprintf("%s.old-%d", home, os.Getpid())
		if err := os.Rename(home, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, home); err != nil {
		if old != "" {
			os.Rename(old, home)
		}
		return err
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return nil
}

// sweepInstallLeftovers removes what an install that was stopped left
// beside home (.rodin-new-PID-*, rodin.old-PID), when its process is gone.
func sweepInstallLeftovers(home string) {
	dir := filepath.Dir(home)
	entries, _ := os.ReadDir(dir)
	for _, de := range entries {
		name := de.Name()
		var pid string
		switch {
		case strings.HasPrefix(name, ".rodin-new-"):
			pid, _, _ = strings.Cut(strings.TrimPrefix(name, ".rodin-new-"), "-")
		case strings.HasPrefix(name, filepath.Base(home)+".old-"):
			pid = strings.TrimPrefix(name, filepath.Base(home)+".old-")
		default:
			continue
		}
		if n, err := strconv.Atoi(pid); err == nil && !processAlive(n) {
			os.RemoveAll(filepath.Join(dir, name))
		}
	}
}

// copyFile copies src to dst with mode perm, by way of a temporary file.
func copyFile(src, dst string, perm os.FileMode) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, b, perm); err != nil {
		return err
	}
	if err := os.Chmod(tmp, perm); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// checkoutRoot is the rodin source checkout the command runs in.
func checkoutRoot() (string, error) {
	cwd, _ := os.Getwd()
	return sourceRoot(cwd)
}

// readString is a file's text, "" when it cannot be read.
func readString(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// launcherCache is the launcher's own data directory outside hooks
// ($XDG_CACHE_HOME/rodin or ~/.cache/rodin), where a terminal download goes
// and where the pointer to the plugin's data directory is kept.
func launcherCache(getenv func(string) string) string {
	if p := evidence.DataPointer(getenv); p != "" {
		return filepath.Dir(p)
	}
	return ""
}
