// Package filetime reads when a file last changed: the later of its
// modification time, which any writer may set (touch -r, tar -x), and its
// status change time, which the kernel sets and nobody can set back.
package filetime

import (
	"io/fs"
	"time"
)

// Changed is the later of info's modification and change times (the
// modification time alone where the system gives no change time).
func Changed(info fs.FileInfo) time.Time {
	m := info.ModTime()
	if c, ok := ctime(info); ok && c.After(m) {
		return c
	}
	return m
}
