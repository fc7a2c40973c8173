package tasks

import (
	"os"
	"path/filepath"
	"testing"
)

// TestProjectDirProbe: a directory of the project named alone is no
// command, and a reading kept with that answer is read again once the
// directory is gone (a script may stand there now).
func TestProjectDirProbe(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "apps", "api"), 0o755); err != nil {
		t.Fatal(err)
	}
	SetProjectRoot(root)
	defer SetProjectRoot("")
	src := []byte("- [ ] D1 [VERIFY] `unit-tests --lint` runs in `apps/api`\n")
	f := ParseFile(src)
	if len(f.Tasks) != 1 || len(f.Tasks[0].Commands) != 1 {
		t.Fatalf("a directory read as a command: %+v", f.Tasks)
	}
	if !f.Holds() {
		t.Fatal("the reading does not hold with the directory in place")
	}
	kept, err := DecodeReading(AppendReading(nil, f), src)
	if err != nil || len(kept.probes) != len(f.probes) || !kept.Holds() {
		t.Fatalf("the kept reading lost its look at the directory: %v, %+v", err, kept.probes)
	}
	if err := os.RemoveAll(filepath.Join(root, "apps", "api")); err != nil {
		t.Fatal(err)
	}
	if f.Holds() {
		t.Fatal("the reading holds with the directory gone")
	}
	if g := ParseFile(src); len(g.Tasks[0].Commands) != 2 {
		t.Fatalf("no directory, and the span is no command: %+v", g.Tasks[0].Commands)
	}
	// No root known: nothing is looked up, and nothing escapes one.
	SetProjectRoot("")
	if statDir("apps") || statDir("../x") {
		t.Fatal("a directory found with no root")
	}
	SetProjectRoot(root)
	if statDir("../" + filepath.Base(root)) {
		t.Fatal("a path out of the root looked up")
	}
}
