package par

import (
	"sync/atomic"
	"testing"
)

func TestDoRunsEveryPiece(t *testing.T) {
	var done [5]atomic.Bool
	Do(len(done), func(i int) { done[i].Store(true) })
	for i := range done {
		if !done[i].Load() {
			t.Errorf("piece %d did not run", i)
		}
	}
	Do(0, func(int) { t.Error("ran with n = 0") })
}

// TestDoCarriesPanics: a panic on another goroutine reaches the caller, after
// every piece has finished.
func TestDoCarriesPanics(t *testing.T) {
	var finished atomic.Int32
	defer func() {
		if v := recover(); v != "piece 2" {
			t.Errorf("recovered %v, want the panic of piece 2", v)
		}
		if finished.Load() != 3 {
			t.Errorf("%d pieces finished before Do returned, want 3", finished.Load())
		}
	}()
	Do(4, func(i int) {
		if i == 2 {
			panic("piece 2")
		}
		finished.Add(1)
	})
}
