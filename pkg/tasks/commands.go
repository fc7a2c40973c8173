package tasks

import (
	"bytes"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/yuin/goldmark/ast"
)

// commands reads what a verification task runs, trying the sources in
// order (Source); the first that names a command wins. It also returns
// the title's text after its colon when that was read as prose.
func commands(item *ast.ListItem, first ast.Node, t title, src []byte) ([]Command, string) {
	verify := labelled(item, first, src, "verify")
	// A label that names no command (a `**Verification**:` list of files)
	// may stand above the one that does: each is tried in turn.
	for v := verify; v != nil; v = labelledAfter(item, first, src, "verify", v) {
		if cs := checks(expectedOf(item, first, src, spans(v, src, FromVerifyLine))); len(cs) > 0 {
			// "Both via `scripts/dotnet`": a program named alone, when the
			// Do steps run it with arguments, stands for those commands.
			if do := doSteps(item, first, src); bareOf(cs, do) {
				return do, ""
			}
			return cs, ""
		}
		if cs := checks(blockUnder(v, src)); len(cs) > 0 {
			return cs, ""
		}
		if em, ok := v.FirstChild().(*ast.Emphasis); ok {
			// "- **Verify**: pytest -q && ruff check .", no backticks.
			if c := bareLine(em, src); c != "" {
				if cs := checks([]Command{{c, FromVerifyLine}}); len(cs) > 0 {
					return cs, ""
				}
			}
		}
	}
	// A label at the start of a line inside a paragraph: `**Verify**:`
	// written under the title without a bullet, or a quoted block's
	// `> **Test**: `cmd`` line.
	if cs := checks(lineLabelled(item, first, src)); len(cs) > 0 {
		return cs, ""
	}
	if done := labelled(item, first, src, "done when"); done != nil {
		if cs := checks(spans(done, src, FromDoneWhen)); len(cs) > 0 {
			return cs, ""
		}
	}
	var out []Command
	prev, gap, cd := "", "", ""
	// What stands around each span, read once: a title of thousands of
	// spans is read in time proportional to it, not to its square.
	aside, gaps, noted := t.asides(), t.gaps(), t.noted()
	before := func(i int) string {
		if i < len(gaps) {
			return gaps[i]
		}
		return ""
	}
	for i := 0; i < noted; i++ {
		c := t.code[i]
		if cd != "" && listed(before(i)) && CommandLike(c) && !strings.HasPrefix(c, "cd ") {
			// "`cd frontend && npm test`、`npm run build`": the list goes
			// on in the folder its first command went to.
			c = cd + c
		}
		cd = ""
		if aside[i] || negated(before(i)) || c == "true" || c == "false" || testName(c, before(i+1)) || grepNoFile(c) || bareGitVerb(c) || placeSpan(c, before(i), before(i+1)) || FirstWord(c) == "rm" {
			// Named, not demanded: an aside about the last command, one
			// left out, a value of the prose (a flag "with value
			// `false`"), a test's name, a grep of no file, a git verb with
			// nothing to act on, a place of the project, a removal the
			// check starts from ("with `rm -rf dist` done"): it checks
			// nothing, and run by `rodin verify` it would undo the
			// build the rest of the check reads.
			continue
		}
		if r, ok := nextScript(prev, gap, c); ok {
			c = r
		} else if prev != "" && alternative(gap) && CommandLike(c) {
			prev, gap = "", ""
			continue // "`gh pr checks --watch` or `gh pr checks`": the first
		}
		prev, gap = "", ""
		if CommandLike(c) && !namedFile(c) && !logged(before(i)) {
			after, next := t.after(i)
			if serves(after) {
				// A server started, never exiting: what it serves is read;
				// what a chain runs before it (`npm run build && npm run
				// dev` serves …) stays.
				if c = beforeServer(c); c == "" {
					continue
				}
			}
			if negatedAfter(after) {
				continue // "`./deploy.sh staging`; do not run that one from here"
			}
			run, usesNext := said(c, after, next)
			if usesNext {
				i++
			} else {
				prev, gap = c, after
			}
			out = append(out, Command{run, FromTitleCode})
			if d, rest, ok := strings.Cut(c, " && "); ok && strings.HasPrefix(d, "cd ") && len(strings.Fields(d)) == 2 && !strings.Contains(rest, "cd ") {
				cd = d + " && "
			}
		}
	}
	out = checks(out)
	if len(out) > 0 {
		return out, ""
	}
	prose := ""
	if after := t.afterColon(); after != "" {
		if cs := checks([]Command{{after, FromTitleText}}); len(cs) > 0 && CommandLine(after) {
			return cs, ""
		}
		prose = after
	}
	if run := t.runPhrase(); run != "" {
		if cs := checks([]Command{{run, FromTitleText}}); len(cs) > 0 {
			return cs, ""
		}
	}
	if run := t.parenCommand(); run != "" {
		if cs := checks([]Command{{run, FromTitleText}}); len(cs) > 0 {
			return cs, ""
		}
	}
	// The plain bullets under a task that say to run something (Kiro's
	// detail bullets: "Run `unit-tests` and ensure all tests pass",
	// "Execute `a` then `b`", a `- Run: \`npm test\`` beside a Verify
	// line of prose, "80%+ coverage"): their commands are the check.
	if cs := checks(runSteps(first, src, verify != nil)); len(cs) > 0 {
		return cs, ""
	}
	// A title that says to run what follows ("Run the final validation
	// pipeline:") and a list of backticked commands under it.
	if _, n := t.leading(); strings.HasSuffix(strings.TrimSpace(t.raw), ":") && n < len(t.words()) && runVerb(t.words()[n]) {
		if cs := checks(nested(first, src, FromRunStep)); len(cs) > 0 {
			return cs, ""
		}
	}
	// A fenced block of shell lines right in a task with no Verify label
	// ("**[VERIFY]** Run the check script (required)" and the script's
	// lines under it, in a ```bash fence): its lines are the check.
	if verify == nil {
		for n := first.NextSibling(); n != nil; n = n.NextSibling() {
			if fb, ok := n.(*ast.FencedCodeBlock); ok && shellFence(fb, src) {
				if cs := checks(blockCommands(fb, src, FromTaskBlock)); len(cs) > 0 {
					return cs, ""
				}
			}
		}
	}
	// A Verify line that names its command in words ("**Verify**: make
	// test passes with no failures"): the command, its success the exit.
	if c := wordsCommand(verify, src); c != "" {
		if cs := checks([]Command{{c, FromVerifyLine}}); len(cs) > 0 {
			return cs, ""
		}
	}
	// A `Command:` bullet names the check where nothing else does (attacks
	// 64 and 65: above a Verify line, a Done when or a Test label it had
	// taken their place).
	for v := labelled(item, first, src, "command"); v != nil; v = labelledAfter(item, first, src, "command", v) {
		if cs := checks(spans(v, src, FromCommandLine)); len(cs) > 0 {
			return cs, ""
		}
		if cs := checks(blockUnder(v, src)); len(cs) > 0 {
			for i := range cs {
				cs[i].Source = FromCommandLine // as the task's file names it (honest day 63)
			}
			return cs, ""
		}
	}
	// A Verify line that names no whole command ("Both via the Do steps",
	// "No emhass-related test failures", "All 12 checks pass") points at
	// the Do steps: their commands are the check.
	if verify != nil && refersToSteps(plain(verify, src)) {
		out = doSteps(item, first, src)
	}
	return out, prose
}

// expectedOf reads a Verify line's commands with what an **Expected**
// bullet of the task says of them ("**Expected**: no output" under `grep
// -rn X docs/`: the search must find nothing; honest day 63).
func expectedOf(item *ast.ListItem, first ast.Node, src []byte, cs []Command) []Command {
	if len(cs) == 0 {
		return cs // no command to read it with: no walk for the label
	}
	e := labelled(item, first, src, "expected")
	if e == nil {
		return cs
	}
	_, words, ok := strings.Cut(plain(e, src), ":")
	if !ok {
		return cs
	}
	for i, c := range cs {
		if !strings.Contains(c.Run, "; test ") && !strings.HasPrefix(c.Run, "test -z ") {
			cs[i].Run, _ = said(c.Run, " — Expected: "+strings.TrimSpace(words), "")
		}
	}
	return cs
}

// wordsCommand is the command a Verify line names in plain words, before
// the words that say it succeeds ("make test passes with no failures" is
// `make test`); "" when its words open with no command line (programs on
// PATH, as CommandLine reads a title's).
func wordsCommand(verify ast.Node, src []byte) string {
	if verify == nil {
		return ""
	}
	text := plain(verify, src)
	_, prose, ok := strings.Cut(text, ":")
	if !ok || strings.Contains(text, "`") {
		return ""
	}
	l := strings.ToLower(prose)
	success := false
	for _, w := range []string{"pass", "succe", "green", "returns 0", "exits 0", "exit 0", "exit code 0", "no failure", "0 failure",
		"zero failure", "no error", "clean", "ok"} {
		success = success || strings.Contains(l, w)
	}
	if !success {
		return "" // no words of success: prose, not a command named
	}
	// The command at its start ("make test, all passing", "running make
	// test passes") or after a preposition ("all tests pass under make
	// test"): the longest run of words that reads as a command line.
	words := strings.Fields(strings.NewReplacer(",", " ", ";", " ", "(", " ", ")", " ").Replace(prose))
	for s := 0; s < min(len(words), 8); s++ {
		if s > 0 {
			switch strings.ToLower(words[s-1]) {
			case "running", "run", "via", "using", "with", "under", "by", "from":
			default:
				continue
			}
		} else if w := strings.ToLower(words[0]); w == "running" || w == "run" {
			continue
		}
		for n := min(4, len(words)-s); n >= 1; n-- {
			c := strings.TrimRight(strings.Join(words[s:s+n], " "), ".")
			if f := strings.Fields(c); len(f) > 1 && f[0] == "make" && f[1] == "sure" || slices.ContainsFunc(f[1:], func(w string) bool { return proseWord(strings.ToLower(w)) }) {
				continue // "make sure all tests pass", "make clean removes the": words
			}
			if c = withoutSuccess(c); CommandLine(c) && len(strings.Fields(c)) > 1 {
				return c
			}
		}
	}
	return ""
}

