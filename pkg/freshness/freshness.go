// Package freshness decides whether evidence still speaks for the code: a
// command that passed at time T says nothing about files changed after T.
//
// The rule (docs/verify-gate.md): evidence recorded at T is stale when
// any file of the project's source tree (project.Tree: hidden directories,
// node_modules, the root .gitignore's patterns, the configured ignores and
// the task files left out) has a modification or status-change time at or
// after T, and so is a directory's (its entries added, removed or renamed,
// or itself renamed), except a directory that holds a task file and those
// above it. T is
// read from the clock files are stamped with (Now), and a
// change in the same tick as T counts: the rule errs toward rerunning. The status-change time (ctime) moves on every write and cannot be set
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
	"os"
	"path"
	"path/filepath"
	"runtime"
	"time"

	"github.com/rodin-gate/rodin/internal/par"

	"github.com/rodin-gate/rodin/internal/filetime"
	"github.com/rodin-gate/rodin/pkg/project"
)

// Change is the first file found changed after a time.
type Change struct {
	Path string    // relative to the project root
	Time time.Time // its newer of mtime and ctime
}

// Newest walks the tree once and returns, for each of the given times, a
// file changed after it, the newest change (the zero Change when none
// was). Walking once for all the times a decision needs keeps the cost at
// one walk.
func Newest(t *project.Tree, since []time.Time) []Change { return NewestUntil(t, since, time.Time{}) }

// NewestUntil is Newest leaving out the changes after until (none when
// until is zero): the tree as it stood then, for a session's stop finished
// after its Claude Code ended (a change made since is not its agent's).
func NewestUntil(t *project.Tree, since []time.Time, until time.Time) []Change {
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
	// The names first (a cheap walk: no stat), then the stats, which are
	// most of the cost, spread over the CPUs.
	var files, dirs []string
	taskDirs := map[string]bool{}
	t.Walk(func(rel string, d fs.DirEntry) error {
		switch {
		case d.IsDir():
			dirs = append(dirs, rel)
		case project.MatchAny(t.Config.TaskFiles, rel):
			for d := path.Dir(rel); d != "." && !taskDirs[d]; d = path.Dir(d) {
				taskDirs[d] = true
			}
		default:
			files = append(files, rel)
		}
		return nil
	})
	// A directory's times move when an entry is added, removed or renamed
	// in it, and when it is renamed itself: `mv parser .parser`, a test
	// run, and back leaves every file's times as they were but parser's.
	// A directory that holds a task file, and those above it, are left
	// out: the agent writes task and progress files and new spec folders
	// there, which is no change of the code (a directory renamed is still
	// seen: its own times move).
	for _, d := range dirs {
		if !taskDirs[d] {
			files = append(files, d)
		}
	}
	workers := max(1, min(runtime.GOMAXPROCS(0)*2, len(files)/256))
	changed := make([]Change, workers)
	par.Do(workers, func(w int) {
		for i := w; i < len(files); i += workers {
			info, err := os.Lstat(filepath.Join(t.Root, files[i]))
			if err != nil {
				continue
			}
			if c := changeTime(info); !c.Before(oldest) && (until.IsZero() || !c.After(until)) && (changed[w].Path == "" || c.After(changed[w].Time)) {
				changed[w] = Change{Path: files[i], Time: c}
			}
		}
	})
	// The newest change decides each time: after s when it is after s.
	var newest Change
	for _, c := range changed {
		if c.Path != "" && (newest.Path == "" || c.Time.After(newest.Time)) {
			newest = c
		}
	}
	for i, s := range since {
		if newest.Path != "" && !newest.Time.Before(s) {
			out[i] = newest
		}
	}
	return out
}

// changeTime is the later of a file's modification and status-change
// times.
// ChangeTime is the newer of a file's modification and status-change
// times: when its content or its name last changed, however it was set.
func ChangeTime(info fs.FileInfo) time.Time { return changeTime(info) }

func changeTime(info fs.FileInfo) time.Time { return filetime.Changed(info) }
