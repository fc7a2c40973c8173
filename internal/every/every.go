// Package every runs a function at a fixed period until stopped: the
// "still working" lines of long waits (rodin build, rodin exercise, the
// e2e tier), so that no wait is silent.
package every

import (
	"sync"
	"time"
)

// Start calls f every period, with the time since Start, on a goroutine
// of its own, until the returned stop is called (more than once is fine).
// A call under way when stop is called may still finish.
func Start(period time.Duration, f func(elapsed time.Duration)) (stop func()) {
	start := time.Now()
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				f(time.Since(start))
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done) }) }
}
