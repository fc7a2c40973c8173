package cli

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rodin-gate/rodin/pkg/checks"
	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rodin-gate/rodin/pkg/project"
	"github.com/rodin-gate/rodin/pkg/safefile"
	"github.com/rodin-gate/rodin/pkg/tasks"
	"github.com/rodin-gate/rodin/pkg/verifygate"
)

// verifySession opens the verify gate's view for a command run by hand or
// through the agent's Bash: the session is CLAUDE_CODE_SESSION_ID (set in
// Claude Code's Bash tool), else the latest session begun in this project.
func verifySession(e *env) (*verifygate.Session, error) {
	cwd, _ := os.Getwd()
	session := e.getenv("CLAUDE_CODE_SESSION_ID")
	if session == "" {
		session = latestSession(e.getenv, project.Root(e.getenv, cwd))
	}
	s, err := verifygate.Open(e.getenv, session, cwd)
	if errors.Is(err, verifygate.ErrNoDataDir) {
		// Run by hand before any session: the project and its tasks can
		// still be shown, with no evidence.
		root := project.Root(e.getenv, cwd)
		c, cerr := project.LoadConfig(root)
		if cerr != nil {
			return nil, cerr
		}
		tasks.SetProjectRoot(root)
		return &verifygate.Session{Root: root, Config: c}, nil
	}
	return s, err
}

// latestSession is the most recent session whose baseline is for dir, or
// for the nearest folder above it that a session's baseline is for: a
// user's terminal in a subfolder of the project is in the project.
func latestSession(getenv func(string) string, dir string) string {
	data := evidence.DataDir(getenv)
	if data == "" {
		return ""
	}
	files, _ := filepath.Glob(filepath.Join(ledger.Dir(data), "*.baseline.json"))
	best, bestRoot, bestTime := "", "", time.Time{}
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".baseline.json")
		b, err := ledger.LoadBaseline(data, id)
		if err != nil || b == nil || b.Root != dir && !strings.HasPrefix(dir, b.Root+string(filepath.Separator)) || len(b.Root) < len(bestRoot) {
			continue
		}
		if fi, err := os.Stat(f); err == nil && (len(b.Root) > len(bestRoot) || fi.ModTime().After(bestTime)) {
			best, bestRoot, bestTime = id, b.Root, fi.ModTime()
		}
	}
	return best
}

// findTask finds task id in file (when given) or in the project's task
// files (verifygate.FindTask), its error with the hint on its own line.
func findTask(s *verifygate.Session, id, file string) (string, tasks.Task, error) {
	cwd, _ := os.Getwd()
	rel, t, err := s.FindTask(id, file, cwd)
	if te, ok := err.(*verifygate.TaskError); ok && te.Hint != "" {
		return rel, t, withHint(errors.New(te.Msg), "%s", te.Hint)
	}
	return rel, t, err
}

// sessionTask opens the session and finds the task named by args: a task
// id and, optionally, its task file.
func sessionTask(e *env, args []string) (*verifygate.Session, string, tasks.Task, error) {
	s, err := verifySession(e)
	if err != nil {
		return nil, "", tasks.Task{}, err
	}
	file := ""
	if len(args) == 2 {
		file = args[1]
	}
	rel, t, err := findTask(s, args[0], file)
	return s, rel, t, err
}

func runChecks(e *env, args []string) error {
	var asJSON bool
	pos, err := flags("checks", args, func(fs *flag.FlagSet) { fs.BoolVar(&asJSON, "json", false, "print JSON") })
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{"checks takes no arguments"}
	}
	cwd, _ := os.Getwd()
	root := project.Root(e.getenv, cwd)
	found := checks.Discover(root)
	if asJSON {
		if found == nil {
			found = []checks.Check{}
		}
		return writeJSON(e.stdout, map[string]any{"root": root, "checks": found, "quality": nonNil(checks.Quality(found))})
	}
	w := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(w, "Type\tCommand\tSource")
	for _, t := range append(append([]string{}, checks.Types...), "ci") {
		any := false
		for _, c := range found {
			if c.Type == t {
				fmt.Fprintf(w, "%s\t%s\t%s\n", c.Type, c.Command, c.Source)
				any = true
			}
		}
		if !any {
			fmt.Fprintf(w, "%s\tNot found\t-\n", t)
		}
	}
	return w.Flush()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// defaultVerifyTimeout is a command's timeout in `rodin verify`: under the
