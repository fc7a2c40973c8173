package planfile

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/rodin-gate/rodin/internal/par"
)

// classify finds the metadata lines, the gaps block, the headings and the
// list items.
func (d *Doc) classify() { d.classifyFrom(splitPoints) }

// classifyFrom is classify with the pieces chosen by split (tests force
// every seam the file has).
func (d *Doc) classifyFrom(split func(d *Doc, n int) []int) {
	if len(d.lines) == 0 {
		return
	}
	if i, deep, ok := d.tooDeep(); ok {
		// goldmark's work grows with the square of the nesting: a line of
		// thousands of `>` takes seconds. Such a file is refused unread,
		// every line left as text; the digests are computed anyway.
		if deep {
			d.problem(i, "block quotes or lists nested deeper than %d levels; rodin does not read plans nested that deep", MaxNesting)
		} else {
			d.problem(i, "block quotes, lists or indentation nested deep on too many lines (from here on, more than %d levels past %d or %d columns past %d in all); rodin reads plans nested that deep on a few lines only", maxDeepWork, deepFrom, maxIndentWork, indentFrom)
		}
		return
	}
	scans := d.parse(split(d, parts(len(d.norm))))
	for _, s := range scans {
		d.headings = append(d.headings, s.headings...)
		d.items = append(d.items, s.items...)
		d.probs = append(d.probs, s.probs...)
	}
	d.structure()
}

// A large plan is parsed in pieces, one per CPU, split where CommonMark
// starts afresh (see splitPoints). splitSize is the least text per piece
// worth a goroutine: below it the parse takes about as long as starting one.
const splitSize = 256 << 10

func parts(size int) int {
	return max(1, min(runtime.GOMAXPROCS(0), size/splitSize))
}

// parse runs goldmark over the lines, in pieces starting at the given line
// indexes (the first is 0). Pieces whose seams do not hold are parsed again
// as one text, so the result is always that of a parse of the whole file.
func (d *Doc) parse(starts []int) []*scan {
	scans := make([]*scan, len(starts))
	for i, lo := range starts {
		hi := len(d.lines)
		if i+1 < len(starts) {
			hi = starts[i+1]
		}
		scans[i] = &scan{d: d, lo: lo, hi: hi, lastLine: lo}
	}
	par.Do(len(scans), func(i int) { scans[i].run() })
	for _, s := range scans {
		if s.overBudget {
			// Refused unread, as a file nested too deep is.
			d.unclassifyLines()
			return []*scan{{probs: s.probs}}
		}
	}
	for _, s := range scans[:len(scans)-1] {
		if !s.endsFresh() {
			d.unclassifyLines()
			whole := &scan{d: d, lo: 0, hi: len(d.lines)}
			whole.run()
			return []*scan{whole}
		}
	}
	return scans
}

// splitPoints chooses where n pieces of the text start: at a line k where
// the parse of the whole file closes every block it has open and starts
// afresh. Line k-1 is blank, which closes paragraphs, block quotes and
// HTML blocks of kinds 6 and 7, and line k starts in column 0 with a
// character that cannot continue a list or a block quote, which closes
// those and indented code. Only a fenced code block or an HTML block of
// kinds 1 to 5 can stay open across both; scan.endsFresh checks for them
// once the piece before the seam has been parsed.
func splitPoints(d *Doc, n int) []int {
	starts := []int{0}
	for p := 1; p < n; p++ {
		target := sort.Search(len(d.lines), func(i int) bool { return d.lines[i].start >= p*len(d.norm)/n })
		for k := max(target, starts[len(starts)-1]+1); k < len(d.lines); k++ {
			if d.startsAfresh(k) {
				starts = append(starts, k)
				break
			}
		}
	}
	return starts
}

// startsAfresh reports whether line k can begin a piece (see splitPoints).
func (d *Doc) startsAfresh(k int) bool {
	if k == 0 || len(bytes.Trim(d.lineText(k-1), " \t")) > 0 {
		return false
	}
	t := d.lineText(k)
	if len(t) == 0 {
		return false
	}
	c := t[0]
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '#' || c == '`' || c == '~' || c == '<'
}

