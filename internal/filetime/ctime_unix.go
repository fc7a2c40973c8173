//go:build linux || darwin

package filetime

import (
	"io/fs"
	"syscall"
	"time"
)

func ctime(info fs.FileInfo) (time.Time, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	sec, nsec := statCtime(st)
	return time.Unix(sec, nsec), true
}