// longest timeout Claude Code's Bash tool allows (10 minutes), which the
// skill asks for, so that rodin's own timeout, which says what to do, comes
// first.
const defaultVerifyTimeout = 9*time.Minute + 30*time.Second

func runVerify(e *env, args []string) error {
	var timeout time.Duration
	pos, err := flags("verify", args, func(fs *flag.FlagSet) { fs.DurationVar(&timeout, "timeout", 0, "per-command timeout") })
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return usageError{"verify takes a task id and, optionally, its task file"}
	}
	s, rel, t, err := sessionTask(e, pos)
	if err != nil {
		return err
	}
	if timeout <= 0 {
		timeout = defaultVerifyTimeout
		if d, err := time.ParseDuration(s.Config.Timeout); err == nil && d > 0 {
			timeout = d
		}
	}
	if !s.IsVerification(rel, t) {
		// Its tick is not judged: running the project's checks for it
		// would say something nobody asked (issue 35, 7).
		return withHint(fmt.Errorf("%s (%s line %d) is not a verification task: the gate does not judge its tick, and there is nothing to verify", t.Name(), rel, t.Line),
			"`rodin tasks %s` lists the tasks and which are verification tasks", rel)
	}
	// Judged as the tick would judge it: a task new since the session
	// began stands for the verification tasks gone from its file.
	ticked := t
	ticked.Checked = true
	need := s.NeedOf(rel, ticked)
	fmt.Fprintf(e.stdout, "rodin verify: %s (%s line %d), from %s\n", t.Name(), rel, t.Line, s.Root)
	if e.getenv("RODIN_TEST_CHECKS") != "" {
		// A test seam: the digest a passing run would end with, for a
		// script's record of one (never the line the hook reads).
		d := "waived"
		if need.Waiver == nil {
			d = s.ChecksDigest(rel, need)
		}
		fmt.Fprintln(e.stdout, TestChecksLine+d)
	}
	if len(need.StandsFor) > 0 {
		fmt.Fprintf(e.stdout, "it is new since the session began and stands for %s, gone from its task file: their commands run too\n", strings.Join(need.StandsFor, ", "))
	}
	if need.Quality && len(need.Commands) > 0 {
		why := "the task names no command"
		if need.Prose != "" {
			why = fmt.Sprintf("the task names no command (%q reads as prose)", need.Prose)
		}
		fmt.Fprintf(e.stdout, "%s: running the quality commands (%s)\n", why, need.Commands[0].Source)
	}
	if len(need.Commands) == 0 {
		if need.QA {
			what := "what its words ask to be read is"
			if t.AC && !t.Inspect {
				what = "the acceptance criteria are"
			}
			fmt.Fprintf(e.stdout, "no command to run: %s for rodin:qa-engineer to judge (/rodin:verify %s %s)\n", what, t.Ref, rel)
			return nil
		}
		if need.Manual {
			// A person checks it: nothing rodin runs stands for that.
			fmt.Fprintf(e.stdout, "no command to run: %s needs a person: the user checks it and waives it (`%s %s %s WHAT YOU CHECKED`)\n", t.Ref, verifygate.WaiveCommand, t.Ref, rel)
			fmt.Fprintln(e.stdout, "VERIFICATION_FAIL")
			return errSilent
		}
		switch spans := codeSpans(t.Title); {
		case need.Prose != "":
			fmt.Fprintf(e.stdout, "no command could run: the task names none (%q reads as prose) and the project declares none\n", need.Prose)
		case len(spans) > 0:
			fmt.Fprintf(e.stdout, "no command could run: the task names none (%s in its title is no program on PATH nor a file in the project: a typo?) and the project declares none\n", strings.Join(spans, ", "))
		default:
			fmt.Fprintln(e.stdout, "no command could run: the task names none and the project declares none")
		}
		fmt.Fprintln(e.stdout, "VERIFICATION_FAIL")
		return errSilent
	}
	for _, c := range need.Commands {
		fmt.Fprintf(e.stdout, "demands: `%s` (%s)\n", c.Run, c.Source)
	}
	passed, failed := 0, 0
	passedIn := map[string]bool{} // command and directory of each pass
	for _, c := range need.Commands {
		// From the root, or, in a monorepo, from the task file's package
		// when the command is the package's (tasks.RunDir).
		dir := s.RunDirNow(rel, c.Run)
		if dir != s.Root {
			fmt.Fprintf(e.stdout, "runs `%s` from %s (the task file's package, whose command it is)\n", c.Run, dir)
		}
		if w, ok := runnable(dir, c.Run); !ok {
			failed++
			fmt.Fprintf(e.stdout, "FAIL  %s  (not a command: %q is neither a program on PATH nor a file in the project)\n", c.Run, w)
			continue
		}
		res := runTaskCommand(dir, c.Run, timeout)
		switch {
		case res.skipped:
			failed++
			fmt.Fprintf(e.stdout, "FAIL  %s  (could not run: exit %d, not found)\n", c.Run, res.exit)
		case res.timedOut:
			failed++
			fmt.Fprintf(e.stdout, "FAIL  %s  (timed out after %v; its process group was killed)\n", c.Run, timeout)
			fmt.Fprintf(e.stdout, "  a longer suite: `rodin verify --timeout 20m %s %s` (run it with the Bash tool's timeout at its 600000 ms most, or in a terminal), or \"timeout\" under \"verify\" in %s\n", verifygate.ShellArg(t.Ref), verifygate.ShellArg(filepath.Join(s.Root, filepath.FromSlash(rel))), project.ConfigFile)
		case res.exit == 0:
			passed++
			passedIn[verifygate.Normalize(c.Run)+"\x00"+dir] = true
			fmt.Fprintf(e.stdout, "PASS  %s  (exit 0, %s)\n", c.Run, res.took.Round(10*time.Millisecond))
		default:
			failed++
			fmt.Fprintf(e.stdout, "FAIL  %s  (exit %d, %s)\n", c.Run, res.exit, res.took.Round(10*time.Millisecond))
		}
		// A task whose output is read (a verdict it prints, a count, a
		// bound) shows it on a pass too: the qa-engineer reads it here
		// (honest day 63: a line that printed FAIL showed only PASS).
		if (res.exit != 0 || need.QA) && len(res.tail) > 0 {
			fmt.Fprintf(e.stdout, "  last %d lines:\n", len(res.tail))
			for _, l := range res.tail {
				fmt.Fprintf(e.stdout, "  | %s\n", l)
			}
		}
	}
	if need.Waiver != nil {
		fmt.Fprintln(e.stdout, verifygate.ChecksLine+"waived")
	}
	switch {
	case failed > 0 && need.Waiver != nil:
		fmt.Fprintf(e.stdout, "%d of %d commands failed; the task is waived (%q)\nVERIFICATION_PASS\n", failed, len(need.Commands), need.Waiver.Reason)
		return nil
	case failed > 0:
		if need.Changed {
			// The commands it had before an agent changed them (a typo
			// fixed) stand until the user accepts the change: fixing what
			// fails is not the way past a command nobody can run.
			fmt.Fprintf(e.stdout, "its commands changed (%s), and those it had before stand until the user accepts the change: by typing `%s %s %s %s` in Claude Code, or running `rodin waive --commands %s %s` at a terminal of their own\n",
				map[bool]string{true: "in an earlier session, by an agent", false: "since the session began"}[need.ChangedBefore],
				verifygate.WaiveCommand, t.Ref, rel, verifygate.AcceptCommands, verifygate.ShellArg(t.Ref), verifygate.ShellArg(rel))
		}
		fmt.Fprintf(e.stdout, "%d of %d commands failed\nVERIFICATION_FAIL\n", failed, len(need.Commands))
		return errSilent
	}
	if need.Waiver == nil {
		// What passed is what the task needs as it stands now, where each
		// command would run now: a command that rewrote its task, or moved
		// what decides where a command runs, passed nothing. The line the
		// hook that records this run checks is written last, after every
		// command has ended.
		digest, why := checksAfter(e, pos, passedIn)
		if why != "" {
			fmt.Fprintf(e.stdout, "the task changed while its commands ran: %s; run rodin verify again\nVERIFICATION_FAIL\n", why)
			return errSilent
		}
		fmt.Fprintln(e.stdout, verifygate.ChecksLine+digest)
	}
	switch {
	case need.Waiver != nil:
	case need.Manual:
		fmt.Fprintf(e.stdout, "its commands passed; it is checked by a person all the same: its box is the user's to tick, by waiving it (`%s %s %s WHAT THEY CHECKED`)\n", verifygate.WaiveCommand, t.Ref, rel)
	case need.QA:
		fmt.Fprintf(e.stdout, "its commands passed; its box also needs a rodin:qa-engineer run that passes (/rodin:verify %s %s) before it can be ticked\n", t.Ref, rel)
	}
	fmt.Fprintln(e.stdout, "VERIFICATION_PASS")
	if e.getenv("CLAUDE_CODE_SESSION_ID") == "" {
		// Run by hand: only a run Claude Code reports (its Bash tool, in the
		// session) is evidence, so the gate still denies the tick.
		fmt.Fprintln(e.stderr, "rodin: note: run outside Claude Code, this pass is not evidence for the verify gate: the tick counts a run it saw in the session (`rodin verify "+t.Ref+" "+rel+"` through Claude Code's Bash, which /rodin:verify does)")
	}
	return nil
}

