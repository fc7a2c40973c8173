// Command posttooluse is rodin's PostToolUse hook on Write, Edit and
// MultiEdit: it keeps the metadata at the end of a plan file true.
package main

import (
	"os"

	"github.com/rodin-gate/rodin/pkg/keeper"
)

func main() { os.Exit(keeper.Main(os.Stdin, os.Stdout, os.Stderr)) }
