package tasks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rogpeppe/go-internal/txtar"
)

// sameReading compares readings as the hooks use them: Boxless is a fresh
// parse's only (`rodin tasks`), never kept between hooks.
var sameReading = cmp.Options{cmp.AllowUnexported(Task{}, File{}, probe{}), cmpopts.IgnoreFields(File{}, "Boxless")}

// taskFileSources are the task files of the testscript suites: every
// shape the scripts teach, in our own words.
func taskFileSources(t *testing.T) map[string][]byte {
	scripts, err := filepath.Glob(filepath.Join("..", "..", "testdata", "script", "*.txtar"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	out := map[string][]byte{}
	for _, s := range scripts {
		a, err := txtar.ParseFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if strings.HasSuffix(f.Name, ".md") && strings.Contains(string(f.Data), "- [") {
				out[filepath.Base(s)+":"+f.Name] = f.Data
			}
		}
	}
	// A maintainer's own collection of real task files (not in the
	// repository): RODIN_TASK_FILES=dir1:dir2 go test ./pkg/tasks.
	for _, dir := range filepath.SplitList(os.Getenv("RODIN_TASK_FILES")) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				out[p] = b
			}
		}
	}
	return out
}

// flipped is src with the mark at i changed the way a tick (or an untick)
// changes it.
func flipped(src []byte, i int) []byte {
	next := append([]byte(nil), src...)
	switch next[i] {
	case ' ', '\t', '-':
		next[i] = 'x'
	default:
		next[i] = ' '
	}
	return next
}

// TestReflipEveryBox ticks (or unticks) every box of every task file the
// scripts hold, one at a time, and checks Reflip's reading against a
// parse of the result: equal whenever Reflip answers, and it answers for
// nearly all.
func TestReflipEveryBox(t *testing.T) {
	var boxes, answered int
	for name, src := range taskFileSources(t) {
		prev := ParseFile(src)
		body := bytesTrimBOM(src)
		off := len(src) - len(body)
		for _, task := range prev.Tasks {
			if task.mark < 0 {
				t.Errorf("%s: task %s: no mark found", name, task.Ref)
				continue
			}
			boxes++
			next := flipped(src, off+task.mark)
			got, ok := Reflip(prev, src, next)
			if !ok {
				continue
			}
			answered++
			if d := cmp.Diff(ParseFile(next), got, sameReading); d != "" {
				t.Fatalf("%s: ticking %s: Reflip differs from a parse (-parse +reflip):\n%s", name, task.Ref, d)
			}
		}
	}
	if boxes < 100 || answered*100 < boxes*95 {
		t.Fatalf("Reflip answered %d of %d boxes", answered, boxes)
	}
	t.Logf("Reflip answered %d of %d boxes", answered, boxes)
}

func TestReflipRefusesOtherChanges(t *testing.T) {
	src := []byte("# T\n\n- [ ] V1 [VERIFY] Check\n  - **Verify**: `go test ./...`\n  - [ ] sub\n- [ ] 1.2 Do [x] it\n[x]: /url\n")
	prev := ParseFile(src)
	for _, tc := range []struct{ name, from, to string }{
		{"a word", "Check", "Cheque"},
		{"a bracket that is no box", "Do [x] it", "Do [ ] it"},
		{"a box inside a verification task", "  - [ ] sub", "  - [x] sub"},
		{"a mark no box has", "- [ ] 1.2", "- [?] 1.2"},
		{"a longer file", "go test ./...", "go test ./... -race"},
	} {
		next := []byte(strings.Replace(string(src), tc.from, tc.to, 1))
		if _, ok := Reflip(prev, src, next); ok {
			t.Errorf("%s: Reflip answered", tc.name)
		}
	}
	// The same bytes: the same reading.
	if got, ok := Reflip(prev, src, src); !ok || cmp.Diff(prev, got, sameReading) != "" {
		t.Errorf("Reflip of unchanged bytes: %v", ok)
	}
	// Two boxes at once (a MultiEdit), one ticked, one unticked.
	two := []byte("- [ ] 1.1 a\n- [x] 1.2 b\n- [-] 1.3 c\n")
	next := []byte("- [x] 1.1 a\n- [ ] 1.2 b\n- [X] 1.3 c\n")
	got, ok := Reflip(ParseFile(two), two, next)
	if !ok {
		t.Fatal("Reflip refused three boxes")
	}
	if d := cmp.Diff(ParseFile(next), got, sameReading); d != "" {
		t.Fatalf("(-parse +reflip):\n%s", d)
	}
}

// FuzzReflip changes one byte of a task file: Reflip either refuses or
// reads what a parse reads.
func FuzzReflip(f *testing.F) {
	f.Add([]byte("- [ ] V1 [VERIFY] Quality check: `pnpm lint` && pnpm test\n  - **Verify**: `go test`\n"), 3, byte('x'))
	f.Add([]byte("\xEF\xBB\xBF- [x] 1.1 a\n  - [ ] 1.2 b\n[x]: /u\n"), 18, byte('x'))
	f.Add([]byte("- [ ]* 2.3 x\n- [-] 1. y\n- [ ] 1.2 [VERIFY:AC] z\n"), 15, byte('x'))
	f.Add([]byte("1. [ ]: /url\n2. [ ] a\n"), 4, byte('x'))
	f.Add([]byte("* [ ]\tb\n\n  > - [ ] c\n"), 3, byte('X'))
	f.Add([]byte("## P\n\n### Task 1.3: [VERIFY] Check [ ]\n\n- **Verify**: `go test`\n- [ ] a box\n"), 40, byte('x'))
	f.Fuzz(func(t *testing.T, src []byte, i int, c byte) {
		if len(src) == 0 || len(src) > 4096 {
			return
		}
		i = (i%len(src) + len(src)) % len(src)
		next := append([]byte(nil), src...)
		next[i] = c
		prev := ParseFile(src)
		got, ok := Reflip(prev, src, next)
		if !ok {
			return
		}
		if d := cmp.Diff(ParseFile(next), got, sameReading); d != "" {
			t.Fatalf("Reflip differs from a parse (-parse +reflip):\n%s", d)
		}
	})
}