// codeSpans are the `spans` of a title, as written.
func codeSpans(title string) []string {
	parts := strings.Split(title, "`")
	var out []string
	for i := 1; i+1 < len(parts); i += 2 {
		out = append(out, "`"+parts[i]+"`")
	}
	return out
}

// TestChecksLine opens the test seam's line (RODIN_TEST_CHECKS).
const TestChecksLine = "rodin verify (test seam) checks: "

// checksAfter reads the task again after its commands ran and returns the
// digest of what it needs now (verifygate.ChecksDigest), or why the run
// does not stand for it: a command it needs now that did not pass in this
// run, where it would run now.
func checksAfter(e *env, pos []string, passedIn map[string]bool) (digest, why string) {
	s, rel, t, err := sessionTask(e, pos)
	if err != nil {
		return "", err.Error()
	}
	t.Checked = true
	need := s.NeedOf(rel, t)
	if need.Waiver != nil {
		return "", "it is waived now"
	}
	for _, c := range need.Commands {
		if !passedIn[verifygate.Normalize(c.Run)+"\x00"+s.RunDirNow(rel, c.Run)] {
			return "", fmt.Sprintf("it needs `%s` now, which did not pass in this run", c.Run)
		}
	}
	return s.ChecksDigest(rel, need), ""
}

