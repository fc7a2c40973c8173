// Command pretooluse is rodin's PreToolUse hook on ExitPlanMode: the plan gate.
package main

import (
	"os"

	"github.com/rodin-gate/rodin/pkg/gate"
)

func main() { os.Exit(gate.Main(os.Stdin, os.Stdout, os.Stderr)) }
