// A hook lives milliseconds: the runtime's goroutine that follows changes of
// the container's CPU limit is not started (a thread fewer, about 0.04 ms).
//go:debug updatemaxprocs=0

// Command stop is rodin's Stop, SubagentStop (executors) and TaskCompleted
// hook (route.Stop and the tables beside it): the verify gate's check on
// task boxes ticked any way at all.
package main

import (
	"os"

	"github.com/rodin-gate/rodin/pkg/route"
)

func main() { os.Exit(route.MainStop(os.Stdin, os.Stdout, os.Stderr)) }