// runnable reports whether a command line starts with something that can
// run: a shell builtin, a program on PATH, or a file (relative to the
// project root, where rodin verify runs it). A command read from prose
// starts with a word that is none of these. It also returns that word.
func runnable(root, c string) (string, bool) {
	w := tasks.FirstWord(c)
	switch {
	case w == "":
		return w, false
	case tasks.ShellBuiltin(w):
		return w, true
	case strings.ContainsRune(w, '/'):
		p := w
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		_, err := os.Stat(p)
		return w, err == nil
	}
	_, err := exec.LookPath(w)
	return w, err == nil
}

// errSilent fails a command whose output already said why (exit 1).
var errSilent = errors.New("")

func runWaive(e *env, args []string) error {
	var reason string
	var accept, acceptConfig bool
	pos, err := flags("waive", args, func(fs *flag.FlagSet) {
		fs.StringVar(&reason, "reason", "", "why the task need not pass")
		fs.BoolVar(&accept, "commands", false, "accept the task's commands as they stand (they must pass)")
		fs.BoolVar(&acceptConfig, "config", false, "accept .rodin/config.json as it stands, after an agent changed it")
	})
	if err != nil {
		return err
	}
	if acceptConfig {
		return acceptConfigFile(e, pos)
	}
	if accept {
		return acceptCommands(e, pos)
	}
	if len(pos) < 1 || len(pos) > 2 || strings.TrimSpace(reason) == "" {
		return usageError{"waive takes a task id, optionally its task file, and --reason"}
	}
	s, rel, t, err := sessionTask(e, pos)
	if err != nil {
		return err
	}
	if s.Data == "" {
		return withHint(errors.New("rodin has no data directory to keep the waiver in"), "start a Claude Code session with the plugin once, or set CLAUDE_PLUGIN_DATA")
	}
	w := ledger.Waiver{Root: s.Root, File: rel, Task: t.Ref, Title: t.Title, Reason: reason, Time: time.Now().UnixNano(), By: "terminal"}
	if !fromTerminal(e.getenv, os.Stdin) {
		w.By, w.Pending = "agent", true
	}
	if err := ledger.AddWaiver(s.Data, w); err != nil {
		return err
	}
	if w.Pending {
		fmt.Fprintf(e.stdout, "asked to waive %s (%s): %s\nthis is a request, not a waiver: it was made from Claude Code (or with no terminal), where the agent could make it. It counts once the user confirms it by typing `%s %s %s` in Claude Code, or runs this command in a terminal of their own\n", t.Name(), rel, reason, verifygate.WaiveCommand, t.Ref, rel)
		return nil
	}
	fmt.Fprintf(e.stdout, "waived %s (%s): %s\nthe gate lets its box be ticked and says so each time; `rodin tasks` lists it\n", t.Name(), rel, reason)
	return nil
}

