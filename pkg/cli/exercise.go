package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rodin-gate/rodin/pkg/exercise"
	"github.com/rodin-gate/rodin/pkg/headless"
)

// exitStatus ends a command with a status of its own (its output already
// said why): rodin exercise's 3 (skipped) and 130 (interrupted).
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// Exit statuses of rodin exercise besides 0 and 1.
const (
	exerciseSkipped     exitStatus = 3
	exerciseInterrupted exitStatus = 130
)

// sessionVars are the variables Claude Code sets for what runs inside a
// session; the exercised claude is a session of its own, so they are not
// passed on (CLAUDECODE would make it refuse to start as a nested one).
var sessionVars = []string{"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_SSE_PORT", "CLAUDE_PLUGIN_ROOT",
	"CLAUDE_PLUGIN_DATA", "CLAUDE_PROJECT_DIR", "CLAUDE_ENV_FILE", "AI_AGENT"}

// exerciseHelp is `rodin help exercise`.
const exerciseHelp = `
Runs each skill, command or agent changed on this branch (or each one named,
as NAME or PLUGIN:NAME) in the real claude CLI, headless, in a disposable copy
of a small project, answers its AskUserQuestion prompts with the first option,
and judges the run against the acceptance criteria of --spec. Components are
named as Claude Code names them, from plugin.json and marketplace.json as well
as the default folders. Before any paid session, rodin checks that each plugin
loads and offers them (claude plugin validate, and the CLI's own listing). The
project is removed afterwards, also on a timeout or Ctrl-C.

Flags:
  --base REF             compare with this branch (default: origin/HEAD, main or master)
  --spec FILE            requirements file: its acceptance criteria (### AC1: Title, or - **AC-1**: text)
  --report FILE          write the "## Exercise Test Results" section into FILE (replaced if present)
  --json                 print the report as JSON instead of Markdown
  --runs N               run each component N times; a criterion's pass rate must reach --threshold (default 1)
  --threshold R          the pass rate (0 to 1) each criterion needs (default 1: every run)
  --baseline             also run the same task without the plugin, as often: a criterion the bare
                         model meets as often is marked "not evidence of the change"
  --max-cost-usd D       stop starting sessions once D dollars are spent (each gets what is left)
  --timeout D            per component (default 5m); a run past it is killed and fails
  --max-turns N          the exercised session's turn limit (default 30)
  --prompt TEXT          what the session is asked (default: /plugin:skill ARGS)
  --args TEXT            the arguments after the skill's slash command
  --scaffold DIR         copy DIR as the project instead of the default one
  --model M              the exercised session's model (default: the CLI's)
  --permission-mode M    the session's permission mode (plan, acceptEdits, ...; default: rodin answers each prompt)
  --no-interactive       claude -p with AskUserQuestion disallowed, instead of the control protocol
  --claude PATH          the claude CLI (default: claude on PATH)
  --keep                 keep the project and print where it is
  --no-sandbox           run the session outside Claude Code's sandbox (by default it runs in it: no write
                         outside its project, no way out, GitHub denied; bubblewrap and socat on Linux)
  --dry-run              show what would run and how, and what it may cost; start nothing
  --list                 list every skill, command and agent of the plugins here, as Claude Code names them

Checks, as list items under a criterion (anything else goes to the
rodin:exercise-evaluator agent, which reads rodin's summary of the run):
  - file ` + "`PATH`" + `                  exists in the project   - no file ` + "`PATH`" + `
  - file ` + "`PATH`" + ` contains ` + "`TEXT`" + `
  - tool ` + "`NAME`" + `                  called and succeeded    - no tool ` + "`NAME`" + `
  - tool ` + "`NAME`" + ` with ` + "`TEXT`" + `        its input holds TEXT
  - command ` + "`TEXT`" + `               a Bash command holding TEXT ran
  - output ` + "`TEXT`" + `                the final message says TEXT

Exit status: 0 every component passed, 1 one failed, did not load (or an
error), 2 usage, 3 skipped (no claude CLI), 130 interrupted. Nothing changed:
says so, exits 0.
`

