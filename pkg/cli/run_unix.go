//go:build !windows

package cli

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, so that a timeout
// kills everything it started.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
