// Package par runs a few pieces of work at once for the hooks that split
// large jobs across CPUs.
//
// A panic in a goroutine would end the process past the hooks' own
// recover (the fail-closed deny of PreToolUse, the silent exit 0 of
// PostToolUse), so Do carries it back to its caller.
package par

import "sync"

// Do calls work(0), ..., work(n-1), work(0) on the calling goroutine and
// the others on goroutines of their own, and returns when all have. If any
// panicked, Do panics on the caller with the first value.
func Do(n int, work func(i int)) {
	var (
		wg       sync.WaitGroup
		first    sync.Once
		panicked any
	)
	run := func(i int) {
		defer func() {
			if v := recover(); v != nil {
				first.Do(func() { panicked = v })
			}
		}()
		work(i)
	}
	for i := 1; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(i)
		}()
	}
	if n > 0 {
		run(0)
	}
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
}
