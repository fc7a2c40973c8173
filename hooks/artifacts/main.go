// A hook lives milliseconds: the runtime's goroutine that follows changes of
// the container's CPU limit is not started (a thread fewer, about 0.04 ms).
//go:debug updatemaxprocs=0

// Command artifacts is rodin's hook for Writes and Edits of JSON files,
// before and after they run: the artifact contracts' check, without the
// other executables' Markdown parser (pkg/route/artifacts).
package main

import (
	"os"

	"github.com/rodin-gate/rodin/pkg/route/artifacts"
)

func main() { os.Exit(artifacts.Main(os.Stdin, os.Stdout, os.Stderr)) }
