package planfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seamCases are texts whose seams (see splitPoints) are easy to get wrong:
// blocks that stay open across a blank line, and lines in column 0 that
// continue or close what came before.
var seamCases = []string{
	"# P\n\n```\ncode\n\n# inside the fence\n<!-- rodin:session=a -->\n```\n\n# after\n<!-- rodin:session=b -->\n",
	"# P\n\n~~~~\n\n~~~\n\n<!-- rodin:session=a -->\n~~~~\n\nText\n",
	"<script>\nx\n\n<!-- rodin:session=a -->\n\n</script>\n\n<!-- rodin:session=b -->\n",
	"<!--\nopen comment\n\n# heading in a comment\n\n-->\n\n# H\n",
	"<pre>\n\nText\n\n</pre>\n\nText\n",
	"<?php\n\n<!-- rodin:session=a -->\n\n?>\n\n<!-- rodin:session=b -->\n",
	"<![CDATA[\n\nText\n\n]]>\n\n# H\n",
	"<!DOCTYPE\n\nText\n\n>\n\n# H\n",
	"<div>\n\n<!-- rodin:session=a -->\n\n</div>\n\nText\n",
	"- item\n  ```\n  code\n\n```go\nx\n```\n\n- b\n\n  <!-- rodin:session=a -->\n\nText\n",
	"-\n\n  foo\n\nText\n\n- a\n-\n\nText\n",
	"1. one\n\n2. two\n\n<!-- rodin:session=a -->\n\n3) three\n\n# H\n",
	"> quote\n\n> <!-- rodin:session=a -->\n\nText\n> lazy\n\n<!-- rodin:session=b -->\n",
	"    indented\n\n    <!-- rodin:session=a -->\n\n<!-- rodin:session=b -->\n\nText\n",
	"Setext\n\n===\n\nText\n---\n\n# H\n\n- a\n  - b\n\n    c\n\nText\n",
	"Para\n\n\tTab\n\n<!-- rodin:gaps:start -->\n### GAP-1: x\n- **Severity**: high\n\n<!-- rodin:gaps:end -->\n\n<!-- rodin:session=s -->\n",
	"```\n\n",
	"\n\nA\n\nB\n\n`x`\n\n~\n\n<\n\n#\n",
}

func seamSeeds(t testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "plans", "*.md"))
	out := append([]string(nil), seamCases...)
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// parsed is what a parse yields, for comparing two parses of one text.
type parsed struct {
	Lines      []line
	Headings   []span
	Items      []span
	Probs      []problem
	Meta       Trailer
	Start, End int
	Signals    []int
}

func parseAt(src string, starts []int) parsed {
	d := newDoc([]byte(src))
	d.classifyFrom(func(d *Doc, _ int) []int {
		if len(d.lines) == 0 {
			return []int{0}
		}
		return starts
	})
	return parsed{d.lines, d.headings, d.items, d.probs, d.meta, d.start, d.end, d.signals}
}

var cmpParsed = cmp.AllowUnexported(line{}, span{}, problem{})

// seams lists the lines where a piece may start.
func seams(src string) []int {
	d := newDoc([]byte(src))
	var ks []int
	for k := range d.lines {
		if d.startsAfresh(k) {
			ks = append(ks, k)
		}
	}
	return ks
}

// checkSeams parses src whole, then split at each seam alone and at all of
// them at once: every split parse must equal the whole one.
func checkSeams(t *testing.T, src string, limit int) {
	t.Helper()
	whole := parseAt(src, []int{0})
	ks := seams(src)
	if len(ks) > limit {
		ks = ks[:limit]
	}
	for _, k := range ks {
		got := parseAt(src, []int{0, k})
		if diff := cmp.Diff(whole, got, cmpParsed); diff != "" {
			t.Fatalf("split at line %d differs from the whole parse (-whole +split):\n%s\n%q", k+1, diff, src)
		}
	}
	if len(ks) > 1 {
		got := parseAt(src, append([]int{0}, ks...))
		if diff := cmp.Diff(whole, got, cmpParsed); diff != "" {
			t.Fatalf("split at every seam %v differs from the whole parse (-whole +split):\n%s\n%q", ks, diff, src)
		}
	}
}

func TestSplitParseMatchesWhole(t *testing.T) {
	for _, src := range seamSeeds(t) {
		checkSeams(t, src, 1000)
	}
}

// TestSplitParseRejectsOpenBlocks: a seam inside a fence or an HTML block
// that is still open is found out and the text is parsed again whole.
func TestSplitParseRejectsOpenBlocks(t *testing.T) {
	for _, tc := range []struct{ src, seam string }{
		{"```\ncode\n\n# inside\n```\n", "# inside"},
		{"<!--\n\nText\n-->\n", "Text"},
		{"<script>\n\n<b>\n</script>\n", "<b>"},
		{"~~~\n\n```go\n~~~\n", "```go"},
	} {
		d := newDoc([]byte(tc.src))
		k := strings.Count(tc.src[:strings.Index(tc.src, tc.seam)], "\n")
		if !d.startsAfresh(k) {
			t.Fatalf("%q: line %d is not a seam candidate", tc.src, k+1)
		}
		if scans := d.parse([]int{0, k}); len(scans) != 1 {
			t.Errorf("%q: the seam at line %d inside an open block was kept", tc.src, k+1)
		}
	}
	// A seam after the block closes is kept.
	d := newDoc([]byte("```\ncode\n```\n\n# after\n"))
	if scans := d.parse([]int{0, 4}); len(scans) != 2 {
		t.Errorf("a seam after a closed fence was dropped")
	}
}

// TestSplitPoints: pieces start near equal shares of the text, at seams.
func TestSplitPoints(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 4000; i++ {
		b.WriteString("- item\n\n```\ncode\n```\n\n")
	}
	d := newDoc([]byte(b.String()))
	starts := splitPoints(d, 4)
	if len(starts) != 4 || starts[0] != 0 {
		t.Fatalf("starts = %v, want 4 pieces from line 0", starts)
	}
	for i, k := range starts[1:] {
		if !d.startsAfresh(k) {
			t.Errorf("piece %d starts at line %d, not a seam", i+1, k+1)
		}
		if off, want := d.lines[k].start, (i+1)*len(d.norm)/4; off < want || off > want+200 {
			t.Errorf("piece %d starts at offset %d, want just after %d", i+1, off, want)
		}
	}
	if got := splitPoints(newDoc([]byte("- a\n- b\n- c\n")), 2); len(got) != 1 {
		t.Errorf("a text without seams split at %v", got)
	}
}

// FuzzSplitParse: however a text is split at its seams, the parse equals
// the parse of the whole text.
func FuzzSplitParse(f *testing.F) {
	for _, s := range seamSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkSeams(t, src, 64)
	})
}