func runExercise(e *env, args []string) error {
	var (
		base, scaffold, prompt, skillArgs, spec, report, model, mode, claude string
		timeout                                                              time.Duration
		maxTurns, runs                                                       int
		threshold, maxCost                                                   float64
		asJSON, keep, dryRun, noControl, noSandbox, baseline, list           bool
	)
	names, err := flags("exercise", args, func(fs *flag.FlagSet) {
		fs.StringVar(&base, "base", "", "compare with this branch (default: the repository's default branch)")
		fs.StringVar(&scaffold, "scaffold", "", "copy this project instead of the default one")
		fs.DurationVar(&timeout, "timeout", 5*time.Minute, "per component")
		fs.StringVar(&prompt, "prompt", "", "the exercise prompt (default: /plugin:skill ARGS)")
		fs.StringVar(&skillArgs, "args", "", "arguments after the skill's slash command")
		fs.StringVar(&spec, "spec", "", "requirements file with the acceptance criteria")
		fs.StringVar(&report, "report", "", "append the report section to this file")
		fs.StringVar(&model, "model", "", "the model of the exercised session")
		fs.StringVar(&mode, "permission-mode", "", "the exercised session's permission mode (plan, acceptEdits, …)")
		fs.StringVar(&claude, "claude", "", "the claude CLI (default: claude on PATH)")
		fs.IntVar(&maxTurns, "max-turns", 30, "the exercised session's turn limit")
		fs.BoolVar(&asJSON, "json", false, "print the report as JSON")
		fs.IntVar(&runs, "runs", 1, "sessions per component")
		fs.Float64Var(&threshold, "threshold", 1, "the pass rate each criterion needs")
		fs.BoolVar(&baseline, "baseline", false, "also run the task without the plugin")
		fs.Float64Var(&maxCost, "max-cost-usd", 0, "spend at most this")
		fs.BoolVar(&keep, "keep", false, "keep the disposable project and print where")
		fs.BoolVar(&dryRun, "dry-run", false, "show what would run, run nothing")
		fs.BoolVar(&list, "list", false, "list every component of the plugins here, as Claude Code names them")
		fs.BoolVar(&noControl, "no-interactive", false, "run `claude -p` with AskUserQuestion disallowed, not the control protocol")
		fs.BoolVar(&noSandbox, "no-sandbox", false, "run the session outside Claude Code's sandbox (it can then write outside its project and reach GitHub)")
	})
	if err != nil {
		return err
	}
	switch {
	case timeout <= 0:
		return usageError{"--timeout must be positive"}
	case runs < 1 || runs > 100:
		return usageError{"--runs must be 1 to 100"}
	case threshold < 0 || threshold > 1:
		return usageError{"--threshold is a rate, 0 to 1"}
	case maxCost < 0:
		return usageError{"--max-cost-usd cannot be negative"}
	}
	plan := exercise.Plan{Runs: runs, Baseline: baseline, Threshold: threshold, MaxCostUSD: maxCost}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	root, err := exercise.RepoRoot(cwd)
	if err != nil {
		if len(names) == 0 && !list {
			return withHint(err, "run rodin exercise in the plugin's git repository, or name the skills: rodin exercise SKILL")
		}
		root = cwd
	}
	plugins, err := exercise.Plugins(root)
	if err != nil {
		return err
	}
	if len(plugins) == 0 {
		return withHint(fmt.Errorf("no Claude Code plugin in %s", root), "a plugin is a directory with .claude-plugin/plugin.json, or a local entry of .claude-plugin/marketplace.json")
	}
	if list {
		return listComponents(e, root, plugins, asJSON)
	}
	var comps []exercise.Component
	if len(names) > 0 {
		if comps, err = exercise.Named(root, names, plugins); err != nil {
			return withHint(err, "name a skill, command or agent of a plugin in this repository as Claude Code names it (rodin exercise --list shows them)")
		}
	} else {
		if base == "" {
			if base, err = exercise.DefaultBranch(root); err != nil {
				return withHint(err, "say which branch to compare with: rodin exercise --base BRANCH")
			}
		}
		if comps, err = exercise.Changed(root, base, plugins); err != nil {
			return withHint(err, "check --base %s names a branch or commit", base)
		}
		if len(comps) == 0 {
			if asJSON {
				return writeJSON(e.stdout, exercise.Report{Status: exercise.Passed, Runs: runs, Baseline: baseline, Threshold: threshold, Exercised: []exercise.Exercised{}})
			}
			fmt.Fprintf(e.stdout, "rodin exercise: no skill, command or agent changed since %s: nothing to exercise\n", base)
			return nil
		}
	}
	var criteria []exercise.Criterion
	if spec != "" {
		data, err := os.ReadFile(spec)
		if err != nil {
			return err
		}
		if criteria = exercise.ParseSpec(data); len(criteria) == 0 {
			return withHint(fmt.Errorf("%s has no acceptance criteria", spec),
				"write each as a heading (### AC1: Title, then Given/When/Then) or a list item (- **AC-1**: text)")
		}
	}
	if scaffold != "" {
		if st, err := os.Stat(scaffold); err != nil || !st.IsDir() {
			return withHint(fmt.Errorf("--scaffold %s is not a directory", scaffold), "give a project directory to copy, e.g. evals/scaffold")
		}
		scaffold, _ = filepath.Abs(scaffold)
	}
	opts := exercise.Options{
		Env: childEnv(), RodinPlugin: pluginRoot(e), Scaffold: scaffold, Timeout: timeout, Prompt: prompt, Args: skillArgs,
		Criteria: criteria, Model: model, PermissionMode: mode, MaxTurns: maxTurns, Keep: keep, NoControl: noControl, NoSandbox: noSandbox,
		Progress: e.stderr,
	}
	if opts.RodinPlugin != "" {
		opts.RodinPlugin, _ = filepath.Abs(opts.RodinPlugin)
	}
	if claude == "" {
		claude, _ = exec.LookPath("claude")
	} else if p, err := exec.LookPath(claude); err == nil {
		claude = p
	} else {
		claude = ""
	}
	opts.Claude = claude
	costs := exercise.LoadCosts("")
	if dryRun {
		return exerciseDryRun(e, comps, opts, plan, costs, base, len(names) > 0)
	}

	rep := exercise.Report{Runs: runs, Baseline: baseline, Threshold: threshold, Exercised: []exercise.Exercised{}}
	if claude == "" {
		rep.Status, rep.Reason = exercise.Skipped, "the claude CLI was not found (not on PATH, or --claude names nothing)"
		if err := emitReport(e, &rep, report, asJSON); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "rodin: exercise skipped: %s\nrodin: hint: install Claude Code (npm install -g @anthropic-ai/claude-code) or pass --claude PATH\n", rep.Reason)
		return exerciseSkipped
	}
	rep.Claude = claudeVersion(claude)
	who := "the CLI's default model"
	if model != "" {
		who = model
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// What the sessions load, checked before anything is paid for.
	comps, cleanup, err := exercise.Prepare(comps)
	if err != nil {
		return err
	}
	defer cleanup()
	notes, err := exercise.CheckLoads(ctx, claude, opts.Env, os.TempDir(), comps)
	for _, n := range notes {
		fmt.Fprintf(e.stderr, "rodin: %s\n", n)
	}
	if err != nil {
		return withHint(err, "fix the plugin so that Claude Code loads it (claude plugin validate DIR); no session was started")
	}
	sessions := plannedSessions(comps, opts, plan)
	fmt.Fprintf(e.stderr, "rodin: exercising %d %s in %d %s with claude %s (%s); each is a real session and costs what it uses%s\n",
		len(comps), plural(len(comps), "component"), sessions, plural(sessions, "session"), rep.Claude, who, costLine(comps, opts, plan, costs))

	spent := &exercise.Spent{}
	for i, c := range comps {
		fmt.Fprintf(e.stderr, "rodin: [%s] %d of %d: %s, timeout %s\n", c.ID(), i+1, len(comps), c.File, timeout)
		x := exercise.Exercise(ctx, c, opts, plan, spent, func(line string) {
			fmt.Fprintf(e.stderr, "rodin: [%s] %s\n", c.ID(), line)
		})
		for _, o := range append(append([]exercise.Outcome{}, x.Runs...), x.Baseline...) {
			if o.Method != "" {
				costs.Record(c.ID(), o.CostUSD+o.JudgeCostUSD)
			}
		}
		rep.Exercised = append(rep.Exercised, x)
		if ctx.Err() != nil {
			where, project := "removed", ""
			if n := len(x.Runs); n > 0 {
				project = x.Runs[n-1].Project
				if x.Runs[n-1].Kept {
					where = "kept"
				}
			}
			fmt.Fprintf(e.stderr, "rodin: interrupted: stopped claude and %s the project %s\n", where, project)
			return exerciseInterrupted
		}
		fmt.Fprintf(e.stderr, "rodin: [%s] %s in %s\n", c.ID(), strings.ToUpper(x.Status), (time.Duration(x.DurationMS) * time.Millisecond).Round(100*time.Millisecond))
		for _, o := range x.Runs {
			if o.Kept {
				fmt.Fprintf(e.stderr, "rodin: [%s] kept the project: %s\n", c.ID(), o.Project)
			}
		}
	}
	rep.Summarize()
	if err := emitReport(e, &rep, report, asJSON); err != nil {
		return err
	}
	switch rep.Status {
	case exercise.Passed:
		return nil
	case exercise.Skipped:
		return exerciseSkipped // nothing was exercised (a claude not logged in)
	}
	return errSilent
}