// runSteps are the commands of the plain bullets right under a task that
// open with a verb that runs or checks (Run, Execute, Ensure, Check,
// Verify, Confirm): the backticked commands of each, files and actions
// aside. A checkbox under the task is a task of its own; a bullet that
// opens otherwise ("Create the model", "_Requirements: 1.2_") is what
// the task does or refers to. Beside a Verify label of prose (runOnly),
// only the bullets that say to run (`- Run:`, Execute): "Check `ls docs/`"
// beside it is no check of the task's.
func runSteps(first ast.Node, src []byte, runOnly bool) []Command {
	var out []Command
	for n := first.NextSibling(); n != nil; n = n.NextSibling() {
		l, ok := n.(*ast.List)
		if !ok {
			continue
		}
		for li := l.FirstChild(); li != nil; li = li.NextSibling() {
			item, ok := li.(*ast.ListItem)
			if !ok || isTaskItem(item) || item.FirstChild() == nil {
				continue
			}
			words := strings.Fields(plain(item.FirstChild(), src))
			// After a label of its own ("T-1 (commit ordering, AC-1): Run:
			// `grep …`", corpus thirteen): the verb after the label.
			for k := 1; k < min(len(words)-1, 9); k++ {
				if strings.HasSuffix(words[k-1], ":") && strings.HasSuffix(words[k], ":") && runVerb(words[k]) {
					words = words[k:]
					break
				}
			}
			if len(words) < 2 || !runVerb(words[0]) {
				continue
			}
			if v := strings.ToLower(strings.TrimRight(words[0], ":,")); runOnly && v != "run" && v != "rerun" && v != "re-run" && v != "execute" {
				continue
			}
			if optionalStep(plain(item.FirstChild(), src)) {
				// "[If the executor uses other values, the agent step
				// below confirms …]": the task lets another outcome
				// stand; a qa-engineer reads it (readTask).
				continue
			}
			// Its own words, and a list or a fence under them ("Verify no
			// references remain:" and the greps).
			for _, c := range append(spans(item.FirstChild(), src, FromRunStep), nested(item.FirstChild(), src, FromRunStep)...) {
				if !namedFile(c.Run) && !Action(c.Run) {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// optionalStep reports whether a step's words make it optional or let
// another outcome stand ("(optional)", "[If the executor uses different
// values, the agent step below confirms …]"): not a check to demand.
func optionalStep(step string) bool {
	return containsAny(strings.ToLower(step), "[if ", "(optional", "[optional", "optional:", "optionally", "if applicable")
}

// runVerb reports whether a bullet's first word says to run or check what
// it names.
func runVerb(w string) bool {
	switch strings.ToLower(strings.TrimRight(w, ":,")) {
	case "run", "rerun", "re-run", "execute", "ensure", "check", "verify", "confirm":
		return true
	}
	return false
}

// doSteps are the commands of the task's **Do** block that check
// something: the actions among them (pushing, committing, opening a pull
// request, publishing, starting a service) are what the task does, not how
// it is checked.
func doSteps(item *ast.ListItem, first ast.Node, src []byte) []Command {
	do := labelled(item, first, src, "do")
	if do == nil {
		return nil
	}
	var out []Command
	for _, c := range append(spans(do, src, FromDoSteps), nested(do, src, FromDoSteps)...) {
		if !Action(c.Run) {
			out = append(out, c)
		}
	}
	return checks(out)
}

// onFailure reports whether a Do step is what to do when the check fails
// ("On failure: dump the server log: `tail -50 …`"): a diagnosis, not the
// check.
func onFailure(step string) bool {
	step = strings.ToLower(strings.TrimLeft(step, " *_"))
	for _, p := range []string{"on failure", "on fail", "if it fails", "if this fails", "if failing", "if any fail", "on non-zero", "if tests fail", "if the check fails"} {
		if strings.HasPrefix(step, p) {
			return true
		}
	}
	return false
}

// Action reports whether a command line changes the world rather than
// checks it: git push/commit/tag/merge/add/checkout, gh pr create/merge,
// npm/pnpm/yarn publish, docker push, docker compose up.
func Action(c string) bool {
	w := strings.Fields(c[strings.Index(c, FirstWord(c)):])
	if len(w) < 2 {
		return false
	}
	switch w[0] {
	case "git":
		switch w[1] {
		case "push", "commit", "tag", "merge", "add", "checkout", "switch", "rebase", "reset":
			return true
		}
	case "gh":
		return len(w) > 2 && w[1] == "pr" && (w[2] == "create" || w[2] == "merge")
	case "npm", "pnpm", "yarn", "docker":
		return w[1] == "publish" || w[1] == "push" || w[0] == "docker" && w[1] == "compose" && len(w) > 2 && w[2] == "up"
	}
	return false
}

// bareOf reports whether every command of cs is a program alone that some
// command of do runs with arguments.
func bareOf(cs, do []Command) bool {
	if len(do) == 0 {
		return false
	}
	for _, c := range cs {
		if len(strings.Fields(c.Run)) != 1 {
			return false
		}
		found := false
		for _, d := range do {
			f := strings.Fields(d.Run)
			found = found || len(f) > 1 && f[0] == c.Run
		}
		if !found {
			return false
		}
	}
	return true
}

// checks are the commands of cs a task is checked by: a template's
// placeholder (`{{lint cmd}}`) is no command, and commands that cannot fail
// (`echo VE1_PASS`, `true`, `:`) prove nothing whatever the code does, so a
// task whose commands are all such is judged like a task that names none
// (beside a real check, one is harmless and kept).
func checks(cs []Command) []Command {
	out := cs[:0:0]
	real := false
	for _, c := range cs {
		c.Run = unixLauncher(atRoot(c.Run))
		if !Template(c.Run) && !wrapsNothing(c.Run) && !partOfEarlier(out, c.Run) {
			out = append(out, c)
			real = real || !CannotFail(c.Run)
		}
	}
	if !real {
		return nil
	}
	return out
}

// shellFence reports whether a fenced block says it holds shell lines
// (```bash, ```sh, ```shell, ```zsh, ```console).
func shellFence(fb *ast.FencedCodeBlock, src []byte) bool {
	if fb.Info == nil {
		return false
	}
	lang, _, _ := strings.Cut(strings.TrimSpace(string(fb.Info.Segment.Value(src))), " ")
	switch strings.ToLower(lang) {
	case "bash", "sh", "shell", "zsh", "console", "shell-session":
		return true
	}
	return false
}

// otherLanguage reports whether a fenced block names a language that is
// not a shell's (```sql queries run through a database tool, ```python,
// ```text): its lines are no shell commands. A fence that names none may
// hold them.
func otherLanguage(fb *ast.FencedCodeBlock, src []byte) bool {
	if fb.Info == nil || shellFence(fb, src) {
		return false
	}
	lang, _, _ := strings.Cut(strings.TrimSpace(string(fb.Info.Segment.Value(src))), " ")
	return lang != ""
}

// partOfEarlier reports whether c is one of the parts of a command already
// read whose parts must all pass ("`cd backend && go build ./... && go vet
// ./...` green — `go vet ./...` clean"): it is checked there, where it
// runs, and read again alone it would run from elsewhere. A part of a line
// with || ; or | in it may fail while the line passes, so it is read.
func partOfEarlier(earlier []Command, c string) bool {
	c = strings.TrimSpace(c)
	for _, e := range earlier {
		parts, ok := splitOperators(e.Run)
		if !ok || len(parts) < 2 || len(parts) != strings.Count(e.Run, "&&")+1 || strings.Contains(e.Run, "||") {
			continue
		}
		for _, p := range parts {
			if strings.TrimSpace(p) == c {
				return true
			}
		}
	}
	return false
}

// CannotFail reports whether every part of a command line (between && ||
// ; | outside quotes) is a program that exits 0 whatever it is given, or
// only shows what a person then reads: echo, printf, true, :, yes, pwd,
// date, ls alone, git status/log/branch/diff (without --exit-code or --quiet),
// docker stats/ps, top, htop, watch.
func CannotFail(c string) bool {
	parts, ok := splitOperators(c)
	if !ok {
		return false
	}
	for _, p := range parts {
		// By its name wherever it lives: `/bin/true` cannot fail either.
		switch w := strings.Fields(p[strings.Index(p, FirstWord(p)):]); path.Base(FirstWord(p)) {
		case "echo", "printf", "true", ":", "yes", "pwd", "date", "htop", "top", "watch":
		case "bash", "sh", "zsh", "dash", "env", "ls":
			// A shell given only options reads its (empty) input: `bash
			// -n` checks no script. env alone shows the environment, ls
			// alone the directory (`ls x` fails when x is missing).
			for _, a := range w[1:] {
				if !strings.HasPrefix(a, "-") && !(w[0] == "env" && strings.Contains(a, "=")) {
					return false
				}
			}
		case "gh":
			// What GitHub shows (`gh pr view 646`), not what it checks.
			if len(w) < 3 || w[2] != "view" || strings.Contains(p, "--exit-status") {
				return false
			}
		case "cargo", "go", "gofmt", "black", "ruff", "prettier":
			// A formatter that rewrites the files exits 0 on any code:
			// `cargo fmt`, not `cargo fmt --check`.
			if !rewrites(w) {
				return false
			}
		case "git":
			// What git shows, not what it checks: `git status` "shows no
			// uncommitted changes" is a person's reading of its output.
			// `git diff --check` fails on whitespace errors and conflict
			// markers: a check.
			if len(w) < 2 || !(w[1] == "status" || w[1] == "log" || w[1] == "branch" || w[1] == "diff" && !strings.Contains(p, "--exit-code") && !strings.Contains(p, "--quiet") && !strings.Contains(p, "--check")) {
				return false
			}
		case "docker":
			if len(w) < 2 || w[1] != "stats" && w[1] != "ps" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// PrintsVerdict reports whether a command line holds a check whose
// failure the line's own exit loses: `curl … | grep -q ok && echo PASS ||
// echo FAIL`, `pytest; echo done`, `make test || exit 0`, `if make test;
// then echo PASS; else echo FAIL; fi`, `tests || { echo FAIL; }`. It exits
// 0 whatever the check found, so what it prints is its verdict, read by a
// qa-engineer, never its exit (attack 64: eight forms the first rule,
// `|| echo` and `; echo` alone, missed).
func PrintsVerdict(c string) bool {
	return exitOf(c, 0) == exitLost
}

// How a command line's exit stands to the checks in it.
type exitState int

const (
	exitZero    exitState = iota // always 0: no check in it
	exitFails                    // always non-zero (`exit 1`, `false`)
	exitReflect                  // non-zero when a check in it fails
	exitLost                     // a check in it may fail and the line still exit 0
	exitStatus                   // reads the status before it (`test $? -eq 0`)
	exitKept                     // exits with a status kept in a variable (`exit $STATUS`)
)

// exitOf evaluates a command line's links left to right, as the shell
// runs && || ; | (pipefail, as rodin verify runs it): a group `{ …; }` or
// `( … )` is evaluated inside; a compound command (if, case, a loop) or a
// line sent to the background loses the exit it holds.
func exitOf(c string, depth int) exitState {
	ls, ok := topLinks(uncommented(c))
	if !ok || depth > 8 {
		// Not read to its end (an unclosed quote, a group left open): its
		// exit cannot be told, so its output is read (attack 65).
		return exitLost
	}
	state := exitZero
	errexit := false  // after `set -e`, a failing command ends the script
	captured := false // a status kept in a variable (`E1=$?`) to test later
	// A pipeline binds before && || ;: its state first (pipefail, as
	// rodin verify runs it: a check anywhere in it reflects).
	var segs []link
	var states []exitState
	for _, l := range ls {
		next := linkExit(l.text, depth)
		if l.op == "|" && len(segs) > 0 {
			k := len(states) - 1
			switch {
			case states[k] == exitLost || next == exitLost:
				states[k] = exitLost
			case states[k] == exitReflect || next == exitReflect || states[k] == exitFails || next == exitFails:
				states[k] = exitReflect
			}
			segs[k].text += "|" + l.text
			continue
		}
		segs, states = append(segs, l), append(states, next)
	}
	list := false // the statement so far holds && or ||: set -e does not end the script on its failure
	for i, l := range segs {
		next := states[i]
		if next == exitKept {
			// `exit $STATUS`: the status kept with `STATUS=$?` before it,
			// else whatever the variable holds.
			if captured {
				next = exitStatus
			} else {
				next = exitLost
			}
		}
		captured = captured || strings.Contains(l.text, "=$?")
		op := l.op
		if op == "&" {
			// The command before it runs in the background: its exit is
			// no one's, unless the next waits for it (`wait $!`; a bare
			// wait returns 0).
			f := strings.Fields(l.text)
			waits := len(f) == 2 && f[0] == "wait" && (f[1] == "$!" || f[1] == `"$!"` || f[1] == "%1")
			if !waits && (state == exitReflect || state == exitStatus) {
				state = exitLost
			}
			if waits {
				next = exitStatus
			}
			op = ";"
		}
		if op == ";" || op == "\n" {
			if errexit && !list {
				op = "&&" // `set -e`: a failing statement ends the script
			}
			list = false
		} else if op == "&&" || op == "||" {
			list = true
		}
		if on, ok := errexitSet(l.text); ok {
			errexit = on
		}
		if i == 0 {
			state = next
			continue
		}
		switch op {
		case "&&":
			switch state {
			case exitZero, exitStatus:
				state = next
			case exitFails, exitLost:
			default:
				if next == exitLost || next == exitFails {
					state = next
				}
			}
		case "||":
			switch state {
			case exitZero:
			case exitFails:
				state = next
			case exitReflect, exitStatus:
				// The check's failure is answered by what follows: only a
				// link that always fails (`|| exit 1`) keeps it a failure
				// (attack 65: `|| tail log`, `|| grep FAIL log`, `|| cd ..`).
				if next != exitFails {
					state = exitLost
				}
			}
		case ";", "\n":
			switch {
			case next == exitStatus:
				// `check; test $? -eq 0`: the status read is the check's.
			case next == exitFails:
				state = exitFails
			case state == exitReflect && next == exitReflect && captured:
				// `a; E1=$?; b; E2=$?; test $E1 -eq 0 && test $E2 -eq 0`
			case state == exitReflect || state == exitLost:
				state = exitLost // `lint; echo done`, `lint; test`: lint's failure is lost
			default:
				state = next
			}
		}
	}
	if state == exitStatus {
		return exitReflect
	}
	return state
}

// errexitSet reports whether a link turns `set -e` on or off.
func errexitSet(l string) (on, ok bool) {
	f := strings.Fields(l)
	if len(f) < 2 || f[0] != "set" {
		return false, false
	}
	for i, a := range f[1:] {
		switch {
		case (a == "-o" || a == "+o") && i+2 < len(f) && f[i+2] == "errexit":
			return a == "-o", true
		case len(a) > 1 && (a[0] == '-' || a[0] == '+') && a[1] != '-' && a[1] != 'o' && strings.ContainsRune(a[1:], 'e'):
			return a[0] == '-', true
		}
	}
	return false, false
}

// linkExit is the exit state of one link of a command line. What it does
// not know for sure to keep a check's failure is "lost": the line's output
// is then read (attacks 64 to 66 found a form a time).
func linkExit(l string, depth int) exitState {
	l = strings.TrimSpace(l)
	if strings.Contains(l, "<(") || strings.Contains(l, ">(") {
		return exitLost // a process substitution's exit is no one's
	}
	w := strings.Fields(l)
	// Words that run what follows and keep its exit.
	for len(w) > 1 {
		switch {
		case w[0] == "command" || w[0] == "builtin" || w[0] == "exec" || w[0] == "time" || w[0] == "nohup" || w[0] == "nice":
		case w[0] == "timeout" && len(w) > 2 && !strings.HasPrefix(w[1], "-"):
			l = strings.TrimSpace(strings.TrimPrefix(l, w[0]))
			w = w[1:]
		case w[0] == "env" && len(w) > 1:
			for len(w) > 2 && strings.Contains(w[1], "=") {
				l = strings.TrimSpace(strings.TrimPrefix(l, w[0]))
				w = w[1:]
			}
		default:
			goto read
		}
		l = strings.TrimSpace(strings.TrimPrefix(l, w[0]))
		w = w[1:]
	}
read:
	if len(w) == 0 {
		return exitZero
	}
	switch w[0] {
	case "if", "then", "else", "elif", "fi", "case", "esac", "while", "until", "for", "do", "done", "select", "function", "trap", "xargs", "parallel":
		// A compound command, a trap that may rewrite the exit, a
		// command run per input: which exit, its output says.
		return exitLost
	case "exit", "return":
		if len(w) == 1 {
			return exitStatus
		}
		switch a := strings.Trim(w[1], `"`); {
		case a == "0":
			return exitZero
		case a == "$?":
			return exitStatus
		case strings.HasPrefix(a, "$") && isName(strings.TrimPrefix(a, "$")):
			return exitKept // `exit $STATUS`: a status kept before
		case allDigits(a):
			return exitFails
		}
		return exitLost
	case "false":
		return exitFails
	case "test", "[", "[[":
		if statusTest(w) {
			return exitStatus
		}
		if strings.Contains(l, "$") {
			return exitLost // `test $?` alone, `[ "$?" ]`: true whatever the status
		}
	case "!":
		return exitReflect
	case "wait":
		return exitLost // a bare wait returns 0 (`& wait $!` is read with the &)
	case "cd", "pushd", "popd", "export", "unset", "source", ".", "alias", "shopt", "local", "declare", "typeset", "readonly", "set", "umask":
		// Setting the shell up for the check: no check of its own, unless
		// it runs one (`export R=$(tests)`, `set -- $(tests)`).
		if strings.Contains(l, "$(") || strings.Contains(l, "`") {
			return exitLost
		}
		return exitZero
	case "eval":
		if inner, ok := inlineScript(w); ok {
			return exitOf(inner, depth+1)
		}
		return exitLost
	case "bash", "sh", "zsh", "dash", "ksh":
		// A shell given its script inline (`bash -c`, `sh -ec`): the
		// script's exit; one that cannot be read, its output.
		for _, a := range w[1:] {
			if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'c') {
				if inner, ok := inlineScript(w); ok {
					return exitOf(inner, depth+1)
				}
				return exitLost
			}
		}
	case "find":
		if strings.Contains(l, "-exec") && (strings.HasSuffix(l, `\;`) || strings.HasSuffix(l, `';'`) || strings.HasSuffix(l, `";"`)) {
			return exitLost // find exits 0 whatever `-exec … ;` did
		}
	}
	if strings.Contains(l, "=$?") {
		return exitStatus // `STATUS=$?`: the status is kept to read
	}
	if k := strings.IndexByte(w[0], '='); k > 0 && isName(w[0][:k]) && len(w) == 1 {
		if strings.Contains(l, "$(") || strings.Contains(l, "`") {
			return exitReflect // `out=$(check)`: the substitution's exit
		}
		return exitZero
	}
	if inner, ok := group(l); ok {
		return exitOf(inner, depth+1)
	}
	if CannotFail(l) {
		if strings.Contains(l, "$(") || strings.Contains(l, "`") {
			return exitLost // `echo "$(tests)"`: the check's exit is dropped
		}
		return exitZero
	}
	return exitReflect
}

// statusTest reports whether a test compares a status with a number:
// `test $? -eq 1`, `[ "$?" -le 1 ]`, `test $E1 -eq 0` (a status kept),
// our own `${PIPESTATUS[0]} -le 1 -a …`.
func statusTest(w []string) bool {
	args := w[1:]
	if w[0] != "test" && len(args) > 0 {
		args = args[:len(args)-1] // the closing ] or ]]
	}
	if len(args) < 3 {
		return false
	}
	for len(args) >= 3 {
		v, op, n := strings.Trim(args[0], `"`), args[1], args[2]
		if !strings.HasPrefix(v, "$") || !allDigits(n) {
			return false
		}
		switch op {
		case "-eq", "-ne", "-le", "-lt", "-ge", "-gt":
		default:
			return false
		}
		args = args[3:]
		if len(args) == 0 {
			return true
		}
		if args[0] != "-a" && args[0] != "&&" {
			return false
		}
		args = args[1:]
	}
	return false
}

// inlineScript is the script a shell is given with -c (`bash -c 'a ||
// b'`, `sh -ec …`), or eval's words, unquoted; false when there is none
// to read.
func inlineScript(w []string) (string, bool) {
	rest := w[1:]
	if w[0] != "eval" {
		i := slices.IndexFunc(rest, func(a string) bool { return len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'c') })
		if i < 0 || i+1 >= len(rest) {
			return "", false
		}
		rest = rest[i+1:]
	}
	s := strings.Join(rest, " ")
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') {
		if j := strings.LastIndexByte(s, s[0]); j > 0 {
			return s[1:j], true
		}
	}
	return s, s != ""
}

// group is the inside of a link that is a group (`{ a; b; }`, `( a )`).
func group(l string) (string, bool) {
	if strings.HasPrefix(l, "{") && strings.HasSuffix(l, "}") {
		return strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, "{"), "}")), ";"), true
	}
	if strings.HasPrefix(l, "(") && strings.HasSuffix(l, ")") && !strings.HasPrefix(l, "((") {
		return l[1 : len(l)-1], true
	}
	return "", false
}

// link is a part of a command line and the operator before it.
type link struct{ op, text string }

// topLinks splits a command line at its top-level operators (&& || ; |
// & and line ends, outside quotes, groups and substitutions); ok is false
// for an unclosed quote or group.
func topLinks(s string) ([]link, bool) {
	var out []link
	op, start, depth, quote := "", 0, 0, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && quote != '\'':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '(' || c == '{' && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n'):
			depth++
		case c == '$' && i+1 < len(s) && (s[i+1] == '(' || s[i+1] == '{'):
			depth++
			i++
		case (c == ')' || c == '}') && depth > 0:
			depth--
		case depth > 0:
		case c == ';' || c == '\n' || c == '|' || c == '&':
			if c == '&' && (i > 0 && (s[i-1] == '>' || s[i-1] == '<') || i+1 < len(s) && s[i+1] == '>') {
				continue // a redirect: 2>&1, &>log
			}
			o := string(c)
			if i+1 < len(s) && s[i+1] == c && c != ';' && c != '\n' {
				o += string(c)
				i++
			} else if c == '|' && i+1 < len(s) && s[i+1] == '&' {
				i++ // `|&`: a pipe of stdout and stderr
			}
			out = append(out, link{op, s[start : i+1-len(o)]})
			op, start = o, i+1
		}
	}
	if quote != 0 || depth != 0 {
		return nil, false
	}
	out = append(out, link{op, s[start:]})
	// A trailing `;` or line end ends the last command, no link after it.
	kept := out[:0]
	for i, l := range out {
		if strings.TrimSpace(l.text) == "" && l.op != "&" && (i == len(out)-1 || l.op == ";" || l.op == "\n") {
			continue
		}
		kept = append(kept, l)
	}
	return kept, true
}

