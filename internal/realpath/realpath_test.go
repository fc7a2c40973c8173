package realpath

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEval: within a hook call a path resolves once; outside one, and
// after it, every call looks at the file system again; a path that does
// not resolve is never remembered.
func TestEval(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Mkdir(a, 0o755)
	os.Mkdir(b, 0o755)
	link := filepath.Join(dir, "link")
	os.Symlink(a, link)
	relink := func(to string) {
		os.Remove(link)
		os.Symlink(to, link)
	}
	want := func(wantDir string) {
		t.Helper()
		got, err := Eval(link)
		if err != nil || got != wantDir {
			t.Fatalf("Eval(link) = %q, %v; want %q", got, err, wantDir)
		}
	}
	want(a)
	relink(b)
	want(b) // no call under way: no memo

	end := Begin()
	want(b)
	relink(a)
	want(b) // remembered for the call
	missing := filepath.Join(dir, "new")
	if _, err := Eval(missing); err == nil {
		t.Fatal("a missing path resolved")
	}
	os.Mkdir(missing, 0o755)
	if got, err := Eval(missing); err != nil || got != missing {
		t.Fatalf("a path made during the call: %q %v", got, err)
	}
	end()
	want(a) // the call ended: looked at again
}
