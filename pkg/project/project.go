// Package project is what the verify gate knows of the project it guards:
// its root, its configuration (.rodin/config.json), which files are task
// files, and a walk of its source tree that skips what is not source.
package project

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tidwall/gjson"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rodin-gate/rodin/internal/filetime"
	"github.com/rodin-gate/rodin/pkg/safefile"
)

// Root is the project root: CLAUDE_PROJECT_DIR, else the hook input's cwd.
func Root(getenv func(string) string, cwd string) string {
	if d := getenv("CLAUDE_PROJECT_DIR"); filepath.IsAbs(d) {
		return filepath.Clean(d)
	}
	if filepath.IsAbs(cwd) {
		return filepath.Clean(cwd)
	}
	return ""
}

// ConfigFile is where a project configures the verify gate, relative to
// its root.
const ConfigFile = ".rodin/config.json"

// Config is the verify gate's configuration. Every field has a default;
// the file need not exist.
type Config struct {
	// TaskFiles are globs (relative to the root, `**` for any depth) of
	// the files that hold tasks.
	TaskFiles []string `json:"taskFiles,omitempty"`
	// Ignore are globs of files whose changes do not make evidence stale,
	// besides the task files, hidden directories, node_modules and the
	// root .gitignore's patterns.
	Ignore []string `json:"ignore,omitempty"`
	// Timeout is `rodin verify`'s default per-command timeout (9m30s, under
	// the Bash tool's 10 minutes, when unset).
	Timeout string `json:"timeout,omitempty"`
}

// StoredConfig reads a configuration as a session's baseline keeps it
// (encoding/json's form of Config), with gjson: the hooks read it at every
// task-file edit, and encoding/json's first decode in a process costs more
// than the rest of the read. False when it is not such an object.
func StoredConfig(b []byte) (Config, bool) {
	var c Config
	if !gjson.ValidBytes(b) {
		return c, false
	}
	v := gjson.ParseBytes(b)
	if !v.IsObject() {
		return c, false
	}
	ok := true
	strs := func(f gjson.Result) []string {
		if f.Type == gjson.Null {
			return nil
		}
		if !f.IsArray() {
			ok = false
			return nil
		}
		out := []string{}
		for _, e := range f.Array() {
			if e.Type != gjson.String && e.Type != gjson.Null {
				ok = false
			}
			out = append(out, e.String())
		}
		return out
	}
	seen := map[string]bool{}
	v.ForEach(func(k, f gjson.Result) bool {
		if seen[k.String()] {
			ok = false
		}
		seen[k.String()] = true
		switch k.String() {
		case "taskFiles":
			c.TaskFiles = strs(f)
		case "ignore":
			c.Ignore = strs(f)
		case "timeout":
			if f.Type != gjson.String && f.Type != gjson.Null {
				ok = false
			}
			c.Timeout = f.String()
		}
		return ok
	})
	return c, ok
}

// DefaultTaskFiles and DefaultIgnore apply when the configuration leaves
// them out: every tasks.md, and what spec workflows write beside it that
// no check reads: progress files, ralph-specum's state and a loop's
// progress log, the spec folder's other documents (requirements, design,
// research, notes) by the names the workflows give them in the root's
// specs/, the root's changelog and ralph's files (honest day 62: each
// written between a check and its tick had made the check stale). Only
// there: a test's fixture of such a name elsewhere (`testdata/CHANGELOG.md`,
// `tests/specs/x/spec.md`) is code (attacks 62 and 63). A dev server's log
// is left out only where a command of the session writes it
// (verifygate.Session.serverLogs).
var (
	DefaultTaskFiles = []string{"**/tasks.md"}
	DefaultIgnore    = []string{"**/.progress.md", "**/progress.md", "**/*.progress.md", "specs/*/.ralph-state.json", "progress.txt",
		"CHANGELOG.md", "specs/*/research.md", "specs/*/requirements.md", "specs/*/design.md", "specs/*/plan.md",
		"specs/*/spec.md", "specs/*/data-model.md", "specs/*/quickstart.md", "specs/*/notes.md",
		"specs/*/decisions.md", "specs/*/checklists/*.md"}
)

