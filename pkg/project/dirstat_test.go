package project

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rodin-gate/rodin/internal/filetime"
)

// TestDirStat: the stats Refresh makes say what os.Lstat of the joined path
// says (a directory, or a link to one, which the walk follows, and its
// change time), through the root's descriptor and without it; a
// modification time set back is not the time read.
func TestDirStat(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "a/b"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	if err := os.Chtimes(filepath.Join(root, "a", "b"), old, old); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "a", "f"), nil, 0o644)
	if err := os.Symlink("a", filepath.Join(root, "link")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	want := func(rel string) (int64, bool) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		fi, err := os.Lstat(p)
		if err != nil {
			return 0, false
		}
		t := filetime.Changed(fi).UnixNano()
		if fi.Mode()&os.ModeSymlink != 0 {
			// A link the walk followed is its folder, at the later time.
			if fi, err = os.Stat(p); err != nil {
				return 0, false
			}
			t = max(t, filetime.Changed(fi).UnixNano())
		}
		if !fi.IsDir() {
			return 0, false
		}
		return t, true
	}
	for _, d := range []*dirStat{openDirStat(root), {root: root, fd: -1}} {
		for _, rel := range []string{"", "a", "a/b", "a/f", "link", "none", "a/none/x"} {
			wt, wok := want(rel)
			gt, gok := d.isDir(rel)
			if gt != wt || gok != wok {
				t.Errorf("fd %d: isDir(%q) = %d, %v; os.Lstat says %d, %v", d.fd, rel, gt, gok, wt, wok)
			}
		}
		if ct, _ := d.isDir("a/b"); ct <= old.UnixNano() {
			t.Errorf("fd %d: the time of a/b is %d, the modification time set back (%d)", d.fd, ct, old.UnixNano())
		}
		d.close()
	}
}
