package project

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestTaskIndexRefresh: after the index is taken, a task file written in a
// known directory, one in a new directory tree, one removed and a directory
// renamed are all found by Refresh, as a fresh TaskFiles would find them.
func TestTaskIndexRefresh(t *testing.T) {
	root := t.TempDir()
	mk := func(p string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
		if err := os.WriteFile(filepath.Join(root, p), []byte("- [ ] 1 x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("tasks.md")
	mk("specs/a/tasks.md")
	mk("specs/b/notes.md")
	mk("src/x/y/main.go")
	c := Defaults()
	// Directories as old as an index trusts (a change time cannot be set
	// back: the window is closed for the test instead).
	defer func(w time.Duration) { recentlyChanged = w }(recentlyChanged)
	recentlyChanged = 0
	ix := IndexTaskFiles(root, c)
	if diff := cmp.Diff([]string{"specs/a/tasks.md", "tasks.md"}, ix.Files); diff != "" {
		t.Fatalf("index files (-want +got):\n%s", diff)
	}
	if ix.Refresh(root, c) {
		t.Fatal("Refresh changed an index of an unchanged tree")
	}
	mk("specs/b/tasks.md")     // a known directory
	mk("new/deep/er/tasks.md") // a new tree
	os.Remove(filepath.Join(root, "specs/a/tasks.md"))
	os.Rename(filepath.Join(root, "src"), filepath.Join(root, "source"))
	mk("source/x/tasks.md")
	if !ix.Refresh(root, c) {
		t.Fatal("Refresh saw no change")
	}
	if diff := cmp.Diff(TaskFiles(root, c), ix.Files); diff != "" {
		t.Fatalf("refreshed index files differ from a walk (-walk +index):\n%s", diff)
	}
	if _, ok := ix.Dirs["src"]; ok {
		t.Error("the renamed directory is still indexed")
	}
}

// FuzzTaskIndexText: any bytes decode or are refused; what decodes
// encodes to text that decodes to the same index.
func FuzzTaskIndexText(f *testing.F) {
	f.Add([]byte("t 1\nr \"/p\"\nm 0\ng \"**/tasks.md\"\nd 5 \"\"\nd 6 \"src\"\nf \"tasks.md\"\nk \"tasks.md\"\n"))
	f.Add([]byte("t 1\nr \"/p\"\nm 0\nw 1\ng \"x\"\nd 5 \"a\\tb\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var ix TaskIndex
		if ix.UnmarshalText(b) != nil {
			return
		}
		text, err := ix.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var again TaskIndex
		if err := again.UnmarshalText(text); err != nil {
			t.Fatalf("%q decoded, and its text %q does not: %v", b, text, err)
		}
		if d := cmp.Diff(ix, again, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("%q: the index changed through its text (-first +again):\n%s", b, d)
		}
	})
}
