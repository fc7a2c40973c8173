// Package datadir keeps tools out of rodin's data directory: the gates'
// evidence, run logs, waivers and the seal key are read by rodin alone.
package datadir

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/hookio"
)

// PreRead is the PreToolUse route for Read: it denies a Read of rodin's
// data directory (and of ~/.cache/rodin) in every mode. Plan mode lets a
// Read there through without asking, and an agent that has read seal.key
// can seal a plan it wrote. hooks.json starts it only for paths under
// those directories (`if`), so no other Read starts a process.
func PreRead(in hookio.Input, getenv func(string) string) hookio.PreOutcome {
	path, _, err := in.Field("tool_input.file_path")
	if err != nil || path == "" {
		return hookio.NoDecision // the tool refuses it itself
	}
	real := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		real = r
	}
	for _, dir := range []string{evidence.DataDir(getenv), filepath.Join(getenv("HOME"), ".cache", "rodin")} {
		if dir == "" {
			continue
		}
		if d, err := filepath.EvalSymlinks(dir); err == nil {
			dir = d
		}
		if real == dir || strings.HasPrefix(real, dir+string(filepath.Separator)) {
			return hookio.Denial(fmt.Sprintf("[rodin] %s is in rodin's data directory (%s), which holds the gates' evidence and keys: no tool reads it. To fix: use `rodin status` or `rodin tasks` to see what rodin recorded.", path, dir))
		}
	}
	return hookio.NoDecision
}
