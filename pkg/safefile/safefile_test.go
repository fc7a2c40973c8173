package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// CreateNew is first-writer-wins, and nobody ever reads the file empty or
// half written while writers race to make it.
func TestCreateNewRace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	const writers = 20
	var wg sync.WaitGroup
	wins := make(chan string, writers)
	stop := make(chan struct{})
	seen := make(chan string, 1)
	go func() { // a reader, as a hook of another event would be
		for {
			select {
			case <-stop:
				close(seen)
				return
			default:
			}
			b, err := ReadFile(path, 1<<10)
			if err == nil && len(b) < len("writer-00\n") {
				seen <- fmt.Sprintf("read %q", b)
				close(seen)
				return
			}
		}
	}()
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			data := fmt.Sprintf("writer-%02d\n", i)
			err := CreateNew(path, []byte(data), 0o600)
			switch {
			case err == nil:
				wins <- data
			case !errors.Is(err, fs.ErrExist):
				t.Errorf("writer %d: %v, want success or fs.ErrExist", i, err)
			}
		}(i)
	}
	wg.Wait()
	close(stop)
	close(wins)
	if bad, ok := <-seen; ok {
		t.Errorf("a reader saw a partial file: %s", bad)
	}
	var won []string
	for w := range wins {
		won = append(won, w)
	}
	if len(won) != 1 {
		t.Fatalf("%d writers made the file, want exactly 1: %q", len(won), won)
	}
	if b, _ := os.ReadFile(path); string(b) != won[0] {
		t.Errorf("the file holds %q, the winner wrote %q", b, won[0])
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
}

// TestIsNotExist: IsNotExist answers as errors.Is(err, fs.ErrNotExist) for
// what opens, stats and wrapped errors return.
func TestIsNotExist(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, readMissing := ReadFile(missing, 10)
	_, readUnder := ReadFile(filepath.Join(file, "x"), 10) // ENOTDIR
	_, statMissing := os.Stat(missing)
	linkErr := os.Rename(missing, filepath.Join(dir, "b"))
	for _, err := range []error{
		nil, readMissing, readUnder, statMissing, linkErr,
		os.NewSyscallError("open", syscall.ENOENT), syscall.ENOENT, syscall.EACCES,
		fmt.Errorf("wrapped: %w", readMissing), fs.ErrNotExist, fs.ErrPermission, errors.New("other"),
	} {
		if got, want := IsNotExist(err), errors.Is(err, fs.ErrNotExist); got != want {
			t.Errorf("IsNotExist(%v) = %v, errors.Is says %v", err, got, want)
		}
	}
	if !IsNotExist(readMissing) || IsNotExist(readUnder) {
		t.Errorf("a missing file is not missing, or a path under a file is (%v, %v)", readMissing, readUnder)
	}
}
