//go:build unix

package hookio

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPreDeadlineDeniesBlockedSyscall: the decision is made on the calling
// goroutine; stuck in a system call that never returns by itself (a read
// of a pipe nobody writes, as a FIFO named as a plan would be), it is
// still denied in time, by the timer on another thread.
func TestPreDeadlineDeniesBlockedSyscall(t *testing.T) {
	codes := lateExit(t)
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(p[0])
	var stdout, stderr syncBuffer
	result := make(chan int, 1)
	go func() {
		result <- RunPre(strings.NewReader(`{"tool_name":"ExitPlanMode"}`), &stdout, &stderr, 50*time.Millisecond, func(Input) PreOutcome {
			var b [1]byte
			syscall.Read(p[0], b[:]) // blocks in the kernel until the write below
			return PreOutcome{Allow: true}
		})
	}()
	waitExit(t, codes, 2, "a decision in a system call")
	syscall.Write(p[1], []byte{1})
	syscall.Close(p[1])
	if code := <-result; code != 2 || strings.Contains(stdout.String(), "allow") {
		t.Errorf("late decision: code %d stdout %q", code, stdout.String())
	}
}