// scan is the parse of the lines [lo, hi). Pieces run concurrently: each
// writes only its own lines and its own lists, which classify merges in
// file order.
type scan struct {
	d        *Doc
	lo, hi   int
	lastLine int // lineAt's previous answer
	root     ast.Node

	headings, items []span
	probs           []problem

	work, budget int  // metered calls so far, and how many the piece may make
	overBudget   bool // the parse stopped there
}

// errOverBudget stops a parse whose structure costs more than its budget.
var errOverBudget = errors.New("over budget")

func (s *scan) spend() {
	if s.work++; s.work > s.budget {
		panic(errOverBudget)
	}
}

// parseBudget is how many metered calls a piece of n bytes may make: prose
// makes one per 50 bytes, a realistic plan one per 3, a plan of nothing
// but `- a` lines two per byte; tooDeep refuses the shapes that make more
// before the parse starts, and this bounds whatever it does not foresee.
func parseBudget(n int) int { return 4096 + 4*n }

// run parses the piece: goldmark reads from the start of line lo to the
// end of line hi-1, with offsets into the whole normalized text.
func (s *scan) run() {
	d := s.d
	src := d.norm
	if s.hi < len(d.lines) {
		src = d.norm[:d.lines[s.hi].start]
	}
	r := text.NewReader(src)
	if s.lo > 0 {
		at := d.lines[s.lo].start
		r.SetPosition(s.lo-1, text.NewSegment(at, at))
		r.AdvanceLine()
	}
	s.budget = parseBudget(d.lines[s.hi-1].end - d.lines[s.lo].start)
	if !s.parseWithin(r) {
		return
	}
	_ = ast.Walk(s.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.HTMLBlock:
			segs := n.Lines()
			for i := 0; i < segs.Len(); i++ {
				s.markHTMLLine(segs.At(i).Start)
			}
			if n.HasClosure() {
				s.markHTMLLine(n.ClosureLine.Start)
			}
			return ast.WalkSkipChildren, nil
		case *ast.Heading:
			// An empty heading ("##") has no segments and names nothing.
			if segs := n.Lines(); segs.Len() > 0 {
				seg := segs.At(0)
				line := s.lineAt(seg.Start)
				s.headings = append(s.headings, span{line, n.Level, seg.Start, seg.Stop, line})
			}
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
}

// parseWithin parses the piece unless its structure costs more than its
// budget; then it records a problem at the line the parse had reached, and
// the file is refused unread as one nested too deep is.
func (s *scan) parseWithin(r text.Reader) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			if v != errOverBudget {
				panic(v)
			}
			line, _ := r.Position()
			s.headings, s.items, s.root = nil, nil, nil
			s.probs = append(s.probs, problem{max(line, s.lo), fmt.Sprintf("its Markdown structure costs rodin more than %d block steps in %d bytes here (lists or quotes nested deep on many lines); rodin reads plans shaped like prose and ordinary lists", s.budget, s.d.lines[s.hi-1].end-s.d.lines[s.lo].start)})
			s.overBudget = true
			ok = false
		}
	}()
	s.root = newParser(s).Parse(r)
	return true
}

// endsFresh reports whether the parse of the whole file has nothing open
// after this piece's last line (blank, see splitPoints): its last block is
// not a fenced code block or HTML block that took that line as content.
func (s *scan) endsFresh() bool {
	var segs *text.Segments
	switch n := s.root.LastChild().(type) {
	case *ast.FencedCodeBlock:
		segs = n.Lines()
	case *ast.HTMLBlock:
		segs = n.Lines()
	default:
		return true
	}
	return segs.Len() == 0 || s.lineAt(segs.At(segs.Len()-1).Start) < s.hi-1
}

