// Package tasks reads a task file: the `tasks.md` of spec-driven workflows
// (ralph-specum, spec-kit, Kiro, cc-sdd, OpenSpec, hand-written plans), a
// Markdown list of checkbox tasks, some of them verification tasks.
//
// It parses with goldmark and a task-list checkbox parser of its own, never
// with line patterns: a checkbox inside a code block is text, and a task is
// exactly what a Markdown renderer would show with a box. What a
// verification task runs is read as a careful person would read it (see
// Command and the sources in order), and prose is never taken for a
// command: docs/verify-formats.md lists the shapes found in real files.
package tasks

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/rodin-gate/rodin/internal/lazy"
)

// MaxSize is the largest task file rodin reads; a larger one is refused
// (the gate denies ticking a box in it, with that reason).
const MaxSize = 4 << 20

// MaxRead is the largest task file the stop and the Bash check read: a
// file made larger than MaxSize behind the edit gate's back (a comment
// appended through Bash) is still read and judged, never skipped; past
// MaxRead it is unverified.
const MaxRead = 64 << 20

// Source says where a verification task's command was read, for messages:
// a person seeing "from the title" next to a wrong command sees the
// misreading at once.
type Source string

// The sources, in the order they are tried: the first that names a
// command wins.
const (
	FromVerifyLine  Source = "Verify line"          // `**Verify**: \`cmd\``
	FromVerifyBlock Source = "Verify block"         // a fence or a list of commands under **Verify**
	FromDoneWhen    Source = "Done when line"       // `**Done when**: \`cmd\` exits 0`, with no Verify line
	FromCommandLine Source = "Command line"         // `- Command: \`cmd\``, where nothing else names the check
	FromTitleCode   Source = "title"                // backticked commands in the title
	FromTitleText   Source = "title text"           // the title after its colon, when it reads as a command line
	FromRunStep     Source = "run step"             // a plain bullet under the task that says to run it: "Run `cmd` and ensure …" (Kiro)
	FromDoSteps     Source = "Do steps"             // the Verify line refers to the steps: their commands
	FromTaskBlock   Source = "shell block"          // a fenced shell block in a task with no Verify line
	FromQualityList Source = "Quality Commands"     // the task file's `## Quality Commands` section
	FromChecks      Source = "the project's checks" // rodin checks: package.json, Makefile, go.mod, …
)

// Command is one shell command line a verification task runs, as written.
type Command struct {
	Run    string `json:"run"`
	Source Source `json:"source"`
}

// Task is one checkbox list item.
type Task struct {
	ID string // the first word after the box, without a trailing dot: V4, 1.3, T001
	// Ref names the task within its file: its ID, or ID#N for the N-th
	// task of an ID that repeats (real files repeat ids).
	Ref        string
	Title      string // the rest of the item's first line, as written
	Checked    bool
	InProgress bool // Kiro's [-]: started, not done
	Optional   bool // Kiro's [ ]*
	Line       int  // 1-based line of the box
	// Verify is set when the task carries the [VERIFY] tag (or a variant,
	// [VERIFY:KIND]) among its leading tags.
	Verify bool
	Kind   string // the variant's KIND, "" for [VERIFY]
	// Inspect is set for a task that asks for what is read in its
	// commands' output (inspects): AC is set too, a qa-engineer judges it.
	Inspect bool
	// Section is the headings the task stands under ("Phase 2", then
	// "Checkpoint"): what tells apart tasks that read the same (a quality
	// checkpoint per phase).
	Section string
	// Commands are what a verification task runs, in order, each with the
	// place it was read from. Empty means "the file's quality commands, or
	// the project's" (or, for an AC task, only a qa-engineer run).
	Commands []Command
	// AC is set for a verification task that checks acceptance criteria
	// (the AC checklist): it needs a qa-engineer run.
	AC bool
	// Manual is set for a verification task that a person checks (an id
	// or tag that says manual, "operator-verified", "verify manually"):
	// with no command of its own it needs a person, never the project's
	// quality commands.
	Manual bool
	// Prose is the title's text after its colon when it was not read as a
	// command (so messages can say why it was not run).
	Prose string
	// Servers are commands the task names that start a server and never
	// end (`pnpm dev`, "`./api` serves …"): taken out of its check, what
	// they serve read by a qa-engineer; said in every message about it.
	Servers []string
	// Text is the item's whole source, for matching a qa-engineer prompt.
	Text string

	// Where the box's mark and Text are in the parsed source (after a
	// byte-order mark), for Reflip and the reading kept between hooks.
	mark, start, stop int
	// described: AC for a behaviour in words (aboutChecks), not for its
	// tag or title: a person's section or legend takes it (parseFile).
	described bool
}

// Key identifies a task within its file across edits: its Ref.
func (t Task) Key() string { return t.Ref }

// Boxed reports whether the task has a box of its own to tick (a tagged
// heading with none has not).
func (t Task) Boxed() bool { return t.mark >= 0 }

// Runs are the task's command lines.
func (t Task) Runs() []string {
	out := make([]string, len(t.Commands))
	for i, c := range t.Commands {
		out[i] = c.Run
	}
	return out
}

// Name is how messages name the task: "V4 [VERIFY] Full local CI".
func (t Task) Name() string {
	id := t.Ref
	s := strings.TrimSpace(id + " " + t.Title)
	i := colonOutsideCode(s)
	if f := strings.Fields(t.Title); i > 0 && len(f) > 0 && isStepNumber(f[0]) && i == len(id)+len(f[0]) {
		// "Step#2 2: [VERIFY] the export: `cmd`": the step's number is
		// not the name's end, the colon after it is.
		if j := colonOutsideCode(s[i+1:]); j >= 0 {
			i += 1 + j
		} else {
			i = -1
		}
	}
	if i > 0 && t.Verify {
		if j := strings.Index(s, "[VERIFY"); j < 0 || i > j+7 || !strings.HasPrefix(s[j:], "[VERIFY:") {
			s = s[:i]
		}
	}
	return s
}

// colonOutsideCode is the index of the first colon of s outside
// backticks (`:LofiCancel` is an editor's command, not a label's end) and
// brackets, -1 when there is none.
func colonOutsideCode(s string) int {
	inCode, brackets := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '`':
			inCode = !inCode
		case '[', '(':
			if !inCode {
				brackets++
			}
		case ']', ')':
			if !inCode && brackets > 0 {
				brackets--
			}
		case ':':
			// A colon in a tag, a bracketed note ("[VM: … ]") or an
			// aside ("Full suite (slow: 8 minutes)") ends no name either.
			if !inCode && brackets == 0 {
				return i
			}
		}
	}
	return -1
}

// File is a parsed task file.
type File struct {
	Tasks []Task
	// Quality are the commands of the file's "Quality Commands" section,
	// the file's own answer to "what checks this project".
	Quality []Command
	// Boxless are the verification tasks written as headings with no box
	// to tick, in the heading nor in its section (`### V1 [VERIFY] Quality
	// checkpoint` in a plan of headings): nothing of them is gated, and
	// `rodin tasks` says so rather than leave the author to believe it is.
	// A fresh parse's only: the reading kept between hooks does not carry
	// it (no hook reads it).
	Boxless []Task

	probes []probe // what the parse asked the machine (probe.go)
}

// md is built on first use, not at package init: the hooks that link this
// package mostly never parse a task file.
var mdParser lazy.Value[parser.Parser]

func md() parser.Parser {
	return mdParser.Get(func() parser.Parser {
		return parser.NewParser(
			parser.WithBlockParsers(parser.DefaultBlockParsers()...),
			parser.WithInlineParsers(append(parser.DefaultInlineParsers(), util.Prioritized(checkboxParser{}, 0))...),
			parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
		)
	})
}

// Parse returns the tasks of a task file in document order.
func Parse(src []byte) []Task { return ParseFile(src).Tasks }

// ParseFile reads a task file: its tasks and its quality commands.
func ParseFile(src []byte) File {
	parseMu.Lock()
	defer parseMu.Unlock()
	l := &probeLog{}
	probing.Store(l)
	defer probing.Store(nil)
	f := parseFile(src)
	f.probes = l.ps
	for i := range f.Tasks {
		// The parse's own (a heading's section reads it from the heading's
		// parse): a reading kept is the same.
		f.Tasks[i].described = false
	}
	return f
}

func parseFile(src []byte) File {
	var f File
	if len(src) > MaxRead {
		return f
	}
	legend := false // the file says its [VERIFY] tasks are a person's checks
	// The sections the walk is in, by heading level: whether each heading
	// says its tasks are a person's ("## Manual Verification Tasks",
	// "## Human checkpoints").
	var personal [7]bool
	var headings [7]string
	section := ""    // the headings the walk is under, outermost first
	var head *tagged // the verification task a heading holds, whose section the walk is in
	// bare is the tagged heading whose section the walk is in, until a
	// box is found in the heading or its section: then it is no Boxless.
	var bare *Task
	endSection := func() {
		if bare != nil {
			f.Boxless = append(f.Boxless, *bare)
			bare = nil
		}
	}
	// A byte-order mark (some editors write one) is no text of the first
	// line: a file starting with a task still starts with a list.
	src = LineEnds(bytesTrimBOM(src))
	root := md().Parse(text.NewReader(src))
	lines := lineStarts(src)
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			heading := strings.TrimSpace(plain(n, src))
			if strings.EqualFold(heading, "Quality Commands") {
				// A dev server listed there never ends: no check (attack 73).
				qs, _ := withoutServers(qualitySection(n, src))
				f.Quality = append(f.Quality, qs...)
			}
			if l := min(max(n.Level, 1), 6); n.Parent() == root {
				personal[l] = personHeading(heading)
				clear(personal[l+1:])
				headings[l] = heading
				clear(headings[l+1:])
				section = strings.Join(headings[1:l+1], "\x00") // the path: "Phase 2", "Checkpoint"
				head = nil                                      // a tagged heading's section ends at the next heading
				endSection()
				head = headingTask(n, src, lines)
				switch {
				case head != nil && head.box != nil:
					f.Tasks = append(f.Tasks, *head.box)
				case head != nil:
					t := head.task
					bare = &t
				default:
					bare = trailingTag(heading)
				}
				if bare != nil {
					if w := strings.Fields(bare.Title); len(w) > 1 && isStepNumber(w[0]) {
						// `### Task 4.5: [VERIFY] …`: task 4.5, as its boxes would be.
						bare.ID, bare.Title = strings.TrimSuffix(w[0], ":"), strings.TrimSpace(strings.TrimPrefix(bare.Title, w[0]))
					}
					bare.Line, bare.mark, bare.Section, bare.Ref = lineOf(lines, n.Lines().At(0).Start), -1, section, bare.ID
				}
			}
		case *ast.ListItem:
			if t, ok := readTask(n, src, lines, head); ok {
				t.Section = section
				bare = nil // the section has a box
				if t.Verify && t.Kind == "" && !t.Manual && len(t.Commands) == 0 && needsPerson(strings.ToLower(strings.Join(headings[:], " "))) &&
					!aboutChecks(strings.ToLower(t.Title)) {
					// What the section's heading names the agent cannot
					// hold ("Claude Desktop Integration"): its tasks that
					// name no command are a person's looks at it.
					t.Manual, t.AC, t.Inspect = true, false, false
				}
				if t.Verify && t.Kind == "" && (!t.AC || t.Inspect || t.described) && slices.Contains(personal[:], true) && !automated(t) {
					// A person's check by its section: what they inspect is
					// theirs, not a qa-engineer's, and a command it names is
					// what they run to look ("## Human checkpoints").
					t.Manual, t.AC, t.Inspect, t.Commands = true, false, false, nil
				}
				f.Tasks = append(f.Tasks, t)
			} else if !legend && !isTaskItem(n) {
				legend = manualLegend(plain(n, src))
			}
		case *ast.Paragraph:
			if !legend {
				legend = manualLegend(plain(n, src))
			}
		}
		return ast.WalkContinue, nil
	})
	endSection()
	if legend {
		// The file's legend says a [VERIFY] task is a person's check
		// ("[VERIFY] = ручная проверка (без автотестов)"): one that names
		// no command of its own is, whatever its words.
		for i := range f.Tasks {
			if t := &f.Tasks[i]; t.Verify && t.Kind == "" && len(t.Commands) == 0 && (!t.AC || t.described) {
				t.Manual, t.AC = true, false
			}
		}
	}
	samePerson(f.Tasks)
	ownersMark(f.Tasks)
	namedLinters(f.Tasks)
	refs(f.Tasks)
	return f
}

