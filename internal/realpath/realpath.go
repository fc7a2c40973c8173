// Package realpath resolves a path's symbolic links once per hook call:
// the plan gate, the verify gate and the contracts each resolve the file a
// tool call writes and the project root, a stat per path element each
// time, and a tick is felt at every millisecond (issue 31).
//
// Outside a hook call (Begin), Eval is filepath.EvalSymlinks: the CLI and
// tests see the file system as it is at each call.
package realpath

import (
	"path/filepath"
	"sync"
)

var (
	mu    sync.Mutex
	calls int               // hook calls under way (tests run several)
	memo  map[string]string // path -> resolved, for paths that resolved; nil outside a call
)

// Begin starts a hook call's memo; the function it returns ends it.
func Begin() (end func()) {
	mu.Lock()
	calls++
	mu.Unlock()
	return func() {
		mu.Lock()
		if calls--; calls == 0 {
			memo = nil
		}
		mu.Unlock()
	}
}

// Eval is filepath.EvalSymlinks, remembered for the hook call under way. A
// path that does not resolve (a file about to be made) is looked at again
// each time.
func Eval(path string) (string, error) {
	mu.Lock()
	real, ok := memo[path]
	mu.Unlock()
	if ok {
		return real, nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return real, err
	}
	mu.Lock()
	if calls > 0 {
		if memo == nil {
			memo = map[string]string{} // made on first use: most hook calls resolve nothing
		}
		memo[path] = real
	}
	mu.Unlock()
	return real, nil
}
