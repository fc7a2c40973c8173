// Command stop is rodin's Stop, SubagentStop (executors) and TaskCompleted
// hook: the verify gate's check on task boxes ticked any way at all.
package main

import (
	"os"

	"github.com/rodin-gate/rodin/pkg/verifygate"
)

func main() { os.Exit(verifygate.Main(os.Stdin, os.Stdout, os.Stderr)) }