// CapturesScreen reports whether a part of a command line takes a
// screenshot (`xcrun simctl io booted screenshot x.png`, `adb exec-out
// screencap`, screencapture, scrot, grim, `playwright screenshot`): it
// succeeds whatever the screen shows, and what it must show is a person's
// to see.
func CapturesScreen(c string) bool {
	parts, ok := splitOperators(c)
	if !ok {
		return false
	}
	for _, p := range parts {
		w := strings.Fields(p[strings.Index(p, FirstWord(p)):])
		switch path.Base(FirstWord(p)) {
		case "screencapture", "scrot", "grim", "gnome-screenshot", "spectacle", "flameshot", "maim":
			return true
		case "import":
			if slices.Contains(w, "-window") {
				return true // ImageMagick's
			}
		}
		switch path.Base(FirstWord(p)) {
		case "xcrun", "adb", "playwright", "npx", "pnpm", "yarn", "bunx":
			// xcrun simctl io … screenshot, adb … screencap, `npx
			// playwright screenshot`; not a test filter (`go test -run
			// screenshot`).
			for _, a := range w[1:] {
				if a == "screenshot" || a == "screencap" {
					return true
				}
			}
		}
	}
	return false
}

// Counts reports whether a command line's last part counts (`… | wc -l`,
// `grep -c PATTERN FILE`): it exits 0 whatever the count, or (grep -c)
// 1 when it is 0, so the number it prints is the check, read by a
// qa-engineer ("(expect 10+)", "must return 0").
func Counts(c string) bool {
	parts, ok := splitOperators(c)
	if !ok || len(parts) == 0 {
		return false
	}
	last := parts[len(parts)-1]
	w := strings.Fields(last[strings.Index(last, FirstWord(last)):])
	switch path.Base(FirstWord(last)) {
	case "wc":
		// `… | wc -l`, `wc -l FILE`, `wc -l < FILE`: a count, whatever it
		// counts.
		return len(w) >= 2 && (w[1] == "-l" || w[1] == "-w" || w[1] == "-c" || w[1] == "-m")
	case "grep", "egrep", "fgrep", "rg":
		for _, a := range w[1:] {
			if a == "-c" || a == "--count" || len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'c') && !strings.ContainsAny(a, "eAfBCm") {
				return true
			}
		}
	}
	return false
}

