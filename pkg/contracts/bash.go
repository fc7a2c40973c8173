package contracts

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/freshness"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/project"
	"github.com/rodin-gate/rodin/pkg/safefile"
	"github.com/rodin-gate/rodin/pkg/verifygate"
)

// seen is what rodin last saw of one artifact: the file's size, time and
// content digest.
type seen struct {
	Size int64  `json:"size"`
	Mod  int64  `json:"mod"` // unix ns: the newer of its mtime and ctime
	Sum  string `json:"sum"`
	By   string `json:"by,omitempty"` // who wrote it this session ("main", an agent type), for the stops
}

// statePath keeps, per session, what rodin last saw of the project's
// artifacts, to tell what a Bash command changed.
func statePath(data, session string) string {
	return filepath.Join(data, "contracts", session+".seen.json")
}

// copyPath is rodin's copy of a first-writer artifact, to restore it.
func copyPath(data, real string) string {
	sum := sha256.Sum256([]byte(real))
	return filepath.Join(data, "contracts", "copies", hex.EncodeToString(sum[:]))
}

// maxScanDirs bounds the directories a {name} in an artifact's directory
// makes the Bash check list, per artifact: it runs after every command.
const maxScanDirs = 1000

// scan lists the project's artifacts as they are: the files whose paths
// fit an artifact's, found by listing the directories its path can name
// (a {name} in a directory stands for each subdirectory whose name fits,
// up to maxScanDirs of them).
func (c *Contracts) scan(root string) map[string]fs.FileInfo {
	out := map[string]fs.FileInfo{}
	listed := map[string][]fs.DirEntry{}
	list := func(d string) []fs.DirEntry {
		entries, ok := listed[d]
		if !ok {
			entries, _ = os.ReadDir(filepath.Join(root, filepath.FromSlash(d)))
			listed[d] = entries
		}
		return entries
	}
	join := func(d, name string) string {
		if d == "" {
			return name
		}
		return d + "/" + name
	}
	for i := range c.Artifacts {
		a := &c.Artifacts[i]
		n := len(a.segments)
		if n == 0 {
			continue
		}
		dirs := []string{""}
		for _, seg := range a.segments[:n-1] {
			var next []string
			for _, d := range dirs {
				if len(seg) == 1 && seg[0].name == "" {
					next = append(next, join(d, seg[0].lit))
					continue
				}
				for _, e := range list(d) {
					if e.IsDir() && seg.bind(e.Name(), map[string]string{}, c.Fold) && len(next) < maxScanDirs {
						next = append(next, join(d, e.Name()))
					}
				}
			}
			dirs = next
		}
		for _, d := range dirs {
			for _, e := range list(d) {
				rel := join(d, e.Name())
				if _, ok := a.match(rel, c.Fold); !ok {
					continue
				}
				// Links too: one at an artifact's path is a write to check.
				if fi, err := e.Info(); err == nil && (fi.Mode().IsRegular() || fi.Mode()&fs.ModeSymlink != 0) {
					out[rel] = fi
				}
			}
		}
	}
	return out
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// recordSeen notes the artifacts as they are (session start), and keeps a
// copy of each first-writer file.
func recordSeen(c *Contracts, data, session, root string) error {
	state := map[string]seen{}
	for rel, fi := range c.scan(root) {
		b, err := safefile.ReadFile(filepath.Join(root, rel), MaxArtifact)
		if err != nil {
			continue
		}
		state[rel] = seen{fi.Size(), changeTime(fi), digest(b), ""}
		if a, _ := c.Match(rel); a != nil && a.Once == "first-writer" {
			keepCopy(data, filepath.Join(root, rel), b)
		}
	}
	b, _ := json.Marshal(state)
	return safefile.WriteAtomic(statePath(data, session), b, 0o600)
}

func keepCopy(data, real string, b []byte) {
	p := copyPath(data, real)
	if os.MkdirAll(filepath.Dir(p), 0o700) == nil {
		safefile.WriteAtomic(p, b, 0o600)
	}
}

// sessionContracts decodes the whole snapshot (for the routes that look at
// every artifact); nil when the session started without contracts. A
// session with no snapshot (one started before rodin kept them, or whose
// SessionStart hook did not run) has the project's file as it is now, as
// the Write gate reads it.
func sessionContracts(getenv func(string) string, session, root string) (*Contracts, string, error) {
	data := evidence.DataDir(getenv)
	if data == "" || !planfile.ValidSessionID(session) {
		return nil, "", nil
	}
	b, err := safefile.ReadFile(snapshotPath(data, session), MaxFile)
	switch {
	case err == nil && string(b) == noneMark:
		return nil, data, nil
	case errors.Is(err, fs.ErrNotExist):
		c, err := Load(root)
		return c, data, err
	case err != nil:
		return nil, data, err
	}
	// Accepted by Parse at session start: decoded without checking it again
	// (every Bash command pays this); a broken one is kept so that it does
	// not decode, and Parse says why.
	if c, err := decodeTrusted(b); err == nil {
		return c, data, nil
	}
	if bytes.HasPrefix(b, []byte(brokenMark)) {
		return nil, data, errBroken
	}
	c, err := Parse(b)
	if err == nil {
		return c, data, nil
	}
	return nil, data, err
}

// active is the session's contracts and rodin's data directory for the
// routes after a tool call: nil when the gate is off, the session started
// without contracts, or with a broken contracts file (said at session
// start; the Write gate denies every JSON and Markdown write, and telling
// it again after every command and stop would bury the agent). err is set
// when rodin's own record cannot be read (a damaged snapshot, an
// unreadable file): the routes then fail closed, each as it can.
func active(in hookio.Input, getenv func(string) string) (*Contracts, string, error) {
	if Off(getenv) || startedWithout(getenv, in.SessionID()) {
		return nil, "", nil
	}
	root := realRoot(getenv, in.Cwd())
	c, data, err := sessionContracts(getenv, in.SessionID(), root)
	if errors.Is(err, errBroken) {
		return nil, data, nil
	}
	if c != nil {
		c.Fold = FoldsCase(root)
	}
	return c, data, err
}

// errBroken is sessionContracts' error for a session that started with a
// broken contracts file.
var errBroken = errors.New("the contracts file was broken when the session started")

// unreadable is what the routes after a tool call say when the session's
// contracts cannot be read.
func unreadable(err error) string {
	return fmt.Sprintf("[rodin] The artifact contracts of this session cannot be read (%v), so rodin cannot check the artifacts this call may have written. To fix: the user fixes %s and starts a new session, or sets RODIN_CONTRACTS=off.", err, File)
}

// realRoot is the project root with its links resolved.
func realRoot(getenv func(string) string, cwd string) string {
	root := project.Root(getenv, cwd)
	if r, err := filepath.EvalSymlinks(root); err == nil {
		return r
	}
	return root
}

// PostBash is the PostToolUse route for Bash: an artifact a command created,
// changed or deleted is checked right after it, as a Write would have been
// (writer, once, fields); a first-writer file overwritten or deleted is
// restored from rodin's copy. A broken contract blocks: the agent reads why
// in its own turn.
func PostBash(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	c, data, err := active(in, getenv)
	if err != nil {
		return hookio.PostOutcome{Block: true, Reason: unreadable(err)}
	}
	if c == nil {
		return hookio.PostOutcome{}
	}
	if verifygate.Off(getenv) && c.hasEvidence() {
		// The verify gate records runs; off, the evidence rules still need them.
		verifygate.AppendRun(in, getenv)
	}
	root := realRoot(getenv, in.Cwd())
	name, id := Writer(in)
	witness := c.lazyWitness(getenv, in.SessionID(), root, id)
	var problems []string
	_, err = safefile.Update(statePath(data, in.SessionID()), MaxFile, func(old []byte) ([]byte, error) {
		state := map[string]seen{}
		json.Unmarshal(old, &state)
		now := c.scan(root)
		rels := make([]string, 0, len(now)+len(state))
		for rel := range now {
			rels = append(rels, rel)
		}
		for rel := range state {
			if _, ok := now[rel]; !ok {
				rels = append(rels, rel)
			}
		}
		sort.Strings(rels)
		problems = nil
		changed := false
		for _, rel := range rels {
			fi, exists := now[rel]
			before, had := state[rel]
			if exists && had && fi.Size() == before.Size && changeTime(fi) == before.Mod {
				continue
			}
			a, vars := c.Match(rel)
			if a == nil {
				continue
			}
			real := filepath.Join(root, filepath.FromSlash(rel))
			changed = true
			if !exists {
				delete(state, rel)
				if a.Once == "first-writer" && restore(data, real) {
					problems = append(problems, fmt.Sprintf("%s (the %s contract): at (once): expected the first writer's file to stay, got it deleted; rodin put it back", rel, a.Name))
					if b, err := os.ReadFile(real); err == nil {
						if fi, err := os.Stat(real); err == nil {
							state[rel] = seen{fi.Size(), changeTime(fi), digest(b), before.By}
						}
					}
				}
				continue
			}
			if fi.Mode()&fs.ModeSymlink != 0 {
				target, _ := os.Readlink(real)
				msg := fmt.Sprintf("%s (the %s contract): at (the file): expected a regular file at the artifact's path, got a link (to %s)", rel, a.Name, target)
				if a.Once == "first-writer" && restore(data, real) {
					msg += "; rodin put the first writer's file back"
					if b, err := os.ReadFile(real); err == nil {
						if fi, err := os.Stat(real); err == nil {
							state[rel] = seen{fi.Size(), changeTime(fi), digest(b), before.By}
						}
					}
				} else {
					os.Remove(real) // the link only: its target is left as it is
					delete(state, rel)
					msg += "; rodin removed the link"
				}
				problems = append(problems, msg)
				continue
			}
			b, err := safefile.ReadFile(real, MaxArtifact)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s (the %s contract): cannot be read (%v)", rel, a.Name, err))
				continue
			}
			sum := digest(b)
			if had && sum == before.Sum {
				state[rel] = seen{fi.Size(), changeTime(fi), sum, before.By}
				continue
			}
			var broken []string
			if v := a.writerProblem(c, name); v != "" {
				broken = append(broken, v)
			}
			restored := false
			if a.Once == "first-writer" && had && restore(data, real) {
				broken = append(broken, "at (once): expected the first writer's file to stay, got a second write; rodin put the first back")
				restored = true
			}
			if !restored {
				for _, v := range a.CheckContent(b, vars, root) {
					broken = append(broken, v.String())
				}
				if a.Evidence != nil {
					for _, v := range a.CheckEvidence(b, witness()) {
						broken = append(broken, v.String())
					}
				}
			}
			switch {
			case a.Once == "first-writer" && !had && len(broken) == 0:
				// A new first-writer file that keeps every other rule is
				// claimed, as a Write would be, and copied to be restored.
				if v := a.claim(getenv, real, false, in.SessionID(), id); v != "" {
					broken = append(broken, v)
					if restore(data, real) {
						broken = append(broken, "rodin put the first writer's file back")
					} else {
						os.Remove(real)
						broken = append(broken, "rodin removed this one")
					}
				} else {
					keepCopy(data, real, b)
				}
			case a.Once == "first-writer" && !had:
				// One that breaks a rule is not the first writer's file: gone,
				// so the rightful writer can write it.
				os.Remove(real)
				broken = append(broken, "rodin removed it: a first-writer file is kept only when it keeps its contract")
			case a.Once == "per-agent":
				if v := a.claim(getenv, real, false, in.SessionID(), id); v != "" {
					broken = append(broken, v)
				}
			}
			if len(broken) > 0 {
				problems = append(problems, fmt.Sprintf("%s (the %s contract): %s", rel, a.Name, rules(broken)))
			}
			cur, err := os.Stat(real)
			if err != nil {
				delete(state, rel)
				continue
			}
			by := name
			if restored || a.Once == "first-writer" && len(broken) > 0 {
				b, _ = os.ReadFile(real)
				by = before.By // the first writer's file, back
			}
			state[rel] = seen{cur.Size(), changeTime(cur), digest(b), by}
		}
		if !changed {
			return nil, nil
		}
		return json.Marshal(state)
	})
	if errors.Is(err, fs.ErrNotExist) {
		// A session from before rodin kept what it saw: from now on.
		recordSeen(c, data, in.SessionID(), root)
		return hookio.PostOutcome{}
	}
	if err != nil {
		return hookio.PostOutcome{Block: true, Reason: fmt.Sprintf("[rodin] rodin cannot tell which artifacts this Bash command changed (%v), so it cannot check them against %s. To fix: run `rodin doctor`; write artifacts with the Write tool meanwhile.", err, File)}
	}
	if len(problems) == 0 {
		return hookio.PostOutcome{}
	}
	return hookio.PostOutcome{Block: true, Reason: fmt.Sprintf("[rodin] This Bash command (%s's) left artifacts that break their contracts (%s): %s. To fix: write them again with the Write tool, as the agent each contract names, with the fields corrected.", name, File, rules(problems))}
}

