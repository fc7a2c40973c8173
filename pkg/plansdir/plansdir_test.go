package plansdir

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFindSessionNewestOfMany: with enough plans for the search to run in
// parallel, the newest plan carrying the session's marker wins, whichever
// worker finds it first; a newer file holding the marker only as text (in a
// code fence) does not count, and files of other sessions are passed over.
func TestFindSessionNewestOfMany(t *testing.T) {
	const n = 1500
	dir := t.TempDir()
	const session = "b89c8bbf-0567-4b71-9765-23162d176ca0"
	base := time.Now().Add(-48 * time.Hour)
	write := func(i int, text string) {
		p := filepath.Join(dir, fmt.Sprintf("plan-%04d.md", i))
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Duration(i) * time.Minute) // higher i: newer
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	marked := func(s string) string { return "# Plan\n\n<!-- rodin:session=" + s + " -->\n" }
	for i := 0; i < n; i++ {
		write(i, marked(fmt.Sprintf("00000000-0000-0000-0000-%012d", i)))
	}
	for _, i := range []int{3, 700, 1210} {
		write(i, marked(session))
	}
	write(1400, "# Plan\n\n```\n<!-- rodin:session="+session+" -->\n```\n") // newer, but only text

	for trial := 0; trial < 20; trial++ {
		path, real, data := FindSession([]string{dir}, session)
		if want := filepath.Join(dir, "plan-1210.md"); path != want || real == "" || string(data) != marked(session) {
			t.Fatalf("trial %d: found %q (%q, %d bytes), want %s", trial, path, real, len(data), want)
		}
	}
	if path, _, _ := FindSession([]string{dir}, "no-such-session"); path != "" {
		t.Errorf("found %s for a session no plan carries", path)
	}
	if got := ByNewest([]string{dir}); len(got) != n || got[0].Path != filepath.Join(dir, "plan-1499.md") || got[n-1].Path != filepath.Join(dir, "plan-0000.md") {
		t.Errorf("ByNewest: %d files, first %s, last %s", len(got), got[0].Path, got[len(got)-1].Path)
	}
}
