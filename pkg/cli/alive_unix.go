//go:build !windows

package cli

import (
	"errors"
	"syscall"
)

// processAlive reports whether process pid exists (one of another user
// counts: it cannot be signalled, but it is there).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
