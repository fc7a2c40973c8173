// A hook lives milliseconds: the runtime's goroutine that follows changes of
// the container's CPU limit is not started (a thread fewer, about 0.04 ms).
//go:debug updatemaxprocs=0

// Command posttooluse is rodin's hook for what is recorded and kept, never
// denied: PostToolUse and PostToolUseFailure, SubagentStop of rodin's own
// subagents, UserPromptSubmit (route.PostToolUse and the tables beside it).
package main

import (
	"os"

	"github.com/rodin-gate/rodin/pkg/route"
)

func main() { os.Exit(route.MainPost(os.Stdin, os.Stdout, os.Stderr)) }
