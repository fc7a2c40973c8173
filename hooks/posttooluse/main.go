// Command posttooluse is rodin's hook for what is recorded and kept, never
// denied: PostToolUse and PostToolUseFailure, SubagentStop of rodin's own
// subagents, UserPromptSubmit (route.PostToolUse and the tables beside it).
package main

import (
	"os"

	"github.com/rodin-gate/rodin/pkg/route"
)

func main() { os.Exit(route.MainPost(os.Stdin, os.Stdout, os.Stderr)) }