// FuzzReading: what AppendReading writes, DecodeReading reads back as it
// was; damaged bytes are refused, never a panic.
func FuzzReading(f *testing.F) {
	f.Add([]byte("- [ ] V1 [VERIFY] Quality check: `pnpm lint` && pnpm test\n  - **Verify**: `go test`\n"), 7)
	f.Add([]byte("## Quality Commands\n- `make lint`\n- [x] 1.1 a\n"), 0)
	f.Fuzz(func(t *testing.T, src []byte, cut int) {
		want := ParseFile(src)
		enc := AppendReading(nil, want)
		got, err := DecodeReading(enc, src)
		if err != nil {
			t.Fatalf("DecodeReading: %v", err)
		}
		if d := cmp.Diff(want, got, sameReading); d != "" {
			t.Fatalf("(-parse +decoded):\n%s", d)
		}
		// A torn write: every shorter prefix is refused.
		if len(enc) > 1 {
			n := (cut%len(enc) + len(enc)) % len(enc)
			if _, err := DecodeReading(enc[:n], src); err == nil {
				t.Fatalf("a reading cut to %d of %d bytes decoded", n, len(enc))
			}
		}
		// Against other bytes: no panic.
		DecodeReading(src, src)
		DecodeReading(enc, src[:len(src)/2])
	})
}

func TestReadingOfARealSizeFile(t *testing.T) {
	// A long task file of the shapes the scripts hold, the reading kept
	// and read back.
	var b strings.Builder
	for _, src := range taskFileSources(t) {
		b.Write(bytesTrimBOM(src))
		b.WriteString("\n\n")
	}
	src := []byte(b.String())
	want := ParseFile(src)
	got, err := DecodeReading(AppendReading(nil, want), src)
	if err != nil || cmp.Diff(want, got, sameReading) != "" {
		t.Fatalf("the reading of %d bytes, %d tasks, did not read back: %v", len(src), len(want.Tasks), err)
	}
	if len(want.Tasks) < 100 {
		t.Fatalf("only %d tasks", len(want.Tasks))
	}
}

// TestReflipManyBoxes: an edit of up to maxFlips boxes is read without a
// parse; one of more is parsed, so that its cost grows with the file, not
// with the file times the boxes (an attack found a Write unticking 90,000
// boxes denied at the hook's deadline).
func TestReflipManyBoxes(t *testing.T) {
	file := func(n int, mark string) []byte {
		var b strings.Builder
		b.WriteString("# Tasks\n\n- [ ] V1 [VERIFY] Quality check\n  - **Verify**: `go test ./...`\n")
		for i := 0; i < n; i++ {
			b.WriteString("- [" + mark + "] 1." + strings.Repeat("9", i%3+1) + " step\n")
		}
		return []byte(b.String())
	}
	for _, n := range []int{maxFlips, maxFlips + 1} {
		old, next := file(n, "x"), file(n, " ")
		got, ok := Reflip(ParseFile(old), old, next)
		if ok != (n <= maxFlips) {
			t.Fatalf("%d boxes unticked: Reflip answered %v", n, ok)
		}
		if ok {
			if d := cmp.Diff(ParseFile(next), got, sameReading); d != "" {
				t.Fatalf("(-parse +reflip):\n%s", d)
			}
		}
	}
}

// TestLineEnds: a lone carriage return ends a line as a line feed does, a
// CRLF pair is left alone, and the length never changes, so a file of old
// Mac line endings reads the same boxes at the same places.
func TestLineEnds(t *testing.T) {
	for in, want := range map[string]string{
		"":                  "",
		"a\nb":              "a\nb",
		"a\r\nb\r\n":        "a\r\nb\r\n",
		"a\rb\r":            "a\nb\n",
		"a\r\r\nb":          "a\n\r\nb",
		"- [ ] V1\r- [x] 2": "- [ ] V1\n- [x] 2",
	} {
		if got := string(LineEnds([]byte(in))); got != want {
			t.Errorf("LineEnds(%q) = %q, want %q", in, got, want)
		}
	}
	cr := []byte("# T\r\r- [x] 1.1 a\r- [ ] V1 [VERIFY] b: `go test ./...`\r")
	lf := []byte("# T\n\n- [x] 1.1 a\n- [ ] V1 [VERIFY] b: `go test ./...`\n")
	a, b := Parse(cr), Parse(lf)
	if len(a) != 2 || len(b) != 2 || a[1].Ref != "V1" || !a[1].Verify || a[1].Line != b[1].Line || !a[0].Checked {
		t.Fatalf("a file ending its lines with carriage returns read %+v, with line feeds %+v", a, b)
	}
}