// Defaults is the configuration of a project without a config file.
func Defaults() Config {
	return Config{TaskFiles: DefaultTaskFiles, Ignore: append([]string{}, DefaultIgnore...)}
}

// LoadConfig reads root/.rodin/config.json: {"verify": {...}}. A missing
// file is the defaults; a file that cannot be read or parsed is an error,
// so that a typo never silently turns the gate off.
func LoadConfig(root string) (Config, error) {
	var c Config
	b, err := safefile.ReadFile(filepath.Join(root, ConfigFile), 1<<20)
	switch {
	case os.IsNotExist(err):
	case err != nil:
		return c, fmt.Errorf("cannot read %s: %v", ConfigFile, err)
	default:
		var file struct {
			Verify *Config `json:"verify"`
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&file); err != nil {
			hint := ""
			if strings.Contains(err.Error(), "unknown field") {
				hint = ` (the keys are "verify", and under it "taskFiles", "ignore" and "timeout")`
			}
			return c, fmt.Errorf("%s is not valid: %v%s", ConfigFile, err, hint)
		}
		if file.Verify != nil {
			c = *file.Verify
		}
	}
	// An ignore entry written the .gitignore way, a folder with a slash
	// after it (`dist/`), is that folder at any depth (`**/dist`), or
	// under the root when it names a path (`web/dist/`).
	for i, g := range c.Ignore {
		if d, ok := strings.CutSuffix(g, "/"); ok && d != "" && !strings.HasSuffix(d, "/") {
			if !strings.Contains(d, "/") {
				d = "**/" + d
			}
			c.Ignore[i] = strings.TrimPrefix(d, "/")
		}
	}
	for _, g := range append(append([]string{}, c.TaskFiles...), c.Ignore...) {
		if _, err := path.Match(strings.ReplaceAll(g, "**", "x"), ""); err != nil || g == "" || strings.HasPrefix(g, "/") {
			return c, fmt.Errorf("%s: %q is not a glob relative to the project root", ConfigFile, g)
		}
	}
	if len(c.TaskFiles) == 0 {
		c.TaskFiles = DefaultTaskFiles
	}
	c.Ignore = append(c.Ignore, DefaultIgnore...)
	return c, nil
}

// Match reports whether the slash-separated relative path rel matches
// glob, where `**` stands for any number of directories (none included)
// and each other element is a path.Match pattern.
func Match(glob, rel string) bool {
	if name, ok := strings.CutPrefix(glob, "**/"); ok && !strings.Contains(name, "/") {
		// The common case, "**/tasks.md": the name at any depth. Its
		// own branch, because the walk asks it of every file.
		ok, _ := path.Match(name, rel[strings.LastIndexByte(rel, '/')+1:])
		return ok
	}
	return matchParts(strings.Split(glob, "/"), strings.Split(rel, "/"))
}

func matchParts(glob, parts []string) bool {
	for len(glob) > 0 {
		if glob[0] == "**" {
			for i := 0; i <= len(parts); i++ {
				if matchParts(glob[1:], parts[i:]) {
					return true
				}
			}
			return false
		}
		if len(parts) == 0 {
			return false
		}
		if ok, _ := path.Match(glob[0], parts[0]); !ok {
			return false
		}
		glob, parts = glob[1:], parts[1:]
	}
	return len(parts) == 0
}

// MatchAny reports whether rel matches one of globs.
func MatchAny(globs []string, rel string) bool {
	for _, g := range globs {
		if Match(g, rel) {
			return true
		}
	}
	return false
}