// linters are the tools a task names beside its command as clean or
// passing ("`pytest …` → all pass; mypy+ruff clean").
var linters = []string{"mypy", "ruff", "eslint", "tsc", "prettier", "black", "flake8", "pylint", "clippy", "golangci-lint", "biome", "stylelint", "pyright", "rubocop", "shellcheck"}

// namedLinters adds to a verification task the file's own commands of a
// linter its words name beside its commands as clean ("`uv run pytest
// tests/x.py` → 8/8 pass; mypy+ruff clean", where another task of the
// file runs `mypy src tests` and `ruff check .`): the author's shorthand
// for those commands. A linter the file runs nowhere is left to the words.
func namedLinters(ts []Task) {
	runs := map[string][]Command{}
	for _, t := range ts {
		for _, c := range t.Commands {
			if tool := toolOf(c.Run); tool != "" && !slices.ContainsFunc(runs[tool], func(k Command) bool { return k.Run == c.Run }) {
				runs[tool] = append(runs[tool], c)
			}
		}
	}
	if len(runs) == 0 {
		return
	}
	for i := range ts {
		t := &ts[i]
		if !t.Verify || t.Manual || len(t.Commands) == 0 || t.Commands[0].Source != FromTitleCode {
			continue
		}
		words := strings.FieldsFunc(strings.ToLower(outsideCode(t.Title)), func(r rune) bool { return !unicode.IsLetter(r) && r != '-' })
		for k, w := range words {
			if !slices.Contains(linters, w) || len(runs[w]) == 0 || slices.ContainsFunc(t.Commands, func(c Command) bool { return toolOf(c.Run) == w }) {
				continue
			}
			// "mypy+ruff clean", "ruff passes": the words after the run of
			// tool names say it is clean.
			j := k + 1
			for j < len(words) && slices.Contains(linters, words[j]) {
				j++
			}
			if j < len(words) && (words[j] == "clean" || words[j] == "passes" || words[j] == "pass" || words[j] == "green") {
				for _, c := range runs[w] {
					t.Commands = append(t.Commands, Command{c.Run, FromTitleCode})
				}
			}
		}
	}
}

// toolOf is the linter a command runs, "" for none: its program, or the
// program after a runner (`uv run mypy src`, `npx eslint .`).
func toolOf(c string) string {
	f := strings.Fields(c)
	for len(f) > 1 {
		switch {
		case f[0] == "uv" || f[0] == "poetry" || f[0] == "pdm" || f[0] == "hatch" || f[0] == "pipenv" || f[0] == "rye":
			if f[1] != "run" {
				return ""
			}
			f = f[2:]
			continue
		case f[0] == "npx" || f[0] == "bunx" || f[0] == "pnpx":
			f = f[1:]
			continue
		case (f[0] == "pnpm" || f[0] == "yarn" || f[0] == "npm") && f[1] == "exec":
			f = f[2:]
			continue
		case f[0] == "cargo" && f[1] == "clippy":
			return "clippy"
		}
		break
	}
	if len(f) > 0 && slices.Contains(linters, f[0]) {
		return f[0]
	}
	return ""
}

// ownersMark makes the verification tasks a file marks as its owner's a
// person's: the file says what a mark means by a task that pairs it with
// the word ("- [x] 0.1 ⛔ **OWNER** Approve the proposal"), and the tasks
// it then marks ("- [ ] ⛔ 9.5 [verify] … needs Ollama + Docker") are the
// owner's to check, whatever commands they name.
func ownersMark(ts []Task) {
	var marks []string
	for _, t := range ts {
		w := strings.Fields(t.Title)
		for i := 0; i+1 < len(w) && i < 3; i++ {
			switch strings.ToUpper(strings.Trim(w[i+1], "*_:")) {
			case "OWNER", "OPERATOR", "HUMAN", "PERSON", "MAINTAINER":
				if isMark(w[i]) && !slices.Contains(marks, w[i]) {
					marks = append(marks, w[i])
				}
			}
		}
	}
	if len(marks) == 0 {
		return
	}
	for i := range ts {
		t := &ts[i]
		if !t.Verify || t.Manual {
			continue
		}
		w := strings.Fields(t.Title)
		for _, x := range w[:min(3, len(w))] {
			if slices.Contains(marks, x) {
				t.Manual, t.AC, t.Inspect, t.Commands = true, false, false, nil
				break
			}
		}
	}
}

// automated reports whether a task's own commands are the project's checks
// (tests, lint, a type check, a build): in a person's section or manual
// test plan, a box that runs `npm test` is the suite's, not a person's look
// (honest day 63). A command a person runs to look (a dev server) is not.
func automated(t Task) bool {
	if len(t.Commands) == 0 || t.Commands[0].Source != FromVerifyLine && t.Commands[0].Source != FromTitleCode && t.Commands[0].Source != FromVerifyBlock && t.Commands[0].Source != FromCommandLine {
		return false
	}
	// "Run `make check` and look at the page": the run is what a person
	// does before their look.
	for _, w := range strings.Fields(strings.ToLower(outsideCode(t.Text))) {
		switch strings.Trim(w, ".,;:!?()*_") {
		case "look", "looks", "see", "watch", "open", "click", "observe", "inspect", "visually", "page", "screen", "browser", "device", "phone":
			return false
		}
	}
	for _, c := range t.Commands {
		if !projectCheck(c.Run) {
			return false
		}
	}
	return true
}

// projectCheck reports whether a command is one of the project's checks:
// its tests, lint, a type check, a build.
func projectCheck(c string) bool {
	l := strings.ToLower(c)
	if strings.HasPrefix(l, "time ") {
		return false // a timing to read ("10–15 ms faster"), not a check's exit
	}
	return RunsTests(c) || strings.Contains(l, "lint") || strings.Contains(l, "typecheck") || strings.Contains(l, "type-check") ||
		strings.Contains(l, "tsc") || strings.Contains(l, "vet") || strings.Contains(l, " build") || strings.Contains(l, "clippy")
}

// samePerson makes a verification task that names no command and repeats
// a person's task ("Repeat T031's setup with the flag off") a person's
// too: what it repeats needs the same hands (corpus thirteen).
func samePerson(ts []Task) {
	var ids []string
	for _, t := range ts {
		if t.Verify && t.Manual && t.ID != "" {
			ids = append(ids, strings.ToLower(t.ID))
		}
	}
	if len(ids) == 0 {
		return
	}
	for i := range ts {
		t := &ts[i]
		if !t.Verify || t.Manual || len(t.Commands) > 0 || t.Kind != "" {
			continue
		}
		l := strings.Join(strings.Fields(strings.ToLower(t.Text)), " ")
		for _, id := range ids {
			if id != strings.ToLower(t.ID) && (strings.Contains(l, "repeat "+id) || strings.Contains(l, id+"'s ") || strings.Contains(l, id+"’s ")) {
				t.Manual, t.AC, t.Inspect = true, false, false
				break
			}
		}
	}
}

// tagged is a verification task written as a heading (`### Task 1.6:
// [VERIFY] Quality checkpoint`), its check in the section under it (a
// **Verify** line or block, **Do** steps) and its boxes there too (a
// **Done when** list of `- [ ] lint passes`): each such box is a box of
// that verification task. Read as ordinary tasks, they were ticked
// ungated.
type tagged struct {
	task Task // the heading read as a task's first line, its section as the task's body
	// box is the heading as a task of its own when it ends in a box of
	// its own (`### Task 1.3: [VERIFY] Quality checkpoint [x]`: some
	// authors tick the heading, with no list box under it).
	box *Task
}

// headingTask is the verification task a top-level heading holds, nil when
// it holds none: the heading's text and the section under it (down to
// the next heading) are read as one task item.
func headingTask(h *ast.Heading, src []byte, lines []int) *tagged {
	if h.Lines().Len() == 0 {
		return nil
	}
	line := h.Lines().At(0)
	text := strings.TrimSpace(string(src[line.Start:line.Stop]))
	if !strings.Contains(strings.ToUpper(text), "VERIFY") {
		return nil // the cheap look first: most headings hold no tag
	}
	// A box at the heading's end is the heading's own, no word of its
	// title: ticking it changes no word the task is known by.
	mark := -1
	if i := headingBox(text); i >= 0 {
		raw := string(src[line.Start:line.Stop])
		lead := len(raw) - len(strings.TrimLeft(raw, " \t"))
		mark = line.Start + lead + i + 1
		text = strings.TrimRightFunc(text[:i], func(r rune) bool {
			return unicode.IsSpace(r) || isFormat(r) || r == '*' || r == '_' || r == '`' || r == ':'
		})
	}
	start := h.Lines().At(h.Lines().Len() - 1).Stop
	if i := bytes.IndexByte(src[start:], '\n'); i >= 0 {
		start += i + 1
	} else {
		start = len(src)
	}
	stop := len(src)
	for sib := h.NextSibling(); sib != nil; sib = sib.NextSibling() {
		// The section ends at the next heading, of any level: a tagged
		// phase's sub-headings (`### Task 4.1`) are tasks of their own.
		if next, ok := sib.(*ast.Heading); ok && next.Lines().Len() > 0 {
			stop = next.Lines().At(0).Start
			for stop > start && src[stop-1] != '\n' {
				stop--
			}
			break
		}
	}
	var item strings.Builder
	item.WriteString("- [ ] " + text + "\n")
	for _, l := range strings.SplitAfter(string(src[start:max(start, stop)]), "\n") {
		if strings.TrimSpace(l) != "" {
			item.WriteString("  ")
		}
		item.WriteString(l)
	}
	ts := parseFile([]byte(item.String())).Tasks
	if len(ts) == 0 || !ts[0].Verify {
		return nil
	}
	g := &tagged{task: ts[0]}
	if mark >= 0 {
		b := ts[0]
		b.Checked, b.InProgress = src[mark] == 'x' || src[mark] == 'X', src[mark] == '-'
		b.Line = lineOf(lines, line.Start)
		b.start, b.stop, b.mark = lines[b.Line-1], max(start, stop), mark
		b.Text = string(src[b.start:b.stop])
		if f := strings.Fields(b.Title); len(f) > 1 && isStepNumber(f[0]) {
			// `### Task 1.3: [VERIFY] …`: task 1.3, as its boxes would be.
			b.ID, b.Title = strings.TrimSuffix(f[0], ":"), strings.TrimSpace(strings.TrimPrefix(b.Title, f[0]))
		}
		g.box = &b
	}
	return g
}

