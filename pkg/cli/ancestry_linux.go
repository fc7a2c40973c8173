package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// underClaudeCode reports whether a process above this one is Claude
// Code (its CLI, `claude`, or node running its package): a command the
// agent's Bash runs, through a pseudo-terminal too (`script -qc`), with
// Claude Code's variables unset, is still its child. It reads /proc; an
// unreadable ancestor ends the walk.
func underClaudeCode() bool {
	pid := os.Getppid()
	for i := 0; i < 64 && pid > 1; i++ {
		dir := "/proc/" + strconv.Itoa(pid)
		if comm, err := os.ReadFile(dir + "/comm"); err == nil && strings.TrimSpace(string(comm)) == "claude" {
			return true
		}
		if cmd, err := os.ReadFile(dir + "/cmdline"); err == nil {
			args := bytes.Split(cmd, []byte{0})
			if len(args) > 0 && filepath.Base(string(args[0])) == "claude" || bytes.Contains(cmd, []byte("@anthropic-ai/claude-code")) {
				return true
			}
		}
		stat, err := os.ReadFile(dir + "/stat")
		if err != nil {
			return false
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(stat, ')')
		f := strings.Fields(string(stat[i+1:]))
		if i < 0 || len(f) < 2 {
			return false
		}
		if pid, err = strconv.Atoi(f[1]); err != nil {
			return false
		}
	}
	return false
}
