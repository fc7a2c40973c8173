//go:build !unix

package safefile

import (
	"fmt"
	"io"
	"os"
)

// lock is a no-op where flock does not exist (Windows): the replace is still
// atomic, but two concurrent writers may lose one update.
// renameOverOpenFile is false on Windows, which cannot rename over an open
// file: the file is closed just before the rename.
const renameOverOpenFile = false

func lock(f *os.File) error { return nil }

func openNoBlock(path string) (*os.File, error) { return os.Open(path) }

const noBlock = 0

func readInto(buf []byte, path string, max int64) ([]byte, error) {
	b, err := ReadFile(path, max)
	return append(buf, b...), err
}

func readFile(path string, max int64) ([]byte, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readRegular(f, max)
}

func appendFile(path string, data []byte, perm os.FileMode) (int64, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

func overwrite(path string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|noBlock, perm)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(data, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readRange reads the bytes of a regular file that span picks from its
// size: them, where they start, and the size (ReadTail, ReadFrom).
func readRange(path string, span func(size int64) (off, n int64)) ([]byte, int64, int64, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, 0, fmt.Errorf("%s is not a regular file", path)
	}
	off, n := span(fi.Size())
	b := make([]byte, n)
	k, err := f.ReadAt(b, off)
	if err != nil && err != io.EOF {
		return nil, 0, 0, err
	}
	return b[:k], off, fi.Size(), nil
}