// AgentPrompt reports whether a command line hands a prompt to a coding
// agent (`claude "write notes/TEST.md"`, `claude -p …`): it exits 0
// whatever the agent did, and what it did is read, by a qa-engineer.
// Claude Code's own checks (`claude plugin validate`) are checks.
func AgentPrompt(c string) bool {
	w := strings.Fields(c)
	if len(w) < 2 || path.Base(w[0]) != "claude" {
		return false
	}
	switch w[1] {
	case "plugin", "mcp", "doctor", "config", "update", "install", "migrate-installer", "setup-token", "--version", "-v", "--help", "-h":
		return false
	}
	return true
}

// rewrites reports whether a formatter's command line rewrites the files
// instead of checking them.
func rewrites(w []string) bool {
	line := " " + strings.Join(w, " ") + " "
	if strings.Contains(line, " --check") || strings.Contains(line, " -l ") || strings.Contains(line, " -d ") || strings.Contains(line, " --list-different") || strings.Contains(line, " --diff") {
		return false
	}
	switch {
	case w[0] == "cargo" && len(w) > 1 && w[1] == "fmt", w[0] == "go" && len(w) > 1 && w[1] == "fmt":
		return true
	case w[0] == "gofmt" && strings.Contains(line, " -w "), w[0] == "black", w[0] == "ruff" && len(w) > 1 && w[1] == "format":
		return true
	case w[0] == "prettier" && strings.Contains(line, " --write"):
		return true
	}
	return false
}

// wrapsNothing reports whether a command line is a wrapper with nothing to
// run: `timeout 300` lifted from a sentence ("the outer `timeout 300` is
// the final guard"), `nice`, `nohup`, `sudo` alone. Run so, it fails or
// checks nothing.
func wrapsNothing(c string) bool {
	w := strings.Fields(c)
	if len(w) == 0 {
		return false
	}
	args := 0
	for _, a := range w[1:] {
		if !strings.HasPrefix(a, "-") {
			args++
		}
	}
	switch w[0] {
	case "timeout":
		return args < 2 // a duration and a command
	case "nice", "nohup", "sudo", "time", "exec", "stdbuf", "ionice", "caffeinate":
		return args < 1
	}
	return false
}