// Rel is path relative to root, slash-separated, or "" when it is not
// inside root.
func Rel(root, p string) string {
	if root == "" || !filepath.IsAbs(p) {
		return ""
	}
	rel, err := filepath.Rel(root, filepath.Clean(p))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// IsTaskFile reports whether the file at p is a task file of the project.
func (c Config) IsTaskFile(root, p string) bool {
	rel := Rel(root, p)
	return rel != "" && MatchAny(c.TaskFiles, rel)
}

// Tree walks the project's source tree: every regular file except those in
// hidden directories (.git, .rodin, .venv …),
// node_modules, __pycache__, and what the root .gitignore or the configuration's Ignore
// globs leave out. visit gets
// the relative path and the entry; returning fs.SkipAll stops the walk.
type Tree struct {
	Root   string
	Config Config
	ignore []gitignore
}

// NewTree reads the root .gitignore once.
func NewTree(root string, c Config) *Tree {
	return &Tree{Root: root, Config: c, ignore: readGitignore(filepath.Join(root, ".gitignore"))}
}

// NewTreeIgnoring is NewTree with the root .gitignore read from
// gitignore, a copy kept elsewhere (the verify gate keeps the one a
// session began with: a pattern added since hides no change from it).
func NewTreeIgnoring(root string, c Config, gitignore string) *Tree {
	return &Tree{Root: root, Config: c, ignore: readGitignore(gitignore)}
}

// Walk calls visit for each file of the tree, task files too (the caller
// tells them apart with Config.IsTaskFile), and for each directory it
// enters but the root (d.IsDir()).
func (t *Tree) Walk(visit func(rel string, d fs.DirEntry) error) error {
	return filepath.WalkDir(t.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == t.Root {
				return err
			}
			return nil // a directory that vanished or cannot be read
		}
		if p == t.Root {
			return nil
		}
		rel := filepath.ToSlash(p[len(t.Root)+1:])
		name := d.Name()
		if d.IsDir() {
			// __pycache__ holds what Python compiles from the sources
			// beside it, as a test run imports them (a source changed is
			// seen itself; a file put there alone is not imported).
			if strings.HasPrefix(name, ".") || name == "node_modules" || name == "__pycache__" || t.ignored(rel, true) {
				return filepath.SkipDir
			}
			return visit(rel, d)
		}
		if !d.Type().IsRegular() || t.ignored(rel, false) {
			return nil
		}
		return visit(rel, d)
	})
}

// IgnoresPath reports whether the walk leaves rel (slash-separated,
// relative to the root) out: it, or a folder above it, is ignored.
func (t *Tree) IgnoresPath(rel string) bool {
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		if t.ignored(strings.Join(parts[:i], "/"), true) {
			return true
		}
	}
	return t.ignored(rel, false) || t.ignored(rel, true)
}

func (t *Tree) ignored(rel string, dir bool) bool {
	for _, g := range t.ignore {
		if g.dirOnly && !dir {
			continue
		}
		if g.anchored {
			if Match(g.glob, rel) {
				return true
			}
		} else if ok, _ := path.Match(g.glob, path.Base(rel)); ok {
			return true
		}
	}
	// The configuration's globs take a directory they match as a whole:
	// `dist/**` is the folder dist itself (its time too), not only what
	// is in it. A task file stays a task file (`**/specs/**/*.md` is
	// about the documents beside it): the walk knows the folders that
	// hold one by it.
	return MatchAny(t.Config.Ignore, rel) && (dir || !MatchAny(t.Config.TaskFiles, rel))
}

// gitignore is one pattern of the root .gitignore, read simply: a pattern
// with a slash before its end is anchored at the root, one without
// matches a name at any depth, a trailing slash means directories only.
// Negations (`!`) are not read: a file they would bring back stays out of
// the walk. That is documented in docs/verify-gate.md.
type gitignore struct {
	glob     string
	anchored bool
	dirOnly  bool
}

func readGitignore(p string) []gitignore {
	f, err := safefile.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []gitignore
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		var g gitignore
		if strings.HasSuffix(line, "/") {
			g.dirOnly = true
			line = strings.TrimSuffix(line, "/")
		}
		if strings.Contains(line, "/") {
			g.anchored = true
			line = strings.TrimPrefix(line, "/")
		}
		if line == "" {
			continue
		}
		g.glob = line
		out = append(out, g)
	}
	return out
}

// TaskFiles finds the project's task files: every file whose path matches
// a TaskFiles glob, hidden directories included (Kiro keeps its specs in
// .kiro), .git and node_modules left out. Sorted, relative to the root.
func TaskFiles(root string, c Config) []string {
	var out []string
	walkTasks(root, root, "", c, false, func(rel string, dir bool) {
		if !dir {
			out = append(out, rel)
		}
	})
	sort.Strings(out)
	return out
}

