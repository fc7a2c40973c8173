//go:build unix

package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFIFONeverWaits: ReadFile and ReadTail of a FIFO with no writer and Append to one
// with no reader return errors at once; a hook that waited on one would be
// killed at its timeout (a guarding hook must answer).
func TestFIFONeverWaits(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(fifo, 5); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("ReadFile of a FIFO: %v, want not a regular file", err)
	}
	if _, _, err := ReadTail(fifo, 5); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("ReadTail of a FIFO: %v, want not a regular file", err)
	}
	if _, _, err := ReadFrom(fifo, 0, 5); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("ReadFrom of a FIFO: %v, want not a regular file", err)
	}
	if _, err := Append(fifo, []byte("x"), 0o600); err == nil {
		t.Fatal("Append to a FIFO with no reader succeeded")
	}
	if err := Overwrite(fifo, []byte("x"), 0o600); err == nil {
		t.Fatal("Overwrite of a FIFO with no reader succeeded")
	}
}

// TestAppendPerm: a file Append makes has the mode asked for.
func TestAppendPerm(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	if _, err := Append(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the new file's mode is %v (%v), want 0600", fi.Mode().Perm(), err)
	}
}