// PipeHidesExit reports whether a command line pipes into a filter whose
// exit is the line's (tail, head, cat, sort, uniq, wc, tee, less, more,
// column) without pipefail: run so, it succeeds whatever the first
// command does. rodin verify runs it with pipefail; a run of it anywhere
// else proves nothing.
func PipeHidesExit(c string) bool {
	parts, ok := splitPipes(c)
	if !ok || len(parts) < 2 || strings.Contains(c, "pipefail") {
		return false
	}
	switch FirstWord(parts[len(parts)-1]) {
	case "tail", "head", "cat", "sort", "uniq", "wc", "tee", "less", "more", "column":
		return true
	}
	return false
}

// splitPipes splits a command line at single | outside quotes (not ||).
func splitPipes(s string) (parts []string, ok bool) { return split(s, true) }

// Template reports whether a command holds a template's placeholder, as
// spec templates write them (`{{lint cmd}}`, `pytest <test-file>`): a
// template's task is no check to run. A redirect (`sort <in.txt`,
// `a <in >out`) and text in quotes (`grep "<div>"`) are no placeholder.
func Template(c string) bool {
	if i := strings.Index(c, "{{"); i >= 0 && strings.Contains(c[i:], "}}") {
		return true
	}
	return angled(c) >= 0
}

// angled is where the first <placeholder> outside quotes starts in c, -1
// when there is none: a < followed by a letter, then letters, digits and
// - _ . / or spaces between words, up to a > before any other character.
func angled(c string) int {
	quote := byte(0)
	for i := 0; i < len(c); i++ {
		switch ch := c[i]; {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\\':
			i++
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '<' && i+1 < len(c) && isLetter(c[i+1]):
			for j := i + 1; j < len(c); j++ {
				d := c[j]
				if d == '>' {
					// `<in 2>&1` is two redirects, not a placeholder.
					word := c[strings.LastIndexByte(c[:j], ' ')+1 : j]
					if c[j-1] != ' ' && strings.Trim(word, "0123456789") != "" {
						return i
					}
					break
				}
				if !isLetter(d) && !(d >= '0' && d <= '9') && !strings.ContainsRune("-_./ ", rune(d)) {
					break
				}
			}
		}
	}
	return -1
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// atRoot drops a leading `cd <project-root> &&` (or `;`), the template's
// way to say "at the project root", where rodin runs a task's commands
// anyway: `cd <project-root> && swift build` is checked by `swift build`.
// Any other placeholder leaves the command a template's.
func atRoot(c string) string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(c), "cd ")
	if !ok {
		return c
	}
	rest = strings.TrimLeft(rest, " ")
	if angled(rest) != 0 {
		return c
	}
	end := strings.IndexByte(rest, '>')
	name := strings.ToLower(rest[1:end])
	if !strings.Contains(name, "root") && !strings.Contains(name, "repo") && !strings.Contains(name, "project") && !strings.Contains(name, "workspace") && !strings.Contains(name, "worktree") {
		return c
	}
	after := strings.TrimLeft(rest[end+1:], " ")
	for _, sep := range []string{"&&", ";"} {
		if cmd, ok := strings.CutPrefix(after, sep); ok && strings.TrimSpace(cmd) != "" {
			return strings.TrimSpace(cmd)
		}
	}
	return c
}

// labelled finds the block of the task (not of a sub-task) that starts
// with a strong label: **Verify**:, **Done when**:, **Do**:.
func labelled(item *ast.ListItem, first ast.Node, src []byte, label string) ast.Node {
	return labelledAfter(item, first, src, label, nil)
}

// labelledAfter is labelled's next block after the block after (the first
// when after is nil).
func labelledAfter(item *ast.ListItem, first ast.Node, src []byte, label string, after ast.Node) ast.Node {
	var found ast.Node
	passed := after == nil
	ast.Walk(item, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if found != nil {
			return ast.WalkStop, nil
		}
		if !entering {
			return ast.WalkContinue, nil
		}
		if n == after {
			passed = true
			return ast.WalkSkipChildren, nil
		}
		if n == first {
			return ast.WalkSkipChildren, nil
		}
		if li, ok := n.(*ast.ListItem); ok && li != item && isTaskItem(li) {
			return ast.WalkSkipChildren, nil // a sub-task speaks for itself
		}
		if n.Kind() != ast.KindParagraph && n.Kind() != ast.KindTextBlock {
			return ast.WalkContinue, nil
		}
		if em, ok := n.FirstChild().(*ast.Emphasis); ok && em.Level == 2 {
			name := strings.ToLower(strings.TrimSpace(strings.TrimRight(strings.TrimSpace(plain(em, src)), ":")))
			if names(label)[name] && passed {
				found = n
				return ast.WalkStop, nil
			}
		}
		// A plain label ("- Verification: `node --test …`"): the words
		// before the paragraph's first colon, when they are the label.
		if tx, ok := n.FirstChild().(*ast.Text); ok && (label == "verify" || label == "command" || label == "expected") {
			head, _, colon := strings.Cut(string(tx.Segment.Value(src)), ":")
			if colon && names(label)[strings.ToLower(strings.TrimSpace(head))] && passed {
				found = n
				return ast.WalkStop, nil
			}
		}
		return ast.WalkSkipChildren, nil
	})
	return found
}

// names are the ways tasks write a label: **Verify**, **Verification**,
// Verification: …
// lineLabelled are the commands after a strong `Verify`, `Verification`
// or `Test` label that starts a line inside a paragraph of the task (not
// its title's first line, not a sub-task): the code spans on that line.
func lineLabelled(item *ast.ListItem, first ast.Node, src []byte) []Command {
	var out []Command
	ast.Walk(item, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || len(out) > 0 {
			return ast.WalkContinue, nil
		}
		if li, ok := n.(*ast.ListItem); ok && li != item && isTaskItem(li) {
			return ast.WalkSkipChildren, nil
		}
		em, ok := n.(*ast.Emphasis)
		if !ok || em.Level != 2 {
			return ast.WalkContinue, nil
		}
		prev, lineStart := em.PreviousSibling(), false
		if tx, ok := prev.(*ast.Text); ok {
			lineStart = tx.SoftLineBreak() || tx.HardLineBreak()
		} else {
			lineStart = prev == nil && em.Parent() != first
		}
		name := strings.ToLower(strings.TrimSpace(strings.TrimRight(strings.TrimSpace(plain(em, src)), ":")))
		if !lineStart || !(name == "verify" || name == "verification" || name == "test") {
			return ast.WalkSkipChildren, nil
		}
		for c := em.NextSibling(); c != nil; c = c.NextSibling() {
			if c.Kind() == ast.KindCodeSpan {
				if cmd := strings.TrimSpace(plain(c, src)); CommandLike(cmd) {
					out = append(out, Command{cmd, FromVerifyLine})
				}
			}
			if tx, ok := c.(*ast.Text); ok && (tx.SoftLineBreak() || tx.HardLineBreak()) {
				break // the line ends
			}
		}
		if len(out) == 0 {
			if cmd := bareLine(em, src); cmd != "" {
				out = append(out, Command{cmd, FromVerifyLine})
			}
		}
		return ast.WalkSkipChildren, nil
	})
	return out
}

// bareLine is the command a label's line holds written without backticks
// ("**Verify**: python -c "…" && echo "PASS"", "**Verify**: pytest -q &&
// ruff check ."): the rest of the line as written, when every part of it
// is shaped as a check (bareCheck) and no word of success ends it (those
// are wordsCommand's); else "". A sentence whose first word happens to be
// a program ("file exists at docs/api.md", "make sure nothing regressed",
// "pytest reports 0 failed") is prose, never run (attack 73).
func bareLine(label ast.Node, src []byte) string {
	tx, ok := label.NextSibling().(*ast.Text)
	if !ok {
		return ""
	}
	start := tx.Segment.Start
	end := bytes.IndexByte(src[start:], '\n')
	if end < 0 {
		end = len(src) - start
	}
	line := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimRight(string(src[start:start+end]), "\r")), ":"))
	line = withoutNote(line)
	if line == "" || strings.ContainsAny(line, "`*_[") || withoutSuccess(line) != line {
		return ""
	}
	parts, ok := splitOperators(line)
	if !ok || strings.Contains(unquoted(line), "||") {
		return "" // `pytest || file the bug`: a check that may not fail
	}
	for len(parts) > 1 {
		if w := FirstWord(parts[len(parts)-1]); w != "echo" && w != "printf" {
			break
		}
		parts = parts[:len(parts)-1] // `&& echo "PASS"`: a pass said, harmless after a check
	}
	checks := 0
	for _, p := range parts {
		switch ok, check := bareCheck(unquoted(p)); {
		case !ok:
			return ""
		case check:
			checks++
		}
	}
	if checks == 0 {
		return "" // `cd . && true`: nothing that can fail
	}
	return line
}

// withoutNote is a bare command line without the author's note after it:
// a closing parenthesis of words ("npm test (all green)", "go test ./...
// (race detector on)") or what follows a colon and a space ("npm test: all
// pass"); quotes are left whole.
func withoutNote(line string) string {
	u := unquoted(line)
	if strings.HasSuffix(u, ")") {
		if i := strings.LastIndex(u, " ("); i > 0 && !strings.ContainsAny(u[i:], "$`") {
			// The same place in line: unquoted keeps everything before
			// its first quote, and a note's parenthesis follows them all.
			if j := strings.LastIndex(line, " ("); j > 0 && strings.HasSuffix(line, u[i:]) {
				line = strings.TrimSpace(line[:j])
				u = unquoted(line)
			}
		}
	}
	if i := strings.Index(u, ": "); i > 0 && !strings.ContainsAny(u[:i], "\"'") {
		if j := strings.Index(line, ": "); j == i {
			line = strings.TrimSpace(line[:j])
		}
	}
	return line
}

