// Built the same way as the hooks, with their runtime settings too.
//go:debug updatemaxprocs=0

// Command floor is the benchmark floor: the least a Go hook can do, read
// stdin and exit, built the same way as the hooks.
package main

import (
	"io"
	"os"
)

func main() {
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}
