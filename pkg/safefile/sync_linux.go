package safefile

import (
	"os"
	"syscall"
)

// syncData flushes a file's data (and the size needed to read it back)
// before the rename makes it visible; fdatasync skips the other metadata.
func syncData(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
