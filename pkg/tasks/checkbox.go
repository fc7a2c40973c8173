package tasks

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/rodin-gate/rodin/internal/lazy"
)

// checkBox is a task-list box at the start of a list item: GFM's `[ ]`,
// `[x]` and `[X]`, Kiro's `[-]` and others' `[/]` (in progress: not done) and `[ ]*`
// (an optional task).
type checkBox struct {
	ast.BaseInline
	Checked, InProgress, Optional bool
}

// kindCheckBox is registered on first use, not at package init: the hooks
// that link this package mostly never parse a task file.
var kindCheckBox lazy.Value[ast.NodeKind]

func (n *checkBox) Kind() ast.NodeKind {
	return kindCheckBox.Get(func() ast.NodeKind { return ast.NewNodeKind("RodinCheckBox") })
}

func (n *checkBox) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// checkboxParser reads the box at the start of a list item's first block,
// as goldmark's TaskList extension does (and Kiro's two markers). It is
// rodin's own because importing that extension package costs every hook
// about a millisecond of package initialisation (it compiles the linkify
// patterns), and the hooks start for every Bash command.
type checkboxParser struct{}

func (checkboxParser) Trigger() []byte { return []byte{'['} }

func (checkboxParser) Parse(parent ast.Node, block text.Reader, _ parser.Context) ast.Node {
	item := parent.Parent()
	if item == nil || item.FirstChild() != parent || parent.HasChildren() {
		return nil
	}
	if _, ok := item.(*ast.ListItem); !ok {
		return nil
	}
	line, _ := block.PeekLine()
	if len(line) < 3 || line[0] != '[' || line[2] != ']' {
		return nil
	}
	box := &checkBox{}
	switch line[1] {
	case ' ', '\t':
	case 'x', 'X':
		box.Checked = true
	case '-', '/':
		// Kiro's `[-]`, and `[/]` of other planners (Antigravity, the
		// Obsidian Tasks convention): in progress, not done.
		box.InProgress = true
	default:
		return nil
	}
	n := 3
	if n < len(line) && line[n] == '*' {
		box.Optional = true
		n++
	}
	// A box is followed by white space or the end of the line; also by a
	// space of another script (a no-break space looks the same in an
	// editor) or, with none, by the task's first word (`[x]V1`): readers
	// and the loops that grep for `[x]` take those for boxes too.
	if n < len(line) && !isSpace(line[n]) {
		r, _ := utf8.DecodeRune(line[n:])
		if !unicode.IsSpace(r) && !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Cf, r) {
			return nil
		}
	}
	for n < len(line) {
		// Spaces, and format characters (a zero-width space), which show
		// nothing.
		r, size := utf8.DecodeRune(line[n:])
		if !isSpace(line[n]) && !unicode.IsSpace(r) && !unicode.Is(unicode.Cf, r) {
			break
		}
		n += size
	}
	block.Advance(n)
	return box
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func (checkboxParser) CloseBlock(ast.Node, parser.Context) {}