// acceptCommands is `rodin waive --commands ID [FILE]`: the user accepts a
// task's commands as they stand, in place of those it had when the
// session began or before an agent changed them. Only at a terminal of
// their own: from Claude Code it says how the user does it.
func acceptCommands(e *env, pos []string) error {
	if len(pos) < 1 || len(pos) > 2 {
		return usageError{"waive --commands takes a task id and, optionally, its task file"}
	}
	s, rel, t, err := sessionTask(e, pos)
	if err != nil {
		return err
	}
	if !fromTerminal(e.getenv, os.Stdin) {
		fmt.Fprintf(e.stdout, "nothing was accepted: this was run from Claude Code (or with no terminal), where the agent could run it. The user accepts the commands of %s (%s) by typing `%s %s %s %s` in Claude Code, or by running `rodin waive --commands %s %s` at a terminal of their own\n",
			t.Name(), rel, verifygate.WaiveCommand, t.Ref, rel, verifygate.AcceptCommands, verifygate.ShellArg(t.Ref), verifygate.ShellArg(filepath.Join(s.Root, filepath.FromSlash(rel))))
		return nil
	}
	if s.Data == "" {
		return withHint(errors.New("rodin has no data directory to keep the acceptance in"), "start a Claude Code session with the plugin once, or set CLAUDE_PLUGIN_DATA")
	}
	shown, err := s.AcceptCommands(rel, t, "terminal")
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "accepted the commands of %s (%s) as they stand: %s, in place of those it had before; they must pass as any check does\n", t.Name(), rel, shown)
	return nil
}

// acceptConfigFile is `rodin waive --config`: the user accepts the verify
// gate's configuration file as it stands, after an agent changed it in an
// earlier session. Only at a terminal of their own.
func acceptConfigFile(e *env, pos []string) error {
	if len(pos) != 0 {
		return usageError{"waive --config takes no task"}
	}
	if !fromTerminal(e.getenv, os.Stdin) {
		fmt.Fprintf(e.stdout, "nothing was accepted: this was run from Claude Code (or with no terminal), where the agent could run it. The user accepts %s as it stands by typing `%s %s` in Claude Code, or by running `rodin waive --config` at a terminal of their own\n", project.ConfigFile, verifygate.WaiveCommand, verifygate.AcceptConfig)
		return nil
	}
	s, err := verifySession(e)
	if err != nil {
		return err
	}
	if s.Data == "" {
		return withHint(errors.New("rodin has no data directory to keep the acceptance in"), "start a Claude Code session with the plugin once, or set CLAUDE_PLUGIN_DATA")
	}
	cwd, _ := os.Getwd()
	root, ok := verifygate.CarriedRoot(s.Data, cwd)
	if !ok {
		fmt.Fprintf(e.stdout, "nothing to accept: rodin carries no change an agent made of %s or .gitignore for %s or a folder above it\n", project.ConfigFile, cwd)
		return nil
	}
	if err := verifygate.AcceptConfigFile(s.Data, root); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "accepted %s and .gitignore of %s as they stand: the verify gate uses them from the next session\n", project.ConfigFile, root)
	return nil
}

