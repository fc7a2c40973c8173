package lazy

import (
	"sync"
	"testing"
)

// TestValueMadeOnce: concurrent first uses make the value once and all
// see it.
func TestValueMadeOnce(t *testing.T) {
	var v Value[*int]
	made := 0
	var mu sync.Mutex
	var wg sync.WaitGroup
	got := make([]*int, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = v.Get(func() *int {
				mu.Lock()
				made++
				mu.Unlock()
				return new(int)
			})
		}()
	}
	wg.Wait()
	if made != 1 {
		t.Fatalf("made %d times, want 1", made)
	}
	for _, p := range got {
		if p != got[0] {
			t.Fatal("two callers saw different values")
		}
	}
}
