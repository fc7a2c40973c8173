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
	return os.OpenFile(path, os.O_RDONLY|noBlock, 0)
}

// noBlock opens without waiting on a FIFO or device; to os.OpenFile it also
// says the file needs no switch to non-blocking and back (four fcntl calls
// and an epoll_ctl on Linux, for a regular file that the poller refuses).
const noBlock = syscall.O_NONBLOCK

func readInto(buf []byte, path string, max int64) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return buf, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	for {
		if cap(buf)-len(buf) < 32<<10 {
			buf = append(buf, make([]byte, 64<<10)...)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return buf, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n <= 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return buf, ErrTooLarge
		}
	}
}