// fromTerminal reports whether rodin waive was run by a person at a
// terminal: stdin is one, and the command does not run under Claude Code
// (which sets CLAUDECODE, CLAUDE_CODE_SESSION_ID, CLAUDE_CODE_CHILD_SESSION
// and AI_AGENT in its Bash tool, whose stdin is a pipe, in a session of
// its own with no terminal), and no process above it is Claude Code: an
// agent that goes out of its way (a pseudo-terminal from `script`, the
// variables unset) still runs under it (Linux: /proc). Without Claude
// Code's sandbox its Bash can write rodin's files directly anyway
// (docs/hardening.md).
func fromTerminal(getenv func(string) string, stdin *os.File) bool {
	for _, v := range []string{"CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_CHILD_SESSION", "AI_AGENT"} {
		if getenv(v) != "" {
			return false
		}
	}
	return isTerminal(stdin) && !underClaudeCode()
}

// taskView is one task as `rodin tasks --json` shows it.
type taskView struct {
	File     string `json:"file"`
	ID       string `json:"id"`
	Ref      string `json:"ref"` // the id, or id#N when the id repeats in the file
	Title    string `json:"title"`
	Line     int    `json:"line"`
	Checked  bool   `json:"checked"`
	State    string `json:"state,omitempty"` // "in progress" (Kiro's [-]), "no box" (a tagged heading with none: not gated)
	Optional bool   `json:"optional,omitempty"`
	Verify   bool   `json:"verify"`
	// Commands are what a verification task demands and where each was
	// read: Verify line, Verify block, Done when line, title, title text,
	// Do steps, Quality Commands, the project's checks.
	Commands []tasks.Command `json:"commands,omitempty"`
	Prose    string          `json:"prose,omitempty"`   // the title's text after its colon, read as prose: never run
	Servers  []string        `json:"servers,omitempty"` // commands that start a server and never end: not run, what they serve read by a qa-engineer
	Needs    []checkView     `json:"needs,omitempty"`
	QA       *checkView      `json:"qa,omitempty"`
	Waiver   *ledger.Waiver  `json:"waiver,omitempty"`
	Asked    *ledger.Waiver  `json:"waiver_requested,omitempty"` // the agent's request, pending the user's confirmation
	Manual   bool            `json:"manual,omitempty"`           // a person checks it: only the user's waiver ticks it
	Gate     string          `json:"gate,omitempty"`             // "allow" or "deny": what the gate decides for its box
	TickedBy string          `json:"ticked_by,omitempty"`        // who ticked a checked verification box, as the session's record has it
	Problems string          `json:"problems,omitempty"`
	stands   bool            // its tick stands: judged when it was made (verifygate.Session.TickStands)
	// acceptance: its reading is of acceptance criteria, not of what its
	// commands print or its words ask to be looked at.
	acceptance bool
}

type checkView struct {
	Command string `json:"command,omitempty"`
	Source  string `json:"source,omitempty"`
	State   string `json:"state"` // passed, failed, stale, not run
	Exit    *int   `json:"exit,omitempty"`
	At      string `json:"at,omitempty"`
	Changed string `json:"changed,omitempty"`
}

