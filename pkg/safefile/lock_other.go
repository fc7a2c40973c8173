//go:build !unix

package safefile

import "os"

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
