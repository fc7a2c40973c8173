package cli

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// A person's terminal is one; /dev/null, a pipe and a file are not
// (issue 35: a character device was taken for a terminal).
func TestIsTerminal(t *testing.T) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	defer ptmx.Close()
	var unlock int32
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("cannot unlock a pseudo-terminal: %v", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("cannot name a pseudo-terminal: %v", e)
	}
	pts, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("cannot open the pseudo-terminal: %v", err)
	}
	defer pts.Close()
	if !isTerminal(pts) {
		t.Error("a pseudo-terminal is not taken for a terminal")
	}
	null, _ := os.Open(os.DevNull)
	defer null.Close()
	r, w, _ := os.Pipe()
	defer r.Close()
	defer w.Close()
	file, _ := os.CreateTemp(t.TempDir(), "f")
	defer file.Close()
	for name, f := range map[string]*os.File{"/dev/null": null, "a pipe": r, "a file": file} {
		if isTerminal(f) {
			t.Errorf("%s is taken for a terminal", name)
		}
	}
	get := func(string) string { return "" }
	if !fromTerminal(get, pts) || fromTerminal(get, null) {
		t.Error("fromTerminal: a terminal is not one, or /dev/null is")
	}
	if fromTerminal(func(k string) string { return map[string]string{"CLAUDECODE": "1"}[k] }, pts) {
		t.Error("a terminal under Claude Code is taken for a person's")
	}
}
