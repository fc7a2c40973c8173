//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !windows

package cli

import "os"

// isTerminal is false where rodin cannot tell: a waiver made there is a
// request until the user confirms it in Claude Code.
func isTerminal(*os.File) bool { return false }