// bareCheck reads one part of a bare command line (quoted strings already
// one word): ok when it is shaped as a command, check when it is one that
// can fail (not a cd). Its program is a runner, a test tool or a script's
// path; no word of English prose anywhere.
func bareCheck(p string) (ok, check bool) {
	f := strings.Fields(p)
	if len(f) == 0 {
		return false, false
	}
	for _, w := range f {
		if proseWord(strings.ToLower(strings.Trim(w, ".,;:!?"))) {
			return false, false
		}
	}
	prog, args := f[0], f[1:]
	if prog == "cd" {
		return len(args) == 1, false
	}
	if !bareRunner(prog) && !bareTool(prog) && !strings.HasPrefix(prog, "./") && !strings.HasPrefix(prog, "../") {
		return false, false
	}
	// Its words: subcommands, modules, folders (`ruff check .`, `python
	// -m pytest`, `mypy src`, `docker compose run --rm api pytest`); a
	// sentence gives itself away by a word of prose (above) or by more
	// plain words than a command has.
	plain := 0
	for _, a := range args {
		if isPlainWord(a) {
			plain++
		}
	}
	return plain <= 5, true
}

// unquoted is a command line with each quoted string one word,
// "quoted": what a quote holds (`"add(1, 1) == 2"`) is an argument, never
// prose.
func unquoted(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if q := s[i]; q == '"' || q == '\'' {
			if j := strings.IndexByte(s[i+1:], q); j >= 0 {
				b.WriteString("quoted")
				i += j + 1
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// isPlainWord reports whether a word is a word of letters only: a
// runner's subcommand, or prose; not a flag, a path, a value or a quote.
func isPlainWord(w string) bool {
	if w == "quoted" {
		return false // unquoted's stand-in for a quoted string
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return w != ""
}

// bareRunner reports whether a program's first words name what it runs;
// bareTool, whether its operands are flags, paths and values (a bare
// Verify line names one of them, or a script by its path). Switches, not
// maps: a hook does no work at package init.
func bareRunner(p string) bool {
	switch p {
	case "npm", "pnpm", "yarn", "bun", "npx", "go", "cargo", "make", "just", "ruff", "uv", "poetry", "pipenv", "hatch", "tox", "nox",
		"dotnet", "mvn", "gradle", "./gradlew", "./mvnw", "mix", "bundle", "rake", "deno", "git", "docker", "composer", "swift",
		"flutter", "dart", "nx", "turbo":
		return true
	}
	return false
}

func bareTool(p string) bool {
	switch p {
	case "pytest", "python", "python3", "node", "sh", "bash", "tsc", "eslint", "jest", "vitest", "mypy", "pyright", "phpunit", "rspec",
		"golangci-lint", "shellcheck", "bats", "prettier", "black", "flake8", "pylint", "test", "grep", "rg", "diff", "cmp", "jq", "curl":
		return true
	}
	return false
}

// proseWord reports whether a word is English prose, never a command's.
func proseWord(w string) bool {
	switch w {
	case "the", "a", "an", "is", "are", "was", "were", "be", "should", "must", "will", "can", "then", "that", "this", "it", "its",
		"and", "or", "of", "for", "to", "from", "at", "on", "with", "without", "no", "not", "nothing", "all", "every", "each", "sure",
		"exists", "exist", "contains", "shows", "show", "reports", "returns", "removes", "displays", "displayed", "goes", "works",
		"fails", "passes":
		return true
	}
	return false
}

func names(label string) map[string]bool {
	if label == "verify" {
		return map[string]bool{"verify": true, "verification": true, "validation": true, "verified by": true}
	}
	if label == "command" {
		// `- Command: \`python validate.py\``: the check, where no
		// Verify label names one (corpus thirteen).
		return map[string]bool{"command": true, "commands": true}
	}
	return map[string]bool{label: true}
}

func isTaskItem(li *ast.ListItem) bool {
	if p := li.FirstChild(); p != nil {
		_, ok := p.FirstChild().(*checkBox)
		return ok
	}
	return false
}

// spans are the code spans of a labelled block that read as commands.
func spans(block ast.Node, src []byte, from Source) []Command {
	var out []Command
	skip := map[ast.Node]bool{} // a span that names the directory of the one before
	var prev ast.Node           // the span of the command before, when this one may continue it
	prevRun, gap := "", ""
	ast.Walk(block, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && n.Kind() == ast.KindCodeSpan {
			c := strings.TrimSpace(plain(n, src))
			if prev != nil && prev.NextSibling() != nil && n.Parent() == prev.Parent() {
				if r, ok := nextScript(prevRun, gap, c); ok {
					c = r
				} else if alternative(gap) && CommandLike(c) {
					prev, prevRun, gap = nil, "", ""
					return ast.WalkSkipChildren, nil // an alternative to the one before: the first
				}
			}
			prev, prevRun, gap = nil, "", ""
			if CommandLike(c) && !skip[n] {
				after, next := followingText(n, src)
				run, usesNext := said(c, after, plainOrEmpty(next, src))
				if usesNext {
					skip[next] = true
				} else {
					prev, prevRun, gap = n, c, after
				}
				out = append(out, Command{run, from})
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// nextScript reads a one-word span after a command and a slash or a comma
// ("`pnpm -r typecheck` / `lint` / `test` green") as the same runner's next
// script, `pnpm -r lint`: the author's shorthand. Alone, `lint` names no
// program, and `test` is the shell's, which exits 1 with no operand.
func nextScript(prev, gap, word string) (string, bool) {
	switch strings.TrimSpace(gap) {
	case "/", ",", "+", "、":
	default:
		return "", false
	}
	f := strings.Fields(prev)
	if len(f) < 2 || !scriptName(word) || !scriptName(f[len(f)-1]) || word != "test" && onPath(word) {
		return "", false
	}
	switch path.Base(f[0]) {
	case "npm", "pnpm", "yarn", "bun", "deno", "nx", "turbo", "make", "just", "task", "cargo", "go", "uv", "poetry", "gradle",
		"gradlew", "mvn", "mvnw", "dotnet", "composer", "rake", "mise", "melos", "flutter", "dart", "mix", "lerna", "rush":
		if path.Base(f[0]) == "npm" && len(f) == 3 && f[1] == "run" && (word == "test" || word == "start" || word == "stop" || word == "restart") {
			return "npm " + word, true // npm's own: `npm test`, as it is typed
		}
		return strings.Join(append(f[:len(f)-1:len(f)-1], word), " "), true
	}
	return "", false
}

// placeSpan reports whether a title's span names a place of the project,
// said so by the words around it ("`pnpm lint` runs lint in `apps/api`,
// `packages/contracts`", "`apps/web/src` に", "listed in
// `template/.gitignore`"): one word, a directory of the project or a file
// of it that cannot run, with no extension a program's file would have. A
// span that reads as the thing to run ("`scripts/check` passes") is no
// place whatever is there: a folder made where a script was (attack 71)
// does not drop it.
func placeSpan(c, before, after string) bool {
	if strings.ContainsAny(c, " \t") || !strings.ContainsRune(c, '/') || strings.HasPrefix(c, "/") || strings.HasPrefix(c, "-") {
		return false
	}
	rel := strings.TrimSuffix(strings.TrimPrefix(c, "./"), "/")
	if base := path.Base(rel); strings.Contains(strings.TrimPrefix(base, "."), ".") {
		return false // `scripts/check.sh`, `tools/run.py`: a program's file
	}
	if !locative(before, after) {
		return false
	}
	return projectDir(rel)
}

// locative reports whether the words around a span say it is where
// something is or happens: a preposition or a list before it, a particle,
// a list or a place's noun after it.
func locative(before, after string) bool {
	b := strings.ToLower(strings.TrimRight(before, " *_(（"))
	for _, w := range []string{" in", " into", " under", " inside", " within", " across", " for", " from", " to", ",", "、", "，", " and", " or", "/", "+"} {
		if strings.HasSuffix(" "+b, w) {
			return true
		}
	}
	a := strings.ToLower(strings.TrimLeft(after, " *_"))
	for _, w := range []string{"に", "の", "内", "で", "と", "、", "，", ",", "/", " and ", "and ", " directory", "directory", "folder", "package", "dir "} {
		if strings.HasPrefix(a, strings.TrimLeft(w, " ")) {
			return true
		}
	}
	return false
}

// bareGitVerb reports whether a span names a git action with nothing to
// act on ("delete it with `git rm`", "`git push`"): the words' verb, not a
// command; run as written it fails or does what no check should.
func bareGitVerb(c string) bool {
	switch strings.Join(strings.Fields(c), " ") {
	case "git rm", "git add", "git mv", "git commit", "git push", "git pull", "git clone", "git stash", "git reset", "git checkout":
		return true
	}
	return false
}

// grepNoFile reports whether a grep names no file to search and does not
// recurse ("confirm with `grep -l \"data-slot\"`", the files in the
// words before it): as written it reads its standard input, so it is no
// check; the words name what a reader looks at.
func grepNoFile(c string) bool {
	f := strings.Fields(c)
	if len(f) < 2 || f[0] != "grep" && f[0] != "egrep" && f[0] != "fgrep" || strings.ContainsAny(c, "|<>;&$`") {
		return false
	}
	operands, pattern := 0, false
	for i := 1; i < len(f); i++ {
		a := f[i]
		switch {
		case a == "-r" || a == "-R" || a == "--recursive" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rR"):
			return false
		case a == "-e" || a == "-f" || a == "--regexp" || a == "--file":
			pattern = true
			i++
		case strings.HasPrefix(a, "-"):
		case !pattern:
			pattern = true
		default:
			operands++
		}
	}
	return operands == 0 && pattern
}

// testName reports whether a span is a test's name, said so by the word
// after it ("the renamed `config get url when unset returns error` test
// passes"): words of a sentence, not a command.
func testName(c, after string) bool {
	f := strings.Fields(strings.ToLower(after))
	if len(f) == 0 || len(strings.Fields(c)) < 3 {
		return false
	}
	switch strings.Trim(f[0], ".,;:") {
	case "test", "tests", "spec", "specs", "case":
		return !RunsTests(c)
	}
	return false
}

// listed reports whether the words between two commands only list them
// ("、", ",", "and", "then").
func listed(gap string) bool {
	switch strings.ToLower(strings.TrimSpace(gap)) {
	case "、", ",", "，", "and", ", and", "then", ", then", "und", "y", "e", "et", "и", "和", "及", "然后":
		return true
	}
	return false
}

// alternative reports whether the words between two commands offer the
// second in place of the first ("`gh pr checks --watch` or `gh pr
// checks`"): the first is the check, run as the task wrote it first.
func alternative(gap string) bool {
	switch strings.ToLower(strings.TrimSpace(gap)) {
	case "or", "/ or", "o", "ou", "oder", "или", "または", "或":
		return true
	}
	return false
}

// scriptName reports whether w may name a package script or a make
// target: `lint`, `format:check`, `test:e2e`, `type-check`.
func scriptName(w string) bool {
	if w == "" || !(w[0] >= 'a' && w[0] <= 'z' || w[0] >= 'A' && w[0] <= 'Z') {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == ':' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// followingText is the text after an inline node up to the next code span
// among its siblings, and that span (nil when there is none).
func followingText(n ast.Node, src []byte) (string, ast.Node) {
	var b strings.Builder
	for s := n.NextSibling(); s != nil; s = s.NextSibling() {
		if s.Kind() == ast.KindCodeSpan {
			return b.String(), s
		}
		if t, ok := s.(*ast.Text); ok {
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() {
				break // the words of the next line are another sentence's
			}
			continue
		}
		b.WriteString(plain(s, src))
	}
	return b.String(), nil
}

func plainOrEmpty(n ast.Node, src []byte) string {
	if n == nil {
		return ""
	}
	return strings.TrimSpace(plain(n, src))
}

// blockUnder are the commands of the fenced block, or of the list of
// backticked commands, right after a **Verify** line that names none.
func blockUnder(verify ast.Node, src []byte) []Command {
	return nested(verify, src, FromVerifyBlock)
}

// nested are the commands in the blocks that follow a labelled line in
// its container: the lines of a fenced code block (comments and blank
// lines aside), the backticked commands of a list.
func nested(label ast.Node, src []byte, from Source) []Command {
	var out []Command
	for n := label.NextSibling(); n != nil; n = n.NextSibling() {
		switch b := n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			out = append(out, blockCommands(b, src, from)...)
		case *ast.List:
			for li := b.FirstChild(); li != nil; li = li.NextSibling() {
				if item, ok := li.(*ast.ListItem); ok && !isTaskItem(item) && !(from == FromDoSteps && onFailure(plain(item, src))) {
					for _, c := range spans(item, src, from) {
						if !namedFile(c.Run) { // a list of files, not of commands
							out = append(out, c)
						}
					}
					// A step's own fenced block ("1. Run the grep:" and the
					// fence under it).
					for b := item.FirstChild(); b != nil; b = b.NextSibling() {
						if fb, ok := b.(*ast.FencedCodeBlock); ok {
							out = append(out, blockCommands(fb, src, from)...)
						}
					}
				}
			}
		default:
			return out
		}
	}
	return out
}

// blockCommands reads a code block: each line a command, comments and
// blank lines aside, when the lines stand alone; the whole block as one
// script when they do not (a line continued with \, an if/for/while, a
// variable set on one line and used on the next).
func blockCommands(b ast.Node, src []byte, from Source) []Command {
	if fb, ok := b.(*ast.FencedCodeBlock); ok && otherLanguage(fb, src) {
		return nil // ```sql, ```python, ```text: not lines for a shell
	}
	lines := b.Lines()
	var all, cmds []string
	script := false
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		raw := strings.TrimRight(string(seg.Value(src)), "\r\n")
		all = append(all, raw)
		l := strings.TrimSpace(raw)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		cmds = append(cmds, l)
		if continues(l) {
			script = true
		}
	}
	if len(cmds) == 0 {
		return nil
	}
	if !script {
		out := make([]Command, len(cmds))
		for i, c := range cmds {
			out[i] = Command{c, from}
		}
		return out
	}
	return []Command{{strings.TrimSpace(strings.Join(all, "\n")), from}}
}

// continues reports whether a line of a block leans on the lines around
// it: a shell construct or a bare assignment.
func continues(l string) bool {
	if strings.HasSuffix(l, "\\") || strings.HasSuffix(l, "{") || strings.HasSuffix(l, "(") || strings.HasSuffix(l, "|") || strings.HasSuffix(l, "&&") {
		return true
	}
	switch FirstWord(l + " x") {
	case "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "}", ")", "function":
		return true
	case "cd", "pushd", "export", "source":
		return true // the lines after it run where it leaves the shell, with what it set
	}
	w := strings.Fields(l)
	if i := strings.IndexByte(w[0], '='); len(w) == 1 && i > 0 {
		return true // X=$(…) alone: set for the lines after it
	}
	return false
}

// refersToSteps reports whether a Verify line that names no whole command
// points at the task's steps ("All commands exit 0", "both steps pass",
// "Both via the Do steps") or at their outcome ("No emhass-related test
// failures", "All 12 checks pass"), rather than at something a person
// looks at ("Confirm the calls appear together").
func refersToSteps(s string) bool {
	s = strings.ToLower(s)
	return containsAny(s, "command", "step", "above", "via", "pass", "fail", "green", "exit 0", "succeed", "success", "error", "checks", "assertion")
}

// qualitySection reads the commands of a "Quality Commands" section: its
// code spans that read as commands (a list, a table, lines of text) and
// its fenced blocks' lines, up to the next heading of its level or above.
func qualitySection(h *ast.Heading, src []byte) []Command {
	var out []Command
	for n := h.NextSibling(); n != nil; n = n.NextSibling() {
		if next, ok := n.(*ast.Heading); ok && next.Level <= h.Level {
			break
		}
		switch n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			out = append(out, blockCommands(n, src, FromQualityList)...)
		default:
			out = append(out, spans(n, src, FromQualityList)...)
		}
	}
	return out
}

// LookPath finds an executable on PATH; a variable for tests.
var LookPath = exec.LookPath

var looked sync.Map // name -> bool

func onPath(name string) bool {
	v, ok := looked.Load(name)
	if !ok {
		_, err := LookPath(name)
		v = err == nil
		looked.Store(name, v)
	}
	noteProbe(probeProgram, name, v.(bool))
	return v.(bool)
}

// ShellBuiltin reports whether sh runs a command line's first word itself
// (a builtin or a keyword): it is a command without being a program on
// PATH.
func ShellBuiltin(w string) bool {
	switch w {
	case "cd", "test", "[", "[[", "!", "export", ".", "source", "set", "unset", "if", "for", "while", "until", "case",
		"{", "(", "command", "exec", "exit", "echo", "printf", "true", "false", ":", "eval", "trap", "umask", "ulimit":
		return true
	}
	return false
}

// FirstWord is the program a command line starts: its first word after
// any VAR=value assignments, a value being a shell word (`d=$(mktemp -d)`,
// `X="a b"`); after a line of assignments alone (`d=$(mktemp -d); cd "$d"
// && make`), the program of the command that follows.
func FirstWord(c string) string {
	rest := strings.TrimLeft(c, " \t")
	for rest != "" {
		name, _, ok := strings.Cut(rest, "=")
		if !ok || !isName(name) {
			break
		}
		rest = strings.TrimLeft(rest[len(name)+1+wordLen(rest[len(name)+1:]):], " \t")
		for _, op := range []string{"&&", ";"} {
			if r, ok := strings.CutPrefix(rest, op); ok {
				rest = strings.TrimLeft(r, " \t")
			}
		}
	}
	if f := strings.Fields(rest); len(f) > 0 {
		// `unit-tests; echo done`: the word ends where its command does.
		if n := wordLen(f[0]); n > 0 {
			return f[0][:n]
		}
		return f[0]
	}
	return ""
}

// isName reports whether s is a shell variable's name.
func isName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// wordLen is the length of the shell word s starts with: up to a blank or
// an operator outside quotes and $( ), ` `, ${ }.
func wordLen(s string) int {
	depth, quote := 0, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
		case c == '\\':
			i++
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '(' || c == '{':
			depth++
		case c == ')' || c == '}':
			if depth > 0 {
				depth--
			}
		case depth == 0 && (c == ' ' || c == '\t' || c == ';' || c == '&' || c == '|'):
			return i
		}
	}
	return len(s)
}

// CommandLike reports whether a code span reads as a command line: its
// first word is a builtin, a program on PATH, a path, or (with arguments)
// a program's name. `requirements.md`, `VERIFICATION_PASS`, `{{test cmd}}`
// and `## Heading` are names and values, not commands.
func CommandLike(c string) bool {
	if u := unixLauncher(c); u != c {
		return CommandLike(u)
	}
	w := FirstWord(c)
	switch f := strings.Fields(c); {
	case w == "":
		return false
	case len(f) > 2 && (f[1] == "=" || f[1] == "==" || f[1] == "!=" || f[1] == "IS" || f[1] == "IN" || f[1] == "LIKE" || f[1] == "AND" || f[1] == "OR" || f[1] == "WHERE" || f[1] == "FROM"):
		// `branch_id = NULL`, `role IN ('admin')`: an expression of the
		// prose (or of SQL), not a program and its arguments.
		return false
	case strings.Contains(w, "{") && strings.Contains(w, ",") && strings.Contains(w, "}") && len(f) == 1:
		// `specs/010/{spec.md,plan.md}`: a list of files, said in the
		// shell's braces, not a program.
		return false
	case strings.HasPrefix(w, "/") && !rootExists(w):
		// `/api/public/playlists`: a URL's path, not a program.
		return false
	case strings.Contains(w, "://"):
		// `http://localhost:8420`: an address, opened, never run.
		return false
	case w[0] == '@':
		// An npm scope (`@tanstack/react-query`, `@std/k8s`): a package's
		// name, never a program's.
		return false
	case ShellBuiltin(w):
		return true
	case slashCommand(w):
		return false
	case strings.ContainsRune(w, '/'):
		// A directory named alone (`.cache/`) is a path in prose, not a
		// program; nor is a label of numbers (`13/u`, a migration's
		// version and direction; `2024/05`).
		first, _, _ := strings.Cut(w, "/")
		return !documentExt(w) && !(strings.HasSuffix(w, "/") && len(strings.Fields(c)) == 1) && !allDigits(first)
	case len(f) > 1 && programName(w):
		// A program's name with arguments: no need to look on PATH
		// (a stat of each directory, the largest cost of a small parse).
		return true
	}
	return onPath(w)
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// rootExists reports whether an absolute path's first directory exists
// here (`/usr/bin/env`, `/opt/tools/x`), which a URL's path (`/api/...`)
// does not.
func rootExists(p string) bool {
	first, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
	if first == "" {
		return false
	}
	ok := statRoot(first)
	noteProbe(probeRoot, first, ok)
	return ok
}

func statRoot(first string) bool {
	_, err := os.Stat("/" + first)
	return err == nil
}

// slashCommand reports whether a word is a Claude Code slash command
// (`/ralph-loop`, `/ralph-specum:new`): a / and a name, no directory. A
// program is run by its path (`/usr/bin/env`, `./check.sh`), never from /.
func slashCommand(w string) bool {
	return len(w) > 1 && w[0] == '/' && !strings.ContainsRune(w[1:], '/') && (w[1] >= 'a' && w[1] <= 'z' || w[1] >= 'A' && w[1] <= 'Z')
}

// namedFile reports whether a title's code span only names a file
// (`watchers/gmail_watcher.py`, `src/App.test.js`): one word, a path with
// an extension, not run as a program (`./run.py`) and not a shell script.
// "Verify `watchers/gmail_watcher.py` produces …" is about the file.
func namedFile(c string) bool {
	if len(strings.Fields(c)) != 1 || !strings.ContainsRune(c, '/') || strings.HasPrefix(c, "./") || strings.HasPrefix(c, "/") {
		return false
	}
	base := c[strings.LastIndexByte(c, '/')+1:]
	i := strings.LastIndexByte(base, '.')
	if i <= 0 {
		return false
	}
	switch base[i+1:] {
	case "sh", "bash":
		return false
	}
	return true
}

// programName is the shape of a program's name: lower case letters,
// digits, - _ +, and a version after a dot (python3.12); a dot followed by
// letters is a file name.
func programName(w string) bool {
	if w == "" || !(w[0] >= 'a' && w[0] <= 'z') {
		return false
	}
	name, version, dotted := strings.Cut(w, ".")
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '+') {
			return false
		}
	}
	if dotted {
		for _, r := range version {
			if !(r >= '0' && r <= '9' || r == '.') {
				return false
			}
		}
	}
	return true
}

// documentExt reports whether a path names a document, not a program.
func documentExt(p string) bool {
	i := strings.LastIndexByte(p, '.')
	if i < 0 || strings.ContainsRune(p[i:], '/') {
		return false
	}
	switch strings.ToLower(p[i+1:]) {
	case "md", "txt", "json", "yaml", "yml", "toml", "lock", "csv", "html", "css", "png", "svg", "ts", "tsx", "jsx", "go", "rs", "java", "kt", "swift", "c", "h", "cpp":
		return true
	}
	return false
}

// CommandLine reports whether a title's text after its colon reads as a
// command line and not as prose: each part between && || ; | (outside
// quotes) starts with a program on PATH, a path or cd, and every word is
// a shell word, not a parenthesis, a lone + or a placeholder. A program
// that exits 0 whatever follows it counts only as a check would use it
// (`test -f x`, a bare `true`). "pnpm lint && pnpm test" is a command
// line; "full test suite", "test results" and "ruff lint + format (Python
// files only)" are prose.
func CommandLine(s string) bool {
	parts, ok := splitOperators(s)
	if !ok {
		return false
	}
	for _, p := range parts {
		w := strings.Fields(p)
		prog := FirstWord(p)
		if prog == "" {
			return false
		}
		args := w[len(w)-1:]
		for i, x := range w {
			if x == prog {
				args = w[i+1:]
				break
			}
		}
		switch prog {
		case "test", "[":
			if len(args) == 0 || !(strings.HasPrefix(args[0], "-") || args[0] == "!") {
				return false
			}
		case "true", "false", ":":
			if len(args) > 0 {
				return false
			}
		case "echo", "printf", "yes", "sleep", "exit":
			return false
		case "grep", "egrep", "rg", "ag":
			// "grep confirms all bugs fixed" is prose: a search names a
			// flag, a quoted pattern, a path or a file.
			real := false
			for _, a := range args {
				real = real || strings.ContainsAny(a, "-./'\"*0123456789")
			}
			if !real {
				return false
			}
		case "cd":
		default:
			if !(strings.HasPrefix(prog, "./") || strings.HasPrefix(prog, "/") || onPath(prog)) {
				return false
			}
		}
		for _, x := range w {
			if !hasLetterOrDigit(x) && !strings.ContainsAny(x, "/.[]!") || strings.ContainsAny(x, "(){}<>,") {
				return false
			}
		}
	}
	return true
}

// splitOperators splits a command line at && || ; | outside quotes; ok is
// false for an unclosed quote or an empty part.
func splitOperators(s string) (parts []string, ok bool) {
	parts, ok = split(s, false)
	for _, p := range parts {
		if strings.TrimSpace(p) == "" {
			return nil, false
		}
	}
	return parts, ok
}

// split splits a command line outside quotes at && || ; | or, with
// pipesOnly, at single | only; ok is false for an unclosed quote. A
// backslash escapes the next character, as the shell reads it, except in
// single quotes.
func split(s string, pipesOnly bool) (parts []string, ok bool) {
	var b strings.Builder
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		double := i+1 < len(s) && s[i+1] == c
		switch {
		case c == '\\' && quote != '\'' && i+1 < len(s):
			// An escaped character, outside quotes or in double ones
			// ("from ['\"]"): no quote or operator of the line.
			b.WriteByte(c)
			i++
			c = s[i]
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case pipesOnly && c == '|' && double:
			b.WriteString("||")
			i++
			continue
		case pipesOnly && c == '|', !pipesOnly && (c == ';' || c == '|' || c == '&' && double):
			if !pipesOnly && double {
				i++
			}
			parts = append(parts, b.String())
			b.Reset()
			continue
		}
		b.WriteByte(c)
	}
	return append(parts, b.String()), quote == 0
}

// unixLauncher is a command written on Windows, as it runs here: a
// program named by its Windows path or launcher
// (`C:\tools\maven\bin\mvn.cmd -pl core package`, `npm.cmd test`) is
// the program by its name (`mvn -pl core package`, `npm test`). Any
// other command is returned as it is.
func unixLauncher(c string) string {
	if d, rest, ok := strings.Cut(c, " && "); ok && strings.HasPrefix(d, "cd ") && len(strings.Fields(d)) == 2 {
		// `cd frontend && npm.cmd test`: the program after the cd.
		if u := unixLauncher(rest); u != rest {
			return d + " && " + u
		}
		return c
	}
	first, rest, _ := strings.Cut(strings.TrimSpace(c), " ")
	name := first
	if len(name) > 3 && name[1] == ':' && (name[2] == '\\' || name[2] == '/') && unicode.IsLetter(rune(name[0])) {
		name = name[strings.LastIndexAny(name, "\\/")+1:]
	} else if strings.ContainsAny(name, "\\/") {
		return c
	}
	lower := strings.ToLower(name)
	for _, ext := range []string{".cmd", ".bat", ".exe", ".ps1"} {
		if strings.HasSuffix(lower, ext) && len(name) > len(ext) {
			name = name[:len(name)-len(ext)]
			break
		}
	}
	if name == first || name == "" || !programName(name) {
		return c
	}
	return strings.TrimSpace(name + " " + rest)
}
