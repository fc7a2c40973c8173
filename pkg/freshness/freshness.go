// Package freshness decides whether evidence still speaks for the code: a
// command that passed at time T says nothing about files changed after T.
//
// The rule (README, "verify gate"): evidence recorded at T is stale when
// any file of the project's source tree (project.Tree: hidden directories,
// node_modules, the root .gitignore's patterns, the configured ignores and
// the task files left out) has a modification or status-change time after
// T. The status-change time (ctime) moves on every write and cannot be set
// back with `touch`, so a file edited through Bash counts as much as one
// edited with the Edit tool. Files the checks themselves write while they
// run are older than T (T is taken when the command has finished), so a
// test run does not stale its own evidence. A deleted file is not seen.
//
// It costs one walk with an lstat per file; it runs only when a gate has a
// box to judge, never on an ordinary tool call.
package freshness

import (
	"io/fs"
	"time"

	"github.com/rodin-gate/rodin/pkg/project"
)

// Change is the first file found changed after a time.
type Change struct {
	Path string    // relative to the project root
	Time time.Time // its newer of mtime and ctime
}

// Newest walks the tree once and returns, for each of the given times, the
// first file changed after it (the zero Change when none was). Walking once
// for all the times a decision needs keeps the cost at one walk.
func Newest(t *project.Tree, since []time.Time) []Change {
	out := make([]Change, len(since))
	if len(since) == 0 {
		return out
	}
	oldest := since[0]
	for _, s := range since[1:] {
		if s.Before(oldest) {
			oldest = s
		}
	}
	t.Walk(func(rel string, d fs.DirEntry) error {
		if t.Config.IsTaskFile(t.Root, t.Root+"/"+rel) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		changed := changeTime(info)
		if !changed.After(oldest) {
			return nil
		}
		for i, s := range since {
			if out[i].Path == "" && changed.After(s) {
				out[i] = Change{Path: rel, Time: changed}
			}
		}
		return nil
	})
	return out
}

// changeTime is the later of a file's modification and status-change
// times.
func changeTime(info fs.FileInfo) time.Time {
	m := info.ModTime()
	if c, ok := ctime(info); ok && c.After(m) {
		return c
	}
	return m
}