// restore puts rodin's copy of a first-writer file back; false when it
// has none.
func restore(data, real string) bool {
	b, err := os.ReadFile(copyPath(data, real))
	if err != nil {
		return false
	}
	return safefile.WriteAtomic(real, b, 0o644) == nil
}

// PostWrite is the PostToolUse route for Write, Edit and MultiEdit of an
// artifact: it notes the file as the tool left it (so that a later Bash
// command is not taken for its writer) and keeps a first-writer file's
// copy.
func PostWrite(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	path := in.FilePath()
	if lower := strings.ToLower(path); !strings.HasSuffix(lower, ".json") && !strings.HasSuffix(lower, ".md") {
		return hookio.PostOutcome{}
	}
	c, data, err := active(in, getenv)
	if c == nil || err != nil {
		return hookio.PostOutcome{} // the Write gate denied it already
	}
	_, real, rel := resolve(project.Root(getenv, in.Cwd()), path)
	a, _ := c.Match(rel)
	if a == nil {
		return hookio.PostOutcome{}
	}
	b, err := safefile.ReadFile(real, MaxArtifact)
	fi, err2 := os.Stat(real)
	if err != nil || err2 != nil {
		return hookio.PostOutcome{}
	}
	if a.Once == "first-writer" {
		if _, err := os.Stat(copyPath(data, real)); errors.Is(err, fs.ErrNotExist) {
			keepCopy(data, real, b)
		}
	}
	safefile.Update(statePath(data, in.SessionID()), MaxFile, func(old []byte) ([]byte, error) {
		state := map[string]seen{}
		json.Unmarshal(old, &state)
		name, _ := Writer(in)
		state[rel] = seen{fi.Size(), changeTime(fi), digest(b), name}
		return json.Marshal(state)
	})
	return hookio.PostOutcome{}
}