// walkTasks walks root's tree from the directory at p (rel to the root),
// calling found for each directory (dir) and task file. A symbolic link
// is taken as what it points to (Follow): a spec folder or a task file
// kept elsewhere and linked in is the project's, as an editor and the
// agent see it; links met inside a linked folder are not followed again.
func walkTasks(root, p, rel string, c Config, linked bool, found func(rel string, dir bool)) {
	// A linked folder is walked up to maxLinked entries: a link to a large
	// tree (`data -> /usr`) costs every session start and every stop
	// otherwise. What lies past the bound is not looked at (docs/security.md).
	budget := -1
	if linked {
		budget = maxLinked
	}
	// A trailing separator makes the walk start in the folder a link at p
	// points to (WalkDir does not follow a link it starts at).
	filepath.WalkDir(p+string(filepath.Separator), func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if budget--; budget == -1 && linked {
			return filepath.SkipAll
		}
		r := rel
		sub := strings.TrimLeft(q[min(len(p), len(q)):], string(filepath.Separator))
		if sub != "" {
			r = path.Join(rel, filepath.ToSlash(sub))
		}
		if d.IsDir() {
			if n := d.Name(); sub != "" && (n == ".git" || n == "node_modules") {
				return filepath.SkipDir
			}
			found(r, true)
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 && !linked {
			switch Follow(root, q, c) {
			case LinkDir:
				walkTasks(root, q, r, c, true, found)
			case LinkFile:
				found(r, false)
			}
			return nil
		}
		if d.Type().IsRegular() && MatchAny(c.TaskFiles, r) {
			found(r, false)
		}
		return nil
	})
}

// maxLinked bounds the entries of a linked folder a walk reads.
const maxLinked = 5000

// What a symbolic link met in a walk of the project is taken for.
const (
	LinkNone = iota // left out
	LinkDir         // a folder to walk under the link's name
	LinkFile        // a task file under the link's name
)

// Follow says what the link at p is taken for in a walk of root: a folder
// outside the project (one inside it is walked where it is), or a regular
// file whose link's name is a task file's and whose own is not one of the
// project's task files (the same file is not read twice). A folder that
// holds the root is left out: the walk would not end.
func Follow(root, p string, c Config) int {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return LinkNone
	}
	fi, err := os.Stat(real)
	if err != nil {
		return LinkNone
	}
	inside := func(a, b string) bool {
		return a == b || strings.HasPrefix(a, strings.TrimSuffix(b, string(filepath.Separator))+string(filepath.Separator))
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	rel := filepath.ToSlash(p[min(len(root)+1, len(p)):])
	switch {
	case fi.IsDir():
		if inside(real, realRoot) || inside(realRoot, real) {
			return LinkNone
		}
		return LinkDir
	case fi.Mode().IsRegular() && MatchAny(c.TaskFiles, rel):
		if inside(real, realRoot) {
			// The same file is not read twice, unless the walk does not go
			// where it is (node_modules, .git).
			r := filepath.ToSlash(real[min(len(realRoot)+1, len(real)):])
			if MatchAny(c.TaskFiles, r) && !strings.Contains("/"+r, "/node_modules/") && !strings.Contains("/"+r, "/.git/") {
				return LinkNone
			}
		}
		return LinkFile
	}
	return LinkNone
}

// TaskIndex is where TaskFiles looked: every directory it walked, with its
// modification time, and the task files it found. A directory's time moves
// whenever an entry is added to it, removed or renamed, so a later look
// (Refresh) costs a stat per directory and a read of the few that changed,
// not a walk of every file: what lets the stop hook find a task file
// written through Bash without walking a large project at every stop.
type TaskIndex struct {
	Dirs  map[string]int64 // relative to the root ("" is the root): change time in ns (filetime.Changed), 0 to read it again
	Files []string
	// Known are the task files as the session began, and Since when it
	// began (unix ns): the stop hook's quick look needs nothing else.
	Known map[string]bool
	Since int64
	Root  string   // the project root, absolute
	Globs []string // the task file globs (Config.TaskFiles)
	// LogSize is the size the session's run log had when the directories
	// were last looked at: while it has not grown, no Bash command ran
	// since, and only a Bash command (or a file tool, which the edit gate
	// sees) writes a task file. Watch, once a command ran in the
	// background, says to look every time.
	LogSize int64
	Watch   bool
}

