// Package safefile replaces a file's contents so that no reader ever sees a
// partial write and no two writers lose each other's update.
//
// A writer takes an exclusive advisory lock on the file, reads it, and puts
// the new contents in place with a temporary file in the same directory,
// fsync and rename (keeping the file mode). Since the rename swaps the
// inode, a writer that waited for the lock checks that the file it locked is
// still the one at the path, and starts over when it is not.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrTooLarge is returned when the file is larger than the caller's limit.
var ErrTooLarge = errors.New("file too large")

// ErrLocked is Update's error when another process held the file's lock
// for longer than rodin waits.
var ErrLocked = errors.New("another process holds its lock")

// Open opens a file for reading as ReadFile does: never waiting on a FIFO
// or a device, and with no more system calls than the open (a hook opens a
// handful of files, and each call is felt).
func Open(path string) (*os.File, error) { return openNoBlock(path) }

// Overwrite writes data at the start of the file at path (created with
// perm when missing) in one call, without truncating it or swapping it:
// three system calls where an atomic replace costs a temporary file and a
// rename. Only for a fixed-size record whose reader checks it, since a
// crash mid-write or a concurrent reader may see it torn.
func Overwrite(path string, data []byte, perm os.FileMode) error { return overwrite(path, data, perm) }

// ReadFrom reads a regular file from off to its end, at most max bytes of
// it, and says its size (nothing read when off is at or past it). It never
// blocks on a FIFO or a device, and makes only the system calls it needs.
func ReadFrom(path string, off, max int64) (b []byte, size int64, err error) {
	b, _, size, err = readRange(path, func(size int64) (int64, int64) {
		if off >= size {
			return off, 0
		}
		return off, min(size-off, max)
	})
	return b, size, err
}

// IsNotExist is errors.Is(err, fs.ErrNotExist) for the errors this
// package and package os return, without the interface lookup errors.Is
// makes: a fresh process builds that method table at its first call, and a
// hook pays it on its hot path (a missing file is the common answer).
// Other errors are asked through errors.Is.
func IsNotExist(err error) bool {
	for {
		switch e := err.(type) {
		case nil:
			return false
		case syscall.Errno:
			return e.Is(fs.ErrNotExist)
		case *fs.PathError:
			err = e.Err
		case *os.LinkError:
			err = e.Err
		case *os.SyscallError:
			err = e.Err
		default:
			return errors.Is(err, fs.ErrNotExist)
		}
	}
}

// ReadFile reads a regular file of at most max bytes. It never blocks on a
// FIFO or a device: it opens without waiting and refuses non-regular files.
// On Unix it makes only the system calls the answer needs (open, fstat,
// read, close), without an os.File: a hook reads several small files, and
// each os.File costs a poller registration the kernel refuses for a
// regular file, and a finalizer.
func ReadFile(path string, max int64) ([]byte, error) { return readFile(path, max) }

// Append writes data at the end of the file at path, created with perm
// when missing, and returns the file's size after the write: one open, one
// write, one fstat, one close, never waiting on a FIFO.
func Append(path string, data []byte, perm os.FileMode) (size int64, err error) {
	return appendFile(path, data, perm)
}

// ReadTail reads the last n bytes of the regular file at path (all of it
// when it is shorter) and says where they start: open, fstat, one pread,
// close, never waiting on a FIFO.
func ReadTail(path string, n int64) (tail []byte, off int64, err error) {
	tail, off, _, err = readRange(path, func(size int64) (int64, int64) {
		off := max(size-n, 0)
		return off, size - off
	})
	return tail, off, err
}

// ReadBefore reads the n bytes of the regular file at path that end at
// off (fewer when off-n is before its start), for a reader going back from
// a tail it has: nothing when the file is now shorter than off (it was cut
// or replaced, and what is before off is not what was).
func ReadBefore(path string, off, n int64) ([]byte, error) {
	b, _, _, err := readRange(path, func(size int64) (int64, int64) {
		if off > size {
			return off, 0
		}
		from := max(off-n, 0)
		return from, off - from
	})
	return b, err
}

func tooLarge(path string, size, max int64) error {
	return fmt.Errorf("%s: %w (%d bytes, the limit is %d)", path, ErrTooLarge, size, max)
}

