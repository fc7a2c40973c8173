// Command peakrss runs a command and prints its peak resident set size in
// KiB on stdout. The benchmark measures through it because a child forked
// by a large process (the test binary) inherits that process's high-water
// mark; this wrapper is small, so what it reports is the command's own.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout = os.Stdin, nil
	err := cmd.Run()
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = int64(ru.Maxrss)
	}
	fmt.Printf("%d\n", rss)
	if err != nil {
		os.Exit(1)
	}
}
