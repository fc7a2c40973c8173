package exercise

import (
	"regexp"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Criterion is one acceptance criterion of a requirements file.
type Criterion struct {
	ID     string  `json:"id"`    // AC1, AC-2
	Title  string  `json:"title"` // the rest of its heading or first line
	Text   string  `json:"text"`  // its whole text (Given/When/Then), for the evaluator
	Checks []Check `json:"checks,omitempty"`
}

// Check is evidence a criterion names that rodin verifies itself, written
// as a list item in the criterion: a keyword, then code spans.
//
//   - file `greeting.txt`                   the file exists in the project afterwards
//   - file `greeting.txt` contains `Hello`  … and holds that text
//   - no file `dist/`                       nothing at or under that path
//   - tool `AskUserQuestion`                a call of that tool succeeded
//   - tool `Bash` with `npm test`           … one whose input holds that text
//   - no tool `Write`                       no call of that tool
//   - command `npm test`                    a shell command holding that text ran, or was kept from running (gh)
//   - output `Done`                         the session's final message holds that text
type Check struct {
	Kind string `json:"kind"` // file, no file, tool, no tool, command, output
	Arg  string `json:"arg"`
	With string `json:"with,omitempty"` // contains/with text
}

func (c Check) String() string {
	s := c.Kind + " `" + c.Arg + "`"
	if c.With != "" {
		if c.Kind == "file" {
			s += " contains `" + c.With + "`"
		} else {
			s += " with `" + c.With + "`"
		}
	}
	return s
}

var acID = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:\*\*)?(AC-?[0-9]+[a-z]?)(?:\*\*)?\s*(?:[:.\-–—)]\s*)?(?:\*\*)?\s*(.*)$`)
})

// ParseSpec returns the acceptance criteria of a requirements file: each
// heading that starts with an AC id (### AC1: Title, with its
// Given/When/Then below, until the next heading as deep or deeper), and
// each list item or paragraph that does (- **AC-2**: text).
func ParseSpec(src []byte) []Criterion {
	root := goldmark.New().Parser().Parse(text.NewReader(src))
	var out []Criterion
	var cur *Criterion
	curLevel := 0
	flush := func() {
		if cur != nil {
			cur.Text = strings.TrimSpace(cur.Text)
			out = append(out, *cur)
			cur = nil
		}
	}
	start := func(n ast.Node) (*Criterion, bool) {
		first := firstLine(n, src)
		m := acID().FindStringSubmatch(first)
		if m == nil {
			return nil, false
		}
		title := strings.TrimSpace(strings.Trim(m[2], "*"))
		return &Criterion{ID: m[1], Title: title}, true
	}
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		switch b := n.(type) {
		case *ast.Heading:
			if c, ok := start(b); ok {
				flush()
				cur, curLevel = c, b.Level
				continue
			}
			if cur != nil && b.Level <= curLevel {
				flush()
				continue
			}
		case *ast.List:
			// A list of criteria (- AC-1: …), or checks of the current one.
			for item := b.FirstChild(); item != nil; item = item.NextSibling() {
				if c, ok := start(item); ok {
					flush()
					c.Text = blockText(item, src)
					c.Checks = checksIn(item, src)
					out = append(out, *c)
					continue
				}
				if cur != nil {
					if ck, ok := parseCheck(item, src); ok {
						cur.Checks = append(cur.Checks, ck)
					} else {
						cur.Checks = append(cur.Checks, checksIn(item, src)...)
					}
					cur.Text += "\n- " + blockText(item, src)
				}
			}
			continue
		case *ast.Paragraph:
			if c, ok := start(b); ok {
				flush()
				c.Text = blockText(b, src)
				cur, curLevel = c, 99 // a paragraph criterion owns what follows, up to any heading
				continue
			}
		}
		if cur != nil {
			cur.Text += "\n" + blockText(n, src)
		}
	}
	flush()
	return out
}

// checksIn finds the checks among the list items under n.
func checksIn(n ast.Node, src []byte) []Check {
	var out []Check
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && c != n && c.Kind() == ast.KindListItem {
			if ck, ok := parseCheck(c, src); ok {
				out = append(out, ck)
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}

// parseCheck reads a list item as a check: its first paragraph is a
// keyword, a code span, and optionally "contains"/"with" and another.
func parseCheck(item ast.Node, src []byte) (Check, bool) {
	p := item.FirstChild()
	if p == nil || (p.Kind() != ast.KindParagraph && p.Kind() != ast.KindTextBlock) {
		return Check{}, false
	}
	var words []string
	var codes []string
	for c := p.FirstChild(); c != nil; c = c.NextSibling() {
		switch c.Kind() {
		case ast.KindCodeSpan:
			codes = append(codes, inline(c, src))
			words = append(words, "\x00")
		default:
			words = append(words, strings.Fields(strings.ToLower(inline(c, src)))...)
		}
	}
	// words: kw… \x00 [contains|with \x00] [trailing prose]
	var kw []string
	i := 0
	for ; i < len(words) && words[i] != "\x00"; i++ {
		kw = append(kw, strings.Trim(words[i], ":"))
	}
	kind := strings.Join(kw, " ")
	switch kind {
	case "file", "no file", "tool", "no tool", "command", "output":
	default:
		return Check{}, false
	}
	if len(codes) == 0 {
		return Check{}, false
	}
	ck := Check{Kind: kind, Arg: codes[0]}
	if len(codes) > 1 && i+2 < len(words) && (words[i+1] == "contains" || words[i+1] == "with") && words[i+2] == "\x00" {
		ck.With = codes[1]
	}
	return ck, true
}

// inline is the text of an inline node (a code span's content as is).
func inline(n ast.Node, src []byte) string {
	if t, ok := n.(*ast.Text); ok {
		s := string(t.Segment.Value(src))
		if t.SoftLineBreak() {
			s += " "
		}
		return s
	}
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b.WriteString(inline(c, src))
	}
	return b.String()
}

// firstLine is the first line of a block's text.
func firstLine(n ast.Node, src []byte) string {
	for n != nil && n.Type() == ast.TypeBlock && n.Lines().Len() == 0 && n.FirstChild() != nil {
		n = n.FirstChild()
	}
	if n == nil || n.Lines().Len() == 0 {
		return ""
	}
	seg := n.Lines().At(0)
	return strings.TrimSpace(string(seg.Value(src)))
}

// blockText is a block's source text, every line.
func blockText(n ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && c.Type() == ast.TypeBlock && c.Lines().Len() > 0 {
			lines := c.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				b.Write(seg.Value(src))
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(b.String())
}