// emitReport writes the report: Markdown on stdout, or appended to (or
// replacing the section in) the report file; JSON on stdout with --json.
func emitReport(e *env, rep *exercise.Report, file string, asJSON bool) error {
	md := rep.Markdown()
	if file != "" {
		old, err := os.ReadFile(file)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if err := os.WriteFile(file, exercise.Splice(old, md), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "rodin: wrote the %q section of %s\n", exercise.Heading, file)
	}
	if asJSON {
		return writeJSON(e.stdout, rep)
	}
	if file == "" {
		fmt.Fprint(e.stdout, md)
	}
	return nil
}

// plannedSessions is how many sessions the plan starts at most: each run,
// the baseline's, and an evaluator's per run when criteria need one.
func plannedSessions(comps []exercise.Component, o exercise.Options, p exercise.Plan) int {
	judged := false
	for _, cr := range o.Criteria {
		if len(cr.Checks) == 0 {
			judged = true
		}
	}
	n := 0
	for _, c := range comps {
		arms := 1
		if p.Baseline {
			if bp, _ := exercise.BaselinePrompt(c, o); bp != "" {
				arms = 2
			}
		}
		per := arms
		if judged {
			per *= 2
		}
		n += p.Runs * per
	}
	return n
}

// costLine says, before anything starts, what the sessions may cost: the
// usual cost of each component from earlier runs, and the ceiling.
func costLine(comps []exercise.Component, o exercise.Options, p exercise.Plan, costs *exercise.Costs) string {
	var est float64
	var unknown []string
	for _, c := range comps {
		usd, ok := costs.Estimate(c.ID())
		if !ok {
			unknown = append(unknown, c.ID())
			continue
		}
		arms := 1.0
		if p.Baseline {
			if bp, _ := exercise.BaselinePrompt(c, o); bp != "" {
				arms = 2
			}
		}
		est += usd * float64(p.Runs) * arms
	}
	var parts []string
	switch {
	case len(unknown) == len(comps):
		parts = append(parts, "no earlier run to estimate the cost from")
	case len(unknown) > 0:
		parts = append(parts, fmt.Sprintf("about $%.2f by earlier runs, and %s never run before", est, strings.Join(unknown, ", ")))
	default:
		parts = append(parts, fmt.Sprintf("about $%.2f by earlier runs", est))
	}
	if p.MaxCostUSD > 0 {
		parts = append(parts, fmt.Sprintf("at most $%.2f (--max-cost-usd)", p.MaxCostUSD))
	}
	return "; " + strings.Join(parts, ", ")
}

