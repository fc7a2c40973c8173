// Command artifacts is rodin's hook for Writes and Edits of JSON files,
// before and after they run: the artifact contracts' check, without the
// other executables' Markdown parser (pkg/route/artifacts).
package main

import (
	"os"

	"github.com/rodin-gate/rodin/pkg/route/artifacts"
)

func main() { os.Exit(artifacts.Main(os.Stdin, os.Stdout, os.Stderr)) }