// Stop is the route for Stop, SubagentStop and TaskCompleted: while the
// agent that stops leaves an artifact it wrote this session that breaks
// its contract as the file stands now (a PRD changed under it, a write
// made with the contracts off, a claim a Bash command wrote that it was
// told is unbacked, one gone stale), the stop is blocked, once in a row,
// with every broken rule.
func Stop(in hookio.Input, getenv func(string) string) hookio.StopOutcome {
	c, data, err := active(in, getenv)
	if err != nil {
		return blockOnce(in, unreadable(err))
	}
	if c == nil {
		return hookio.StopOutcome{}
	}
	b, err := safefile.ReadFile(statePath(data, in.SessionID()), MaxFile)
	if err != nil {
		return hookio.StopOutcome{}
	}
	state := map[string]seen{}
	if json.Unmarshal(b, &state) != nil {
		return hookio.StopOutcome{}
	}
	root := realRoot(getenv, in.Cwd())
	name, id := Writer(in)
	witness := c.lazyWitness(getenv, in.SessionID(), root, id)
	rels := make([]string, 0, len(state))
	for rel, s := range state {
		if s.By == name {
			rels = append(rels, rel)
		}
	}
	sort.Strings(rels)
	var problems []string
	for _, rel := range rels {
		a, vars := c.Match(rel)
		if a == nil {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(rel))
		var broken []string
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			broken = append(broken, "at (the file): expected a regular file at the artifact's path, got a link")
		}
		content, err := safefile.ReadFile(p, MaxArtifact)
		if err != nil && len(broken) == 0 {
			continue // gone: a first-writer file is put back by the Bash check
		}
		for _, v := range a.CheckContent(content, vars, root) {
			broken = append(broken, v.String())
		}
		if a.Evidence != nil {
			// A claim the agent was told is unbacked, and left as it was.
			for _, v := range a.CheckEvidence(content, witness()) {
				broken = append(broken, v.String())
			}
		}
		if len(broken) > 0 {
			problems = append(problems, fmt.Sprintf("%s (the %s contract): %s", rel, a.Name, rules(broken)))
		}
	}
	if len(problems) == 0 {
		return hookio.StopOutcome{}
	}
	return blockOnce(in, fmt.Sprintf("[rodin] %s leaves artifacts that break their contracts (%s): %s. To fix: write them again with the fields corrected", name, File, rules(problems)))
}

// blockOnce blocks a stop, unless it follows a block: then it lets it
// through with the message, so that an agent that cannot fix what is said
// is not held in a loop.
func blockOnce(in hookio.Input, msg string) hookio.StopOutcome {
	if in.Get("stop_hook_active").Bool() {
		return hookio.StopOutcome{SystemMessage: msg + " (let through: the stop already follows a block)."}
	}
	return hookio.StopOutcome{Block: true, Reason: msg + " (this stop is blocked once)."}
}

// hasEvidence reports whether an artifact has an evidence rule.
func (c *Contracts) hasEvidence() bool {
	for _, a := range c.Artifacts {
		if a.Evidence != nil {
			return true
		}
	}
	return false
}

// changeTime is when a file last changed, for the Bash check's shortcut: the
// newer of its modification time, which a command can set back (`touch
// -r`), and its change time, which it cannot.
func changeTime(fi fs.FileInfo) int64 { return freshness.ChangeTime(fi).UnixNano() }