// newParser returns a goldmark parser that builds the block structure only.
// Inline parsing (links, emphasis) cannot move a block boundary, so it is
// left out, and paragraphs are emptied as they close so that goldmark's
// inline pass has nothing to walk: that pass was about half its time.
func newParser(s *scan) parser.Parser {
	blocks := parser.DefaultBlockParsers()
	for i := range blocks {
		blocks[i].Value = metered{blocks[i].Value.(parser.BlockParser), s}
	}
	return parser.NewParser(
		parser.WithBlockParsers(blocks...),
		parser.WithInlineParsers(),
		parser.WithParagraphTransformers(util.Prioritized(paragraphs{s}, 100)),
	)
}

// metered counts the block parser's work on the piece: every block it
// opens and every line a block open on it continues with (a line nested n
// deep is n calls). Past the piece's budget the parse stops (scan.run says
// so): goldmark's work is linear in that count, and the count is what an
// agent can blow up with short lines that each open many lists, or with
// lines that continue many open ones.
type metered struct {
	parser.BlockParser
	s *scan
}

func (m metered) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	m.s.spend()
	return m.BlockParser.Open(parent, reader, pc)
}

func (m metered) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	m.s.spend()
	return m.BlockParser.Continue(node, reader, pc)
}

// paragraphs takes from each closing paragraph what rodin needs, the first
// line of a list item's text (for gap and finding entries), then empties it.
type paragraphs struct{ s *scan }

func (p paragraphs) Transform(n *ast.Paragraph, reader text.Reader, _ parser.Context) {
	segs := n.Lines()
	if segs.Len() == 0 {
		return
	}
	if item, ok := n.Parent().(*ast.ListItem); ok && item.FirstChild() == n {
		seg := segs.At(0)
		level := 2
		if list := item.Parent(); list != nil && list.Parent() != nil && list.Parent().Kind() == ast.KindDocument {
			level = 1
		}
		first := p.s.lineAt(seg.Start)
		p.s.items = append(p.s.items, span{first, level, seg.Start, seg.Stop, p.s.lineAt(segs.At(segs.Len() - 1).Start)})
	}
	if line, _ := reader.PeekLine(); mayUnderline(line) {
		return // a setext heading may take these lines as its text: keep them
	}
	segs.Clear()
}

// mayUnderline reports whether line could be a setext heading underline
// (only '=' or only '-', with spaces). It only decides whether a paragraph
// keeps its text, so a false yes costs a little time and nothing else.
func mayUnderline(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) > 0 && (len(bytes.Trim(t, "= ")) == 0 || len(bytes.Trim(t, "- ")) == 0)
}

// lineAt returns the index of the piece's line holding normalized offset
// off. goldmark reports offsets mostly in file order, so it first walks on
// from the previous answer and searches only when that is far off.
func (s *scan) lineAt(off int) int {
	lines := s.d.lines
	i := s.lastLine
	if i < s.hi && lines[i].start <= off {
		for n := 0; n < 8 && i+1 < s.hi && lines[i+1].start <= off; n++ {
			i++
		}
		if i+1 >= s.hi || lines[i+1].start > off {
			s.lastLine = i
			return i
		}
	}
	i = s.lo + sort.Search(s.hi-s.lo, func(j int) bool { return lines[s.lo+j].start > off }) - 1
	s.lastLine = max(i, s.lo)
	return i
}

const (
	markerOpen  = "<!-- rodin:"
	markerClose = " -->"
)

// markHTMLLine looks at a line that CommonMark reads as part of an HTML
// block and records it as metadata when it is a whole-line rodin comment.
func (s *scan) markHTMLLine(off int) {
	i := s.lineAt(off)
	d := s.d
	if i < s.lo || d.lines[i].isMetaLine {
		return
	}
	m, ok := readMeta(d.norm[d.lines[i].start:d.lines[i].end])
	if !ok {
		return
	}
	m.set(&d.lines[i])
	if m.problem != "" {
		s.probs = append(s.probs, problem{i, m.problem})
	}
}

// metaLine is a line read as a rodin metadata line.
type metaLine struct {
	kind     kind // kindUnknown for keys this version does not know
	key      string
	value    string
	hasValue bool
	problem  string // set when the line is not exactly one comment
}

