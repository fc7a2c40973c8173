//go:build !windows

package procgroup

import (
	"os/exec"
	"syscall"
)

// Own starts cmd in a process group of its own, so that Kill ends
// everything it started.
func Own(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// Kill ends cmd's process group (cmd must have been started with Own).
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
