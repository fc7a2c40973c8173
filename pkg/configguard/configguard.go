// Package configguard keeps the agent's file tools off the verify gate's
// configuration (.rodin/config.json): which files are task files, which
// changes make a check stale, how long a check may run are the user's to
// say. A Write or Edit of it is denied while the verify gate is on; a
// change through Bash is carried past the session until the user accepts
// it (pkg/verifygate, config.go). It is its own package so that the
// artifacts executable, which sees Writes and Edits of JSON files, routes
// to it without linking the verify gate's Markdown parser.
package configguard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rodin-gate/rodin/internal/realpath"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/project"
)

// PreWrite denies a Write, Edit or MultiEdit of the project's
// .rodin/config.json while the verify gate is on.
func PreWrite(in hookio.Input, getenv func(string) string) hookio.PreOutcome {
	path := in.FilePath()
	if getenv("RODIN_VERIFY") == "off" || path == "" {
		return hookio.NoDecision
	}
	root := project.Root(getenv, in.Cwd())
	if root == "" {
		return hookio.NoDecision
	}
	want := filepath.Join(root, filepath.FromSlash(project.ConfigFile))
	// Another name of the same file (a hard link made through Bash): the
	// tool writes the configuration.
	if ci, err := os.Stat(want); err == nil { // a project without one pays one stat
		if fi, err := os.Stat(path); err == nil && os.SameFile(fi, ci) {
			return deny()
		}
	}
	if !strings.HasSuffix(strings.ToLower(path), "config.json") {
		return hookio.NoDecision
	}
	real := path
	if r, err := realpath.Eval(path); err == nil {
		real = r
	} else if d, err := realpath.Eval(filepath.Dir(path)); err == nil {
		real = filepath.Join(d, filepath.Base(path)) // a new file
	}
	realWant := want
	if r, err := realpath.Eval(filepath.Dir(want)); err == nil {
		realWant = filepath.Join(r, filepath.Base(want))
	}
	if filepath.Clean(path) != want && real != realWant {
		return hookio.NoDecision
	}
	return deny()
}

func deny() hookio.PreOutcome {
	return hookio.PreOutcome{Deny: true, Reason: fmt.Sprintf("[rodin] %s is the verify gate's configuration (which files are task files, which changes make a check stale, how long a check may run): the user's to change, not an agent's. To fix: ask the user to change it in their editor (it takes effect at the next session); a change made through Bash is not in force until the user accepts it (`rodin waive --config` at a terminal).", project.ConfigFile)}
}
