//go:build !windows

package cli

import (
	"io/fs"
	"syscall"
)

// fileID is a file's device and inode: two names of one file share it.
func fileID(fi fs.FileInfo) ([2]uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return [2]uint64{}, false
	}
	return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
}
