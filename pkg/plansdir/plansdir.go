// Package plansdir decides where Claude Code keeps plan files and whether a
// path is one of them (SPEC section 1).
//
// The directories are, in order: every entry of RODIN_PLANS_DIR when it is
// set (and nothing else); otherwise the plansDirectory setting that Claude
// Code would use (.claude/settings.local.json, then .claude/settings.json
// under the project root, then the user's settings.json) followed by the
// default <config>/plans, where <config> is CLAUDE_CONFIG_DIR or ~/.claude.
// The default stays in the list when plansDirectory is set, so plans written
// before the setting changed are still looked after.
package plansdir

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/internal/par"
	"github.com/rodin-gate/rodin/internal/realpath"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/safefile"
)

// Env is what the resolution reads from the process environment.
type Env struct {
	Getenv func(string) string
	// Cwd is the hook input's cwd, the project root when CLAUDE_PROJECT_DIR
	// is unset.
	Cwd string
}

// maxSettingsSize caps a settings file; a larger one is ignored.
const maxSettingsSize = 1 << 20

// Dirs returns the plans directories, cleaned and absolute. Entries that are
// relative are taken from the project root.
func Dirs(env Env) []string {
	project := env.Getenv("CLAUDE_PROJECT_DIR")
	if project == "" {
		project = env.Cwd
	}
	if list := env.Getenv("RODIN_PLANS_DIR"); list != "" {
		var dirs []string
		for _, d := range filepath.SplitList(list) {
			if d != "" {
				dirs = appendDir(dirs, absolute(d, project, env))
			}
		}
		return dirs
	}
	config := configDir(env)
	var dirs []string
	candidates := []string{
		filepath.Join(project, ".claude", "settings.local.json"),
		filepath.Join(project, ".claude", "settings.json"),
		filepath.Join(config, "settings.json"),
	}
	if project == "" {
		candidates = candidates[2:]
	}
	for _, settings := range candidates {
		if d := plansDirectory(settings); d != "" {
			dirs = appendDir(dirs, absolute(d, project, env))
			break
		}
	}
	if config != "" {
		dirs = appendDir(dirs, filepath.Join(config, "plans"))
	}
	return dirs
}

func appendDir(dirs []string, d string) []string {
	if d == "" || !filepath.IsAbs(d) {
		return dirs
	}
	for _, have := range dirs {
		if have == d {
			return dirs
		}
	}
	return append(dirs, d)
}

// ConfigDir is Claude Code's configuration directory: CLAUDE_CONFIG_DIR,
// else ~/.claude.
func ConfigDir(env Env) string { return configDir(env) }

// configDir is Claude Code's configuration directory.
func configDir(env Env) string {
	if d := env.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Clean(d)
	}
	if home := home(env); home != "" {
		return filepath.Join(home, ".claude")
	}
	return ""
}

