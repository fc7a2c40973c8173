package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFile: a regular file is read whole and held to the limit; a
// missing file is not-exist; a directory, a FIFO and a file over the limit
// are errors, and a FIFO with no writer never blocks the reader.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(p, 5); err != nil || string(b) != "hello" {
		t.Fatalf("ReadFile at the limit = %q, %v; want hello", b, err)
	}
	if _, err := ReadFile(p, 4); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ReadFile over the limit: %v, want ErrTooLarge", err)
	}
	if b, err := ReadFile(filepath.Join(dir, "none"), 5); !os.IsNotExist(err) || b != nil {
		t.Fatalf("ReadFile of a missing file = %q, %v; want not-exist", b, err)
	}
	if _, err := ReadFile(dir, 1<<20); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("ReadFile of a directory: %v, want not a regular file", err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(empty, 5); err != nil || len(b) != 0 {
		t.Fatalf("ReadFile of an empty file = %q, %v", b, err)
	}
}

// TestAppend: each append lands at the end and reports the size after it;
// in a missing directory it is not-exist.
func TestAppend(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "log")
	if n, err := Append(p, []byte("one\n"), 0o600); err != nil || n != 4 {
		t.Fatalf("first Append = %d, %v; want 4", n, err)
	}
	if n, err := Append(p, []byte("two\n"), 0o644); err != nil || n != 8 {
		t.Fatalf("second Append = %d, %v; want 8", n, err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one\ntwo\n" {
		t.Fatalf("the file holds %q", b)
	}
	if _, err := Append(filepath.Join(dir, "no", "log"), []byte("x"), 0o600); !os.IsNotExist(err) {
		t.Fatalf("Append in a missing directory: %v, want not-exist", err)
	}
}

// TestReadTail: the last n bytes and where they start; a file shorter than
// n whole from 0; a missing file is not-exist; a directory is refused.
func TestReadFrom(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t")
	if err := os.WriteFile(p, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		off, max int64
		want     string
	}{{0, 64, "0123456789"}, {6, 64, "6789"}, {6, 2, "67"}, {10, 64, ""}, {12, 64, ""}} {
		if b, size, err := ReadFrom(p, tc.off, tc.max); err != nil || string(b) != tc.want || size != 10 {
			t.Fatalf("ReadFrom(%d, %d) = %q of %d, %v; want %q of 10", tc.off, tc.max, b, size, err, tc.want)
		}
	}
	if _, _, err := ReadFrom(filepath.Join(dir, "none"), 0, 4); !os.IsNotExist(err) {
		t.Fatalf("ReadFrom of a missing file: %v", err)
	}
	if _, _, err := ReadFrom(dir, 0, 4); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("ReadFrom of a directory: %v", err)
	}
}

// TestOverwrite: the data lands at the start, the rest of the file stays,
// a missing file is made with the mode asked for.
func TestOverwrite(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mark")
	if err := Overwrite(p, []byte("abcdef"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the new file's mode is %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	if err := Overwrite(p, []byte("XY"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "XYcdef" {
		t.Fatalf("after two writes: %q, want XYcdef", b)
	}
}

func TestReadTail(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t")
	if err := os.WriteFile(p, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, off, err := ReadTail(p, 4); err != nil || string(b) != "6789" || off != 6 {
		t.Fatalf("ReadTail(4) = %q at %d, %v", b, off, err)
	}
	if b, off, err := ReadTail(p, 64); err != nil || string(b) != "0123456789" || off != 0 {
		t.Fatalf("ReadTail(64) = %q at %d, %v", b, off, err)
	}
	if _, _, err := ReadTail(filepath.Join(dir, "none"), 4); !os.IsNotExist(err) {
		t.Fatalf("ReadTail of a missing file: %v", err)
	}
	if _, _, err := ReadTail(dir, 4); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("ReadTail of a directory: %v", err)
	}
}

// TestReadBefore: the bytes that end at off, fewer at the file's start,
// none once the file is shorter than off.
func TestReadBefore(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t")
	if err := os.WriteFile(p, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		off, n int64
		want   string
	}{{10, 4, "6789"}, {6, 4, "2345"}, {3, 8, "012"}, {0, 4, ""}, {10, 0, ""}, {11, 4, ""}} {
		if b, err := ReadBefore(p, tc.off, tc.n); err != nil || string(b) != tc.want {
			t.Errorf("ReadBefore(%d, %d) = %q, %v; want %q", tc.off, tc.n, b, err, tc.want)
		}
	}
	if _, err := ReadBefore(p+"x", 4, 4); !os.IsNotExist(err) {
		t.Errorf("ReadBefore of a missing file: %v", err)
	}
}