// trailingTag is the verification task a heading names by a tag at its
// end ("### 0.1: Verify existing test data — 2 units [VERIFY]", where the
// plan's headings end in their kind: [BUILD], [L3]), nil when its last word
// is no [VERIFY] tag. Such a heading is only ever listed as Boxless: its
// boxes, if its section has any, are ordinary tasks (VERIFY-SPEC §1 reads
// the tag among the leading ones).
func trailingTag(heading string) *Task {
	f := strings.Fields(heading)
	if len(f) < 2 {
		return nil
	}
	last := tagsOf(f[len(f)-1])
	if len(last) == 0 || !slices.ContainsFunc(last, func(t string) bool { return strings.EqualFold(t, "[VERIFY]") }) {
		return nil
	}
	ts := parseFile([]byte("- [ ] [VERIFY] " + strings.Join(f[:len(f)-1], " ") + "\n")).Tasks
	if len(ts) == 0 || !ts[0].Verify {
		return nil
	}
	return &ts[0]
}

// headingBox is where the box a heading holds as its own starts in its
// text, -1 when it holds none: its last `[ ]`, `[x]`, `[X]` or `[-]`,
// whatever stands beside it (a comment, a mark, "— done", a date, bold,
// a no-break or zero-width space): a heading ticked so still reads as
// ticked (attacks 62 and 63: the task dropped out of the parse, its tick
// ungated). The words before it are the title.
func headingBox(text string) int {
	for i := len(text) - 3; i > 0; i-- {
		if text[i] == '[' && text[i+2] == ']' && isBoxMark(text[i+1]) && (i == 0 || text[i-1] != '[') && (i+3 >= len(text) || text[i+3] != ']' && text[i+3] != '(') {
			return i
		}
	}
	return -1
}

// adopt makes t, a box in the heading's section read as a verification
// task, a box of the heading's: its id, its own words after the heading's
// title (messages tell the boxes apart), and the heading's check unless
// the box names a command of its own (`- [ ] Build the app: \`make app\“)
// or is a person's.
func (h *tagged) adopt(t *Task) {
	v := h.task
	own := strings.TrimSpace(t.ID + " " + t.Title)
	t.ID = v.ID
	t.Title = v.Title + " — " + own
	if f := strings.Fields(v.Title); len(f) > 0 && isStepNumber(f[0]) {
		// `### Task 1.6: [VERIFY] …`: the boxes are 1.6's (`rodin verify
		// 1.6`), not the label word's, whose count shifts as sections
		// are added.
		t.ID = strings.TrimSuffix(f[0], ":")
		t.Title = strings.TrimSpace(strings.TrimPrefix(v.Title, f[0])) + " — " + own
	}
	if t.Manual {
		return
	}
	if len(t.Commands) == 0 {
		t.Commands, t.Prose = append([]Command(nil), v.Commands...), v.Prose
		t.AC, t.Inspect, t.Manual, t.described = t.AC || v.AC, t.Inspect || v.Inspect, v.Manual, t.described || v.described
	}
	// A bound the box's own words or the heading's Verify and Done when
	// lines set on what the commands print ("Coverage > 85%", "top file
	// <500 lines", "0 errors, 0 warnings" of a build cut by `| tail`): its
	// exit says nothing of it, a qa-engineer reads it.
	if len(t.Commands) > 0 && !t.Manual && (namesBound(t.Text) || namesBound(v.Text) || noWarnings(labelProse(v.Text, "verify", "verification", "done when")) && !slices.ContainsFunc(t.Commands, func(c Command) bool { return failsOnWarnings(c.Run) })) {
		t.AC, t.Inspect = true, true
	}
}

// staticOnly reports whether a task's commands only read the code (a type
// check, lint, format): none runs a test or the product.
func staticOnly(cs []Command) bool {
	for _, c := range cs {
		l := strings.ToLower(c.Run)
		if RunsTests(c.Run) || strings.Contains(l, "build") || strings.Contains(l, "test") {
			return false
		}
		static := false
		for _, part := range strings.Split(l, "&&") {
			f := strings.Fields(part)
			if len(f) == 0 {
				continue
			}
			if f[0] == "cd" {
				continue
			}
			static = containsAny(part, "tsc", "lint", "typecheck", "type-check", "format", "prettier", "ruff", "mypy", "clippy", "fmt", " check", "vet")
			if !static {
				return false
			}
		}
		if !static {
			return false
		}
	}
	return len(cs) > 0
}

// namesBehaviour reports whether a task's Do and Done when lines name a
// behaviour of the running product ("test edit flow end-to-end", "Can edit
// recipe, save creates new version", "All tabs render correctly"): a type
// check passes whatever it does (corpus fifteen).
func namesBehaviour(prose string) bool {
	for _, l := range strings.Split(prose, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "can ") || strings.HasPrefix(l, "user can ") || strings.HasPrefix(l, "users can ") {
			return true
		}
		ws := strings.FieldsFunc(l, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' })
		for _, w := range ws {
			switch w {
			case "end-to-end", "e2e", "flow", "flows", "render", "renders", "works", "work":
				return true
			}
		}
	}
	return false
}

// arrowOutcome reports whether a title's command is followed by an arrow
// and an outcome its exit does not say ("`systemctl stop poller` → clean
// shutdown", "`curl …/health` → 200 and the version"): what happened is
// read. An arrow to a pass ("→ all pass", "→ exit 0", "→ green") is the
// exit's.
func arrowOutcome(t title, cs []Command) bool {
	if len(cs) == 0 {
		return false
	}
	for i, c := range t.code {
		if !slices.ContainsFunc(cs, func(k Command) bool { return strings.Contains(k.Run, c) }) {
			continue
		}
		after, _ := t.after(i)
		a := strings.TrimSpace(after)
		rest, ok := strings.CutPrefix(a, "→")
		if !ok {
			rest, ok = strings.CutPrefix(a, "->")
		}
		if !ok {
			// "`flutter build apk` — zero JNI references; APK 224MB":
			// a dash then what is seen, several things of it.
			if r, dash := strings.CutPrefix(a, "—"); dash && strings.Count(r, ";") >= 1 {
				rest, ok = r, true
			}
		}
		if !ok {
			continue
		}
		words := strings.Fields(strings.ToLower(strings.Trim(rest, " *_")))
		if len(words) == 0 || strings.ContainsRune(rest, codeMark) {
			continue
		}
		out := " " + strings.Join(words[:min(4, len(words))], " ") + " "
		if containsAny(out, " pass", " green", " exit 0", " exits 0", " ok ", " ok,", " succeed", " success", " no output", " no error", " all ") {
			continue
		}
		switch strings.Trim(words[0], ".,;:") {
		case "clean", "empty", "nothing", "none", "0", "zero":
			if len(words) == 1 || strings.HasSuffix(words[0], ",") || strings.HasSuffix(words[0], ";") {
				continue // "→ clean", "→ empty": its exit, or a search's nothing
			}
		}
		return true
	}
	return false
}

// serves reports whether the words right after a command say it starts a
// server that stays up, the command their subject ("`./api` serves the
// frontend at localhost:8420", "`npm start` → listening on :3000"): it
// never exits, so it is no check to run; what it serves is read. Words
// that only mention a server or a port ("serves as the gate", "against
// the dev server at localhost:5173", "on localhost:3000") say nothing of
// the command (attack 73).
func serves(after string) bool {
	a := strings.TrimSpace(after)
	for _, arrow := range []string{"→", "->"} {
		a = strings.TrimSpace(strings.TrimPrefix(a, arrow))
	}
	words := strings.Fields(strings.ToLower(a))
	if len(words) == 0 {
		return false
	}
	switch strings.Trim(words[0], ".,;:()*_") {
	case "serves", "serving", "listens", "listening":
		return len(words) == 1 || strings.Trim(words[1], ".,;:") != "as"
	}
	return false
}

// servedSpans are the servers of the title's commands the words right
// after say serve (serves): the last part of a chain.
func servedSpans(t title) []string {
	var out []string
	for i, c := range t.code {
		if after, _ := t.after(i); serves(after) {
			parts := strings.Split(c, " && ")
			out = append(out, strings.TrimSpace(parts[len(parts)-1]))
		}
	}
	return out
}

// beforeServer is what a chain runs before its last part, the server the
// words say it starts: "" for a lone command, and a `cd` just before the
// server goes with it.
func beforeServer(c string) string {
	parts := strings.Split(c, " && ")
	return strings.Join(withoutTrailingCd(parts[:len(parts)-1]), " && ")
}

