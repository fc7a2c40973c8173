package hookio

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// lateExit replaces Exit for a test: it records the code the deadline ends
// the process with, and lets the test go on.
func lateExit(t *testing.T) (codes chan int) {
	codes = make(chan int, 1)
	old := Exit
	Exit = func(code int) { codes <- code }
	t.Cleanup(func() { Exit = old })
	return codes
}

// waitExit waits for the code the deadline ends the process with.
func waitExit(t *testing.T, codes chan int, want int, what string) {
	t.Helper()
	select {
	case code := <-codes:
		if code != want {
			t.Fatalf("%s: the deadline ended the process with %d, want %d", what, code, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the deadline did not answer within 10 s", what)
	}
}

// syncBuffer is a buffer two goroutines write (the deadline's and the
// decision's) and the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestPreDeadlineDenies: a decision made on the calling goroutine that
// does not come back in time is denied by the deadline's timer, once: the
// decision, when it comes, writes nothing and returns the deny's code.
func TestPreDeadlineDenies(t *testing.T) {
	codes := lateExit(t)
	release := make(chan struct{})
	var stdout, stderr syncBuffer
	result := make(chan int, 1)
	go func() {
		result <- RunPre(strings.NewReader(`{"tool_name":"ExitPlanMode"}`), &stdout, &stderr, 50*time.Millisecond, func(Input) PreOutcome {
			<-release // a decision that hangs
			return PreOutcome{Allow: true}
		})
	}()
	waitExit(t, codes, 2, "a hung decision")
	if !strings.Contains(stdout.String(), `"permissionDecision":"deny"`) || !strings.Contains(stderr.String(), "did not decide within 50ms") {
		t.Fatalf("the deadline's answer: stdout %q stderr %q", stdout.String(), stderr.String())
	}
	close(release)
	if code := <-result; code != 2 {
		t.Errorf("the late decision returned %d, want the deny's 2", code)
	}
	if strings.Count(stdout.String(), "hookSpecificOutput") != 1 || strings.Contains(stdout.String(), "allow") {
		t.Errorf("more than the deny was written: %q", stdout.String())
	}
}

// TestPreDecisionInTimeStopsDeadline: a decision made in time is the
// answer, and the deadline never fires after it.
func TestPreDecisionInTimeStopsDeadline(t *testing.T) {
	codes := lateExit(t)
	var stdout, stderr syncBuffer
	code := RunPre(strings.NewReader(`{"tool_name":"ExitPlanMode"}`), &stdout, &stderr, 30*time.Millisecond, func(Input) PreOutcome {
		return PreOutcome{Allow: true}
	})
	if code != 0 || !strings.Contains(stdout.String(), `"permissionDecision":"allow"`) {
		t.Fatalf("code %d stdout %q", code, stdout.String())
	}
	select {
	case c := <-codes:
		t.Fatalf("the deadline fired after the decision (exit %d)", c)
	case <-time.After(100 * time.Millisecond):
	}
}

// TestStopDeadlineBlocks: a stop whose decision hangs is blocked by the
// deadline (a TaskCompleted with exit 2), once.
func TestStopDeadlineBlocks(t *testing.T) {
	for _, tc := range []struct {
		input, want string
		code        int
	}{
		{`{"hook_event_name":"Stop","stop_hook_active":false}`, `"decision":"block"`, 0},
		{`{"hook_event_name":"TaskCompleted","task_subject":"V1 [VERIFY] x"}`, "", 2},
	} {
		codes := lateExit(t)
		release := make(chan struct{})
		var stdout, stderr syncBuffer
		result := make(chan int, 1)
		go func() {
			result <- RunStopWithin(strings.NewReader(tc.input), &stdout, &stderr, 50*time.Millisecond, func(Input) StopOutcome {
				<-release
				return StopOutcome{}
			})
		}()
		waitExit(t, codes, tc.code, tc.input)
		if !strings.Contains(stdout.String()+stderr.String(), "did not finish within 50ms") || !strings.Contains(stdout.String(), tc.want) {
			t.Fatalf("%s: stdout %q stderr %q", tc.input, stdout.String(), stderr.String())
		}
		close(release)
		if code := <-result; code != tc.code {
			t.Errorf("%s: the late decision returned %d, want %d", tc.input, code, tc.code)
		}
	}
}
