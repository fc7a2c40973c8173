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