// Unboxed is the line (1-based) of src that holds a task's title (after
// its id) but is no task of now, its box taken away or written so that no
// reader of task lists takes it for one: a zero-width space inside the box,
// a no-break space after the dash, a Cyrillic х, `［x］`, `[✓]`, `✅`, `~~…~~`,
// a table cell, an HTML comment, a code span, `V1 …` alone (attacks 68
// and 70). It may look done to a person and a loop, and no gate judges it.
// A line that speaks of the task in words ("See V1 …") is none. 0 when
// there is none.
func Unboxed(src []byte, now []Task, id, title string) int {
	title = strings.TrimSpace(title)
	if title == "" {
		return 0
	}
	tasksAt := map[int]bool{}
	for _, t := range now {
		tasksAt[t.Line] = true
	}
	blank := func(r rune) bool { return unicode.IsSpace(r) || IsFormat(r) }
	for i, line := range strings.Split(string(src), "\n") {
		j := strings.Index(line, title)
		if j < 0 || tasksAt[i+1] {
			continue
		}
		prefix := line[:j]
		if id != "" {
			if k := strings.LastIndex(prefix, id); k >= 0 {
				prefix = prefix[:k] + prefix[k+len(id):]
			}
		}
		prefix = strings.TrimFunc(prefix, blank)
		if len(prefix) > 40 {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(prefix); prefix == "" || !unicode.IsLetter(r) {
			return i + 1
		}
	}
	return 0
}

// LooksTicked reports whether a line that is no task looks like a ticked
// box to a reader: after any marker, quote or cell of another script, a
// bracket, one or two signs that are no space, and a bracket (a dash and a
// no-break space before `[x]`, `［x］`, an x and a zero-width space, `[✓]`,
// `~~- [x]`).
func LooksTicked(line string) bool {
	if !strings.ContainsAny(line[:min(len(line), 64)], "[［") {
		return false // most lines: no bracket near their start
	}
	l := strings.TrimLeftFunc(line, func(r rune) bool {
		return unicode.IsSpace(r) || IsFormat(r) || strings.ContainsRune("-*+•‣◦⁃–—‐>~|#", r) || unicode.IsDigit(r) || r == '.' || r == ')'
	})
	if !strings.HasPrefix(l, "[") && !strings.HasPrefix(l, "［") {
		return false
	}
	rs := []rune(l[:min(len(l), 24)])
	if len(rs) < 3 {
		return false
	}
	for k := 2; k <= 4 && k < len(rs); k++ {
		if rs[k] == ']' || rs[k] == '］' {
			// An x, or signs of other scripts (х, ｘ, ✓, ×): not a
			// footnote's [1] nor a link's [a].
			inner := strings.TrimFunc(string(rs[1:k]), func(r rune) bool { return IsFormat(r) || unicode.IsSpace(r) })
			return inner != "" && strings.IndexFunc(inner, func(r rune) bool { return r < 128 && r != 'x' && r != 'X' }) < 0
		}
	}
	return false
}

// InFence reports whether line n (1-based) of src lies in a fenced code
// block, its fences too.
func InFence(src []byte, n int) bool {
	in := false
	eachLine(src, func(k int, _ []byte, fenced bool) bool {
		in = fenced
		return k < n
	})
	return in
}

// eachLine calls f with each line of src (1-based), without its line
// ending, and whether it lies in a fenced code block (its fences too),
// until f returns false.
func eachLine(src []byte, f func(n int, line []byte, fenced bool) bool) {
	fence := ""
	for n, rest := 1, src; len(rest) > 0; n++ {
		l := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		t := bytes.TrimLeft(l, " \t>")
		fenced := fence != ""
		switch {
		case fenced:
			if bytes.HasPrefix(t, []byte(fence)) && len(bytes.TrimSpace(bytes.TrimLeft(t, fence[:1]))) == 0 {
				fence = ""
			}
		case bytes.HasPrefix(t, []byte("```")), bytes.HasPrefix(t, []byte("~~~")):
			fenced = true
			fence = string(t[:len(t)-len(bytes.TrimLeft(t, string(t[:1])))])
		}
		if !f(n, l, fenced) {
			return
		}
	}
}

// NamesID reports whether line holds id as a word of its own: V1 in
// "- [x] V1 …", not in "V10" nor "1.2" in "1.23".
func NamesID(line, id string) bool {
	if id == "" {
		return false
	}
	for k := 0; ; {
		i := strings.Index(line[k:], id)
		if i < 0 {
			return false
		}
		i += k
		before, _ := utf8.DecodeLastRuneInString(line[:i])
		rest := line[i+len(id):]
		after, _ := utf8.DecodeRuneInString(rest)
		wordy := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
		if (i == 0 || !wordy(before)) && (rest == "" || !wordy(after) && !(after == '.' && len(rest) > 1 && rest[1] >= '0' && rest[1] <= '9')) {
			return true
		}
		k = i + len(id)
	}
}

// LookalikeLines are the lines (1-based) of src that look like a ticked
// box (LooksTicked) but have none (boxed, by line, says which have one),
// outside fenced code: one pass over the file, most lines passed over at
// their first bytes.
func LookalikeLines(src []byte, boxed func(line int) bool) []int {
	var out []int
	eachLine(src, func(n int, l []byte, fenced bool) bool {
		if !fenced && bytes.ContainsAny(l[:min(len(l), 64)], "[［") && !boxed(n) && LooksTicked(string(l)) {
			out = append(out, n)
		}
		return true
	})
	return out
}
