//go:build !windows

package procgroup

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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

// Kill ends cmd's process group (cmd must have been started with Own) and
// every process descended from cmd while it runs: a program may start
// children in process groups of their own (Claude Code does, for its
// shells), and those would outlive a group kill.
func Kill(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	pid := cmd.Process.Pid
	tree := descendants(pid)
	syscall.Kill(-pid, syscall.SIGKILL)
	for _, p := range tree {
		syscall.Kill(p, syscall.SIGKILL)
		syscall.Kill(-p, syscall.SIGKILL) // its group, when it leads one
	}
}

// descendants lists the processes below pid, from /proc where there is
// one, else from ps.
func descendants(pid int) []int {
	children := map[int][]int{}
	if stats, _ := filepath.Glob("/proc/[0-9]*/stat"); len(stats) > 0 {
		for _, f := range stats {
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			// pid (comm) state ppid …; comm may hold spaces and parens.
			s := string(data)
			i := strings.LastIndexByte(s, ')')
			if i < 0 {
				continue
			}
			fields := strings.Fields(s[i+1:])
			id, _ := strconv.Atoi(strings.Fields(s)[0])
			if len(fields) < 2 || id == 0 {
				continue
			}
			ppid, _ := strconv.Atoi(fields[1])
			children[ppid] = append(children[ppid], id)
		}
	} else if out, err := exec.Command("ps", "-A", "-o", "pid=,ppid=").Output(); err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			if len(f) != 2 {
				continue
			}
			id, _ := strconv.Atoi(f[0])
			ppid, _ := strconv.Atoi(f[1])
			children[ppid] = append(children[ppid], id)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
