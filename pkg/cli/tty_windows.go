package cli

import (
	"os"
	"syscall"
)

// isTerminal reports whether f is a console: GetConsoleMode succeeds on
// it (NUL and pipes fail).
func isTerminal(f *os.File) bool {
	var mode uint32
	return syscall.GetConsoleMode(syscall.Handle(f.Fd()), &mode) == nil
}