func exerciseDryRun(e *env, comps []exercise.Component, o exercise.Options, p exercise.Plan, costs *exercise.Costs, base string, named bool) error {
	if named {
		fmt.Fprintf(e.stdout, "rodin exercise would run %d %s (named):\n", len(comps), plural(len(comps), "component"))
	} else {
		fmt.Fprintf(e.stdout, "rodin exercise would run %d %s changed since %s:\n", len(comps), plural(len(comps), "component"), base)
	}
	claude := o.Claude
	if claude == "" {
		claude = "claude"
	}
	for _, c := range comps {
		prompt := o.Prompt
		if prompt == "" {
			prompt = exercise.DefaultPrompt(c, o.Args)
		}
		args := append([]string{claude, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
			"--permission-prompt-tool", "stdio"}, exercise.Args(c, o, headless.Control)...)
		fmt.Fprintf(e.stdout, "\n  %s %s (%s)\n    %s\n    prompt: %s\n", c.Kind, c.ID(), c.File, shellJoin(args), prompt)
		if c.NeedsCopy() {
			fmt.Fprintf(e.stdout, "    plugin %s as %s defines it: loaded from a copy of %s with that manifest\n", c.Plugin, c.From(), c.PluginDir)
		}
		if p.Baseline {
			if bp, note := exercise.BaselinePrompt(c, o); bp != "" {
				fmt.Fprintf(e.stdout, "    baseline prompt (without the plugin): %s\n", bp)
			} else {
				fmt.Fprintf(e.stdout, "    %s\n", note)
			}
		}
	}

	scaffold := "the default project (Node.js, steering documents, one commit)"
	if o.Scaffold != "" {
		scaffold = "a copy of " + o.Scaffold
	}
	fmt.Fprintf(e.stdout, "\n  in %s, in the temporary directory, removed afterwards\n  timeout %s each; %d acceptance criteria\n", scaffold, o.Timeout, len(o.Criteria))
	n := plannedSessions(comps, o, p)
	with := ""
	if p.Baseline {
		with = ", and as many without the plugin"
	}
	fmt.Fprintf(e.stdout, "  %d %s at most: %d %s per component%s%s\n", n, plural(n, "session"), p.Runs, plural(p.Runs, "run"), with, costLine(comps, o, p, costs))
	fmt.Fprintf(e.stdout, "  first, that each plugin loads is checked (claude plugin validate, and the CLI's listing: no model is called)\n")
	if o.Claude == "" {
		fmt.Fprintf(e.stdout, "  the claude CLI was not found: the run would be skipped (exit 3)\n")
	}
	return nil
}

func childEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, v := range sessionVars {
			if k == v {
				drop = true
			}
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}

func claudeVersion(claude string) string {
	out, err := exec.Command(claude, "--version").Output()
	if err != nil {
		return "(version unknown)"
	}
	v, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return v
}

func shellJoin(args []string) string {
	var out []string
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"$`\\*?[]{}();&|<>!#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out = append(out, a)
	}
	return strings.Join(out, " ")
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// listComponents prints the inventory: every component of every plugin of
// the repository, named as Claude Code names it.
func listComponents(e *env, root string, plugins []*exercise.Plugin, asJSON bool) error {
	inv := exercise.Inventory(root, plugins)
	if asJSON {
		if inv == nil {
			inv = []exercise.Component{}
		}
		return writeJSON(e.stdout, inv)
	}
	for _, c := range inv {
		note := ""
		switch {
		case c.Refused != "":
			note = "\t(does not load: " + c.Refused + ")"
		case c.NotInvocable:
			note = "\t(user-invocable: false: the model runs it, no slash command)"
		}
		fmt.Fprintf(e.stdout, "%-7s %s\t%s%s\n", c.Kind, c.ID(), c.File, note)
	}
	return nil
}
