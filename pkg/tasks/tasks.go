// Package tasks reads a task file: the `tasks.md` of spec-driven workflows,
// a Markdown list of checkbox tasks, some of them verification tasks
// (`- [ ] V4 [VERIFY] Full local CI: pnpm lint && pnpm test`).
//
// It parses with goldmark and a GFM task-list checkbox parser, never with
// line patterns: a
// checkbox inside a code block is text, and a task is exactly what a
// Markdown renderer would show with a box.
package tasks

import (
	"bytes"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// MaxSize is the largest task file rodin reads; a larger one is refused
// (the gate denies ticking a box in it, with that reason).
const MaxSize = 4 << 20

// Task is one checkbox list item.
type Task struct {
	ID      string // the first word after the box: V4, 1.3
	Title   string // the rest of the item's first line, as written
	Checked bool
	Line    int // 1-based line of the box
	// Verify is set when the title holds [VERIFY].
	Verify bool
	// Commands are what a verification task runs, in order: the title's
	// text after its ':' split on ` && `, else the commands in backticks on
	// its **Verify** line. Empty means "the project's quality commands"
	// (or, for an AC task, only a qa-engineer run).
	Commands []string
	// AC is set for a verification task that checks acceptance criteria
	// (the AC checklist): it needs a qa-engineer run.
	AC bool
	// Text is the item's whole source, for matching a qa-engineer prompt.
	Text string
}

// Key identifies a task within its file across edits: its ID, or its title
// when it has none, with a counter for repeats.
func (t Task) Key() string { return t.ID }

// Name is how messages name the task: "V4 [VERIFY] Full local CI".
func (t Task) Name() string {
	s := strings.TrimSpace(t.ID + " " + t.Title)
	if i := strings.Index(s, ":"); i > 0 && t.Verify {
		s = s[:i]
	}
	return s
}

// md is built on first use, not at package init: the hooks that link this
// package mostly never parse a task file.
var md = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(append(parser.DefaultInlineParsers(), util.Prioritized(checkboxParser{}, 0))...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
})

// Parse returns the tasks of a task file in document order.
func Parse(src []byte) []Task {
	if len(src) > MaxSize {
		return nil
	}
	root := md().Parse(text.NewReader(src))
	lines := lineStarts(src)
	var out []Task
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		item, ok := n.(*ast.ListItem)
		if !ok {
			return ast.WalkContinue, nil
		}
		if t, ok := readTask(item, src, lines); ok {
			out = append(out, t)
		}
		return ast.WalkContinue, nil
	})
	return out
}

func readTask(item *ast.ListItem, src []byte, lines []int) (Task, bool) {
	first := item.FirstChild()
	if first == nil || first.FirstChild() == nil {
		return Task{}, false
	}
	box, ok := first.FirstChild().(*east.TaskCheckBox)
	if !ok || first.Lines().Len() == 0 {
		return Task{}, false
	}
	seg := first.Lines().At(0)
	line := string(bytes.TrimRight(seg.Value(src), "\r\n"))
	// The line starts with the box itself: "[ ] V4 …".
	title := strings.TrimSpace(line)
	if len(title) >= 3 && title[0] == '[' && title[2] == ']' {
		title = strings.TrimSpace(title[3:])
	}
	t := Task{Checked: box.IsChecked, Line: lineOf(lines, seg.Start)}
	if id, rest, ok := strings.Cut(title, " "); ok {
		t.ID, t.Title = id, strings.TrimSpace(rest)
	} else {
		t.ID = title
	}
	t.Verify = strings.Contains(title, "[VERIFY]")
	start, stop := itemSpan(item, src)
	t.Text = string(src[start:stop])
	if !t.Verify {
		return t, true
	}
	lower := strings.ToLower(t.Title + "\n" + t.Text)
	t.AC = strings.Contains(lower, "ac checklist") || strings.Contains(lower, "acceptance criteri")
	_, afterTag, _ := strings.Cut(title, "[VERIFY]")
	if _, after, ok := strings.Cut(afterTag, ":"); ok && strings.TrimSpace(after) != "" {
		for _, c := range strings.Split(after, " && ") {
			if c = unquote(strings.TrimSpace(c)); c != "" {
				t.Commands = append(t.Commands, c)
			}
		}
	} else {
		t.Commands = verifyLineCommands(item, src)
	}
	return t, true
}

// unquote drops the backticks around a command written as code.
func unquote(c string) string {
	if len(c) >= 2 && c[0] == '`' && c[len(c)-1] == '`' {
		return strings.TrimSpace(c[1 : len(c)-1])
	}
	return c
}

// verifyLineCommands are the code spans of the task's **Verify** line: the
// block (a paragraph or a list item's text) that starts with a strong
// "Verify".
func verifyLineCommands(item *ast.ListItem, src []byte) []string {
	var out []string
	found := false
	ast.Walk(item, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || found || n == item {
			return ast.WalkContinue, nil
		}
		if n.Kind() != ast.KindParagraph && n.Kind() != ast.KindTextBlock {
			return ast.WalkContinue, nil
		}
		em, ok := n.FirstChild().(*ast.Emphasis)
		if !ok || em.Level != 2 || !strings.HasPrefix(strings.TrimSpace(plain(em, src)), "Verify") {
			return ast.WalkSkipChildren, nil
		}
		found = true
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if c.Kind() == ast.KindCodeSpan {
				if s := strings.TrimSpace(plain(c, src)); s != "" {
					out = append(out, s)
				}
			}
		}
		return ast.WalkStop, nil
	})
	return out
}

// plain is the text of an inline node's children.
func plain(n ast.Node, src []byte) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Segment.Value(src))
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

// Ticked are the tasks checked in next that were not checked in prev (a box flipped, or a task added already checked), matched by
// key. A task whose key repeats is matched by its position among those
// with that key.
func Ticked(prev, next []Task) []Task {
	was := map[string][]bool{}
	for _, t := range prev {
		was[t.Key()] = append(was[t.Key()], t.Checked)
	}
	seen := map[string]int{}
	var out []Task
	for _, t := range next {
		k := t.Key()
		i := seen[k]
		seen[k]++
		before := i < len(was[k]) && was[k][i]
		if t.Checked && !before {
			out = append(out, t)
		}
	}
	return out
}