func runTasks(e *env, args []string) error {
	var asJSON bool
	pos, err := flags("tasks", args, func(fs *flag.FlagSet) { fs.BoolVar(&asJSON, "json", false, "print JSON") })
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageError{"tasks takes at most one task file"}
	}
	s, err := verifySession(e)
	if err != nil {
		return err
	}
	var files []string
	if len(pos) == 1 {
		cwd, _ := os.Getwd()
		p := verifygate.ResolveTaskFile(s.Root, pos[0], cwd)
		if _, err := os.Stat(p); err != nil {
			return withHint(fmt.Errorf("cannot read the task file %s: %v", pos[0], errors.Unwrap(err)), "`rodin tasks` with no file lists every task file of the project (%s)", strings.Join(s.Config.TaskFiles, ", "))
		}
		rel := project.Rel(s.Root, p)
		if rel == "" {
			return fmt.Errorf("%s is not inside the project (%s)", pos[0], s.Root)
		}
		files = []string{rel}
	} else {
		files = project.TaskFiles(s.Root, s.Config)
	}
	var views []taskView
	var items []verifygate.Item
	for _, rel := range files {
		b, err := safefile.ReadFile(filepath.Join(s.Root, rel), tasks.MaxSize)
		if err != nil {
			return withHint(fmt.Errorf("cannot read the task file %s: %v", rel, errors.Unwrap(err)), "`rodin tasks` with no file lists every task file of the project (%s)", strings.Join(s.Config.TaskFiles, ", "))
		}
		f := tasks.ParseFile(b)
		first := len(views) // this file's views, put in line order below
		for _, t := range f.Boxless {
			views = append(views, taskView{File: rel, ID: t.ID, Ref: t.Ref, Title: t.Title, Line: t.Line, State: noBox, Verify: true})
		}
		for _, t := range f.Tasks {
			v := taskView{File: rel, ID: t.ID, Ref: t.Ref, Title: t.Title, Line: t.Line, Checked: t.Checked, Optional: t.Optional, Verify: s.IsVerification(rel, t), acceptance: t.AC && !t.Inspect}
			if t.InProgress {
				v.State = "in progress"
			}
			if v.Verify {
				if t.Checked {
					v.TickedBy, v.stands = s.TickedBy(rel, t.Key()), s.TickStands(rel, t.Key())
				}
				need := s.NeedOf(rel, t)
				v.Commands, v.Prose, v.Manual, v.Servers = need.Commands, need.Prose, need.Manual, t.Servers
				if need.QA {
					// What it needs, with no session to judge it yet.
					v.QA = &checkView{State: "not run"}
				}
				items = append(items, verifygate.Item{File: rel, Task: t})
			}
			views = append(views, v)
		}
		if len(f.Boxless) > 0 {
			// The headings with no box among the tasks, by line.
			slices.SortStableFunc(views[first:], func(a, b taskView) int { return cmp.Compare(a.Line, b.Line) })
		}
	}
	verdicts := []verifygate.Verdict{}
	if s.Data != "" && len(items) > 0 {
		if verdicts, err = s.Judge(items); err != nil {
			return err
		}
	}
	for _, v := range verdicts {
		for i := range views {
			tv := &views[i]
			if tv.File != v.File || tv.Line != v.Task.Line {
				continue
			}
			tv.Waiver, tv.Manual = v.Need.Waiver, v.Need.Manual
			if v.Need.Waiver == nil {
				tv.Asked = v.Need.Asked
			}
			tv.Gate = "deny"
			if v.OK() {
				tv.Gate = "allow"
			} else {
				tv.Problems = v.Explain()
			}
			for _, f := range v.Findings {
				cv := checkView{Command: f.Command, Source: string(f.Source), State: "not run"}
				if f.Run != nil {
					cv.At = f.Run.When().Format(time.RFC3339)
					switch {
					case f.Command == "" && !f.Run.Pass, f.Command != "" && f.Run.Exit != 0:
						cv.State = "failed"
					case f.Stale.Path != "":
						cv.State, cv.Changed = "stale", f.Stale.Path
					default:
						cv.State = "passed"
					}
					if f.Command != "" {
						x := f.Run.Exit
						cv.Exit = &x
					}
				}
				if f.Command == "" {
					tv.QA = &cv
				} else {
					tv.Needs = append(tv.Needs, cv)
				}
			}
		}
	}
	if asJSON {
		if views == nil {
			views = []taskView{}
		}
		return writeJSON(e.stdout, map[string]any{"root": s.Root, "session": s.ID, "tasks": views})
	}
	if len(views) == 0 {
		fmt.Fprintf(e.stdout, "no tasks in %s (task files: %s)\n", s.Root, strings.Join(s.Config.TaskFiles, ", "))
		return nil
	}
	if s.ID == "" {
		fmt.Fprintln(e.stdout, "no Claude Code session has run here with rodin yet: no evidence to show")
	}
	sort.SliceStable(views, func(i, j int) bool { return views[i].File < views[j].File })
	last := ""
	for _, v := range views {
		if v.File != last {
			fmt.Fprintln(e.stdout, v.File)
			last = v.File
		}
		box := "[ ]"
		if v.Checked {
			box = "[x]"
		}
		switch v.State {
		case noBox:
			box = "   "
		case "":
		default:
			box = "[-]"
		}
		ref := v.Ref
		if ref == "" {
			ref = v.ID
		}
		fmt.Fprintf(e.stdout, "  %s %s %s\n", box, ref, v.Title)
		if v.State == noBox {
			fmt.Fprintf(e.stdout, "        not gated: a [VERIFY] heading (line %d) with no box in it or under it, so nothing of it is ever ticked; put its check in a box (`- [ ] %s …`) to have rodin judge it\n", v.Line, ref)
			continue
		}
		if v.TickedBy != "" {
			fmt.Fprintf(e.stdout, "        ticked by %s\n", v.TickedBy)
		}
		if v.Prose != "" {
			fmt.Fprintf(e.stdout, "        (%q reads as prose: not run)\n", v.Prose)
		}
		if len(v.Needs) == 0 {
			for _, c := range v.Commands {
				fmt.Fprintf(e.stdout, "        demands `%s` (%s)\n", c.Run, c.Source)
			}
		}
		for _, c := range v.Needs {
			fmt.Fprintf(e.stdout, "        %-7s `%s` (%s)%s\n", c.State, c.Command, c.Source, detail(c))
		}
		switch {
		case v.QA != nil && v.Gate == "": // no session to judge it
			fmt.Fprintf(e.stdout, "        demands a rodin:qa-engineer run (`/rodin:verify %s` has one judge %s)\n", v.Ref, map[bool]string{true: "the acceptance criteria", false: "what its words ask to be read"}[v.acceptance])
		case v.QA != nil:
			fmt.Fprintf(e.stdout, "        %-7s a rodin:qa-engineer run%s\n", v.QA.State, detail(*v.QA))
		}
		if v.Manual && v.Waiver == nil {
			fmt.Fprintf(e.stdout, "        needs a person: the user checks it and waives it (`%s %s %s WHAT YOU CHECKED`)\n", verifygate.WaiveCommand, v.Ref, v.File)
		}
		if v.Waiver != nil {
			fmt.Fprintf(e.stdout, "        waived: %s\n", v.Waiver.Reason)
		}
		if v.Asked != nil {
			fmt.Fprintf(e.stdout, "        waiver requested from Claude Code, not confirmed: %s (the user confirms it: `%s %s %s`)\n", v.Asked.Reason, verifygate.WaiveCommand, v.Ref, v.File)
		}
		switch {
		case v.Checked && v.stands:
			// A tick is judged once, when it is made (VERIFY-SPEC §2).
			fmt.Fprintf(e.stdout, "        gate: its tick stands (judged when it was made, not again); a new tick would need the above\n")
		case v.Gate != "":
			fmt.Fprintf(e.stdout, "        gate: %s ticking it\n", map[string]string{"allow": "allows", "deny": "denies"}[v.Gate])
		}
	}
	return nil
}

// noBox is the state of a verification task written as a heading with no
// box to tick (tasks.File.Boxless).
const noBox = "no box"

func detail(c checkView) string {
	switch {
	case c.State == "stale":
		return fmt.Sprintf(" (passed at %s; %s changed since)", c.At, c.Changed)
	case c.Exit != nil && *c.Exit != 0:
		return fmt.Sprintf(" (exit %d at %s)", *c.Exit, c.At)
	case c.At != "":
		return " (at " + c.At + ")"
	}
	return ""
}
