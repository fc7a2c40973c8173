package verifygate

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"

	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rodin-gate/rodin/pkg/tasks"
)

// TestReadingsKept: what an edit keeps, the next one finds, for the
// bytes it was read from only; a damaged record keeps nothing.
func TestReadingsKept(t *testing.T) {
	data := t.TempDir()
	os.MkdirAll(ledger.Dir(data), 0o700)
	const session, rel = "s1", "tasks.md"
	a := []byte("- [ ] V1 [VERIFY] Check\n  - **Verify**: `go test ./...`\n")
	b := []byte("- [x] V1 [VERIFY] Check\n  - **Verify**: `go test ./...`\n")
	c := []byte("- [ ] V1 [VERIFY] Check\n  - **Verify**: `go vet ./...`\n")

	r := loadReadings(data, session, rel)
	if r.stamp == "" {
		t.Skip("this build has no identity to keep readings by")
	}
	if _, _, ok := r.lookup(a); ok {
		t.Fatal("a reading found before any was kept")
	}
	fa, ka := r.read(a)
	fb, ok := tasks.Reflip(fa, a, b)
	if !ok {
		t.Fatal("Reflip refused a tick")
	}
	r.keep([2][sha256.Size]byte{ka, r.key(b)}, [2]tasks.File{fa, fb})

	r = loadReadings(data, session, rel)
	if len(r.entries) != 2 {
		t.Fatalf("%d readings kept, want 2", len(r.entries))
	}
	for _, src := range [][]byte{a, b} {
		f, _, ok := r.lookup(src)
		if !ok || len(f.Tasks) != 1 || f.Tasks[0].Checked != (src[3] == 'x') {
			t.Fatalf("lookup(%q) = %+v, %v", src, f.Tasks, ok)
		}
	}
	if _, _, ok := r.lookup(c); ok {
		t.Fatal("a reading found for bytes never read")
	}
	// Another file's readings are not these.
	if _, _, ok := loadReadings(data, session, "other.md").lookup(a); ok {
		t.Fatal("a reading found under another file's name")
	}
	// Damage: cut in the middle of the second entry.
	p := readingsPath(data, session, rel)
	whole, _ := os.ReadFile(p)
	os.WriteFile(p, whole[:len(whole)-3], 0o600)
	if r := loadReadings(data, session, rel); len(r.entries) != 0 {
		t.Fatalf("a cut record kept %d readings", len(r.entries))
	}
	if _, err := os.Stat(filepath.Dir(p)); err != nil {
		t.Fatal(err)
	}
}