// withoutTrailingCd is a chain's parts without the `cd`s that end them:
// what went to a folder only for the server taken out after them.
func withoutTrailingCd(parts []string) []string {
	for len(parts) > 0 && strings.HasPrefix(strings.TrimSpace(parts[len(parts)-1]), "cd ") {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// withoutServers takes out of a task's commands the parts that start a
// development server (`pnpm check && pnpm dev:apps`: the second never
// exits, so no run of the whole is ever evidence): what the server serves
// is looked at, by a qa-engineer or the person the words name. It returns
// the parts it took.
func withoutServers(cs []Command) ([]Command, []string) {
	var out []Command
	var took []string
	for _, c := range cs {
		parts := strings.Split(c.Run, " && ")
		var kept []string
		for _, p := range parts {
			if devServer(p) {
				took = append(took, strings.TrimSpace(p))
				continue
			}
			kept = append(kept, p)
		}
		if len(kept) < len(parts) {
			kept = withoutTrailingCd(kept) // `pnpm build && cd web && pnpm dev`: the build stays
		}
		if len(kept) == len(parts) {
			out = append(out, c)
		} else if len(kept) > 0 {
			out = append(out, Command{strings.Join(kept, " && "), c.Source})
		}
	}
	return out, took
}

// devServer reports whether a command, alone, starts a development
// server and stays up: a package script named dev, start, serve, preview
// or watch (or `dev:…`), `next dev`, `vite`, `turbo dev`, a framework's
// own server. One sent to the background, or bounded by `timeout`, is
// part of a check, not this.
func devServer(c string) bool {
	f := strings.Fields(c)
	if len(f) == 0 || strings.ContainsAny(c, "&|;<>") {
		return false
	}
	switch f[0] {
	case "npx", "bunx":
		f = f[1:]
	case "pnpm", "npm", "yarn", "bun":
		var rest []string // the words that are no flag: the script's name
		for i := 1; i < len(f); i++ {
			switch w := f[i]; {
			case w == "--":
				return false // arguments of the script's own (`npm start -- --dry-run`)
			case w == "--filter" || w == "-F" || w == "--workspace" || w == "-C" || w == "--dir":
				i++ // its operand
			case strings.HasPrefix(w, "-") || w == "run" && len(rest) == 0:
			default:
				rest = append(rest, w)
			}
		}
		if len(rest) != 1 {
			return false // a script with arguments of its own, or none
		}
		s := rest[0]
		switch s {
		case "dev", "start", "serve", "preview", "watch":
			return true
		}
		name, part, _ := strings.Cut(s, ":")
		switch part {
		case "check", "test", "tests", "lint", "typecheck", "types", "build", "verify", "ci", "e2e", "unit", "integration", "smoke", "spec":
			return false // `dev:check`, `dev:e2e`: a check, which ends
		}
		return name == "dev" || name == "serve" || s == "start:dev"
	}
	if len(f) == 0 {
		return false
	}
	switch strings.Join(f[:min(2, len(f))], " ") {
	case "next dev", "next start", "vite dev", "vite serve", "vite preview", "turbo dev", "nuxt dev", "astro dev", "hugo server", "jekyll serve", "rails server", "rails s", "flask run", "php artisan":
		return !(f[0] == "php" && (len(f) < 3 || f[2] != "serve"))
	}
	if len(f) >= 3 && f[0] == "turbo" && f[1] == "run" && f[2] == "dev" || len(f) >= 3 && f[1] == "manage.py" && f[2] == "runserver" {
		return true
	}
	switch f[0] {
	case "uvicorn", "gunicorn", "hypercorn", "http-server", "live-server":
		return !slices.ContainsFunc(f[1:], func(w string) bool { return w == "--help" || w == "--version" })
	}
	return len(f) == 1 && (f[0] == "vite" || f[0] == "nodemon") || len(f) >= 3 && strings.HasPrefix(f[0], "python") && f[1] == "-m" && f[2] == "http.server"
}

// noWarnings reports whether a check's words ask for a build with no
// warnings ("0 errors, 0 warnings", "zero warnings"): a build passes with
// warnings, so what it printed is read.
func noWarnings(prose string) bool {
	// "no warnings treated as errors" speaks of the build's flags.
	prose = strings.ReplaceAll(strings.ToLower(prose), "warnings treated as errors", "")
	if containsAny(prose, "warning-free", "0 warning", "zero warning") {
		return true
	}
	// "no warnings", "no clippy warnings", "no errors or warnings",
	// "without warnings": a no within three words before it.
	ws := strings.FieldsFunc(prose, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' })
	for i, w := range ws {
		if w != "warnings" && w != "warning" {
			continue
		}
		for _, x := range ws[max(0, i-3):i] {
			if x == "no" || x == "without" || x == "zero" {
				return true
			}
		}
	}
	return false
}

// manualLegend reports whether a line of the file defines the [VERIFY] tag
// as a person's check: the tag, then = or : or a dash, then words of a
// manual check, in the file's own language.
func manualLegend(line string) bool {
	i := strings.Index(line, "[VERIFY]")
	if i < 0 {
		return false
	}
	rest := strings.TrimLeft(line[i+len("[VERIFY]"):], " *_`")
	if !strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, ":") && !strings.HasPrefix(rest, "—") && !strings.HasPrefix(rest, "-") {
		return false
	}
	rest = strings.ToLower(rest)
	// A person's check alone: "[VERIFY]: Coverage + manual validation"
	// names an automated half too.
	for _, w := range []string{"+", "coverage", "automat", "test", " and ", " & "} {
		if strings.Contains(rest, w) {
			return false
		}
	}
	return containsAny(rest, "manual", "by hand", "a person", "human", "manualmente", "вручную", "ручн", "manuell", "手動", "手动", "수동")
}

// refs names tasks whose id repeats by their place among them.
func refs(ts []Task) {
	count := map[string]int{}
	for _, t := range ts {
		count[t.ID]++
	}
	seen := map[string]int{}
	taken := map[string]bool{}
	for i := range ts {
		id := ts[i].ID
		seen[id]++
		ref := id
		switch {
		case id == "":
			ref = fmt.Sprintf("@line%d", ts[i].Line) // a task with no id: named by its place
		case count[id] > 1:
			ref = fmt.Sprintf("%s#%d", id, seen[id])
		}
		if taken[ref] || (ref != id && count[ref] > 0) {
			ref = fmt.Sprintf("%s@line%d", id, ts[i].Line) // an id written like a ref
		}
		taken[ref] = true
		ts[i].Ref = ref
	}
}

// readTask reads a list item's task. under is the verification task of the
// heading whose section holds the item, nil outside one.
func readTask(item *ast.ListItem, src []byte, lines []int, under *tagged) (Task, bool) {
	first := item.FirstChild()
	if first == nil || first.FirstChild() == nil {
		return Task{}, false
	}
	box, ok := first.FirstChild().(*checkBox)
	if !ok || first.Lines().Len() == 0 {
		return Task{}, false
	}
	seg := first.Lines().At(0)
	t := Task{Checked: box.Checked, InProgress: box.InProgress, Optional: box.Optional, Line: lineOf(lines, seg.Start)}
	title := readTitle(first, box, seg, src)
	t.Title = strings.TrimSpace(title.raw)
	t.ID, t.Title = title.id(t.Title)
	start, stop := itemSpan(item, src)
	t.Text = string(src[start:stop])
	t.start, t.stop, t.mark = start, stop, -1
	if seg.Start+2 < len(src) && src[seg.Start] == '[' && src[seg.Start+2] == ']' {
		t.mark = seg.Start + 1
	}
	t.Verify, t.Kind = title.verifyTag()
	if !t.Verify && title.verifyLabel() {
		// "VERIFY: …" or "**VERIFY: …**" without brackets, as some authors
		// write the tag; a title that starts with it has no id of its own.
		t.Verify = true
		if strings.EqualFold(t.ID, "VERIFY") {
			t.ID = ""
		}
	}
	adopted := false
	if !t.Verify && under != nil {
		t.Verify, t.Kind, adopted = true, under.task.Kind, true
	}
	if !t.Verify {
		return t, true
	}
	lower := strings.ToLower(title.prose())
	t.AC = strings.EqualFold(t.Kind, "AC") || strings.Contains(lower, "ac checklist") || strings.Contains(lower, "acceptance criteri") || namesACs(title.prose())
	t.Commands, t.Prose = commands(item, first, title, src)
	t.Commands, t.Servers = withoutServers(t.Commands)
	t.Servers = append(t.Servers, servedSpans(title)...)
	served := len(t.Servers) > 0
	// What the agent cannot hold is a person's, unless the task speaks of
	// the tests of it ("DNS resolver unit tests pass": honest day 63).
	t.Manual = manual(t.ID, t.Kind, title.prose(), strings.ToLower(outsideCode(t.Text))) ||
		len(t.Commands) == 0 && (editorCommand(title) || (needsPerson(strings.ToLower(outsideCode(t.Text))) || prodFile(title.code)) && !aboutChecks(lower))
	if slices.ContainsFunc(t.Commands, func(c Command) bool { return CapturesScreen(c.Run) }) {
		// A screenshot passes whatever it shows: a person looks at it.
		t.Manual = true
	}
	// A prompt to an agent, or a count, passes whatever it prints: what it
	// prints is read. Its commands stay as written (a search among them
	// still must find).
	confirms, values := readAfter(t.Text, t.Commands)
	if len(values) > 0 {
		// "and confirm `./flows` is listed": a name the reading looks
		// for, no command of the check.
		t.Commands = slices.DeleteFunc(t.Commands, func(c Command) bool { return slices.Contains(values, strings.TrimSpace(c.Run)) })
	}
	read := slices.ContainsFunc(t.Commands, func(c Command) bool {
		return AgentPrompt(c.Run) || Counts(c.Run) || PrintsVerdict(c.Run) || ReadsMatches(c.Run)
	}) ||
		len(t.Commands) == 0 && agentQuery(t.Text) || outputNamed(t.Text, t.Commands) || confirms ||
		len(t.Commands) > 0 && (observes(t.Text) || namesBound(t.Text)) ||
		len(t.Commands) > 0 && noWarnings(labelProse(t.Text, "verify", "verification", "done when")) && !slices.ContainsFunc(t.Commands, func(c Command) bool { return failsOnWarnings(c.Run) }) ||
		len(t.Commands) > 0 && staticOnly(t.Commands) && namesBehaviour(labelProse(t.Text, "do", "done when")) ||
		arrowOutcome(title, t.Commands) || served || checkBeside(title, t.Commands) || valuesSearched(title, t.Commands) ||
		len(t.Commands) > 0 && t.Commands[0].Source == FromRunStep && slices.ContainsFunc(strings.Split(t.Text, "\n"), func(l string) bool {
			return strings.Contains(l, "`") && optionalStep(l) // a step left optional is read
		})
	words := inspects(lower) || inspects(verifyLineProse(t.Text))
	// A person's words beside commands the task's own check names (its
	// Verify line) leave those commands standing (below): what they print
	// is read all the same.
	personSteps := t.Manual && len(t.Commands) > 0 && (t.Commands[0].Source == FromDoSteps || t.Commands[0].Source == FromRunStep || slices.ContainsFunc(t.Commands, func(c Command) bool { return CapturesScreen(c.Run) }))
	if !personSteps && len(t.Commands) > 0 && !slices.ContainsFunc(t.Commands, func(c Command) bool { return c.Source != FromTitleCode || projectCheck(c.Run) }) &&
		(t.Manual && manual("", "", title.prose(), strings.ToLower(outsideCode(t.Text))) || anotherMachine(strings.ToLower(outsideCode(t.Text))) && !aboutChecks(lower) ||
			!slices.ContainsFunc(t.Commands, func(c Command) bool { return !follows(c.Run) })) {
		// "Visual smoke check: start `./iw dashboard`, open a card …",
		// "Manual smoke: `time ./bin/x lint f`", "`pnpm dev` brings the API
		// up — verified manually", "Fresh clone test: new machine, `git
		// clone` → …": the title's commands are what the person runs to
		// look, unless they are the project's checks.
		t.Manual, personSteps = true, true
	}
	if (!t.Manual || len(t.Commands) > 0 && !personSteps) && !t.AC && (read || words) {
		t.AC, t.Inspect = true, true // what is read in the output: a qa-engineer judges it
		for i, c := range t.Commands {
			if words && loneSearch(c.Run) {
				// Its matches are read, not counted: none is no failure
				// (exit 1), an error still is (2).
				t.Commands[i].Run = c.Run + "; test $? -le 1"
			}
		}
	}
	// Its words with the files its code names ("`test/commands.bats`
	// passes"): a test file named so is the project's tests.
	if len(t.Commands) == 0 && !t.Manual && !t.AC && !adopted && !template(t.Text) && !aboutChecks(title.prose()+" "+verifyLineProse(t.Text)) && !testFilePasses(title.raw, lower) {
		// A behaviour in words ("Verify role rules: Owner/Admin view+export,
		// Member view-only", "Filter combinations behave consistently"): no
		// command of the project checks that, a qa-engineer does (the
		// project's build standing in for it passed whatever it did).
		t.AC, t.described = true, true
	}
	if personSteps {
		// A person checks it: the steps (starting the thing they watch,
		// a `Run:` bullet beside "Manual: follow the quickstart") are
		// what they do, not the check.
		t.Commands = nil
	}
	if adopted {
		under.adopt(&t)
	}
	return t, true
}

// valuesSearched reports whether a title names settings with their
// values (`base_frame_id: "base_link"`, `MODE=prod`) beside a search
// among its commands (`grep "base_frame_id" config.yaml`): the search
// finds the keys whatever their values, so what it prints is read
// (corpus ten).
func valuesSearched(t title, cs []Command) bool {
	search := slices.ContainsFunc(cs, func(c Command) bool {
		w := path.Base(FirstWord(c.Run))
		return w == "grep" || w == "egrep" || w == "rg" || w == "ag" || w == "git" && strings.Contains(c.Run, "git grep")
	})
	if !search {
		return false
	}
	for _, c := range t.code {
		if slices.ContainsFunc(cs, func(k Command) bool { return strings.Contains(k.Run, c) }) {
			continue // the search itself
		}
		if key, val, ok := strings.Cut(c, ": "); ok && key != "" && !strings.ContainsAny(key, " \t") && (strings.HasPrefix(val, "\"") || strings.HasPrefix(val, "'")) {
			return true
		}
		if key, val, ok := strings.Cut(c, "="); ok && key != "" && val != "" && !strings.ContainsAny(key, " \t") && strings.ToUpper(key) == key {
			return true
		}
	}
	return false
}

// checkBeside reports whether a title that joins its checks with "+"
// names one of them in words beside its commands ("`nx lint server` +
// marketdata IT 全量绿 + …", "… + moat/boundaries 0 violation"): a suite
// or a gate the file gives no command for, which no command of the task
// runs; what it says is read by a qa-engineer (corpus eleven).
func checkBeside(t title, cs []Command) bool {
	first := strings.IndexRune(t.text, codeMark)
	if first < 0 || !slices.ContainsFunc(cs, func(c Command) bool { return c.Source == FromTitleCode }) {
		return false // its commands are a Verify line's, which its title's words describe
	}
	// The items after its first command: the list of its checks.
	for _, item := range strings.FieldsFunc(withoutAsides(t.text[first:]), func(r rune) bool { return r == '+' || r == '＋' }) {
		if strings.ContainsRune(item, codeMark) {
			continue // a command of its own, or beside one
		}
		l := " " + strings.ToLower(item) + " "
		if containsAny(l, "绿", "全量", " green", " passes", " pass ", " 0 violation", " 0 error", " zero violation", " it suite", " it ", " suite") {
			return true
		}
	}
	return false
}

// withoutAsides is s without what it holds in parentheses ("(…)",
// "（…）"), which says more of a check, never another.
func withoutAsides(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch r {
		case '(', '（':
			depth++
		case ')', '）':
			if depth > 0 {
				depth--
			}
		default:
			if depth == 0 {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// namesJoined reports whether a word is names joined by slashes, each
// capitalised ("Speed/Quality/OpSec"): a list of names, no path.
func namesJoined(w string) bool {
	parts := strings.Split(strings.Trim(w, ".,;:()"), "/")
	if len(parts) < 3 {
		return false // "Build/Test" may be the checks; three names are a list
	}
	for _, p := range parts {
		r, _ := utf8.DecodeRuneInString(p)
		if !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// namesBound reports whether a task's Verify or Done when prose sets a
// bound on a number its commands print ("test count >= 15", "coverage ≥
// 80%", "at least 12 rows"): the exit says nothing of it, a qa-engineer
// reads the number, even beside a flag that enforces a bound of its own
// (attack 64: `--cov-fail-under=60` against "coverage ≥ 85%").
func namesBound(text string) bool {
	title, _, _ := strings.Cut(strings.ToLower(text), "\n")
	prose := labelProse(text, "verify", "verification", "done when") + "\n" + outsideCode(title)
	for i := 0; i < len(prose); i++ {
		if prose[i] < '0' || prose[i] > '9' || i > 0 && (prose[i-1] >= '0' && prose[i-1] <= '9' || prose[i-1] == '.') {
			continue // the start of a number
		}
		j := i
		for j < len(prose) && (prose[j] >= '0' && prose[j] <= '9' || prose[j] == '.') {
			j++
		}
		num, before, after := prose[i:j], prose[max(0, i-20):i], prose[j:min(len(prose), j+14)]
		// "≥1 match": that a search finds, its exit.
		if num == "1" && (strings.HasPrefix(strings.TrimLeft(after, " "), "match") || strings.HasPrefix(strings.TrimLeft(after, " "), "result") ||
			strings.HasPrefix(strings.TrimLeft(after, " "), "hit") || strings.HasPrefix(strings.TrimLeft(after, " "), "occurrence")) {
			continue
		}
		b := strings.TrimRight(before, " ~")
		for _, op := range []string{">=", "≥", "<=", "≤", "at least", "at most", "no more than", "no fewer than", "no less than", "more than",
			"less than", "fewer than", "greater than", "above", "below", "over", "under", "minimum", "maximum", "min", "max", "min.", "max."} {
			if strings.HasSuffix(b, op) && (len(b) == len(op) || !isLetter(b[len(b)-len(op)-1]) || !isLetter(op[0])) {
				return true
			}
		}
		// A lone > or < before the number, not an arrow (->, =>).
		if n := len(b); n > 0 && (b[n-1] == '>' || b[n-1] == '<') && (n == 1 || b[n-2] != '-' && b[n-2] != '=') {
			return true
		}
		a := strings.TrimLeft(after, "% ")
		for _, w := range []string{"+", "or more", "or higher", "or above", "or better", "or less", "or lower", "or fewer", "minimum", "at least", "at most"} {
			if strings.HasPrefix(a, w) {
				return true
			}
		}
	}
	return false
}

// NamesTests reports whether a task's title speaks of a test it stands
// for ("Unit test: zero inputs send no email", "Integration test: …",
// "[Verify] Test: an expired token returns 401").
func NamesTests(title string) bool {
	l := " " + strings.ToLower(title) + " "
	if containsAny(l, "unit test", "integration test", "e2e test", "end-to-end test", "component test", "contract test",
		" test: ", " tests: ", "regression test", "snapshot test", "fixture test", "smoke test", "e2e smoke", "unit/integration test",
		"(vitest)", "(jest)", "(playwright)", "(cypress)", "(pytest)") {
		return true
	}
	return testFileNamed(title)
}

// NamesBrowserTests reports whether a title speaks of end-to-end or
// browser tests (Playwright, Cypress, "E2E"): a package's test:e2e, not
// its unit tests.
func NamesBrowserTests(title string) bool {
	l := strings.ToLower(title)
	if testFileNamed(title) {
		// The file says which: `e2e/login.spec.ts`, not the words around
		// an integration test ("the path end-to-end — covered by …").
		parts := strings.Split(l, "`")
		for i := 1; i < len(parts); i += 2 {
			if p := parts[i]; strings.Contains(p, "/") && (strings.Contains(p, "e2e") || strings.Contains(p, "playwright") || strings.Contains(p, "cypress")) {
				return true
			}
		}
		return false
	}
	return containsAny(l, "e2e", "end-to-end", "playwright", "cypress", "browser test")
}

// testFileNamed reports whether a title names a test file in code
// ("covered by `web/test/app.integration.test.tsx`"): a folder and a name
// with test or spec and an extension.
func testFileNamed(raw string) bool { return testFileIn(raw, true) }

// testFileIn reports whether a title names a file in code whose name (or,
// with inName false, whose path) says test or spec: a folder and a name
// with an extension, no setting (`validation.gate_on_tests=ON`).
func testFileIn(raw string, inName bool) bool {
	parts := strings.Split(strings.ToLower(raw), "`")
	for i := 1; i < len(parts); i += 2 {
		c := strings.TrimSpace(parts[i])
		name := c[strings.LastIndex(c, "/")+1:]
		said := c
		if inName {
			said = name
		}
		if strings.Contains(c, "/") && strings.Contains(name, ".") && !strings.ContainsAny(c, " =") &&
			(strings.Contains(said, "test") || strings.Contains(said, "spec")) {
			return true
		}
	}
	return false
}

// RunsTests reports whether a quality command runs tests (`npm test`,
// `go test ./...`, `pytest`, `make check`), not only a linter, a type
// check or a build.
func RunsTests(c string) bool {
	l := strings.ToLower(c)
	return strings.Contains(l, "test") || strings.Contains(l, "spec") || strings.HasSuffix(strings.TrimSpace(l), "make check")
}

// testFilePasses reports whether a title names a test file in code that
// must pass ("`test/commands.bats` passes unchanged"): the project's
// tests, not a behaviour to judge. A file path is a folder and a name with
// an extension; a setting (`validation.gate_on_tests=ON`) is none.
func testFilePasses(raw, prose string) bool {
	if !strings.Contains(prose, "pass") && !strings.Contains(prose, "covered by") {
		return false // "`test/x.bats` passes", "covered by `web/test/app.test.tsx`"
	}
	return testFileIn(raw, false)
}

// outputNamed reports whether the task's text says what one of its
// commands must print (namesOutput): the span of the command, then the
// words after it.
func outputNamed(text string, cmds []Command) bool {
	if len(cmds) == 0 || !strings.Contains(text, "`") {
		return false
	}
	parts := strings.Split(text, "`")
	for i := 1; i+1 < len(parts); i += 2 {
		c := strings.TrimSpace(parts[i])
		if c == "" || !slices.ContainsFunc(cmds, func(k Command) bool { return strings.Contains(k.Run, c) }) {
			continue
		}
		next := ""
		if i+2 < len(parts) {
			next = parts[i+2]
		}
		if names, _ := namesOutput(c, parts[i+1], next); names {
			return true
		}
	}
	return false
}

// aboutChecks reports whether a task's words (its title, its Verify
// line's prose) speak of the project's own checks ("Quality checkpoint",
// "all tests pass", "lint and typecheck", "CI green", "no regressions"):
// those the project's quality commands stand for when it names none.
func aboutChecks(words string) bool {
	// A list of names joined by slashes ("§4.7 Speed/Quality/OpSec", a
	// module's name) is no word of a check (corpus eleven).
	if strings.Contains(words, "/") {
		f := strings.Fields(words)
		f = slices.DeleteFunc(f, namesJoined)
		words = strings.Join(f, " ")
	}
	// Whole words ("gate", not "navigate"; "types", not "prototypes"),
	// and phrases of them.
	padded := " " + strings.Join(strings.FieldsFunc(strings.ToLower(words), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
	}), " ") + " "
	// "gate" as a verb ("preferences correctly gate non-mandatory
	// categories", "to gate") names a behaviour, not a check, and "the live
	// gate" is a deployed one (a proxy's), not a quality gate.
	for _, v := range []string{"ly gate ", " to gate ", " should gate ", " must gate ", " will gate ", "ly gates ", " live gate "} {
		padded = strings.ReplaceAll(padded, v, " ")
	}
	for _, w := range []string{"quality", "checkpoint", "checkpoints", "build", "builds", "compile", "compiles", "compilation",
		"lint", "linting", "linter", "typecheck", "type-check", "type check", "types check", "format", "formatting", "clippy",
		"go vet", "tests pass", "tests green", "all tests", "test suite", "full suite", "unit test", "unit tests",
		"integration test", "integration tests", "e2e test", "e2e tests", "end-to-end test", "end-to-end tests",
		"tests run", "run tests", "run the tests", "ci", "pipeline", "pre-commit", "regressions", "no regressions",
		"checks pass", "all checks", "checks green", "checks", "static analysis", "sanity", "smoke check", "coverage",
		"gate", "green", "nothing broke", "nothing is broken", "no breakage", "still pass", "still passes",
		// Tests and suites in any words ("Run domain model tests to
		// confirm all pass", "fixture tests", "the focused API suites"),
		// and other languages' gates and greens (corpora ten, eleven).
		"suite", "suites", "snapshot test", "snapshot tests", "fixture test", "fixture tests", "puerta", "puertas", "verde", "verdes",
		"regresión", "regresion", "regressão", "portão"} {
		if strings.Contains(padded, " "+w+" ") {
			return true
		}
	}
	// Tests that pass or are run ("Run domain model tests to confirm all
	// pass", "Targeted tests … acceptance: pass"), not a screen named so
	// ("the Tests tab shows the list") nor a test among a walk's steps
	// ("egg (test) → … unlocks on pass").
	passes := strings.Contains(padded, " pass ") || strings.Contains(padded, " passes ") || strings.Contains(padded, " passing ")
	if (strings.Contains(padded, " tests ") || strings.Contains(padded, " specs ")) && passes {
		return true
	}
	if containsAny(padded, " test passes ", " test pass ", " spec passes ", " test is green ") {
		return true
	}
	ws := strings.Fields(padded)
	for i, w := range ws {
		if w == "run" || w == "rerun" || w == "re-run" {
			for _, x := range ws[i+1 : min(i+6, len(ws))] {
				if x == "tests" {
					return true
				}
			}
		}
	}
	return containsAny(words, "质量", "构建", "编译", "测试通过", "全部测试", "单元测试", "检查点", "品質", "ビルド", "テスト", "回归", "迴歸", "全绿", "全綠")
}

// template reports whether a task's text holds a template's placeholder
// in code (`pytest <test file>`, `{{lint cmd}}`): its author meant a
// command, not a behaviour to judge; it is judged like a task that names
// none, as before.
//
// A `<…>` is a placeholder only in a span shaped like a command: a file's
// name (`Needs_Action/EMAIL_<id>.md`) or an HTML comment (`<!-- REF -->`)
// beside a behaviour in words makes no template of the task.
func template(text string) bool {
	parts := strings.Split(text, "`")
	for i := 1; i < len(parts); i += 2 {
		p := strings.TrimSpace(parts[i])
		if strings.Contains(p, "{{") {
			return true
		}
		if strings.Contains(p, "<") && strings.Contains(p, ">") && !strings.ContainsAny(p, "\"'") && !strings.HasPrefix(p, "<") && CommandLike(p) {
			return true
		}
	}
	return false
}

// observes reports whether a step of a task's body asks for a look that
// its commands do not make: "3. Verify: produces non-empty text output, no
// panics", "Verify CLAUDE.md line count <= 120", "Verify all acceptance
// criteria from PM.md" (corpus twelve: the Verify line's build and tests
// stood for them, and passed whatever the look would show). A step about
// the project's checks ("Verify all tests still pass", "CI green") is what
// the commands check; a step that names a command is run, not looked at.
//
// A Do line of sentences asks the same in one of them: "Run lint,
// typecheck, build. Start dev server and verify variation switching works
// via URL param", "… and navigate to `/about` to confirm the sidebar
// renders" (corpus twelve: the build stood for the look).
func observes(text string) bool {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		// "… Assert:" and its items on the lines after ("a) The bot's
		// message contains the link", corpus thirteen): each is looked at.
		if t := strings.TrimRight(strings.ToLower(strings.TrimSpace(l)), "*_ "); strings.HasSuffix(t, "assert:") || strings.HasSuffix(t, "confirm:") {
			for _, next := range lines[i+1:] {
				item := strings.ToLower(strings.TrimSpace(next))
				if item == "" || strings.HasPrefix(item, "```") || strings.HasPrefix(item, "~~~") || strings.HasPrefix(item, "- **") {
					break
				}
				if CommandLike(item) {
					continue
				}
				item = strings.TrimLeft(item, "-*+ ")
				if len(item) > 2 && (item[1] == ')' || item[1] == '.') {
					item = item[2:]
				}
				named := false // an item that names a command is run, not looked at
				parts := strings.Split(item, "`")
				for k := 1; k < len(parts); k += 2 {
					named = named || CommandLike(strings.TrimSpace(parts[k]))
				}
				if !named && lookItem(item) {
					return true
				}
			}
		}
		if i == 0 {
			// The title: a sentence after its first ("Final pass: run
			// `…`. Confirm: all checks pass; `dist/` contains the new
			// artifacts").
			for _, sentence := range strings.SplitAfter(strings.ToLower(l), ". ")[1:] {
				if looksAt(strings.TrimSpace(sentence)) {
					return true
				}
			}
			continue
		}
		s := strings.ToLower(strings.TrimSpace(l))
		s = strings.TrimLeft(s, "-*+ ")
		for len(s) > 0 && (s[0] >= '0' && s[0] <= '9' || s[0] == '.' || s[0] == ')') {
			s = s[1:]
		}
		s = strings.TrimLeft(strings.TrimSpace(s), "*_")
		sentences := []string{s}
		for _, label := range []string{"do**:", "do:"} {
			if rest, ok := strings.CutPrefix(s, label); ok {
				// The Do label's own line: its first sentence says what
				// the task does, which the Verify line's commands check
				// ("Verify script imports and --help works"); a sentence
				// after it asks for more.
				sentences = strings.SplitAfter(strings.TrimSpace(rest), ". ")[1:]
				break
			}
		}
		for _, sentence := range sentences {
			if looksAt(strings.TrimSpace(sentence)) {
				return true
			}
		}
	}
	return false
}

// lookItem reports whether one thing a task asks to verify is a look:
// two words or more, neither the project's checks nor a success.
func lookItem(item string) bool {
	// What it says in parentheses is more of the same ("block skips
	// (exit code 0, zero failures)"), not what is looked at.
	item = withoutAsides(item)
	o := " " + strings.TrimSpace(item) + " "
	if len(strings.Fields(item)) < 2 || aboutChecks(o) {
		return false
	}
	for _, w := range []string{"pass", "succe", "green", "error", "fail", "exit", "compiles", "builds", "regress", "broke", "break", "clean"} {
		if strings.Contains(o, w) {
			return false
		}
	}
	return true
}

// looksAt reports whether a sentence of a task's body asks for a look:
// it opens with "Verify …" (or says "… and verify …", "… to confirm …")
// of something that is not the project's checks nor a success, and names
// no command (a step that names one is run, not looked at).
func looksAt(s string) bool {
	parts := strings.Split(s, "`")
	for i := 1; i < len(parts); i += 2 {
		if c := strings.TrimSpace(parts[i]); CommandLike(c) && !strings.HasPrefix(c, "/") {
			return false
		}
	}
	// What is to be looked at, item by item ("all checks pass; coverage
	// met; `dist/` holds the new artifacts"): one that is not the
	// project's checks nor a success is a look.
	look := func(rest string) bool {
		for _, item := range strings.Split(strings.TrimRight(rest, ". "), ";") {
			if lookItem(item) {
				return true
			}
		}
		return false
	}
	for _, v := range []string{"verify ", "verify: ", "confirm ", "confirm: ", "check that ", "ensure that ", "assert that ", "assert: ", "assert "} {
		if rest, ok := strings.CutPrefix(s, v); ok {
			return look(rest)
		}
	}
	// "Start dev server and verify …", "navigate to `/about` to confirm
	// …"; not "Run the suite to verify …": what a run verifies is its
	// exit.
	for _, run := range []string{"run ", "re-run ", "rerun ", "execute "} {
		if strings.HasPrefix(s, run) {
			return false
		}
	}
	for _, v := range []string{" and verify ", " and confirm ", " to confirm ", " to verify ", " and check that ", " and ensure that "} {
		if _, rest, ok := strings.Cut(s, v); ok {
			return look(rest)
		}
	}
	return false
}

// readAfter reports whether the words right after one of a task's
// commands ask for a look at what it made ("Run `pnpm build` and verify
// `dist/index.js` and `dist/index.d.ts` exist", "and confirm `./flows` is
// listed", "— verify ≥80% line coverage"): the command's exit says nothing
// of that, a qa-engineer reads it. values are the code spans of that
// clause, names it looks for rather than commands. Success in any words
// ("and confirm all tests pass") is the command's exit.
func readAfter(text string, cmds []Command) (bool, []string) {
	if len(cmds) == 0 || !strings.Contains(text, "`") {
		return false, nil
	}
	parts := strings.Split(text, "`")
	for i := 1; i+1 < len(parts); i += 2 {
		c := strings.TrimSpace(parts[i])
		if c == "" || !slices.ContainsFunc(cmds, func(k Command) bool { return strings.Contains(k.Run, c) }) {
			continue
		}
		after := strings.ToLower(parts[i+1])
		lead := strings.TrimLeft(after, " ,;:—–-")
		for _, w := range []string{"and then ", "and ", "then "} {
			lead = strings.TrimPrefix(lead, w)
		}
		verb := false
		for _, v := range []string{"verify ", "verify that ", "confirm ", "confirm that ", "check that ", "make sure ", "ensure that "} {
			if strings.HasPrefix(lead, v) {
				verb = true
				break
			}
		}
		if !verb {
			// "— must pass with zero errors and the dist artifact must
			// include `dist/x/index.js`": what a later clause of the
			// sentence says a file or output must hold.
			sentence, _, _ := strings.Cut(lead, ". ")
			for _, m := range []string{" must include", " must contain", " must exist", " must list", " must show",
				" should include", " should contain", " should exist", " should list", " should show"} {
				k := strings.Index(sentence, m)
				if k < 0 {
					continue
				}
				if a := strings.LastIndex(sentence[:k], " and "); a >= 0 {
					lead, verb = lead[a+len(" and "):], true
					break
				}
			}
		}
		if !verb {
			continue
		}
		// The clause: its words and its code spans (a value each, "#" in
		// the words), to the sentence's end.
		clause := ""
		var values []string
		for j, words := i+1, lead; ; j += 2 {
			if k := strings.IndexAny(words, ".;\n"); k >= 0 {
				clause += words[:k]
				break
			}
			clause += words
			if j+1 >= len(parts) {
				break
			}
			values = append(values, strings.TrimSpace(parts[j+1]))
			clause += " # "
			if j+2 >= len(parts) {
				break
			}
			words = strings.ToLower(parts[j+2])
		}
		o := " " + clause + " "
		exit := false
		for _, w := range []string{"pass", "succe", "green", "no error", "without error", "exit", "works", "compiles", "builds"} {
			if strings.Contains(o, w) {
				exit = true
				break
			}
		}
		if !exit {
			return true, values
		}
	}
	return false, nil
}

// agentQuery reports whether a task's code names a query the agent runs
// through a tool of its own, not the shell: an MCP tool (`mcp__…`,
// `execute_sql`, `get_advisors(type: 'security')`) or an SQL statement
// (`SELECT count(*) FROM sales;` "expect 0"). No command of the project
// looks at what it returns: a qa-engineer reads it.
func agentQuery(text string) bool {
	parts := strings.Split(text, "`")
	for i := 1; i < len(parts); i += 2 {
		c := strings.TrimSpace(parts[i])
		name, _, call := strings.Cut(c, "(")
		lower := strings.ToLower(c)
		switch {
		case strings.HasPrefix(c, "mcp__"):
			return true
		case name == "execute_sql" || name == "run_sql" || name == "get_advisors" || name == "list_tables" || name == "apply_migration":
			return true
		case call && strings.HasSuffix(c, ")") && strings.Contains(c, ":") && isIdent(name):
			return true // a tool call with named arguments: `get_logs(service: 'api')`
		case strings.HasPrefix(lower, "select ") && strings.Contains(lower, " from "):
			return true
		}
	}
	return false
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// outsideCode is text without its code: fenced blocks and backticked
// spans, where a word a person's check is known by is a name
// (`ScreenshotService`), not what the task asks.
func outsideCode(text string) string {
	var b strings.Builder
	fence := false
	for _, l := range strings.SplitAfter(text, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		parts := strings.Split(l, "`")
		for i := 0; i < len(parts); i += 2 {
			b.WriteString(parts[i])
			if i+1 < len(parts) {
				b.WriteByte(' ')
			}
		}
	}
	return b.String()
}

// manual reports whether a verification task says a person checks it:
// its id or kind names it (VE-manual, [VERIFY:MANUAL]), or its text does
// ("operator-verified", "manual verification", "verify manually", "by
// hand"). An ordinary word "manual" in a title ("Update the manual") is not
// enough.
// editorCommand reports whether the title's subject is an editor's
// command (`:LofiCancel`, :checkhealth, `:lua require('x').run()`), its
// first code span or its first word: what it does is watched inside the
// editor, by a person.
func editorCommand(t title) bool {
	ex := func(s string) bool {
		// `:LofiCancel`, not an emoji's shortcode (:white_check_mark:) or
		// SQLite's :memory:, which end in a colon.
		first, _, _ := strings.Cut(s, " ")
		if len(first) <= 1 || first[0] != ':' || !unicode.IsLetter(rune(first[1])) || strings.HasSuffix(first, ":") {
			return false
		}
		// A CSS selector's pseudo-class (`:root`, `:hover`), not an editor's.
		name, _, _ := strings.Cut(first[1:], "(")
		switch name {
		case "root", "hover", "focus", "focus-visible", "focus-within", "active", "visited", "link", "before", "after", "first-child",
			"last-child", "nth-child", "nth-of-type", "not", "is", "where", "has", "checked", "disabled", "enabled", "placeholder", "host", "empty":
			return false
		}
		return true
	}
	if len(t.code) > 0 && ex(t.code[0]) {
		return true
	}
	_, n := t.leading()
	w := t.words()
	return n < len(w) && !strings.ContainsRune(w[n], codeMark) && ex(w[n])
}

// verifyLineProse is the prose of a task's Verify lines ("- **Verify**:
// `sh deps.sh` — confirm only the standard library"), lower case, code
// spans dropped: where a task may ask for what its output shows.
func verifyLineProse(text string) string {
	return labelProse(text, "verify", "verification")
}

// labelProse is the prose (code spans left out) of a task's lines
// labelled with one of labels, lowercased, a line each.
func labelProse(text string, labels ...string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.ToLower(text), "\n") {
		l = strings.TrimLeft(strings.TrimSpace(l), "-*+ ")
		l = strings.TrimLeft(l, "*_")
		rest, ok := "", false
		for _, label := range labels {
			if r, found := strings.CutPrefix(l, label); found {
				r = strings.TrimLeft(r, "*_ ")
				if r, found = strings.CutPrefix(r, ":"); found {
					rest, ok = strings.TrimLeft(r, "*_ "), true
				}
			}
		}
		if !ok {
			continue
		}
		parts := strings.Split(rest, "`")
		for i := 0; i < len(parts); i += 2 {
			b.WriteString(parts[i])
			b.WriteByte(' ')
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// inspects reports whether a title's prose (lower case, code dropped) asks
// for what someone reads in a command's output, not its exit status:
// "Inspect the dependency tree: `mill show …` — confirm only circe", "run
// `grep …` and inspect every match", "compare against the baseline (`git
// show main:…`)". A command that prints what must be read passes whatever
// it prints: such a task needs a qa-engineer's judgement too (corpus nine).
func inspects(prose string) bool {
	if strings.HasPrefix(strings.TrimLeft(prose, " *_"), "inspect ") {
		return true
	}
	return containsAny(prose, "inspect every", "inspect each", "inspect all", "and inspect", "inspect the output", "inspect the result",
		"with expected output", "with the expected output", "with expected result", "with the expected result", "compare against", "compare with", "compared against", "compared with", "confirm only", "confirm the result is", "eyeball",
		"review every match", "review each match", "check each hit", "check every hit", "verify only the",
		// A test-first step's failure, for the expected reason: the
		// project's checks, which must pass, cannot stand for it.
		"fails for the expected", "fail for the expected", "fails as expected", "fail as expected", "confirm it fails",
		"confirm they fail", "verify it fails", "see it fail", "watch it fail")
}

// namesACs reports whether a title speaks of the acceptance criteria by
// their short name ("all ACs met", "ACs verified"): the word ACs, as
// written, not inside another word or a command.
func namesACs(prose string) bool {
	for _, w := range strings.Fields(prose) {
		if strings.Trim(w, ".,;:!?()*_") == "ACs" {
			return true
		}
	}
	return false
}

// personHeading reports whether a section's heading says its tasks are a
// person's checks: "Manual Verification Tasks", "Human checkpoints",
// "Manual QA", "Human-in-the-loop tasks", "Owner tasks", "Ручная проверка";
// not "Update the manual" or "Human resources API".
func personHeading(h string) bool {
	h = strings.ToLower(h)
	words := strings.Fields(h)
	for i, w := range words {
		if w = strings.Trim(w, ".,;:!?()*_#"); w != "manual" && w != "manually" && w != "human" && w != "person" && w != "human-in-the-loop" && w != "hitl" && w != "owner" && w != "operator" {
			continue
		}
		if i == 0 && len(words) == 1 {
			return w != "human" && w != "person"
		}
		// Up to four words on: "Manual Data Flow Test Plan", "Manual CRUD
		// Data Flow Testing" (a whole document's, corpus thirteen).
		for _, next := range words[i+1 : min(i+5, len(words))] {
			switch strings.Trim(next, ".,;:!?()*_") {
			case "test", "tests", "testing", "check", "checks", "checkpoint", "checkpoints", "verification", "verifications",
				"validation", "review", "qa", "e2e", "inspection", "tasks", "steps", "gate", "gates", "sign-off", "checklist",
				"scenario", "scenarios", "walkthrough", "session", "plan":
				return true
			}
		}
	}
	return containsAny(h, "ручная проверка", "ручные проверки", "manuelle prüfung", "manuelle tests", "verificación manual",
		"pruebas manuales", "verificação manual", "testes manuais", "手动验证", "人工验证", "手動テスト", "手動確認", "수동 테스트", "수동 검증")
}

// manual reports whether a person checks the task (said by its id, its
// kind, its title or its text): when it names no command, only the user's
// waiver ticks it, and no project check stands for it.
func manual(id, kind, title, text string) bool {
	if strings.Contains(strings.ToLower(id), "manual") || personKind(kind) {
		return true
	}
	// "Manual integration test", "Manual device/emulator testing:", "a
	// manual QA pass"; not "Update the manual" (the document).
	words := strings.Fields(strings.ToLower(title))
	for i, w := range words {
		if w = strings.Trim(w, ".,;:!?()*_"); w != "manual" && w != "manually" {
			continue
		}
		if i == 0 {
			return true
		}
		for _, next := range words[i+1 : min(i+3, len(words))] {
			switch strings.Trim(next, ".,;:!?()*_") {
			case "test", "tests", "testing", "check", "checks", "verification", "validation", "review", "qa", "e2e", "inspection", "run", "pass":
				return true
			}
		}
	}
	// A program's screenshot command ("All AC-5.x verified (screenshot
	// command)", a crawler's CLI) is no picture a person looks at.
	text = strings.ReplaceAll(text, "screenshot command", "command")
	if containsAny(text, "operator-verified", "operator verified", "verified by an operator", "manual verification", "manual check",
		"manually verif", "verify manually", "verified manually", "check manually", "checked manually", "by hand", "[manual]", "human verification",
		"**verify**: manual", "verify: manual", "verification: manual", "**test**: manual", "manual review", "manual timing", "manual observation",
		"manual measurement", "manual test", "manual e2e", "manual qa", "manual inspection",
		// A decision a person makes ("GO/NO-GO DECISION: PASS").
		"go/no-go decision", "go / no-go decision", "go-no-go decision", "go/no-go:", "**go/no-go**",
		// What a person looks at, not what a command checks (corpus five).
		"visual regression", "visually", "by eye", "devtools", "accessibility validation", "accessibility check", "screen reader",
		"on a real device", "on device", "emulator testing", "device testing", "physical device", "physical hardware",
		"on a physical", "on physical",
		// A browser a person drives, and a reviewer's look (corpus nine).
		"in browser", "in the browser", "in a browser", "浏览器", "chrome 插件", "ブラウザ", "브라우저",
		"human reviewer", "deferred to human", "visual smoke", "visual check", "visual inspection",
		// A game a person plays (corpus ten): how it feels is theirs to say.
		"playtest", "play-test", "play test", "playthrough", "play through", " feels ", " feel right",
		// A look at the running app or a device, in plain words (corpus
		// eleven): its console, a width, a phone, another app's window.
		"console errors", "console error", "px width", "look correct", "looks correct", "look right", "looks right",
		"browser shows", "the phone", "on a phone", "iphone", "in a spreadsheet", "spreadsheet app", "claude desktop",
		"reboot the", "after a reboot", "watch the logs", "watch logs",
		// Screenshots, keyboard accessibility and sign-offs (corpus eight),
		// in the languages task files are written in.
		"screenshot", "截图", "截屏", "スクリーンショット", "스크린샷", "keyboard accessibility", "키보드 접근성", "접근성",
		"アクセシビリティ", "无障碍", "sign-off", "sign off", "signs off", "signed off",
		// The same in the languages task files are written in (corpus six).
		"manualmente", "вручную", "ручная проверка", "ручной проверк", "manuell", "手動", "手动", "수동") {
		return true
	}
	ws := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' && r != '.' })
	for i, w := range ws {
		if w == "manual" || w == "manually" {
			// "a manual sanity pass", "manual smoke test 3 routes".
			for _, x := range ws[i+1 : min(i+5, len(ws))] {
				switch strings.Trim(x, ".") {
				case "test", "tests", "testing", "check", "checks", "verification", "validation", "review", "qa", "e2e", "inspection", "pass", "sanity", "smoke":
					return true
				}
			}
		}
	}
	return false
}

// needsPerson reports whether a task that names no command of its own
// checks what the agent cannot hold (corpus thirteen): a live third-party
// session, a real person's account, production and its DNS, a decision, a
// gesture on a device. A task that names its command is an automated test
// of those things (honest day 63: "the swipe test" with its `npm test`).
func needsPerson(text string) bool {
	if containsAny(text, "live session", "live-dom session", "live dom session", "load-unpacked", "load unpacked", "unpacked extension",
		"real corporate", "real account", "real user account", "real customer", "real card", "real payment", "real claude.ai",
		"via duo", "via sso", "via okta", "slack dm", "send a slack", "production host", "on production",
		"production environment", "before launch", "before go-live", "decide whether", "decide if",
		"landscape", "on hardware", "after play", "haptic", "claude desktop", "desktop app", "desktop client",
		"over long operation", "long-running operation", "over time", "overnight", "over several days", "over a week",
		"power cycle", "power-cycle", "判断を確定", "判断する", "意思決定",
		"fresh cluster", "new cluster", "production cluster", "staging cluster",
		// What a person's senses judge on the running app (corpus
		// thirteen's gap lists): a recording heard, a latency felt from
		// release to first word, a separation seen to be clear.
		"the recording", "latency measured", "measured latency", "clear separation", "clearly separated",
		// A walk through the running app as one of its users (corpus
		// eleven's role checks): what a signed-in role lands on and
		// reaches by its menu or the UI.
		"by menu", "by the menu", "from the menu", "via the ui", "through the ui", "lands on", "logged in as", "signed in as", "log in as", "sign in as") || anotherMachine(text) {
		return true
	}
	if containsAny(text, "round-trip", "round trip", "roundtrip") && slices.ContainsFunc(strings.Fields(text), func(w string) bool {
		w = strings.Trim(w, ".,;:()`*_")
		return w == "s3" || w == "gcs" || w == "bucket"
	}) {
		return true // a cloud store's round trip: real credentials, a real bucket
	}
	ws := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' && r != '.' })
	for i, w := range ws {
		w = strings.Trim(w, ".")
		switch w {
		case "dns", "spf", "dkim", "dmarc", "allowlist", "swipe", "swipe-to-delete", "tappable", "reboot", "rebooting", "reboots", "rebooted":
			return true
		}
		next := ws[i+1 : min(i+3, len(ws))]
		switch {
		case w == "phone" || w == "smartphone" || w == "iphone" || w == "ipad" || w == "tablet":
			// A device in a person's hand (a notification on the phone),
			// not a field of a form ("phone number validation").
			if len(next) == 0 || !slices.Contains([]string{"number", "numbers", "field", "fields", "format", "input", "column", "validation", "mask", "prefix"}, next[0]) {
				return true
			}
		case w == "real" || w == "live":
			// What the repository cannot provide: "a real Stripe
			// customer", "live round-trip", "real network blip".
			for _, x := range next {
				switch strings.Trim(x, ".") {
				case "account", "accounts", "customer", "customers", "key", "keys", "card", "cards", "network", "round-trip",
					"roundtrip", "soak", "user", "users", "device", "devices", "phone", "purchase", "payment", "payments", "inbox", "traffic",
					// A deployed system ("the probe matrix against the live
					// gate", "a real cluster").
					"gate", "site", "environment", "system", "instance", "deployment", "cluster":
					return true
				}
			}
		case w == "production" || w == "prod":
			// Production as a place: its image, host, redirect URI.
			for _, x := range next[:min(1, len(next))] {
				switch strings.Trim(x, ".") {
				case "image", "redirect", "uri", "url", "host", "server", "database", "db", "deploy", "deployment", "site", "cluster", "keys", "environment", "env", "traffic":
					return true
				}
			}
		case w == "needs" || w == "requires":
			// "blocked by: needs a UI account in another language", "needs
			// a live session"; not "needs T012 merged".
			for _, x := range ws[i+1 : min(i+8, len(ws))] {
				switch strings.Trim(x, ".") {
				case "account", "accounts", "session", "sessions", "device", "phone", "human", "person", "operator":
					return true
				}
			}
		}
		if strings.Contains(w, ".prod.") {
			return true // docker-compose.prod.yml: production's own files
		}
	}
	return false
}

// follows reports whether a command follows a service's output and never
// exits ("`sudo journalctl -u poller -f` → a line every 10 s", `tail -f`,
// `kubectl logs -f`): a person runs it and watches.
func follows(c string) bool {
	f := strings.Fields(c)
	if len(f) > 0 && f[0] == "sudo" {
		f = f[1:]
	}
	if len(f) == 0 {
		return false
	}
	switch path.Base(f[0]) {
	case "journalctl", "tail", "kubectl", "docker", "podman", "stern":
		return slices.Contains(f, "-f") || slices.Contains(f, "--follow") || slices.Contains(f, "-F")
	}
	return false
}

// anotherMachine reports whether a task's words put its check on a machine
// other than this one ("Fresh clone test: new machine, `git clone` → …"),
// or over days ("the timer runs daily (check with `systemctl
// list-timers`)"): a person's, whatever the commands they run there.
func anotherMachine(text string) bool {
	return containsAny(text, "new machine", "fresh machine", "clean machine", "another machine",
		"runs daily", "run daily", "runs nightly", "runs weekly", "every day", "every night", "each night", "over several days")
}

// prodFile reports whether a code span names production's own file
// (`docker-compose.prod.yml`, `.env.production`): its values are the
// deployment's, which a person holds.
func prodFile(code []string) bool {
	for _, c := range code {
		if f := strings.Fields(c); len(f) == 1 && (strings.Contains(c, ".prod.") || strings.HasSuffix(c, ".env.production")) {
			return true
		}
	}
	return false
}

// personKind reports whether a [VERIFY:KIND] tag names a check a person
// (or a browser or a running service rodin cannot drive) makes: with no
// command named, the project's own checks do not stand for it.
func personKind(kind string) bool {
	switch strings.ToUpper(kind) {
	case "MANUAL", "HUMAN", "OPERATOR", "BROWSER", "UI", "UX", "VISUAL", "DEVICE", "A11Y", "ACCESSIBILITY", "PERF", "PERFORMANCE", "API", "E2E":
		return true
	}
	return false
}

// plain is the text of an inline node's children.
func plain(n ast.Node, src []byte) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			v := t.Segment.Value(src)
			if n.Kind() == ast.KindCodeSpan && bytes.ContainsAny(v, "\r\n") {
				// A code span wrapped over lines: its line ending is a
				// space (CommonMark), never a second command (`make
				// x-down && make⏎x-up` ran the default target, corpus 13).
				v = bytes.Map(func(r rune) rune {
					if r == '\n' || r == '\r' {
						return ' '
					}
					return r
				}, v)
			}
			b.Write(v)
		} else {
			b.WriteString(plain(c, src))
		}
	}
	return b.String()
}

// itemSpan is the byte range of a list item's source: from its first
// line's start to the end of its last block's last line.
func itemSpan(item *ast.ListItem, src []byte) (int, int) {
	start, stop := -1, 0
	ast.Walk(item, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && n.Type() == ast.TypeBlock {
			if l := n.Lines(); l.Len() > 0 {
				if s := l.At(0).Start; start < 0 || s < start {
					start = s
				}
				if e := l.At(l.Len() - 1).Stop; e > stop {
					stop = e
				}
			}
		}
		return ast.WalkContinue, nil
	})
	if start < 0 {
		return 0, 0
	}
	// Back to the start of the line, so the text holds the box.
	for start > 0 && src[start-1] != '\n' {
		start--
	}
	return start, stop
}

func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

func lineOf(starts []int, off int) int {
	lo, hi := 0, len(starts)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if starts[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + 1
}

// Ticked are the tasks checked in next that were not checked in prev (a
// box flipped, or a task added already checked). A task with an id of its
// own is matched by its key, and is ticked again when its commands change
// (a checked task rewritten, or another renamed into its id, with other
// commands; its words alone may change: a heading or a task reworded,
// the check the same). A task told apart by its place (Step#3, @line7),
// whose key changes when a task is added or removed above it, is matched
// by its id, title, headings and commands among the checked tasks: a
// checked step moved down by a new one is no tick (the honest agent's, or
// the user's, added step), and a step reworded is a tick.
func Ticked(prev, next []Task) []Task {
	group := func(t Task) string { return t.PlaceFree() + "\x00" + strings.Join(t.Runs(), "\x00") }
	was := make(map[string][]*Task, len(prev))
	checkedByTitle := map[string]int{}
	for i := range prev {
		t := &prev[i]
		was[t.Key()] = append(was[t.Key()], t)
		if t.Checked {
			checkedByTitle[group(*t)]++
		}
	}
	// An open verification task gone in next (its words and commands no
	// task's): a checked task reworded in the same edit may have become it.
	// Asked only of a reworded task (a long file's edit rarely has one).
	gone := func() bool {
		inNext := make(map[string]bool, len(next))
		ids := make(map[string]bool, len(next))
		for _, t := range next {
			inNext[group(t)] = true
			if t.Verify {
				ids[t.ID] = true // a decoy of the id that is no check is not it
			}
		}
		for _, t := range prev {
			if !t.Verify || t.Checked {
				continue
			}
			// A task with an id of its own is gone when no task has its id
			// (reworded, or under a renamed heading, it is there); one told
			// apart by its place, when none has its words and commands.
			if Positional(t.Ref) || t.ID == "" {
				if !inNext[group(t)] {
					return true
				}
			} else if !ids[t.ID] {
				return true
			}
		}
		return false
	}
	// A checked task of an id of its own whose words, headings and
	// commands were a checked task's under another id, each once in its
	// file: the same task renumbered (spec-kit writes its file again when a
	// task is inserted, and every id below moves), no tick. Built when asked.
	var prevChecked, nextAll map[string]int
	renumbered := func(t Task) bool {
		// A verification task's (its tag is in its words): the maps hold
		// those alone, a long file's other tasks cost nothing.
		if !t.Verify || t.ID == "" || Positional(t.Ref) {
			return false
		}
		if prevChecked == nil {
			prevChecked, nextAll = map[string]int{}, map[string]int{}
			for _, o := range prev {
				if o.Verify && o.Checked && o.ID != "" && !Positional(o.Ref) {
					prevChecked[content(o)]++
				}
			}
			for _, o := range next {
				if o.Verify {
					nextAll[content(o)]++
				}
			}
		}
		c := content(t)
		if prevChecked[c] != 1 || nextAll[c] != 1 {
			return false
		}
		for _, o := range prev {
			if o.Verify && o.Checked && content(o) == c {
				return o.ID != t.ID
			}
		}
		return false
	}
	seen := make(map[string]int, len(next))
	var out []Task
	for _, t := range next {
		if !Positional(t.Ref) {
			k := t.Key()
			i := seen[k]
			seen[k]++
			if i < len(was[k]) {
				old := was[k][i]
				same := !t.Checked || !old.Checked || sameTask(*old, t) || sameNeed(*old, t) && !gone()
				if t.Checked && (!old.Checked || !same) && !renumbered(t) {
					out = append(out, t)
				}
				continue
			}
		}
		switch g := group(t); {
		case !t.Checked:
		case checkedByTitle[g] > 0:
			checkedByTitle[g]--
		case renumbered(t):
		default:
			out = append(out, t)
		}
	}
	return out
}

// content is what a task of an id of its own is without its id: its
// title, headings and commands (a renumbered task keeps them).
func content(t Task) string {
	return ContentOf(titleNoStep(t.Title), t.Section, t.Runs())
}

// ContentOf is content's key from its parts (a snapshot of a task keeps
// its title and headings as PlaceFree has them). Ids cited in the title
// ("Checkpoint after T002-T003") are masked: a renumbering moves them too.
func ContentOf(title, section string, runs []string) string {
	return maskIDs(title) + "\x00" + section + "\x00" + strings.Join(runs, "\x00")
}

// maskIDs replaces in s each word-bounded id of spec-kit's shape (one to
// three capitals then two to four digits: T002, US12) with "#".
func maskIDs(s string) string {
	isUpper := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	isWord := func(c byte) bool { return isUpper(c) || isDigit(c) || c >= 'a' && c <= 'z' || c == '_' }
	var b strings.Builder
	for i := 0; i < len(s); {
		if i == 0 || !isWord(s[i-1]) {
			j := i
			for j < len(s) && j-i < 3 && isUpper(s[j]) {
				j++
			}
			k := j
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			if j > i && k-j >= 2 && k-j <= 4 && (k == len(s) || !isWord(s[k])) {
				b.WriteByte('#')
				i = k
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// sameNeed reports whether b asks what a asks: its commands, a person, a
// qa-engineer (its words may differ: a task or its heading reworded).
func sameNeed(a, b Task) bool {
	return sameRuns(a, b) && a.Manual == b.Manual && a.AC == b.AC
}

// sameTask reports whether a and b are the same task by what tells a task
// apart without its place (PlaceFree) and its commands, as Ticked's group
// has it, without building either (a long file's edit compares hundreds).
func sameTask(a, b Task) bool {
	return a.ID == b.ID && a.Section == b.Section && titleNoStep(a.Title) == titleNoStep(b.Title) && sameRuns(a, b)
}

func sameRuns(a, b Task) bool {
	if len(a.Commands) != len(b.Commands) {
		return false
	}
	for i := range a.Commands {
		if a.Commands[i].Run != b.Commands[i].Run {
			return false
		}
	}
	return true
}

// titleNoStep is a title without a step's number ("3: [VERIFY] unit
// tests pass" is the same step renumbered).
func titleNoStep(title string) string {
	if first, rest, ok := strings.Cut(title, " "); ok && isStepNumber(first) {
		return rest
	}
	return title
}

// PlaceFree is what tells a task apart without its place: its id, its
// title without a step's number ("3: [VERIFY] unit tests pass" is the same
// step renumbered), and the heading it stands under.
func (t Task) PlaceFree() string {
	return t.ID + "\x00" + titleNoStep(t.Title) + "\x00" + t.Section
}

// Positional reports whether a ref tells its task apart by its place in
// the file (an id repeated, Step#3; no id, @line7): a task added or removed
// above it changes it.
func Positional(ref string) bool { return strings.Contains(ref, "#") || strings.HasPrefix(ref, "@") }

// LineEnds is src with each lone carriage return made a line feed: old Mac
// files end their lines so, CommonMark (and every reader an agent's loop
// may use) takes it for a line ending, and goldmark does not. The length is
// the same, so offsets and line numbers read from it hold for src. It is
// src itself when src has no lone carriage return.
func LineEnds(src []byte) []byte {
	i := bytes.IndexByte(src, '\r')
	if i < 0 {
		return src
	}
	var out []byte
	for ; i < len(src); i++ {
		if src[i] != '\r' || i+1 < len(src) && src[i+1] == '\n' {
			continue
		}
		if out == nil {
			out = append([]byte(nil), src...)
		}
		out[i] = '\n'
	}
	if out == nil {
		return src
	}
	return out
}

func bytesTrimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return b[3:]
	}
	return b
}
