package freshness

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rodin-gate/rodin/pkg/project"
)

func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNewest: a change after a time is found, whatever its mtime says;
// task files, ignored files, logs (a dev server writes its own, unignored),
// hidden directories and node_modules are not changes.
func TestNewest(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "src", "a.go"), "package a")
	write(t, filepath.Join(root, ".gitignore"), "# build output\ndist/\n*.log\n/coverage\n")
	mid := time.Now()
	time.Sleep(10 * time.Millisecond)
	for _, p := range []string{"tasks.md", "dist/x.js", "out.log", "coverage/c.out", ".cache/k", "node_modules/m/i.js", "specs/s/.progress.md", "specs/s/tasks.md", "specs/t/tasks.md", "server.log"} {
		write(t, filepath.Join(root, p), "x")
	}
	tree := project.NewTree(root, project.Defaults())
	if got := Newest(tree, []time.Time{mid}); got[0].Path != "" {
		t.Fatalf("Newest found %q changed; only ignored files were", got[0].Path)
	}
	// An edit with its mtime set back still counts (ctime).
	write(t, filepath.Join(root, "src", "a.go"), "package a // edited")
	old := mid.Add(-time.Hour)
	os.Chtimes(filepath.Join(root, "src", "a.go"), old, old)
	got := Newest(tree, []time.Time{mid, time.Now().Add(time.Hour)})
	if got[0].Path != "src/a.go" || got[1].Path != "" {
		t.Fatalf("Newest = %+v, want src/a.go after mid and nothing after the future", got)
	}
	// A directory renamed away and back: no file's times move, its own do.
	time.Sleep(10 * time.Millisecond)
	mid = time.Now()
	time.Sleep(10 * time.Millisecond)
	src, away := filepath.Join(root, "src"), filepath.Join(root, ".src")
	if err := os.Rename(src, away); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(away, src); err != nil {
		t.Fatal(err)
	}
	if got := Newest(tree, []time.Time{mid}); got[0].Path != "src" {
		t.Fatalf("Newest after src was renamed away and back = %+v, want src", got)
	}
}

// BenchmarkNewest10k is the staleness check on a project of 10,000 files
// in 100 directories, none changed: the walk the gate pays when it has a
// box to judge.
func BenchmarkNewest10k(b *testing.B) {
	root := b.TempDir()
	for d := 0; d < 100; d++ {
		for i := 0; i < 100; i++ {
			write(b, filepath.Join(root, "src", fmt.Sprintf("p%03d", d), fmt.Sprintf("f%03d.go", i)), "package p")
		}
	}
	tree := project.NewTree(root, project.Defaults())
	since := []time.Time{time.Now().Add(time.Minute)}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if Newest(tree, since)[0].Path != "" {
			b.Fatal("a change in the future")
		}
	}
}