func home(env Env) string {
	if h := env.Getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// absolute resolves ~ and project-relative paths.
func absolute(d, project string, env Env) string {
	switch {
	case d == "~":
		return home(env)
	case strings.HasPrefix(d, "~/"):
		if h := home(env); h != "" {
			return filepath.Join(h, d[2:])
		}
		return ""
	case filepath.IsAbs(d):
		return filepath.Clean(d)
	case project != "":
		return filepath.Join(project, d)
	}
	return ""
}

// plansDirectory reads the plansDirectory setting of one settings file; a
// missing, unreadable or invalid file has none.
func plansDirectory(path string) string {
	// Read as the hooks read their own files: one read, never blocked on
	// a FIFO put in the settings' place (every hook reads this file).
	b, err := safefile.ReadFile(path, maxSettingsSize)
	if err != nil || !gjson.ValidBytes(b) {
		return ""
	}
	v := gjson.GetBytes(b, "plansDirectory")
	if v.Type != gjson.String {
		return ""
	}
	return strings.TrimSpace(v.String())
}

// ErrNotPlanFile is wrapped by every reason Resolve gives for refusing a path.
var ErrNotPlanFile = errors.New("not a plan file")

// Resolve returns the real path of a plan file: path must be absolute, end in
// .md, and after resolving symlinks be a regular file inside one of dirs.
// The error says why a path is refused.
func Resolve(path string, dirs []string) (string, error) {
	switch {
	case !filepath.IsAbs(path):
		return "", notPlan("%s is not an absolute path", path)
	case !strings.HasSuffix(path, ".md"):
		return "", notPlan("%s does not end in .md", path)
	}
	real, err := realpath.Eval(path)
	if err != nil {
		return "", notPlan("%s cannot be resolved: %v", path, unwrapPathErr(err))
	}
	for _, d := range dirs {
		realDir, err := realpath.Eval(d)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(realDir, real); err == nil && rel != "." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && rel != ".." {
			fi, err := os.Stat(real)
			if err != nil {
				return "", notPlan("%s cannot be read: %v", path, unwrapPathErr(err))
			}
			if !fi.Mode().IsRegular() {
				return "", notPlan("%s is not a regular file", path)
			}
			return real, nil
		}
	}
	if real != path {
		return "", notPlan("%s resolves to %s, outside the plans directories (%s)", path, real, strings.Join(dirs, ", "))
	}
	return "", notPlan("%s is outside the plans directories (%s)", path, strings.Join(dirs, ", "))
}

// Within reports whether dir, after resolving symlinks, is one of dirs or
// lies inside one: where a plan file that does not exist yet would be one.
func Within(dir string, dirs []string) bool {
	real, err := realpath.Eval(dir)
	if err != nil {
		return false
	}
	for _, d := range dirs {
		realDir, err := realpath.Eval(d)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(realDir, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// notPlan is formatted only when its message is read: most callers (the
// plan guard, on every edit of a Markdown file) only ask whether it is one.
func notPlan(format string, args ...any) error {
	return &notPlanError{format: format, args: args}
}

type notPlanError struct {
	format string
	args   []any
}

func (e *notPlanError) Error() string { return fmt.Sprintf(e.format, e.args...) }
func (e *notPlanError) Unwrap() error { return ErrNotPlanFile }

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Candidate is a plan file found by listing a plans directory.
type Candidate struct {
	Path  string // as listed: <dir>/<name>
	Real  string // resolved; "" when it must still go through Resolve (a symlink)
	MTime int64
}

// ByNewest lists the .md files directly inside dirs, most recently modified
// first. Each directory is resolved once, so a regular file needs no
// per-file symlink walk; entries that are symlinks are left for Resolve.
func ByNewest(dirs []string) []Candidate {
	type listed struct {
		dir, realDir string
		entry        os.DirEntry
	}
	var all []listed
	for _, dir := range dirs {
		realDir, err := realpath.Eval(dir)
		if err != nil {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
				all = append(all, listed{dir, realDir, e})
			}
		}
	}
	// One stat per file for its modification time: in parts, one per CPU,
	// when there are thousands.
	files := make([]Candidate, len(all))
	inParts(len(all), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			l := all[i]
			fi, err := l.entry.Info()
			if err != nil {
				continue // left zero: dropped below
			}
			c := Candidate{Path: filepath.Join(l.dir, l.entry.Name()), MTime: fi.ModTime().UnixNano()}
			if fi.Mode().IsRegular() {
				c.Real = filepath.Join(l.realDir, l.entry.Name())
			}
			files[i] = c
		}
	})
	files = slices.DeleteFunc(files, func(c Candidate) bool { return c.Path == "" })
	sort.SliceStable(files, func(i, j int) bool { return files[i].MTime > files[j].MTime })
	return files
}

// inParts calls work on [0, n) in consecutive parts, concurrently, one part
// per CPU but none smaller than searchShare.
func inParts(n int, work func(lo, hi int)) {
	parts := workers(n)
	par.Do(parts, func(p int) { work(p*n/parts, (p+1)*n/parts) })
}

// workers is how many goroutines share n candidates: one per CPU, but
// none with fewer than searchShare.
func workers(n int) int { return max(1, min(runtime.GOMAXPROCS(0), n/searchShare)) }

// FindSession returns the newest plan file whose session marker is session:
// its path as listed, its real path, and its contents. Candidates are tried
// newest first and a cheap byte search rules most out before any parse, so
// the session's own plan is usually the only one parsed. A directory of
// thousands of plans is searched by one worker per CPU: each takes the next
// candidate in order, and a worker stops once it passes the newest match
// found, so the answer is the newest match whatever the timing.
func FindSession(dirs []string, session string) (path, real string, data []byte) {
	cands := ByNewest(dirs)
	marker := []byte("<!-- rodin:session=" + session + " -->")
	found := make([][]byte, len(cands))
	var next, best atomic.Int64
	best.Store(int64(len(cands)))
	search := func() {
		var buf []byte // reused: most candidates are read only to be ruled out
		for {
			i := next.Add(1) - 1
			if i >= best.Load() {
				return
			}
			c := &cands[i]
			if c.Real == "" { // a symlink: it must resolve inside the plans directories
				var err error
				if c.Real, err = Resolve(c.Path, dirs); err != nil {
					continue
				}
			}
			var err error
			if buf, err = safefile.ReadInto(buf[:0], c.Real, planfile.MaxSize); err != nil || !bytes.Contains(buf, marker) {
				continue
			}
			data := bytes.Clone(buf)
			if planfile.Parse(data).Trailer().Session != session {
				continue
			}
			found[i] = data
			for b := best.Load(); i < b && !best.CompareAndSwap(b, i); b = best.Load() {
			}
		}
	}
	par.Do(workers(len(cands)), func(int) { search() })
	if i := best.Load(); i < int64(len(cands)) {
		return cands[i].Path, cands[i].Real, found[i]
	}
	return "", "", nil
}

// searchShare is the least number of candidates worth a worker of its own.
const searchShare = 256
