// Command pretooluse is rodin's PreToolUse hook: the table route.PreToolUse
// (the plan gate on ExitPlanMode, the guard and the verify gate on Markdown
// edits, messages to subagents, reads of rodin's data).
package main

import (
	"os"

	"github.com/rodin-gate/rodin/pkg/route"
)

func main() { os.Exit(route.MainPre(os.Stdin, os.Stdout, os.Stderr)) }
