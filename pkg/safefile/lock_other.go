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

func readFrom(path string, off, max int64) ([]byte, int64, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file", path)
	}
	if off >= fi.Size() {
		return nil, fi.Size(), nil
	}
	b := make([]byte, min(fi.Size()-off, max))
	k, err := f.ReadAt(b, off)
	if err != nil && err != io.EOF {
		return nil, 0, err
	}
	return b[:k], fi.Size(), nil
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

func readTail(path string, n int64) ([]byte, int64, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file", path)
	}
	off := max(fi.Size()-n, 0)
	b := make([]byte, fi.Size()-off)
	k, err := f.ReadAt(b, off)
	if err != nil && err != io.EOF {
		return nil, 0, err
	}
	return b[:k], off, nil
}
