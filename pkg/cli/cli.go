// Package cli is the `rodin` command: every deterministic step of the
// /rodin:plan-gate skill (check, extract, gaps, parse, signal, status), so
// that no model computes a digest, an id or a JSON line by hand, plus doctor
// and version for people, and build and install for a source checkout.
//
// It reuses the hooks' own model (planfile, gate): what `rodin check` and
// `rodin status` say is what the hooks will do.
package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Version is rodin's version; the plugin manifest carries the same (a test
// checks).
const Version = "0.1.0"

// usageError is a mistake in the command line: printed with the usage hint.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// hintError carries a second line telling the user what to do.
type hintError struct {
	err  error
	hint string
}

func (e hintError) Error() string { return e.err.Error() }

func withHint(err error, format string, args ...any) error {
	return hintError{err, fmt.Sprintf(format, args...)}
}

// env is what a command may touch, so tests can run commands in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

type command struct {
	usage string
	run   func(e *env, args []string) error
}

var commands = map[string]command{
	"check":     {"rodin check PLAN", runCheck},
	"extract":   {"rodin extract PLAN", runExtract},
	"gaps":      {"rodin gaps [--next-id|--json] PLAN", runGaps},
	"parse":     {"rodin parse critic|validator < ANSWER", runParse},
	"signal":    {"rodin signal PLAN | rodin signal pass|fail [--reason TEXT]", runSignal},
	"leakage":   {"rodin leakage PLAN", runLeakage},
	"prompt":    {"rodin prompt critic|leakage|validator PLAN | rodin prompt qa TASK [FILE]", runPrompt},
	"findings":  {"rodin findings PLAN", runFindings},
	"verdict":   {"rodin verdict [--record] PLAN", runVerdict},
	"status":    {"rodin status [--json] [PLAN]", runStatus},
	"doctor":    {"rodin doctor [--json]", runDoctor},
	"version":   {"rodin version [--json]", runVersion},
	"build":     {"rodin build [--all] [--out DIR]", runBuild},
	"install":   {"rodin install", runInstall},
	"uninstall": {"rodin uninstall [--dry-run]", runUninstall},
	"release":   {"rodin release [--out DIR] [--platform LIST]", runRelease},
	"setup":     {"rodin setup", runSetup},
	"checks":    {"rodin checks [--json]", runChecks},
	"verify":    {"rodin verify [--timeout D] TASK [FILE]", runVerify},
	"tasks":     {"rodin tasks [--json] [FILE]", runTasks},
	"waive":     {"rodin waive TASK [FILE] --reason TEXT", runWaive},
	"sandbox":   {"rodin sandbox [--enable] [--json]", runSandbox},
	"contracts": {"rodin contracts check [--json] FILE | rodin contracts init NAME", runContracts},
	"events":    {"rodin events [--follow] [--json] [--session ID] [--timeout D]", runEvents},
	"exercise":  {"rodin exercise [--base REF] [--spec FILE] [--report FILE] [--json] [--timeout D] [--runs N] [--baseline] [--dry-run] [--list] [flags] [NAME...]", runExercise},
}

