package hookio

import (
	"os"
	"sync"
	"time"
)

// Exit ends the process when a hook's deadline passes before its decision:
// os.Exit in the executables (a variable for tests).
var Exit = os.Exit

// deadline answers for a hook whose decision is late. The decision is made
// on the calling goroutine, not on one of its own: a second goroutine
// started a second thread in every hook process (about 0.05 ms of a 2 ms
// hook, issue 31). A timer stands guard instead; when it fires first it
// writes the fail-closed answer and ends the process, whatever the
// decision is doing (a blocked system call, a loop: the runtime runs the
// timer on another thread).
type deadline struct {
	mu       sync.Mutex
	answered bool
	timer    *time.Timer
	lateDone chan struct{} // closed once the late answer is written
	lateCode int           // its exit code
}

// startDeadline arms the guard: after d (none when d <= 0), unless the
// decision answered first, late writes the fail-closed answer and its exit
// code ends the process.
func startDeadline(d time.Duration, late func() int) *deadline {
	g := &deadline{lateDone: make(chan struct{})}
	if d > 0 {
		g.timer = time.AfterFunc(d, func() {
			if !g.claim() {
				return
			}
			g.lateCode = late()
			close(g.lateDone)
			Exit(g.lateCode)
		})
	}
	return g
}

func (g *deadline) claim() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.answered {
		return false
	}
	g.answered = true
	return true
}

// answer reports whether the decision may be written: false when the
// deadline answered first, once its answer is written, with that answer's
// exit code (the process is ending with it; answer's caller returns it).
func (g *deadline) answer() (lateCode int, ok bool) {
	if g.timer != nil {
		g.timer.Stop()
	}
	if g.claim() {
		return 0, true
	}
	<-g.lateDone
	return g.lateCode, false
}
