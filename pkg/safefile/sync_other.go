//go:build !linux

package safefile

import "os"

// syncData flushes a file before the rename makes it visible.
func syncData(f *os.File) error { return f.Sync() }
