//go:build unix

package safefile

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// renameOverOpenFile: the lock is held until the new file is in place.
const renameOverOpenFile = true

// lockWait bounds how long a lock is waited for. rodin's own writers hold
// one for milliseconds; any process that can read the file can hold one
// too (flock needs no write permission, attack 69: a sandboxed agent's
// read-only descriptor kept the plan gate's hooks waiting until Claude
// Code killed them, and the run they were to record was lost unseen). The
// caller gets ErrLocked in time to say so.
const lockWait = 3 * time.Second

func lock(f *os.File) error {
	deadline := time.Now().Add(lockWait)
	pause := 200 * time.Microsecond
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case err == syscall.EINTR:
			continue
		case err != syscall.EWOULDBLOCK:
			return err
		case time.Now().After(deadline):
			return ErrLocked
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
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

// openFd opens path with flags, again when a signal interrupts the call.
func openFd(path string, flags int, perm uint32) (int, error) {
	for {
		fd, err := syscall.Open(path, flags|syscall.O_CLOEXEC|syscall.O_NONBLOCK, perm)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// openRegular opens a regular file for reading, without waiting on a FIFO
// or a device, and says its size; the caller closes fd.
func openRegular(path string) (fd int, size int64, err error) {
	fd, err = openFd(path, syscall.O_RDONLY, 0)
	if err != nil {
		return -1, 0, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return -1, 0, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return -1, 0, fmt.Errorf("%s is not a regular file", path)
	}
	return fd, st.Size, nil
}

func readFile(path string, max int64) ([]byte, error) {
	fd, size, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	if size > max {
		return nil, tooLarge(path, size, max)
	}
	// One byte more than the size: a file that grew since the fstat is
	// read on to its end, and then held to max.
	b := make([]byte, 0, size+1)
	for {
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n <= 0 {
			return b, nil
		}
		b = b[:len(b)+n]
		if int64(len(b)) > max {
			return nil, fmt.Errorf("%s: %w (the limit is %d bytes)", path, ErrTooLarge, max)
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

func appendFile(path string, data []byte, perm os.FileMode) (int64, error) {
	fd, err := openFd(path, syscall.O_WRONLY|syscall.O_APPEND|syscall.O_CREAT, uint32(perm.Perm()))
	if err != nil {
		return 0, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	for len(data) > 0 {
		n, err := syscall.Write(fd, data)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, &os.PathError{Op: "write", Path: path, Err: err}
		}
		data = data[n:]
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return 0, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return st.Size, nil
}

func overwrite(path string, data []byte, perm os.FileMode) error {
	fd, err := openFd(path, syscall.O_WRONLY|syscall.O_CREAT, uint32(perm.Perm()))
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	for off := 0; off < len(data); {
		n, err := syscall.Pwrite(fd, data[off:], int64(off))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			syscall.Close(fd)
			return &os.PathError{Op: "write", Path: path, Err: err}
		}
		off += n
	}
	if err := syscall.Close(fd); err != nil {
		return &os.PathError{Op: "close", Path: path, Err: err}
	}
	return nil
}

// readRange reads the bytes of a regular file that span picks from its
// size: them, where they start, and the size (ReadTail, ReadFrom).
func readRange(path string, span func(size int64) (off, n int64)) ([]byte, int64, int64, error) {
	fd, size, err := openRegular(path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer syscall.Close(fd)
	off, n := span(size)
	b := make([]byte, n)
	for got := 0; got < len(b); {
		k, err := syscall.Pread(fd, b[got:], off+int64(got))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, 0, 0, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if k == 0 {
			return b[:got], off, size, nil // shortened meanwhile
		}
		got += k
	}
	return b, off, size, nil
}
