package verifygate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rodin-gate/rodin/pkg/freshness"
	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rodin-gate/rodin/pkg/safefile"
	"github.com/rodin-gate/rodin/pkg/tasks"
)

// untick sets the boxes of the verdicts' tasks back to `[ ]`, each in
// place (the three bytes of its box, nothing else), under the task file's
// lock, and only when the file still parses to the same tasks with just
// those boxes changed: a file that changed shape in between is left alone.
// It returns the verdicts unticked and names those it could not untick.
func (s *Session) untick(vs []Verdict) (done []Verdict, failed string) {
	byFile := map[string][]Verdict{}
	var order []string
	for _, v := range vs {
		if v.File == "" || strings.HasPrefix(v.File, "(") {
			continue // a task-list task: no file to untick
		}
		if byFile[v.File] == nil {
			order = append(order, v.File)
		}
		byFile[v.File] = append(byFile[v.File], v)
	}
	var fails []string
	for _, rel := range order {
		fvs := byFile[rel]
		path := filepath.Join(s.Root, rel)
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
		err := untickFile(s.Root, path, fvs)
		if err != nil {
			for _, v := range fvs {
				fails = append(fails, fmt.Sprintf("%s (%v)", v.Task.Name(), err))
			}
			continue
		}
		done = append(done, fvs...)
	}
	return done, strings.Join(fails, ", ")
}

// untickFile unticks fvs's boxes in the task file at path. The new file is
// written beside it and renamed over it, which a folder made read-only or
// unsearchable (chmod a-w, a-x, by the agent whose tick it is) refuses:
// rodin runs as the same user, so it opens the folders for the rename and
// puts their modes back after. A folder it cannot change (another
// owner's) still fails, and the stop says so.
func untickFile(root, path string, fvs []Verdict) error {
	update := func() error {
		_, err := safefile.Update(path, tasks.MaxRead, func(old []byte) ([]byte, error) {
			return untickBoxes(old, fvs)
		})
		return err
	}
	err := update()
	if !errors.Is(err, fs.ErrPermission) {
		return err
	}
	// Each folder from the root down to the file's that the owner cannot
	// read, enter or write (chmod a-w, a-x) is opened for the untick and
	// given its mode back after, in reverse.
	var dirs []string
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == root || d == filepath.Dir(d) || !strings.HasPrefix(d, root+string(filepath.Separator)) {
			break
		}
	}
	type mode struct {
		dir  string
		perm fs.FileMode
	}
	var changed []mode
	defer func() {
		for _, m := range changed {
			os.Chmod(m.dir, m.perm)
		}
	}()
	for i := len(dirs) - 1; i >= 0; i-- {
		fi, serr := os.Stat(dirs[i])
		if serr != nil || fi.Mode().Perm()&0o700 == 0o700 {
			continue
		}
		if os.Chmod(dirs[i], fi.Mode().Perm()|0o700) != nil {
			return err
		}
		changed = append([]mode{{dirs[i], fi.Mode().Perm()}}, changed...)
	}
	if len(changed) == 0 {
		return err
	}
	return update()
}

// untickBoxes is old with the box of each verdict's task unticked, or an
// error when that is not exactly what the change would do.
func untickBoxes(old []byte, vs []Verdict) ([]byte, error) {
	before := tasks.Parse(old)
	// Lines as the parse counts them (a lone carriage return ends one),
	// cut from old itself: the file keeps its own line endings.
	var lines [][]byte
	for rest, norm := old, tasks.LineEnds(old); len(rest) > 0; {
		n := bytes.IndexByte(norm, '\n') + 1
		if n == 0 {
			n = len(rest)
		}
		lines, rest, norm = append(lines, rest[:n]), rest[n:], norm[n:]
	}
	want := map[int]bool{}
	for _, v := range vs {
		i := v.Task.Line - 1
		if i < 0 || i >= len(lines) {
			return nil, fmt.Errorf("line %d is gone", v.Task.Line)
		}
		l := lines[i]
		j := bytes.Index(l, []byte("[x]"))
		if k := bytes.Index(l, []byte("[X]")); j < 0 || (k >= 0 && k < j) {
			j = k
		}
		if j < 0 {
			return nil, fmt.Errorf("line %d holds no ticked box", v.Task.Line)
		}
		lines[i] = append(append(append([]byte{}, l[:j]...), "[ ]"...), l[j+3:]...)
		want[v.Task.Line] = true
	}
	next := bytes.Join(lines, nil)
	after := tasks.Parse(next)
	if len(after) != len(before) {
		return nil, fmt.Errorf("the file changed shape")
	}
	for i := range before {
		b, a := before[i], after[i]
		if a.Ref != b.Ref || a.Line != b.Line || (want[b.Line] && a.Checked) || (!want[b.Line] && a.Checked != b.Checked) {
			return nil, fmt.Errorf("the file changed shape at line %d", b.Line)
		}
	}
	return next, nil
}

// noteUnticked keeps a record of the boxes rodin unticked in the session's
// run log (`rodin tasks` and the next session's start can say so).
func (s *Session) noteUnticked(vs []Verdict) {
	for _, v := range vs {
		ledger.Append(s.Data, s.ID, ledger.Run{Time: freshness.Now().UnixNano(), Kind: ledger.KindUnticked, Command: v.File + ":" + v.Task.Ref})
	}
}