const usage = `usage: rodin <command> [arguments]

For the /rodin:plan-gate skill:
  rodin check PLAN                    check Goals, the gaps block and the gap entries
  rodin extract PLAN                  print the plan content (never the gaps)
  rodin gaps [--next-id|--json] PLAN  print the gaps content, the next free GAP id, or the entries as JSON
  rodin leakage PLAN                  the latest leakage-detector answer rodin recorded
  rodin prompt critic PLAN            print the critic's exact prompt (the plan, never the gaps)
  rodin findings PLAN                 the latest critic answer rodin recorded, parsed (JSON)
  rodin prompt validator PLAN         print the validator's exact prompt (the gaps, the critic's answer)
  rodin verdict PLAN                  the latest validator verdict rodin recorded, parsed (JSON)
  rodin signal PLAN                   print the signal line for that verdict, to insert with Edit

For the verify gate (task files, /rodin:verify):
  rodin tasks [--json] [FILE]         every task, and for [VERIFY] tasks their evidence and what the gate decides
  rodin checks [--json]               the project's quality commands (Type, Command, Source)
  rodin verify [--timeout D] TASK [FILE]
                                      run a task's commands from the project root; ends VERIFICATION_PASS or _FAIL
  rodin prompt qa TASK [FILE]         print the rodin:qa-engineer's exact prompt for a task
  rodin waive TASK [FILE] --reason T  at a terminal: let a task's box be ticked without passing checks (from
                                      Claude Code a request; the user confirms it by typing /rodin:waive)

For plugin authors (/rodin:exercise):
  rodin exercise [flags] [SKILL...]   run each changed skill/agent in real Claude Code in a disposable project,
                                      judge it against --spec's acceptance criteria; exit 0 passed, 1 failed, 3 skipped
                                      flags: --base REF --spec FILE --report FILE --json --timeout D (5m) --dry-run
                                      --keep --scaffold DIR --prompt TEXT --args TEXT --model M --permission-mode M
                                      --max-turns N --no-interactive --claude PATH

For other orchestrations:
  rodin contracts check [--json] FILE check an artifact against the project's .rodin/contracts.json
  rodin contracts init NAME           write a contracts file (rlp-desk)
  rodin events [--follow] [--json]    permission dialogs rodin answered for unattended roles, notifications
  rodin parse critic|validator        parse a subagent's answer (stdin) into JSON
  rodin signal pass|fail [--reason T] print a verdict signal line

For people:
  rodin status [--json] [PLAN]        digests, status, evidence, and what the gate would decide
  rodin doctor [--json]               check the installation
  rodin uninstall [--dry-run]         unregister the plugin, remove the link, the copy, data, caches, builds
  rodin sandbox [--enable] [--json]   what the settings let Bash do; --enable turns Claude Code's sandbox on
  rodin version                       (also rodin --version)

For Claude Code (the SessionStart hook runs it):
  rodin setup                         link the hook executables into the plugin's data directory

Every command: rodin help COMMAND, or rodin COMMAND --help.

In a source checkout:
  rodin build [--all] [--out DIR]     build the hooks into plugin/libexec
  rodin install                       build, copy the plugin to ~/.local/share/rodin, link rodin, register it
  rodin release [--out DIR]           archives for every platform, SHA256SUMS, and plugin/release/SHA256SUMS
`

// Main runs the rodin command; its result is the process exit code: 0, 1
// for a failed check or an error, 2 for a usage mistake.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}
	planfile.SetSealKeyFunc(func() []byte { return evidence.SealKey(os.Getenv, false) })
	switch {
	case len(args) == 0:
		io.WriteString(stderr, usage) // like go and git: no command is a usage mistake
		return 2
	case args[0] == "-h" || args[0] == "--help" || args[0] == "help":
		if len(args) > 1 && args[1] == "help" {
			args = args[:1] // `rodin help help` is the help
		}
		if len(args) > 1 {
			c, ok := commands[args[1]]
			if !ok {
				return noSuchCommand(stderr, fmt.Sprintf("no command %q to help with", args[1]), "help "+nearest(args[1]))
			}
			fmt.Fprintf(stdout, "usage: %s\n%s", c.usage, commandHelp[args[1]])
			return 0
		}
		io.WriteString(stdout, usage)
		return 0
	case args[0] == "--version" || args[0] == "-version":
		args = append([]string{"version"}, args[1:]...) // extra words are the version command's to refuse
	}
	cmd, ok := commands[args[0]]
	if !ok {
		return noSuchCommand(stderr, fmt.Sprintf("unknown command %q", args[0]), nearest(args[0]))
	}
	if len(args) > 1 && (args[1] == "-h" || args[1] == "--help") {
		fmt.Fprintf(stdout, "usage: %s\n%s", cmd.usage, commandHelp[args[0]])
		return 0
	}
	out := &countingWriter{w: stdout}
	e.stdout = out
	err := cmd.run(e, args[1:])
	var ue usageError
	var he hintError
	var msg, hint string
	code := 1
	switch {
	case err == nil:
		return 0
	case err == errSilent:
		return 1
	case errors.As(err, new(exitStatus)):
		var st exitStatus
		errors.As(err, &st)
		return int(st)
	case errors.As(err, &ue):
		msg, hint, code = ue.msg, "usage: "+cmd.usage, 2
		fmt.Fprintf(stderr, "rodin: %s\nrodin: usage: %s\n", ue.msg, cmd.usage)
	case errors.As(err, &he):
		msg, hint = he.err.Error(), he.hint
		fmt.Fprintf(stderr, "rodin: %v\nrodin: hint: %s\n", he.err, he.hint)
	default:
		msg = err.Error()
		fmt.Fprintf(stderr, "rodin: %v\n", err)
	}
	// With --json, a script reads stdout: an error it did not print as
	// JSON itself is printed there as JSON too, with the same exit status.
	if out.n == 0 && slices.Contains(args[1:], "--json") {
		writeJSON(stdout, map[string]any{"error": msg, "hint": hint, "exit": code})
	}
	return code
}