// MarshalText writes the index as lines: `t SINCE`, `r "ROOT"`, `m LOGSIZE`,
// `w 1` (Watch), `g "GLOB"`,
// then `d MTIME "DIR"`,
// `f "FILE"` and `k "FILE"` (a file known at the start). Plain lines and
// quoted paths, read with no reflection: the stop hook reads it at every
// stop, and a process's first use of encoding/json costs more than the
// whole read.
func (ix TaskIndex) MarshalText() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "t %d\nr %s\nm %d\n", ix.Since, strconv.Quote(ix.Root), ix.LogSize)
	if ix.Watch {
		b.WriteString("w 1\n")
	}
	for _, g := range ix.Globs {
		fmt.Fprintf(&b, "g %s\n", strconv.Quote(g))
	}
	for _, d := range slices.Sorted(maps.Keys(ix.Dirs)) {
		fmt.Fprintf(&b, "d %d %s\n", ix.Dirs[d], strconv.Quote(d))
	}
	for _, f := range ix.Files {
		fmt.Fprintf(&b, "f %s\n", strconv.Quote(f))
	}
	for _, k := range slices.Sorted(maps.Keys(ix.Known)) {
		fmt.Fprintf(&b, "k %s\n", strconv.Quote(k))
	}
	return b.Bytes(), nil
}

// UnmarshalText reads what MarshalText wrote; any other line is an error.
func (ix *TaskIndex) UnmarshalText(b []byte) error {
	// Sized for its lines (most are directories), so that the map of a
	// large project is not grown a doubling at a time.
	*ix = TaskIndex{Dirs: make(map[string]int64, bytes.Count(b, []byte("\nd "))), Known: map[string]bool{}}
	// One string for the whole index: its lines and the names in them are
	// slices of it, not a copy each.
	text := string(b)
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			return errors.New("the index ends in a partial line")
		}
		if len(line) < 3 || line[1] != ' ' {
			return errors.New("the index has a malformed line")
		}
		rest := line[2:]
		var err error
		switch line[0] {
		case 't':
			ix.Since, err = strconv.ParseInt(rest, 10, 64)
		case 'd':
			n, q, ok := strings.Cut(rest, " ")
			var t int64
			var d string
			if t, err = strconv.ParseInt(n, 10, 64); err == nil && ok {
				d, err = strconv.Unquote(q)
				ix.Dirs[d] = t
			} else if !ok {
				err = errors.New("no directory")
			}
		case 'r':
			ix.Root, err = strconv.Unquote(rest)
		case 'm':
			ix.LogSize, err = strconv.ParseInt(rest, 10, 64)
		case 'w':
			ix.Watch = rest == "1"
		case 'g':
			var g string
			g, err = strconv.Unquote(rest)
			ix.Globs = append(ix.Globs, g)
		case 'f':
			var f string
			f, err = strconv.Unquote(rest)
			ix.Files = append(ix.Files, f)
		case 'k':
			var f string
			f, err = strconv.Unquote(rest)
			ix.Known[f] = true
		default:
			err = errors.New("unknown line")
		}
		if err != nil {
			return fmt.Errorf("the index has a malformed line: %v", err)
		}
	}
	if len(ix.Dirs) == 0 || !filepath.IsAbs(ix.Root) || len(ix.Globs) == 0 {
		return errors.New("the index holds no directory, root or glob")
	}
	return nil
}

// recentlyChanged is how close to now a directory's time must be for the
// index to read the directory again next time: a change in the same clock
// tick as the read would not move the time the index keeps.
var recentlyChanged = 2 * time.Second

