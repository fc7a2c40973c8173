package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// With planFilePath present, the gate opens that plan and no other file in
// the plans directory: inotify reports every open in the directory.
func TestPlanFilePathOpensOnlyThatPlan(t *testing.T) {
	f := setup(t)
	dir := filepath.Join(f.many, ".claude", "plans") // 2,000 plan files
	target := filepath.Join(dir, "plan-0000.md")

	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	defer syscall.Close(fd)
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_OPEN); err != nil {
		t.Fatal(err)
	}
	opened := func() []string {
		var names []string
		buf := make([]byte, 1<<16)
		for {
			n, err := syscall.Read(fd, buf)
			if n <= 0 || err != nil {
				return names
			}
			for off := 0; off < n; {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := string(bytes.TrimRight(buf[off+syscall.SizeofInotifyEvent:off+syscall.SizeofInotifyEvent+int(ev.Len)], "\x00"))
				if name == "" {
					name = "(the directory itself)"
				}
				names = append(names, name)
				off += syscall.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}

	run := func(withPath bool) []string {
		opened() // drain
		c := hookCase{name: fmt.Sprintf("opens, planFilePath %v", withPath), cmd: []string{f.bin["pretooluse"]}, stdin: exitInput(target, withPath, session), home: f.many}
		cmd := command(c, c.cmd)
		defer cmd.Stdin.(*os.File).Close()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pretooluse: %v\n%s", err, out)
		}
		time.Sleep(50 * time.Millisecond)
		return opened()
	}
	// Control: without planFilePath the search opens the directory and
	// every plan file, so the watch does see opens.
	if got := run(false); len(got) < 2000 {
		t.Fatalf("control: the session search opened %d files; the watch is not working", len(got))
	}
	got := run(true)
	if len(got) != 1 || got[0] != "plan-0000.md" {
		t.Errorf("with planFilePath the gate opened %d files (%.200v), want only plan-0000.md", len(got), got)
	}
}