func readRegular(f *os.File, max int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", f.Name())
	}
	if fi.Size() > max {
		return nil, tooLarge(f.Name(), fi.Size(), max)
	}
	b := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if int64(len(b)) > max {
			return nil, fmt.Errorf("%s: %w (the limit is %d bytes)", f.Name(), ErrTooLarge, max)
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// Update calls edit with the current contents of path, under an exclusive
// lock, and atomically replaces the file with what edit returns. When edit
// returns nil bytes, nothing is written. It reports whether it wrote.
func Update(path string, max int64, edit func(old []byte) ([]byte, error)) (bool, error) {
	for attempt := 0; attempt < 100; attempt++ {
		f, err := openNoBlock(path)
		if err != nil {
			return false, err
		}
		wrote, retry, err := updateLocked(f, path, max, edit)
		f.Close()
		if !retry {
			return wrote, err
		}
	}
	return false, fmt.Errorf("%s kept changing while rodin waited to update it", path)
}

func updateLocked(f *os.File, path string, max int64, edit func([]byte) ([]byte, error)) (wrote, retry bool, err error) {
	if err := lock(f); err != nil {
		return false, false, fmt.Errorf("cannot lock %s: %v", path, err)
	}
	locked, err := f.Stat()
	if err != nil {
		return false, false, err
	}
	current, err := os.Stat(path)
	if err != nil {
		return false, false, err
	}
	if !os.SameFile(locked, current) {
		return false, true, nil // replaced while we waited: lock the new one
	}
	old, err := readRegular(f, max)
	if err != nil {
		return false, false, err
	}
	next, err := edit(old)
	if err != nil || next == nil {
		return false, false, err
	}
	if !renameOverOpenFile {
		f.Close()
	}
	// Leftovers go while the lock still covers the file at the path: once
	// the new file is in place, a writer that locks it may already have a
	// temporary file of its own.
	if err := replace(path, next, locked.Mode().Perm(), removeLeftovers); err != nil {
		return false, false, err
	}
	return true, false, nil
}

// tempPattern names a plan's temporary files: a dot, the plan's name, a
// random part, ".tmp". Never a .md name, so nothing takes one for a plan.
func tempPattern(path string) string { return "." + filepath.Base(path) + ".rodin-*.tmp" }

// removeLeftovers deletes temporary files of path that a writer killed
// mid-write left behind, all but keep (the caller's own). It runs under
// the lock of the file at the path, before the rename, so no other writer
// that updates it has one open (a CreateNew under way may lose its
// temporary file: it then finds the file made, as it would anyway).
func removeLeftovers(path, keep string) {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), tempPattern(path)))
	for _, m := range matches {
		if m != keep {
			os.Remove(m)
		}
	}
}

// Crash is a test seam: when set, it is called at the named points of a
// write ("mid-write", after half the data; "before-rename", after the
// flush). rodin's executables never set it; crash tests use it to stop a
// process there and kill it.
var Crash func(point string)

// replace writes data to a temporary file beside path, flushes it to disk,
// and renames it over path: a reader, or a crash, sees the old file or the
// new one, never a part. The temporary name starts with a dot and does not
// end in .md, so nothing takes a leftover for a plan.
func replace(path string, data []byte, perm os.FileMode, beforeRename func(path, tmp string)) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPattern(path))
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if Crash != nil {
		if _, err = tmp.Write(data[:len(data)/2]); err != nil {
			return err
		}
		Crash("mid-write")
		data = data[len(data)/2:]
	}
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = syncData(tmp); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if Crash != nil {
		Crash("before-rename")
	}
	if beforeRename != nil {
		beforeRename(path, tmp.Name())
	}
	return os.Rename(tmp.Name(), path)
}

// ReadInto appends the contents of the regular file at path to buf, reading
// at most max bytes, without the per-file costs of os.File: it is for
// scanning many files (the gate's session search). Like ReadFile it opens
// without waiting, so a FIFO reads as empty instead of blocking.
func ReadInto(buf []byte, path string, max int64) ([]byte, error) {
	return readInto(buf, path, max)
}

// WriteAtomic replaces (or creates) the file at path with data: written to
// a temporary file beside it, synced, then renamed over it, so a reader
// sees the old contents or the new, never a part.
func WriteAtomic(path string, data []byte, perm os.FileMode) error {
	return replace(path, data, perm, nil)
}

// WriteAtomicNoSync is WriteAtomic without the flush to disk: a reader
// still sees the old contents or the new, never a part, but a crash may
// leave the file empty. For small records that cost a hook's latency at
// every call and that the reader treats as damaged when they do not parse.
func WriteAtomicNoSync(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPattern(path))
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// CreateNew makes the file at path with data, only when there is none: the
// data is written to a temporary file beside it and linked into place, so
// nobody ever sees the file empty or half written (an O_EXCL create
// followed by a write shows a reader an empty file in between). It returns
// an error satisfying errors.Is(err, fs.ErrExist) when path exists.
func CreateNew(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPattern(path))
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = syncData(tmp)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if _, serr := os.Lstat(path); serr == nil {
			return &os.PathError{Op: "create", Path: path, Err: fs.ErrExist}
		}
		return err
	}
	return nil
}
