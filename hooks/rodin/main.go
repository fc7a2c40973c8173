// Command rodin gives the /rodin:plan-gate skill its deterministic steps and
// people a view of the gate: see `rodin help`.
package main

import (
	"os"

	"github.com/rodin-gate/rodin/pkg/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
