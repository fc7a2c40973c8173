package every

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestStart: f runs at the period with a growing elapsed time, and never
// after stop has returned and a running call is done.
func TestStart(t *testing.T) {
	var calls atomic.Int32
	var last atomic.Int64
	stop := Start(5*time.Millisecond, func(el time.Duration) {
		if el.Nanoseconds() < last.Load() {
			t.Errorf("elapsed went back: %v", el)
		}
		last.Store(el.Nanoseconds())
		calls.Add(1)
	})
	deadline := time.Now().Add(5 * time.Second)
	for calls.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if calls.Load() < 3 {
		t.Fatalf("%d calls in 5 s at a 5 ms period", calls.Load())
	}
	stop()
	stop()
	time.Sleep(20 * time.Millisecond) // a call under way finishes
	n := calls.Load()
	time.Sleep(50 * time.Millisecond)
	if calls.Load() != n {
		t.Errorf("f ran %d times after stop", calls.Load()-n)
	}
}