// readMeta reads a line that CommonMark reads as part of an HTML block: ok
// when, without its surrounding spaces, it starts with `<!-- rodin:`.
func readMeta(text []byte) (m metaLine, ok bool) {
	t := string(bytes.Trim(text, " \t"))
	if !strings.HasPrefix(t, markerOpen) {
		return m, false
	}
	inner, closed := strings.CutSuffix(t, markerClose)
	if !closed || strings.Contains(inner, "-->") || strings.Contains(inner[len(markerOpen):], "<!--") {
		return metaLine{kind: kindUnknown, problem: "a rodin metadata line must be exactly one comment, `<!-- rodin:key=value -->`"}, true
	}
	key, value, hasValue := strings.Cut(inner[len(markerOpen):], "=")
	k, known := kindOfKey(key)
	if !known {
		return metaLine{kind: kindUnknown, key: key}, true
	}
	return metaLine{kind: k, key: key, value: value, hasValue: hasValue}, true
}

// set records m on its line.
func (m metaLine) set(l *line) {
	l.isMetaLine = true
	l.kind, l.value, l.hasValue = m.kind, m.value, m.hasValue
	l.broken = m.problem != ""
	if m.kind == kindUnknown {
		l.value = m.key // for the problem that names it
	}
}

// MaxNesting is how deeply block quotes and lists may nest on one line, and
// maxIndent how far a list item or quote may be indented: bounds on the
// Markdown parse's work, far beyond any plan. Past deepFrom levels a line
// costs the parse a container per level (about a microsecond each): the
// levels past deepFrom, summed over the file, may reach maxDeepWork, so a
// file of any shape costs time linear in its size with a small constant
// (a megabyte of lines that each open 32 lists took 0.4 s, 17 times a
// realistic plan of that size).
const (
	MaxNesting  = 32
	maxIndent   = 256
	deepFrom    = 4
	maxDeepWork = 8192
	// Lines indented past indentFrom columns cost the parse a check per
	// open container per column (goldmark measures the indentation again
	// for each): their columns past indentFrom, summed over the file, may
	// reach maxIndentWork.
	indentFrom    = 32
	maxIndentWork = 256 << 10
)

// tooDeep finds the first line that opens more than MaxNesting containers
// (`>`, `-`, `*`, `+`, `1.`, `1)`), or a container indented more than
// maxIndent columns (deep), or the line at which the levels past deepFrom
// summed over the lines so far pass maxDeepWork.
func (d *Doc) tooDeep() (at int, deep, ok bool) {
	work, indents := 0, 0
	for i := range d.lines {
		line := d.lineText(i)
		depth, col, j := 0, 0, 0
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
			col++
		}
		if j < len(line) {
			if indents += max(col-indentFrom, 0); indents > maxIndentWork {
				return i, false, true
			}
		}
		for {
			for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
				j++
			}
			n := containerMarker(line[j:])
			if n == 0 {
				break
			}
			if depth == 0 && col > maxIndent {
				return i, true, true
			}
			depth++
			j += n
			if depth > MaxNesting {
				return i, true, true
			}
		}
		if work += max(depth-deepFrom, 0); work > maxDeepWork {
			return i, false, true
		}
	}
	return 0, false, false
}

// containerMarker is the length of the block-quote or list marker at the
// start of b, 0 when there is none.
func containerMarker(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	spaced := func(k int) bool { return k == len(b) || b[k] == ' ' || b[k] == '\t' }
	switch c := b[0]; {
	case c == '>':
		return 1
	case c == '-' || c == '*' || c == '+':
		if spaced(1) {
			return 1
		}
	case '0' <= c && c <= '9':
		k := 0
		for k < len(b) && k < 9 && '0' <= b[k] && b[k] <= '9' {
			k++
		}
		if k < len(b) && (b[k] == '.' || b[k] == ')') && spaced(k+1) {
			return k + 1
		}
	}
	return 0
}
