package exercise

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Splice puts section (a "## Exercise Test Results" section) into doc: in
// place of the section of that name, which runs to the next heading of
// level 2 or less, or at the end. Headings are found with goldmark, so one
// inside a code fence is text.
func Splice(doc []byte, section string) []byte {
	start, stop := -1, len(doc)
	root := goldmark.New().Parser().Parse(text.NewReader(doc))
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok || h.Level > 2 || h.Lines().Len() == 0 {
			continue
		}
		at := lineStart(doc, h.Lines().At(0).Start)
		if start >= 0 {
			stop = at
			break
		}
		if h.Level == 2 && headingText(h, doc) == Heading {
			start = at
		}
	}
	var b bytes.Buffer
	if start < 0 {
		b.Write(doc)
		if len(doc) > 0 {
			if !bytes.HasSuffix(doc, []byte("\n")) {
				b.WriteByte('\n')
			}
			b.WriteByte('\n')
		}
		b.WriteString(section)
		return b.Bytes()
	}
	b.Write(doc[:start])
	b.WriteString(section)
	if stop < len(doc) {
		b.WriteByte('\n')
		b.Write(doc[stop:])
	}
	return b.Bytes()
}

func lineStart(doc []byte, i int) int {
	for i > 0 && doc[i-1] != '\n' {
		i--
	}
	return i
}

func headingText(h *ast.Heading, doc []byte) string {
	seg := h.Lines().At(0)
	return strings.TrimSpace(string(seg.Value(doc)))
}
