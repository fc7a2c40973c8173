package tasks

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// A parse asks the machine three things: whether a word names a program
// on PATH (onPath: `mycheck` alone is a command only when it does),
// whether an absolute path's first directory exists (rootExists: a URL's
// path is no program), and whether a relative path is a directory of the
// project (projectDir: `apps/api` named alone is a place, not a program). A reading kept between hooks carries the answers
// it was read with, and is used only while they hold (File.Holds): a
// program installed or removed since reads as a fresh parse would.

type probe struct {
	name string
	kind byte // probeProgram or probeRoot
	ok   bool
}

const (
	probeProgram = 'p'
	probeRoot    = 'r'
	probeDir     = 'd'
)

// projectRoot is the root a relative path a task names is looked up under
// (SetProjectRoot); none set, none is looked up.
var projectRoot atomic.Pointer[string]

// SetProjectRoot names the project the task files parsed from now on
// belong to: a span that names one of its directories alone (`apps/api`,
// "runs lint in `apps/api`") is then no command. The hooks and the CLI set
// it once they know the session's root.
func SetProjectRoot(root string) { projectRoot.Store(&root) }

// projectDir reports whether a relative path is a directory of the
// project or a file of it that cannot run (no execute bit), and notes the
// answer.
func projectDir(rel string) bool {
	if r := projectRoot.Load(); r == nil || *r == "" {
		return false // no project known: nothing looked up, nothing to note
	}
	ok := statDir(rel)
	noteProbe(probeDir, rel, ok)
	return ok
}

func statDir(rel string) bool {
	root := projectRoot.Load()
	if root == nil || *root == "" || rel == "" || filepath.IsAbs(rel) || strings.Contains(rel, "..") {
		return false
	}
	fi, err := os.Stat(filepath.Join(*root, filepath.FromSlash(rel)))
	return err == nil && (fi.IsDir() || fi.Mode().IsRegular() && fi.Mode()&0o111 == 0)
}

var (
	// parseMu makes one parse at a time the one whose probes are noted.
	parseMu sync.Mutex
	probing atomic.Pointer[probeLog]
)

type probeLog struct {
	mu   sync.Mutex
	ps   []probe
	seen map[probeKey]bool // a file of thousands of one-word spans asks thousands
}

type probeKey struct {
	kind byte
	name string
}

// noteProbe adds an answer to the running parse's log, once per question.
func noteProbe(kind byte, name string, ok bool) {
	l := probing.Load()
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	k := probeKey{kind, name}
	if l.seen[k] {
		return
	}
	if l.seen == nil {
		l.seen = map[probeKey]bool{}
	}
	l.seen[k] = true
	l.ps = append(l.ps, probe{name: name, kind: kind, ok: ok})
}

// Holds reports whether the machine still answers as it did when f was
// read: a kept reading whose answers changed is read again.
func (f File) Holds() bool {
	for _, p := range f.probes {
		var ok bool
		switch p.kind {
		case probeProgram:
			_, err := LookPath(p.name)
			ok = err == nil
		case probeRoot:
			ok = statRoot(p.name)
		case probeDir:
			ok = statDir(p.name)
		default:
			return false
		}
		if ok != p.ok {
			return false
		}
	}
	return true
}
