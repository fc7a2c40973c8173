package tasks

import (
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// checkboxParser reads a GFM task-list checkbox, `[ ]`, `[x]` or `[X]`,
// at the start of a list item's first block, as goldmark's TaskList
// extension does. It is rodin's own because importing that extension
// package costs every hook about a millisecond of package initialisation
// (it compiles the linkify patterns), and the hooks start for every Bash
// command.
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
	switch line[1] {
	case ' ', '\t', 'x', 'X':
	default:
		return nil
	}
	n := 3
	for n < len(line) && (line[n] == ' ' || line[n] == '\t' || line[n] == '\n' || line[n] == '\r' || line[n] == '\f') {
		n++
	}
	block.Advance(n)
	return east.NewTaskCheckBox(line[1] == 'x' || line[1] == 'X')
}

func (checkboxParser) CloseBlock(ast.Node, parser.Context) {}
