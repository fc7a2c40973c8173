// A hook lives milliseconds: the runtime's goroutine that follows changes of
// the container's CPU limit is not started (a thread fewer, about 0.04 ms).
//go:debug updatemaxprocs=0

// Command pretooluse is rodin's PreToolUse hook: the table route.PreToolUse
// (the plan gate on ExitPlanMode, the guard and the verify gate on Markdown
// edits, messages to subagents, reads of rodin's data).
package main

import (
	"os"

	"github.com/rodin-gate/rodin/pkg/route"
)

func main() { os.Exit(route.MainPre(os.Stdin, os.Stdout, os.Stderr)) }