// IndexTaskFiles walks the root as TaskFiles does and returns the index.
func IndexTaskFiles(root string, c Config) TaskIndex {
	ix := TaskIndex{Dirs: map[string]int64{}, Root: root, Globs: c.TaskFiles}
	ix.walk(root, "", c, time.Now(), false)
	sort.Strings(ix.Files)
	return ix
}

func (ix *TaskIndex) walk(root, from string, c Config, now time.Time, linked bool) {
	start := filepath.Join(root, filepath.FromSlash(from))
	walkTasks(root, start, from, c, linked, func(rel string, dir bool) {
		if dir {
			ix.Dirs[rel] = dirTime(filepath.Join(root, filepath.FromSlash(rel)), now)
		} else {
			ix.Files = append(ix.Files, rel)
		}
	})
}

// dirTime is the directory's change time (the later of its modification
// and status change times: a modification time set back with touch -r
// leaves the status change time at the change; for a linked folder, the
// later of the link's and the folder's), 0 when it cannot be read or is
// too recent to trust (recentlyChanged).
func dirTime(p string, now time.Time) int64 {
	fi, err := os.Lstat(p)
	if err != nil {
		return 0
	}
	t := filetime.Changed(fi)
	if fi.Mode()&fs.ModeSymlink != 0 {
		di, err := os.Stat(p)
		if err != nil {
			return 0
		}
		if c := filetime.Changed(di); c.After(t) {
			t = c
		}
	}
	if now.Sub(t) < recentlyChanged {
		return 0
	}
	return t.UnixNano()
}

// Refresh brings the index up to date: a stat of each directory, and a
// read of those whose time moved (new task files, new directories walked
// whole, vanished ones dropped). It reports whether the index changed.
func (ix *TaskIndex) Refresh(root string, c Config) bool {
	now := time.Now()
	changed := false
	var moved []string
	stat := openDirStat(root)
	for rel, t := range ix.Dirs {
		at, ok := stat.isDir(rel)
		switch {
		case !ok:
			ix.drop(rel)
			changed = true
		case t == 0 || at != t:
			moved = append(moved, rel)
		}
	}
	stat.close()
	sort.Strings(moved)
	for _, rel := range moved {
		if _, ok := ix.Dirs[rel]; !ok {
			continue // dropped with a parent
		}
		changed = true
		dir := filepath.Join(root, filepath.FromSlash(rel))
		entries, err := os.ReadDir(dir)
		if err != nil {
			ix.drop(rel)
			continue
		}
		ix.Dirs[rel] = dirTime(dir, now)
		have := map[string]bool{}
		kept := ix.Files[:0]
		for _, f := range ix.Files {
			if path.Dir(f) == orDot(rel) {
				if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f))); err != nil {
					continue // gone
				}
			}
			have[f] = true
			kept = append(kept, f)
		}
		ix.Files = kept
		for _, e := range entries {
			er := e.Name()
			if rel != "" {
				er = rel + "/" + e.Name()
			}
			link := LinkNone
			if e.Type()&fs.ModeSymlink != 0 {
				link = Follow(root, filepath.Join(dir, e.Name()), c)
			}
			switch {
			case e.IsDir() || link == LinkDir:
				if _, known := ix.Dirs[er]; !known && e.Name() != ".git" && e.Name() != "node_modules" {
					ix.walk(root, er, c, now, link == LinkDir)
				}
			case (e.Type().IsRegular() && MatchAny(c.TaskFiles, er) || link == LinkFile) && !have[er]:
				ix.Files = append(ix.Files, er)
			}
		}
	}
	if changed {
		sort.Strings(ix.Files)
		ix.Files = slices.Compact(ix.Files)
	}
	return changed
}

func orDot(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

// drop forgets a directory, those under it and their task files.
func (ix *TaskIndex) drop(rel string) {
	under := func(p string) bool { return rel == "" || p == rel || strings.HasPrefix(p, rel+"/") }
	for d := range ix.Dirs {
		if under(d) {
			delete(ix.Dirs, d)
		}
	}
	kept := ix.Files[:0]
	for _, f := range ix.Files {
		if !under(f) {
			kept = append(kept, f)
		}
	}
	ix.Files = kept
}
