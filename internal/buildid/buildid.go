// Package buildid names the build a process runs, for what one hook keeps
// for another: a reading kept by one build is no reading of another's.
package buildid

import (
	"os"
	"strconv"
	"strings"
)

// Commit is the commit rodin was built from, set by rodin build (-X), with
// "-modified" when the tree had changes.
var Commit string

// Identity names this build: its commit when built from a clean tree (the
// same for all of a release's executables), else the executable file
// itself (its size and change time). "" when neither is known: keep
// nothing.
func Identity() string {
	if Commit != "" && !strings.HasSuffix(Commit, "-modified") {
		return "commit " + Commit
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return "file " + exe + " " + strconv.FormatInt(fi.Size(), 10) + " " + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
}
