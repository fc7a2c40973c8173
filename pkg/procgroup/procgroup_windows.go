package procgroup

import "os/exec"

// Own does nothing on Windows: Kill ends the process itself.
func Own(*exec.Cmd) {}

// Kill ends cmd's process.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
