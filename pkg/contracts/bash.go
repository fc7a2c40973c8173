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
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/freshness"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rodin-gate/rodin/pkg/project"
	"github.com/rodin-gate/rodin/pkg/safefile"
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
func (c *Contracts) scan(root string) (out map[string]fs.FileInfo, truncated []string) {
	out = map[string]fs.FileInfo{}
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
					if !seg.bind(e.Name(), map[string]string{}, c.Fold) || !isDir(root, join(d, e.Name()), e) {
						continue
					}
					if len(next) == maxScanDirs {
						truncated = append(truncated, a.Name)
						break
					}
					next = append(next, join(d, e.Name()))
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
	return out, truncated
}

// isDir reports whether a directory entry is a directory, or a link to one
// (whose files are then looked at, and refused if it leads outside the
// project).
func isDir(root, rel string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil && fi.IsDir()
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// recordSeen notes the artifacts as they are (session start), and keeps a
// copy of each first-writer file.
func recordSeen(c *Contracts, data, session, root string) error {
	state := map[string]seen{}
	found, _ := c.scan(root)
	for rel, fi := range found {
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

// contracts decodes the whole snapshot (for the routes that look at every
// artifact); nil when the session started without contracts. A session
// with no snapshot (one started before rodin kept them, or whose
// SessionStart hook did not run) has the project's file as it is now, as
// the Write gate reads it.
func (snap snapshot) contracts(root string) (*Contracts, error) {
	switch {
	case snap.none:
		return nil, nil
	case snap.err != nil:
		return nil, snap.err
	case snap.b == nil:
		return Load(root)
	}
	// Accepted by Parse at session start: decoded without checking it again
	// (every Bash command pays this); a broken one is kept so that it does
	// not decode, and Parse says why.
	if c, err := decodeTrusted(snap.b); err == nil {
		return c, nil
	}
	if bytes.HasPrefix(snap.b, []byte(brokenMark)) {
		return nil, errBroken
	}
	c, err := Parse(snap.b)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// active is the session's contracts, rodin's data directory and the
// project root (links resolved) for the routes after a tool call: nil when the gate is off, the session started
// without contracts, or with a broken contracts file (said at session
// start; the Write gate denies every JSON and Markdown write, and telling
// it again after every command and stop would bury the agent). err is set
// when rodin's own record cannot be read (a damaged snapshot, an
// unreadable file): the routes then fail closed, each as it can.
func active(in hookio.Input, getenv func(string) string) (c *Contracts, data, root string, err error) {
	data = evidence.DataDir(getenv)
	if Off(getenv) || data == "" || !hookio.ValidSessionID(in.SessionID()) {
		return nil, data, "", nil
	}
	// Most sessions have no contracts: the snapshot's first bytes say so,
	// before any path is resolved (this runs after every Bash command).
	snap := readSnapshot(getenv, in.SessionID())
	if snap.none {
		return nil, data, "", nil
	}
	root = realRoot(getenv, in.Cwd())
	c, err = snap.contracts(root)
	if errors.Is(err, errBroken) {
		return nil, data, root, nil
	}
	if c != nil {
		c.Fold = FoldsCase(root)
	}
	return c, data, root, err
}

// errBroken is snapshot.contracts' error for a session that started with a
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
	c, data, root, err := active(in, getenv)
	if err != nil {
		return hookio.PostOutcome{Block: true, Reason: unreadable(err)}
	}
	if c == nil {
		return hookio.PostOutcome{}
	}
	if getenv("RODIN_VERIFY") == "off" && c.hasEvidence() {
		// The verify gate records runs; off, the evidence rules still need them.
		ledger.AppendBash(in, data)
	}
	name, id := Writer(in)
	witness := c.lazyWitness(getenv, in.SessionID(), root, id)
	ran := commandWindow(in)
	problems, err := c.sweep(getenv, in.SessionID(), data, root, name, id, ran, witness)
	if safefile.IsNotExist(err) {
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
	return hookio.PostOutcome{Block: true, Reason: fmt.Sprintf("[rodin] After this Bash command (%s's), artifacts break their contracts (%s): %s. To fix: write them again with the Write tool, as the agent each contract names, with the fields corrected.", name, File, rules(problems))}
}

// sweep looks at the project's artifacts as they are against what rodin
// last saw of them in the session, checks each one created, changed or
// deleted since, notes it, and returns what breaks a contract. Changes made
// while ran covers them are taken for the writer's (name, id), and only
// those are blamed on it or removed; a first-writer file changed by anyone
// is put back.
//
// A change no call's window covers, made while a background task of the
// session ran (a `run_in_background` Bash), is the agent's that launched
// it, judged as its foreground writes are (ledger.Attribute).
func (c *Contracts) sweep(getenv func(string) string, session, data, root, callName, callID string, ran window, witness func() Witness) (problems []string, err error) {
	var bg []ledger.Window
	bgRead := false
	_, err = safefile.Update(statePath(data, session), MaxFile, func(old []byte) ([]byte, error) {
		state := map[string]seen{}
		json.Unmarshal(old, &state)
		now, truncated := c.scan(root)
		problems = nil
		for _, name := range truncated {
			problems = append(problems, fmt.Sprintf("the %s contract: more than %d directories fit its path, and rodin checked the first %d only (narrow its path in %s)", name, maxScanDirs, maxScanDirs, File))
		}
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
		changed := len(truncated) > 0
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
			report := func(format string, args ...any) {
				problems = append(problems, fmt.Sprintf("%s (the %s contract): ", rel, a.Name)+fmt.Sprintf(format, args...))
			}
			note := func(b []byte, by string) {
				if fi, err := os.Lstat(real); err == nil {
					state[rel] = seen{fi.Size(), changeTime(fi), digest(b), by}
				} else {
					delete(state, rel)
				}
			}
			if outside := leadsOutside(root, real); outside != "" {
				// rodin writes and removes nothing through it.
				report("at (the file): expected a file in the project, got one whose directory leads outside it (to %s); rodin leaves it alone", outside)
				delete(state, rel)
				continue
			}
			if !exists {
				delete(state, rel)
				if a.Once == "first-writer" && restore(data, real) {
					report("at (once): expected the first writer's file to stay, got it deleted; rodin put it back")
					b, _ := os.ReadFile(real)
					note(b, before.By)
				}
				continue
			}
			// What this command wrote, as far as file times tell: a change
			// before it started is another's (a concurrent agent or
			// session, a process in the background): checked, never
			// blamed on it, and nothing of it removed.
			mine := ran.covers(fi)
			name, id := callName, callID
			if !mine {
				if !bgRead {
					bg, bgRead = ledger.BackgroundWindows(data, session), true
				}
				if w, ok := ledger.Attribute(bg, changeTime(fi)); ok {
					mine = true
					name, id = writerOf(w)
				}
			}
			if fi.Mode()&fs.ModeSymlink != 0 {
				target, _ := os.Readlink(real)
				switch {
				case a.Once == "first-writer" && restore(data, real):
					report("at (the file): expected a regular file at the artifact's path, got a link (to %s); rodin put the first writer's file back", target)
					b, _ := os.ReadFile(real)
					note(b, before.By)
				case mine:
					os.Remove(real) // the link only: its target is left as it is
					delete(state, rel)
					report("at (the file): expected a regular file at the artifact's path, got a link (to %s); rodin removed the link", target)
				default:
					report("at (the file): expected a regular file at the artifact's path, got a link (to %s)", target)
					note(nil, "")
				}
				continue
			}
			b, err := safefile.ReadFile(real, MaxArtifact)
			if err != nil {
				if a.Once == "first-writer" && had && restore(data, real) {
					report("cannot be read (%v); rodin put the first writer's file back", err)
					b, _ := os.ReadFile(real)
					note(b, before.By)
				} else {
					report("cannot be read (%v)", err)
				}
				continue
			}
			sum := digest(b)
			if had && sum == before.Sum {
				state[rel] = seen{fi.Size(), changeTime(fi), sum, before.By}
				continue
			}
			if a.Once == "first-writer" && had && restore(data, real) {
				report("at (once): expected the first writer's file to stay, got a second write; rodin put the first back")
				b, _ := os.ReadFile(real)
				note(b, before.By)
				continue
			}
			var broken []string
			writerID := "\x00another" // not this command's: no one's runs are its own
			if mine {
				writerID = id
				if v := a.writerProblem(c, name); v != "" {
					broken = append(broken, v)
				}
			}
			for _, v := range a.CheckContent(b, vars, root) {
				broken = append(broken, v.String())
			}
			if a.Evidence != nil {
				w := witness()
				w.AgentID = writerID
				for _, v := range a.CheckEvidence(b, w) {
					broken = append(broken, v.String())
				}
			}
			by := ""
			if mine {
				by = name
			}
			switch {
			case a.Once == "first-writer" && mine:
				// A new first-writer file this command wrote: claimed as a
				// Write would be and copied to be restored when it keeps
				// every rule; removed, and the claim let go, when it does
				// not (the rightful writer can then write it).
				holder, v := a.claimFile(getenv, real, session, id)
				switch {
				case v != "":
					broken = append(broken, v)
				case holder != "" && restore(data, real):
					broken = append(broken, "at (once): expected the first writer's file to stay, got a write after another writer claimed it; rodin put the first back")
					b, _ = os.ReadFile(real)
					by = before.By
				case holder != "":
					broken = append(broken, "at (once): expected the file of the writer that claimed it first, got a write by another")
				case len(broken) > 0:
					os.Remove(real)
					a.unclaim(getenv, real)
					broken = append(broken, "rodin removed it: a first-writer file is kept only when it keeps its contract")
				default:
					keepCopy(data, real, b)
				}
			case a.Once == "per-agent" && mine:
				if _, v := a.claimFile(getenv, real, session, id); v != "" {
					broken = append(broken, v)
				}
			}
			if len(broken) > 0 {
				report("%s", rules(broken))
			}
			note(b, by)
		}
		if !changed {
			return nil, nil
		}
		return json.Marshal(state)
	})
	return problems, err
}

// WriterViolation is the broken writers rule of the file at rel as
// rodin saw it written in the session (a Write, a Bash command, a
// background task, judged when written), none when rodin saw no one in
// the session write it as it is now (for `rodin contracts check --session`,
// which then agrees with the hooks on who wrote it).
func (c *Contracts) WriterViolation(data, session, rel string, content []byte) []Violation {
	b, err := safefile.ReadFile(statePath(data, session), MaxFile)
	if err != nil {
		return nil
	}
	state := map[string]seen{}
	if json.Unmarshal(b, &state) != nil {
		return nil
	}
	s, ok := state[rel]
	a, _ := c.Match(rel)
	if !ok || s.By == "" || s.Sum != digest(content) || a == nil {
		return nil
	}
	if a.writerProblem(c, s.By) == "" {
		return nil
	}
	return []Violation{{Field: "(writer)", Rule: "writers", Expected: strings.Join(a.Writers, " or "), Got: fmt.Sprintf("%s (role %s)", s.By, strings.Join(c.RoleOf(s.By), ", "))}}
}

// writerOf is the writer a background task's window stands for: the
// agent that launched it, named as Writer names the agent of a call.
func writerOf(w ledger.Window) (name, id string) {
	switch {
	case w.Type == "":
		return "main", w.Agent
	case IsTeammateID(w.Agent):
		return "teammate:" + w.Type, w.Agent
	}
	return w.Type, w.Agent
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
	c, data, _, err := active(in, getenv)
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
		if _, err := os.Stat(copyPath(data, real)); safefile.IsNotExist(err) {
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
	c, data, root, err := active(in, getenv)
	if err != nil {
		return blockOnce(in, unreadable(err))
	}
	if c == nil {
		return hookio.StopOutcome{}
	}
	name, id := Writer(in)
	witness := c.lazyWitness(getenv, in.SessionID(), root, id)
	ledger.NoteStop(in, data)
	// What changed since rodin last looked, outside any tool call it saw:
	// the agent's when a background task it launched was running then,
	// else someone else's (checked, blamed on no one).
	problems, err := c.sweep(getenv, in.SessionID(), data, root, name, id, window{}, witness)
	if safefile.IsNotExist(err) {
		recordSeen(c, data, in.SessionID(), root)
	} else if err != nil {
		return blockOnce(in, cannotTell(err))
	}
	b, err := safefile.ReadFile(statePath(data, in.SessionID()), MaxFile)
	state := map[string]seen{}
	if err == nil {
		err = json.Unmarshal(b, &state)
	}
	if err != nil {
		return blockOnce(in, cannotTell(err))
	}
	rels := make([]string, 0, len(state))
	for rel, s := range state {
		if s.By == name && !slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, rel+" (") }) {
			rels = append(rels, rel)
		}
	}
	sort.Strings(rels)
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
	return blockOnce(in, fmt.Sprintf("[rodin] As %s stops, artifacts break their contracts (%s): %s. To fix: write them again with the fields corrected", name, File, rules(problems)))
}

// cannotTell is what a stop says when rodin's record of the artifacts
// cannot be read.
func cannotTell(err error) string {
	return fmt.Sprintf("[rodin] rodin cannot read what it last saw of the artifacts (%v), so it cannot check them against %s. To fix: run `rodin doctor`", err, File)
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

// window is when a Bash command ran, as far as its hook input tells
// (duration_ms, which 2.1.295 and 2.1.330 send on PostToolUse and
// PostToolUseFailure), with two seconds' slack for the hook's own start.
type window struct {
	start int64 // unix ns, by the clock files are stamped with
	known bool
}

func commandWindow(in hookio.Input) window {
	d := in.Get("duration_ms")
	if d.Type != gjson.Number {
		return window{}
	}
	start := freshness.Now().Add(-time.Duration(d.Int())*time.Millisecond - 2*time.Second)
	return window{start.UnixNano(), true}
}

// covers reports whether a file changed while the command ran: then the
// command is taken for its writer.
func (w window) covers(fi fs.FileInfo) bool { return w.known && changeTime(fi) >= w.start }

// leadsOutside is where a file's directory leads when a link takes it
// out of the project, "" when it stays in.
func leadsOutside(root, real string) string {
	dir, err := filepath.EvalSymlinks(filepath.Dir(real))
	if err != nil || project.Rel(root, dir) != "" || dir == root {
		return ""
	}
	return dir
}