// countingWriter counts what a command wrote.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// nearest is the command name within two edits of name, "" when none is.
func nearest(name string) string {
	best, bestDist := "", 3
	for c := range commands {
		if d := editDistance(name, c); d < bestDist || d == bestDist && c < best {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// noFlags refuses flags to a command that takes none, so that `--foo` is
// called an unknown flag rather than an extra argument.
func noFlags(name string, args []string) error {
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' {
			return usageError{fmt.Sprintf("%s takes no flags; unknown flag %s", name, a)}
		}
	}
	return nil
}

// flags parses a subcommand's flags; flags may come before or after the
// positional arguments.
func flags(name string, args []string, define func(*flag.FlagSet)) ([]string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	define(fs)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usageError{flagError(fs, err)}
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// flagError says a flag mistake in rodin's words, with the double dash
// rodin's help shows and, for a value, the form it wants, instead of Go's
// ("flag provided but not defined: -bogus", "parse error").
func flagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return "unknown flag --" + strings.TrimLeft(name, "-")
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return "--" + strings.TrimLeft(name, "-") + " needs a value"
	}
	var value, name string
	if _, err := fmt.Sscanf(msg, "invalid boolean value %q for %s", &value, &name); err == nil {
		return fmt.Sprintf("--%s=%q: want true or false", strings.TrimSuffix(strings.TrimLeft(name, "-"), ":"), value)
	}
	if _, err := fmt.Sscanf(msg, "invalid value %q for flag %s", &value, &name); err == nil {
		name = strings.TrimSuffix(strings.TrimLeft(name, "-"), ":")
		want := "a valid value"
		if f := fs.Lookup(name); f != nil {
			if g, ok := f.Value.(flag.Getter); ok {
				switch g.Get().(type) {
				case time.Duration:
					want = "a duration such as 90s, 5m or 1h30m"
				case int, int64, uint, uint64:
					want = "a whole number"
				case float64:
					want = "a number"
				case bool:
					want = "true or false"
				}
			}
		}
		return fmt.Sprintf("--%s %q: want %s", name, value, want)
	}
	return msg
}

func onePlan(name string, args []string) (string, error) {
	if err := noFlags(name, args); err != nil {
		return "", err
	}
	if len(args) != 1 {
		return "", usageError{fmt.Sprintf("%s takes one plan file, got %d arguments", name, len(args))}
	}
	return args[0], nil
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// canonical is text as the digests see it: trailing newlines removed and one
// added, so that `rodin extract PLAN | sha256sum` is the plan digest.
func canonical(b []byte) []byte {
	s := strings.TrimRight(string(b), "\n")
	return []byte(s + "\n")
}

// sourceRoot finds the rodin source checkout at or above dir.
func sourceRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/rodin-gate/rodin\n") {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", withHint(errors.New("not inside a rodin source checkout"), "run this in a clone of the rodin repository")
		}
	}
}

// noSuchCommand says a command does not exist, and the nearest one ("rodin
// " + near) when there is one; exit 2.
func noSuchCommand(stderr io.Writer, what, near string) int {
	fmt.Fprintf(stderr, "rodin: %s\n", what)
	if near = strings.TrimSpace(near); near != "" && near != "help" {
		fmt.Fprintf(stderr, "rodin: hint: did you mean `rodin %s`?\n", near)
	} else {
		fmt.Fprintf(stderr, "rodin: hint: run `rodin help` for the list\n")
	}
	return 2
}
