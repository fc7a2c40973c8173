package hookio

import (
	"runtime/metrics"
	"testing"
)

// stackBytes is the memory of every goroutine's stack.
func stackBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestTuneRuntimeGrowsStack: the calling goroutine's stack holds the
// reserve after TuneRuntime, so a hook's deep paths do not grow it a
// doubling at a time (the frame is not optimized away).
func TestTuneRuntimeGrowsStack(t *testing.T) {
	grown := make(chan uint64)
	go func() {
		before := stackBytes()
		TuneRuntime()
		grown <- stackBytes() - before
	}()
	if got := <-grown; got < stackReserve {
		t.Fatalf("the stack grew by %d bytes, want at least %d", got, stackReserve)
	}
}
