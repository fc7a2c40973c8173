//go:build linux && (amd64 || arm64)

package project

import (
	"syscall"
	"unsafe"
)

const atSymlinkNoFollow = 0x100 // AT_SYMLINK_NOFOLLOW

func openDirStat(root string) *dirStat {
	fd, err := syscall.Open(root, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		fd = -1
	}
	return &dirStat{root: root, fd: fd}
}

func (d *dirStat) close() {
	if d.fd >= 0 {
		syscall.Close(d.fd)
	}
}

func (d *dirStat) statAt(rel string) (changed int64, ok bool) {
	p, err := syscall.BytePtrFromString(rel)
	if err != nil {
		return 0, false
	}
	var st syscall.Stat_t
	for {
		_, _, errno := syscall.Syscall6(sysFstatat, uintptr(d.fd), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&st)), atSymlinkNoFollow, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			return 0, false
		}
		t := st.Mtim.Nano()
		if c := st.Ctim.Nano(); c > t {
			t = c // the status change time: see filetime.Changed
		}
		return t, true
	}
}
