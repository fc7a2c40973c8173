package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/rodin-gate/rodin/pkg/procgroup"
)

// tailLines is how much of a failing command's output `rodin verify`
// prints.
const tailLines = 50

type commandResult struct {
	exit     int
	skipped  bool // not found (exit 127)
	timedOut bool
	took     time.Duration
	tail     []string
}

// runTaskCommand runs one command through sh from root, with its output
// kept to the last lines, and kills its process group at the timeout.
// shellCommand runs a task's command line with bash and pipefail when bash
// is there: `pytest | tail -20` then fails when pytest fails, as a check
// must (without it, tail's exit is the line's). sh otherwise.
//
// The shell reads no start-up file and no variable that changes where a
// `cd` goes or what runs before the line: CDPATH would take the task's own
// `cd web && sh check.sh` to another machine's web/ (attack 68), BASH_ENV
// and ENV name a script the shell runs first, and exported functions stand
// in for programs. The check runs as the task wrote it, wherever the
// caller's shell was set up.
func shellCommand(command string) *exec.Cmd {
	var cmd *exec.Cmd
	if bash, err := exec.LookPath("bash"); err == nil {
		cmd = exec.Command(bash, "--noprofile", "--norc", "-o", "pipefail", "-c", command)
	} else {
		cmd = exec.Command("sh", "-c", command)
	}
	cmd.Env = checkEnv(os.Environ())
	return cmd
}

// checkEnv is env without the variables that change what a shell line
// does before it runs: CDPATH, BASH_ENV, ENV, the shell's options and
// trace prompt, and exported bash functions.
func checkEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "CDPATH", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "GLOBIGNORE", "IFS", "BASH_XTRACEFD", "PROMPT_COMMAND":
			// SHELLOPTS=xtrace and a PS4 that assigns CDPATH set it
			// again inside the shell (attack 70).
			continue
		}
		if strings.HasPrefix(k, "BASH_FUNC_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func runTaskCommand(root, command string, timeout time.Duration) commandResult {
	cmd := shellCommand(command)
	cmd.Dir = root
	out := &tailBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	procgroup.Own(cmd)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return commandResult{exit: -1, took: time.Since(start), tail: []string{err.Error()}}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	timedOut := false
	select {
	case err = <-done:
	case <-time.After(timeout):
		timedOut = true
		procgroup.Kill(cmd)
		err = <-done
	}
	// Children that outlive sh (a background server) go with it.
	procgroup.Kill(cmd)
	res := commandResult{took: time.Since(start), timedOut: timedOut, tail: out.lines()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.exit = exit.ExitCode()
		if res.exit == 127 {
			res.skipped = true
		}
	default:
		res.exit = -1
	}
	if timedOut && res.exit == 0 {
		res.exit = -1
	}
	return res
}

// tailBuffer keeps the last lines written to it, bounded in bytes.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 64 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailBytes {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimRight(string(bytes.ToValidUTF8(t.buf, []byte("\uFFFD"))), "\n")
	if s == "" {
		return nil
	}
	l := strings.Split(s, "\n")
	if len(l) > tailLines {
		l = l[len(l)-tailLines:]
	}
	return l
}
