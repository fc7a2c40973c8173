//go:build unix

package safefile

import (
	"os"
	"syscall"
)

// renameOverOpenFile: the lock is held until the new file is in place.
const renameOverOpenFile = true

func lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

// openNoBlock opens for reading without waiting on a FIFO or device.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
