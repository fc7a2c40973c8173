// Package verifygate is rodin's second gate: a verification task in a task
// file is checked off only when its checks really passed, for the code as
// it stands.
//
// Where a hook input becomes a decision:
//   - PreEdit: PreToolUse on Write/Edit/MultiEdit of a task file (a box
//     ticked through a file tool);
//   - Stop: Stop, SubagentStop of an executor, TaskCompleted (a box ticked
//     any other way, sed through Bash included);
//   - Record: PostToolUse/PostToolUseFailure on Bash and SubagentStop of
//     rodin:qa-engineer, the evidence.
//
// This file holds what they share: what a task needs (Need) and whether
// the session's evidence provides it (Judge).
package verifygate

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/rodin-gate/rodin/pkg/checks"
	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/freshness"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rodin-gate/rodin/pkg/project"
	"github.com/rodin-gate/rodin/pkg/safefile"
	"github.com/rodin-gate/rodin/pkg/tasks"
	"github.com/rodin-gate/rodin/pkg/transcript"
)

// Off reports whether the user turned the verify gate off.
func Off(getenv func(string) string) bool { return getenv("RODIN_VERIFY") == "off" }

// OffMessage is what a hook says when the gate is off, so nobody forgets.
const OffMessage = "[rodin] The verify gate is off (RODIN_VERIFY=off): task boxes are not checked."

// Session is what a decision reads.
type Session struct {
	ID, Data, Root string
	// asOf, when set, is when the session's Claude Code ended: its stop,
	// finished by a later session's start (FinishEnded), judges the files
	// as they stood then.
	asOf time.Time
	// claims are the project's standing claims, once TickedBy read them.
	claims map[string]bool
	// detachedAt is firstDetached's answer, once detachedRead.
	detachedAt   int64
	detachedRead bool
	Config       project.Config
	Baseline     *ledger.Baseline // nil when the session has none
	runs         []ledger.Run
	runsRead     bool
	// Damaged counts the records lost to damage in the run log (with the
	// runs before them, which the damage may have overruled): messages
	// say so, since it is why a check that ran asks to run again.
	Damaged     int
	waivers     []ledger.Waiver
	waiversRead bool
	quality     []tasks.Command
	qualityRead bool
	fileQuality map[string][]tasks.Command
	present     map[string][]tasks.Task // SetPresent
	renums      map[string]renum        // renumbered, by file
	runDirs     map[[2]string]string    // runDir, by file and command
	indexed     []string                // task files the stop hook's quick look found (taskFiles)
	windows     []ledger.Window         // byTime
	windowsErr  error
	windowsRead bool
	ticks       *tickState // TickedBy
	snapIndexes map[string]*snapIndex
	ranCache    map[string]bool      // verifyRan
	chainedRuns map[*ledger.Run]bool // chained
	ticksRead   bool
	// Call is the tool call being judged (PreEdit), for quietSince.
	Call  Call
	quiet map[string]bool // quietSince, by the run's tool_use_id
	// accepted are the tasks someone else's edit changed in this session
	// (acceptedByEdit), read once; nil until then.
	accepted map[boxKey]string
	// added are the verification tasks someone else wrote in this
	// session, as they wrote them (acceptEdits), read with accepted.
	added map[boxKey]ledger.Snap
	// within is inProject by directory: a log holds thousands of runs
	// from a few directories.
	within map[string]bool
	// noRecord is set by the stop when the session's record of its boxes
	// is missing or damaged: messages say so.
	noRecord bool
	// Strict is set when RODIN_REQUIRE_SANDBOX refuses evidence in this
	// session (sandbox.StrictDenial): no tick is justified when made.
	Strict bool
}

// ErrNoDataDir is Open's error when rodin has nowhere to keep evidence.
var ErrNoDataDir = errors.New("rodin has no data directory (CLAUDE_PLUGIN_DATA is not set and `rodin setup` has not run)")

// Open reads the session's baseline and configuration. The root and the
// configuration are the baseline's when there is one: changes made during
// the session count from the next.
func Open(getenv func(string) string, session, cwd string) (*Session, error) {
	data := evidence.DataDir(getenv)
	if data == "" {
		return nil, ErrNoDataDir
	}
	s := &Session{ID: session, Data: data}
	if session != "" {
		b, err := ledger.LoadBaseline(data, session)
		if err != nil {
			return nil, err
		}
		s.Baseline = b
	}
	if s.Baseline != nil && s.Baseline.Root != "" {
		s.Root = s.Baseline.Root
		var ok bool
		if s.Config, ok = project.StoredConfig(s.Baseline.Config); !ok || len(s.Config.TaskFiles) == 0 {
			return nil, fmt.Errorf("the session's baseline holds no usable configuration")
		}
	} else {
		s.Root = project.Root(getenv, cwd)
		if s.Root == "" {
			return nil, fmt.Errorf("the project root is unknown (no CLAUDE_PROJECT_DIR and no absolute cwd)")
		}
		c, err := project.LoadConfig(s.Root)
		if err != nil {
			return nil, err
		}
		s.Config = c
	}
	tasks.SetProjectRoot(s.Root)
	return s, nil
}

// waiver is the waiver for a task, the waivers read once, when a task is
// first judged (most hook calls judge none).
func (s *Session) waiver(file string, t tasks.Task) (given, asked *ledger.Waiver) {
	if !s.waiversRead {
		s.waivers, _ = ledger.Waivers(s.Data) // unreadable: no waivers, the stricter reading
		s.waiversRead = true
	}
	return ledger.Find(s.waivers, s.Root, file, t.Ref, t.Title), ledger.FindPending(s.waivers, s.Root, file, t.Ref, t.Title)
}

// Runs is the session's evidence, read once.
func (s *Session) Runs() ([]ledger.Run, error) {
	if !s.runsRead {
		r, skipped, err := ledger.Runs(s.Data, s.ID)
		if err != nil {
			return nil, err
		}
		s.runs, s.Damaged, s.runsRead = r, skipped, true
	}
	return s.runs, nil
}

// Need is what a verification task requires.
type Need struct {
	Commands []tasks.Command
	QA       bool           // a passing rodin:qa-engineer run
	Waiver   *ledger.Waiver // set when the user waived it
	Asked    *ledger.Waiver // the agent's request to waive it, pending the user's confirmation
	// Quality is set when Commands are quality commands (the task file's
	// Quality Commands section, else rodin checks): the task names none.
	Quality bool
	// Manual is set for a task a person checks that names no command and
	// no acceptance checklist: only the user's waiver ticks it.
	Manual bool
	// Changed is set when a command the task had when the session began is
	// gone from it (a fixed typo, or a weakened check): those still stand
	// until the user accepts the task's commands as they are.
	Changed bool
	// ChangedBefore is set when the change was an agent's in an earlier
	// session (ledger.Carried): it stands until the user accepts it.
	ChangedBefore bool
	// Prose is the title's text after its colon when it was not read as a
	// command: messages say it was not run.
	Prose string
	// StandsFor are the verification tasks, open when the session began
	// and gone now, whose checks this new task's tick must pass too.
	StandsFor []string
}

// SetPresent tells the session what file's tasks are as judged: the file
// as an edit would leave it. Unset, they are read from the file.
func (s *Session) SetPresent(file string, ts []tasks.Task) {
	if s.present == nil {
		s.present = map[string][]tasks.Task{}
	}
	s.present[file] = ts
	delete(s.renums, file)
}

// RunDir is where a task file's command runs and where a run of it
// counts: where it ran when the session began (ledger.Baseline.Dirs: a
// manifest or a file written since does not move it), else tasks.RunDir
// as the files are now. It is looked up once per decision: a monorepo's
// manifests are read for each (the stats, the package.json), and a
// decision asks the same several times.
func (s *Session) RunDir(file, c string) string {
	k := [2]string{file, c}
	if d, ok := s.runDirs[k]; ok {
		return d
	}
	if s.runDirs == nil {
		s.runDirs = map[[2]string]string{}
	}
	d := s.RunDirNow(file, c)
	s.runDirs[k] = d
	return d
}

// RunDirNow is RunDir looked up afresh, never from an earlier look:
// `rodin verify` asks it as each command runs (an earlier command may
// build what a later one names).
func (s *Session) RunDirNow(file, c string) string {
	if d, ok := s.startDir(file, c); ok {
		return d
	}
	return tasks.RunDir(s.Root, file, c)
}

// startDir is where c ran from the task file when the session began; false
// when the session's start did not note it (a file or command new since).
func (s *Session) startDir(file, c string) (string, bool) {
	if s.Baseline == nil {
		return "", false
	}
	d, ok := s.Baseline.Dirs[file][c]
	switch {
	case !ok:
		return "", false
	case d == "?":
		// The root could not run it when the session began: a package
		// made since, one of the root's workspaces, may; no other folder.
		if now := tasks.RunDir(s.Root, file, c); now != s.Root && s.startWorkspace(now) {
			return now, true
		}
		return s.Root, true
	case strings.HasPrefix(d, "^"):
		// A file found nowhere when the session began: where it is now,
		// in the task file's package of then or above it, or in one of
		// the root's workspaces; not in a package made since below.
		pkg := filepath.Join(s.Root, filepath.FromSlash(d[1:]))
		now := tasks.RunDir(s.Root, file, c)
		if now == pkg || strings.HasPrefix(pkg, strings.TrimSuffix(now, string(filepath.Separator))+string(filepath.Separator)) ||
			now != s.Root && s.startWorkspace(now) {
			return now, true
		}
		return pkg, true
	}
	return filepath.Join(s.Root, filepath.FromSlash(d)), true
}

// subprojectTests is the command of the tests a task speaks of in words,
// in the package below the root they belong to as the session began
// (SubprojectsKey): the one a path in the task lies in, or whose name's own
// words its title uses ("frontend" for easy-risk-register-frontend, the
// project's name aside), or the only one that has such tests; and its
// folder. "" when none, or more than one, is meant.
func (s *Session) subprojectTests(t tasks.Task) (cmd, dir string) {
	subs := map[string]string{}
	if s.Baseline != nil {
		subs = s.Baseline.Dirs[SubprojectsKey]
	} else {
		// No session's start to read (`rodin tasks` where no session ran):
		// the tree as it is, to show; no tick is verified without a start.
		for _, sb := range checks.Subprojects(s.Root) {
			subs[sb.Dir] = sb.Test + "\n" + sb.E2E
		}
	}
	if len(subs) == 0 {
		return "", ""
	}
	e2e := tasks.NamesBrowserTests(t.Title)
	text := strings.ToLower(t.Title + "\n" + t.Text)
	title := " " + strings.Join(strings.FieldsFunc(strings.ToLower(t.Title), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), " ") + " "
	nameWords := func(n string) []string {
		return strings.FieldsFunc(strings.ToLower(n), func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	}
	own := map[string]bool{}
	for _, n := range rootNames(s.Root) {
		for _, w := range nameWords(n) {
			own[w] = true
		}
	}
	var named, all []string
	cmds := map[string]string{}
	for d, v := range subs {
		test, browser, _ := strings.Cut(v, "\n")
		c := test
		if e2e {
			c = browser
		}
		if c == "" {
			continue
		}
		cmds[d] = c
		all = append(all, d)
		if strings.Contains(text, strings.ToLower(d)+"/") {
			named = append(named, d)
			continue
		}
		for _, w := range nameWords(path.Base(d)) {
			if len(w) >= 3 && !own[w] && strings.Contains(title, " "+w+" ") {
				named = append(named, d)
				break
			}
		}
	}
	switch {
	case len(named) == 1:
		return cmds[named[0]], named[0]
	case len(named) == 0 && len(all) == 1:
		return cmds[all[0]], all[0]
	}
	return "", ""
}

// startWorkspace reports whether dir is one of the root's workspaces as
// the session began: workspaces named since do not move a command.
func (s *Session) startWorkspace(dir string) bool {
	if s.Baseline == nil || s.Baseline.Dirs[WorkspacesKey] == nil {
		return false
	}
	g := s.Baseline.Dirs[WorkspacesKey]["globs"]
	return g != "" && tasks.InWorkspaces(strings.Split(g, "\n"), s.Root, dir)
}

// renum is a task file's verification tasks renumbered since the session
// began: the snap each new key holds, and the keys whose snap moved.
type renum struct {
	byNew map[string]*ledger.Snap
	moved map[string]bool
	// orphans are the verification tasks of the session's start whose
	// words, headings and commands are nowhere in the file now: a task at
	// a renumbered task's old key stands for them (a checkpoint's command
	// weakened under the renumbering is not let go).
	orphans []*ledger.Snap
}

// renumbered finds, in file as it stands (SetPresent), the verification
// tasks that are a task of the session's start under another id: its
// words, headings and commands, once in the file, not at its own key
// (spec-kit writes its task file again when a task is inserted, and every
// id below moves). The new key holds the snap, and the old key's task, a
// new one, holds nothing of it. Nothing when the file was not read.
func (s *Session) renumbered(file string) renum {
	if r, ok := s.renums[file]; ok {
		return r
	}
	var r renum
	present, ok := s.present[file]
	if !ok && s.Baseline != nil && s.Baseline.Files[file] != nil {
		// Read as vanished reads it: one look at the file for both.
		if b, err := safefile.ReadFile(filepath.Join(s.Root, file), tasks.MaxSize); err == nil {
			if ts, parsed := s.parseKept(file, b); parsed {
				present, ok = ts, true
				s.SetPresent(file, present)
			}
		}
	}
	if s.Baseline != nil && ok {
		count := make(map[string]int, len(present))
		at := make(map[string]string, len(present)) // content → key
		byKey := make(map[string]string, len(present))
		presentAt := make(map[string]string, len(present)) // key → title and headings
		for _, t := range present {
			// Only a verification task can be one renumbered (the tag is
			// in its words): a long file's other tasks cost nothing here.
			if !t.Verify || t.ID == "" || tasks.Positional(t.Ref) {
				continue
			}
			pf := strings.SplitN(t.PlaceFree(), "\x00", 3)
			if len(pf) != 3 {
				continue
			}
			c := tasks.ContentOf(pf[1], pf[2], t.Runs())
			presentAt[t.Key()] = pf[1] + "\x00" + pf[2]
			count[c]++
			at[c] = t.Key()
			byKey[t.Key()] = c
		}
		fs := s.Baseline.Files[file]
		startAt := make(map[string]*ledger.Snap, len(fs))
		to := map[string]string{} // snap key → its task's key now
		startContent := map[string]bool{}
		for i := range fs {
			sn := &fs[i]
			startAt[sn.Key] = sn
			parts := strings.SplitN(sn.Title, "\x00", 3) // id, title, headings
			if !sn.Verify || len(parts) != 3 || tasks.Positional(sn.Key) {
				continue
			}
			if sn.Carried {
				// It holds what the task needed before an agent changed
				// it, not the task's commands: not followed; nowhere at
				// its key with its words, it is an orphan.
				if t, ok := presentAt[sn.Key]; !ok || t != parts[1]+"\x00"+parts[2] {
					r.orphans = append(r.orphans, sn)
				}
				continue
			}
			c := tasks.ContentOf(parts[1], parts[2], sn.Commands)
			startContent[c] = true
			if count[c] == 1 && at[c] != sn.Key && byKey[sn.Key] != c {
				to[sn.Key] = at[c]
			}
			if count[c] == 0 {
				r.orphans = append(r.orphans, sn)
			}
		}
		// A task of the start nowhere now may be one renumbered with its
		// command rewritten in the same write (spec-kit writes the file
		// again): its words and headings, once among the tasks whose
		// content no task of the start had, and once among the orphans.
		// It keeps what it asked (NeedOf: its commands changed), and the
		// task given its old id inherits nothing of it.
		if len(r.orphans) > 0 {
			words := func(title, headings string) string { return titleWords(title) + "\x00" + headings }
			fresh, freshAt := map[string]int{}, map[string]string{}
			for k, c := range byKey {
				if !startContent[c] {
					pa := strings.SplitN(presentAt[k], "\x00", 2)
					w := words(pa[0], pa[1])
					fresh[w]++
					freshAt[w] = k
				}
			}
			lost := map[string]int{}
			for _, sn := range r.orphans {
				parts := strings.SplitN(sn.Title, "\x00", 3)
				lost[words(parts[1], parts[2])]++
			}
			kept := r.orphans[:0]
			for _, sn := range r.orphans {
				parts := strings.SplitN(sn.Title, "\x00", 3)
				w := words(parts[1], parts[2])
				if !sn.Carried && fresh[w] == 1 && lost[w] == 1 && freshAt[w] != sn.Key {
					to[sn.Key] = freshAt[w]
					continue
				}
				kept = append(kept, sn)
			}
			r.orphans = kept
		}
		// A key that held a verification task as the session began takes
		// another's only when that one moved on too (a chain of
		// renumbered checkpoints): a checked task moved into an open one's
		// place, its id left on a decoy, is not the open one renumbered.
		for old, now := range to {
			if was := startAt[now]; was != nil && was.Verify && to[was.Key] == "" {
				continue
			}
			if r.byNew == nil {
				r.byNew, r.moved = map[string]*ledger.Snap{}, map[string]bool{}
			}
			r.byNew[now], r.moved[old] = startAt[old], true
		}
	}
	if s.renums == nil {
		s.renums = map[string]renum{}
	}
	s.renums[file] = r
	return r
}

// goneElsewhere are the verification tasks of t's id and words (its
// title, code spans aside: its commands may differ) that were open when the
// session began in task files other than file and are in them no more (the
// file deleted, moved, emptied, unreadable, or the task taken out): t is
// that task moved. Another task of the id (spec-kit numbers every spec from
// T001: the user's deleted spec's T002) is not. A file is parsed only when
// it still holds the id's text.
func (s *Session) goneElsewhere(file string, t tasks.Task) []*ledger.Snap {
	id := t.ID
	if s.Baseline == nil || id == "" {
		return nil
	}
	words := strings.ToLower(titleWords(t.Title))
	var out []*ledger.Snap
	for _, rel := range slices.Sorted(maps.Keys(s.Baseline.Files)) {
		if rel == file {
			continue
		}
		var open []*ledger.Snap
		fs := s.Baseline.Files[rel]
		for i := range fs {
			if fs[i].Verify && !fs[i].Checked && snapOfID(fs[i].Key, id) && snapWords(fs[i]) == words {
				open = append(open, &fs[i])
			}
		}
		if len(open) == 0 {
			continue
		}
		b, err := safefile.ReadFile(filepath.Join(s.Root, filepath.FromSlash(rel)), tasks.MaxRead)
		if err == nil && bytes.Contains(b, []byte(id)) {
			ts, ok := s.present[rel]
			if !ok {
				ts, ok = s.parseKept(rel, b)
			}
			if ok && slices.ContainsFunc(ts, func(t tasks.Task) bool { return t.ID == id }) {
				continue // still there
			}
		}
		out = append(out, open...)
	}
	return out
}

// snapWords are a snap's title words as titleWords has them, lower case
// ("" for a snap kept without its words).
func snapWords(sn ledger.Snap) string {
	parts := strings.Split(sn.Title, "\x00")
	if len(parts) != 3 {
		return "\x00" // no words kept: matches no title
	}
	return strings.ToLower(titleWords(parts[1]))
}

// vanished are the verification tasks of file that were open when the
// session began and that no task of the file, as judged, carries the id
// of.
func (s *Session) vanished(file string) []*ledger.Snap {
	if s.Baseline == nil {
		return nil
	}
	present, ok := s.present[file]
	if !ok {
		b, err := safefile.ReadFile(filepath.Join(s.Root, file), tasks.MaxSize)
		if err != nil {
			return nil
		}
		present = tasks.Parse(b)
		s.SetPresent(file, present)
	}
	// Only a verification task of the id stands for one: a plain task
	// given the id (a decoy) leaves the verification task gone.
	ids := map[string]bool{}
	for _, t := range present {
		if t.Verify {
			ids[t.ID] = true
		}
	}
	var out []*ledger.Snap
	fs := s.Baseline.Files[file]
	for i := range fs {
		sn := &fs[i]
		id := keyID(sn.Key)
		if sn.Verify && !sn.Checked && !ids[id] && !s.renumbered(file).moved[sn.Key] {
			out = append(out, sn)
		}
	}
	// And the verification tasks someone else wrote during the session
	// (acceptEdits), gone since: renamed to another id, the user's V2 is
	// still what it asked (attack 72, R1).
	if s.Data != "" && s.ID != "" {
		if s.readEdits(); len(s.added) == 0 {
			return out
		}
		for _, k := range slices.SortedFunc(maps.Keys(s.added), func(a, b boxKey) int { return strings.Compare(a.key, b.key) }) {
			if k.file != file {
				continue
			}
			id := keyID(k.key)
			here := ids[id]
			if id == "" {
				// A task with no id is known by its place: gone when no
				// verification task stands there now (one written above
				// it moved it, and its words may have changed with it:
				// attack 72, R3).
				here = slices.ContainsFunc(present, func(t tasks.Task) bool { return t.Verify && t.Key() == k.key })
			}
			if sn := s.added[k]; sn.Verify && !here {
				out = append(out, &sn)
			}
		}
	}
	return out
}

// snaps are the task as the session began: the snapshot under its key,
// else those of its id (its key is new when a task of the same id was
// written beside it: tasks of a repeated id are told apart by place, and
// giving a verification task's id to a new task must not make it another
// task), none when it was not there.
func (s *Session) snaps(file string, t tasks.Task) []*ledger.Snap {
	if out := s.startSnaps(file, t); len(out) > 0 || !t.Verify && !t.Checked {
		return out
	}
	// Not there as the session began: written by someone else since (the
	// user), it asks what they wrote (acceptEdits).
	if sn := s.addedSnap(file, t); sn != nil {
		return []*ledger.Snap{sn}
	}
	return nil
}

// startSnaps are the task's snapshots of the session's start (snaps).
func (s *Session) startSnaps(file string, t tasks.Task) []*ledger.Snap {
	if s.Baseline == nil {
		return nil
	}
	fs := s.Baseline.Files[file]
	byWords := func() *ledger.Snap {
		// A task told apart by its place: the one of its id, title and
		// section, when one is (a step added above it moved it, renumbered;
		// or its twin deleted: Step#2 is Step now).
		var match *ledger.Snap
		n := 0
		for i := range fs {
			if fs[i].Title != "" && fs[i].Title == t.PlaceFree() && snapOfID(fs[i].Key, t.ID) {
				match, n = &fs[i], n+1
			}
		}
		if n == 1 {
			return match
		}
		return nil
	}
	if tasks.Positional(t.Ref) {
		if sn := byWords(); sn != nil {
			return []*ledger.Snap{sn}
		}
	}
	if !tasks.Positional(t.Ref) {
		if r := s.renumbered(file); r.byNew != nil {
			if sn, ok := r.byNew[t.Key()]; ok {
				return []*ledger.Snap{sn} // renumbered from its old key
			}
			if r.moved[t.Key()] {
				// A new task at a renumbered task's old key: it stands
				// for the tasks of the start that are nowhere now.
				return r.orphans
			}
		}
	}
	var out []*ledger.Snap
	if len(fs) > 64 {
		out = s.indexedSnaps(file, fs, t)
	} else {
		for i := range fs {
			if fs[i].Key == t.Key() {
				if tasks.Positional(t.Ref) && s.movedAway(file, &fs[i], t) {
					return nil // a new step at a moved one's place
				}
				return []*ledger.Snap{&fs[i]}
			}
		}
		for i := range fs {
			if snapOfID(fs[i].Key, t.ID) {
				out = append(out, &fs[i])
			}
		}
	}
	if len(out) > 1 && !tasks.Positional(t.Ref) {
		if sn := byWords(); sn != nil {
			return []*ledger.Snap{sn}
		}
		if sn := onlyOpenAsIs(out, t); sn != nil {
			return []*ledger.Snap{sn}
		}
	}
	return out
}

// onlyOpenAsIs is, of the snaps of a repeated id, the one that asks what t
// asks when every other was checked: a finished twin deleted, and the
// title of the one left reworded (a typo fixed), leave that one as it
// was. nil otherwise: a task that asks what no snap, or a checked twin,
// asked stands for them all.
func onlyOpenAsIs(sns []*ledger.Snap, t tasks.Task) *ledger.Snap {
	var match *ledger.Snap
	for _, sn := range sns {
		switch {
		case sameCommands(t.Commands, sn.Commands) && sn.Verify == t.Verify && sn.Manual == t.Manual && sn.AC == t.AC && match == nil:
			match = sn
		case !sn.Checked:
			return nil
		}
	}
	return match
}

// movedAway reports whether the task a snap of a place (Step#2) was is
// in the file now by its words, at another place: a step inserted above
// it moved it down, and the new step at its old place, t, is not it. Only
// when t is no verification task, or the moved step is checked: an open
// copy of a step written below it does not free the step at its place
// from what it needed (a decoy).
func (s *Session) movedAway(file string, sn *ledger.Snap, t tasks.Task) bool {
	if sn.Title == "" {
		return false
	}
	for _, o := range s.present[file] {
		if o.Key() != sn.Key && o.PlaceFree() == sn.Title && snapOfID(sn.Key, o.ID) && (o.Checked || !t.Verify) && !s.stoodAt(file, o.Key(), sn.Title) {
			return true
		}
	}
	return false
}

// stoodAt reports whether the task at key, with these words, was there
// when the session began: a twin that did not move (a plan that repeats a
// step) frees no step of its words.
func (s *Session) stoodAt(file, key, words string) bool {
	for _, sn := range s.Baseline.Files[file] {
		if sn.Key == key {
			return sn.Title == words
		}
	}
	return false
}

// hadTask reports whether the file held this task when the session began:
// a task renamed into an id the file has (V2 written as a second V1, V1#2),
// or written at a step's place with other words, is new, and stands for
// the tasks gone since.
func (s *Session) hadTask(file string, t tasks.Task) bool {
	if s.Baseline == nil {
		return true
	}
	for _, sn := range s.Baseline.Files[file] {
		// A task told apart by its place is known by its words (a new
		// step can take an old one's place, Step#2); another by its key.
		if sn.Title != "" && sn.Title == t.PlaceFree() && snapOfID(sn.Key, t.ID) ||
			!tasks.Positional(t.Ref) && sn.Key == t.Key() {
			return true
		}
	}
	return false
}

// keyID is the id a task's key holds: `V1#2` and `V1@line7` are V1's,
// `@line7` a task's with none.
func keyID(key string) string {
	id, _, _ := strings.Cut(key, "#")
	id, _, _ = strings.Cut(id, "@line")
	return id
}

// snapOfID reports whether a snap's key names a task of id: ID, ID#N, or a
// place in the file (ID@lineN, @lineN for a task with no id).
func snapOfID(key, id string) bool {
	k, _, _ := strings.Cut(key, "#")
	return k == id || strings.HasPrefix(key, id+"@line")
}

// snapIndex finds a long file's snaps by key and by id: a tick of many
// boxes at once looked through the whole baseline for each.
type snapIndex struct {
	byKey map[string]int
	byID  map[string][]int // in the file's order
}

func (s *Session) indexedSnaps(file string, fs []ledger.Snap, t tasks.Task) []*ledger.Snap {
	if s.snapIndexes == nil {
		s.snapIndexes = map[string]*snapIndex{}
	}
	ix := s.snapIndexes[file]
	if ix == nil {
		ix = &snapIndex{byKey: make(map[string]int, len(fs)), byID: make(map[string][]int, len(fs))}
		for i := range fs {
			key := fs[i].Key
			if _, dup := ix.byKey[key]; !dup {
				ix.byKey[key] = i
			}
			// Every id snapOfID would match the key by.
			ids := []string{key}
			ids[0], _, _ = strings.Cut(key, "#")
			for j := 0; ; {
				at := strings.Index(key[j:], "@line")
				if at < 0 {
					break
				}
				ids = append(ids, key[:j+at])
				j += at + 1
			}
			for n, id := range ids {
				if !slices.Contains(ids[:n], id) {
					ix.byID[id] = append(ix.byID[id], i)
				}
			}
		}
		s.snapIndexes[file] = ix
	}
	if i, ok := ix.byKey[t.Key()]; ok {
		if tasks.Positional(t.Ref) && s.movedAway(file, &fs[i], t) {
			return nil // a new step at a moved one's place
		}
		return []*ledger.Snap{&fs[i]}
	}
	var out []*ledger.Snap
	for _, i := range ix.byID[t.ID] {
		out = append(out, &fs[i])
	}
	return out
}

func (s *Session) wasChecked(file string, t tasks.Task) bool {
	sns := s.snaps(file, t)
	for _, sn := range sns {
		if !sn.Checked {
			return false
		}
	}
	return len(sns) > 0
}

// IsVerification reports whether t is a verification task now or was one
// when the session began (dropping [VERIFY] from a title does not drop
// the check).
func (s *Session) IsVerification(file string, t tasks.Task) bool {
	if t.Verify {
		return true
	}
	for _, sn := range s.snaps(file, t) {
		if sn.Verify {
			return true
		}
	}
	return false
}

// standsFor reports whether t, checked, stands for verification tasks
// gone since the session began (NeedOf's StandsFor), without the rest of
// what it needs (a long file's plain checked tasks are asked this).
func (s *Session) standsFor(file string, t tasks.Task) bool {
	if !t.Checked {
		return false
	}
	if sns := s.snaps(file, t); len(sns) > 0 && s.hadTask(file, t) {
		return false
	}
	return len(s.goneFor(file, t)) > 0 || len(s.goneElsewhere(file, t)) > 0
}

// goneFor are the open verification tasks gone from file that a task new
// since the session began stands for: every one gone in this session, and
// one an agent deleted in an earlier session (Snap.Gone) only for the task
// written at its place (any new verification task, when its place is
// unknown: Snap.Placeless). Any new task standing for those too would hold
// every later session's new work to a check the user may have had the
// agent drop.
func (s *Session) goneFor(file string, t tasks.Task) []*ledger.Snap {
	gone := s.vanished(file)
	if !slices.ContainsFunc(gone, func(sn *ledger.Snap) bool { return sn.Gone }) {
		return gone
	}
	var at []*ledger.Snap
	present := s.present[file]
	if present != nil {
		if j := slices.IndexFunc(present, func(p tasks.Task) bool { return p.Key() == t.Key() }); j >= 0 {
			at = s.goneAt(file, present, j)
		}
	}
	return slices.DeleteFunc(gone, func(sn *ledger.Snap) bool {
		if !sn.Gone {
			return false
		}
		if s.lostPlace(file, sn, present) {
			return !t.Verify
		}
		return !slices.Contains(at, sn)
	})
}

// lostPlace reports whether a task an agent of an earlier session deleted
// (Snap.Gone) has no place in file as it is: none when the session began
// (Snap.Placeless), or both tasks around it renamed or gone since (attack
// 74). Any new verification task of the file stands for such a one.
func (s *Session) lostPlace(file string, sn *ledger.Snap, present []tasks.Task) bool {
	if sn.Placeless {
		return true
	}
	fs := s.Baseline.Files[file]
	i := slices.IndexFunc(fs, func(o ledger.Snap) bool { return o.Key == sn.Key })
	if !sn.Gone || i < 0 || present == nil {
		return false
	}
	here := func(key string) bool {
		return slices.ContainsFunc(present, func(p tasks.Task) bool { return p.Key() == key })
	}
	return !(i > 0 && here(fs[i-1].Key)) && !(i+1 < len(fs) && here(fs[i+1].Key))
}

// NeedOf is what t needs: its commands and those it had when the session
// began (rewriting a task's commands does not loosen it), a qa-engineer run
// for an AC task, else the quality commands of its task file or, when it
// has none, of the project.
func (s *Session) NeedOf(file string, t tasks.Task) Need {
	n := Need{Prose: t.Prose}
	n.Waiver, n.Asked = s.waiver(file, t)
	// The user's acceptance of the task's commands as they stand is no
	// waiver: it drops the commands of the session's start, if the task's
	// commands are still the ones accepted.
	var accepted []string
	if n.Waiver != nil && len(n.Waiver.Commands) > 0 {
		accepted, n.Waiver = n.Waiver.Commands, nil
	}
	current := make([]string, len(t.Commands))
	for i, c := range t.Commands {
		current[i] = Normalize(c.Run)
	}
	keepStart := accepted == nil || !slices.Equal(accepted, current)
	sns := s.snaps(file, t)
	if keepStart && len(sns) == 1 && asksOtherThan(t, sns[0]) && s.acceptedByEdit(file, t) {
		keepStart = false // the user's own edit of it, in this session
	}
	seen := map[string]bool{}
	add := func(cs []tasks.Command) {
		for _, c := range cs {
			c.Run = s.localCd(c.Run)
			if k := Normalize(c.Run); !seen[k] {
				seen[k] = true
				n.Commands = append(n.Commands, c)
			}
		}
	}
	add(t.Commands)
	n.QA = t.AC
	// What the task needed as the session began stays needed: a person, or
	// the project's checks standing for a task that named no command, are
	// not loosened by rewriting its words ("GO/NO-GO" dropped, a harmless
	// command named, an inspection a qa-engineer makes) during the session,
	// nor by renaming it.
	manualAtStart, qualityAtStart := false, false
	if (len(sns) == 0 || !s.hadTask(file, t)) && t.Checked {
		// A task new since the session began (its key is: a second V1 is
		// V1#2), ticked: it stands for the verification tasks of its file
		// that were open then and are gone now (renamed to it, or removed
		// while it was written), so that renaming V1 to V1a, rewriting its
		// command and ticking it is judged as a tick of V1, with what V1
		// needed (its commands, a person, the project's checks).
		// And for the open verification tasks of its id gone from another
		// task file since (a task moved to another file, or its file moved,
		// emptied or copied and deleted: the same task, under another path).
		gone := append(s.goneFor(file, t), s.goneElsewhere(file, t)...)
		for _, sn := range gone {
			n.StandsFor = append(n.StandsFor, sn.Key)
			cs := snapCommands(*sn)
			for i := range cs {
				cs[i].Source = tasks.Source(sn.Key + "'s " + string(cs[i].Source) + ", as the session began")
			}
			add(cs)
			n.QA = n.QA || sn.AC
			manualAtStart = manualAtStart || sn.Manual
			qualityAtStart = qualityAtStart || sn.Verify && len(sn.Commands) == 0 && !sn.AC && !sn.Manual
		}
	}
	for _, sn := range sns {
		manualAtStart = manualAtStart || sn.Manual
		qualityAtStart = qualityAtStart || sn.Verify && len(sn.Commands) == 0 && !sn.AC && !sn.Manual
	}
	for _, sn := range sns {
		start := snapCommands(*sn)
		if !keepStart {
			continue
		}
		for i, c := range start {
			if !slices.Contains(current, Normalize(c.Run)) {
				n.Changed = true // a command of the session's start is gone from the task
				n.ChangedBefore = n.ChangedBefore || sn.Carried
				if !sn.Carried {
					start[i].Source = tasks.Source(string(c.Source) + ", as the session began: the task has changed since, and it stands until the user accepts the change")
				}
			}
		}
		add(start)
		n.QA = n.QA || sn.AC
	}
	switch {
	case len(n.Commands) == 0 && !n.QA && t.Manual, keepStart && manualAtStart:
		// A person checks it: no command of the project stands for that,
		// nor a qa-engineer's run when a person checked it at the start.
		n.Manual = true
	case len(n.Commands) == 0 && !n.QA, keepStart && qualityAtStart:
		q := s.qualityOf(file)
		// "Unit test: an expired session returns 401", and the project's
		// checks run no test (lint and a build): they pass whatever the
		// test would show. A qa-engineer reads the test written for it
		// (corpus thirteen). The checks it stood on as the session began
		// stand beside: words put in its title since loosen nothing.
		tests := len(n.Commands) == 0 && len(q) > 0 && tasks.NamesTests(t.Title) && !slices.ContainsFunc(q, func(c tasks.Command) bool { return tasks.RunsTests(c.Run) })
		if tests {
			// The tests of the package below the root the words name
			// (or the only one that has them), as the session began:
			// "Run frontend unit tests (Vitest)" beside a root that
			// only builds (corpus twelve). Else a qa-engineer reads them.
			if c, dir := s.subprojectTests(t); c != "" {
				add([]tasks.Command{{Run: c, Source: tasks.Source("the tests of " + dir + "/")}})
				n.Quality = true
			} else {
				n.QA = true
			}
		}
		if !tests || keepStart && qualityAtStart {
			add(q)
			n.Quality = true
		}
	}
	return n
}

// snapCommands are a task's commands as the session began, with their
// sources.
func snapCommands(sn ledger.Snap) []tasks.Command {
	out := make([]tasks.Command, len(sn.Commands))
	for i, c := range sn.Commands {
		src := tasks.Source("as the session began")
		if i < len(sn.Sources) {
			src = tasks.Source(sn.Sources[i])
		}
		out[i] = tasks.Command{Run: c, Source: src}
	}
	return out
}

// qualityOf are the quality commands for a task of file: the file's own
// Quality Commands section as the session began (as the file is, for a
// file new since), else the project's (rodin checks), each read once.
func (s *Session) qualityOf(file string) []tasks.Command {
	if s.fileQuality == nil {
		s.fileQuality = map[string][]tasks.Command{}
	}
	q, ok := s.fileQuality[file]
	if !ok {
		if s.Baseline != nil && s.Baseline.Files[file] != nil {
			for _, c := range s.Baseline.Quality[file] {
				q = append(q, tasks.Command{Run: c, Source: tasks.FromQualityList})
			}
		} else if b, err := safefile.ReadFile(filepath.Join(s.Root, file), tasks.MaxSize); err == nil {
			q = tasks.ParseFile(b).Quality
		}
		s.fileQuality[file] = q
	}
	if len(q) > 0 {
		return q
	}
	if !s.qualityRead {
		// The project's checks as the session began and as they are now:
		// a manifest written since (a package.json of the agent's own
		// scripts before go.mod's) adds checks, and takes none away.
		seen := map[string]bool{}
		add := func(c string) {
			if k := Normalize(c); !seen[k] {
				seen[k] = true
				s.quality = append(s.quality, tasks.Command{Run: c, Source: tasks.FromChecks})
			}
		}
		if s.Baseline != nil {
			for _, c := range s.Baseline.Quality[ProjectChecks] {
				add(c)
			}
		}
		for _, c := range checks.Quality(checks.Discover(s.Root)) {
			add(c)
		}
		s.qualityRead = true
	}
	return s.quality
}

// ProjectChecks is the key of the baseline's Quality under which the
// project's own checks (rodin checks) are kept as the session began: no
// task file's path is empty.
const ProjectChecks = ""

// Normalize and Evidential are the ledger's: what a run of a command is.
func Normalize(c string) string { return ledger.Normalize(c) }

// Evidential reports whether a run of command c can be evidence at all
// (ledger.Evidential).
func Evidential(c string) bool { return ledger.Evidential(c) }

// Finding is the state of one requirement.
type Finding struct {
	Command string       // the command, or "" for the qa-engineer run
	Source  tasks.Source // where the command was read
	Run     *ledger.Run  // the latest run that speaks for it
	Via     string       // "rodin verify V4" when that run was rodin verify
	Stale   freshness.Change
	// IgnoredNow is set when the root .gitignore as it is now ignores
	// Stale's path and the one the session judges with does not (a change
	// of .gitignore counts from a later session, the user accepting it).
	IgnoredNow bool
	// FromStart: the run's pass speaks from its start (a background task,
	// another agent, or a process left running ran during it).
	FromStart bool
	// Chained: the run is the command followed by `&& …` (chain.go).
	Chained bool
	// Near is, when no run speaks for it, the newest command of the
	// session that holds it but does not count (piped, chained,
	// redirected), so that the message says why.
	Near string
	// Failed is, when no run speaks for it, the newest `rodin verify` of
	// its task that failed (it records no pass of any command), or was
	// moved to the background (its outcome reached no hook).
	Failed *ledger.Run
	// Missing is set, when no run speaks for it, when the file it names
	// is not where it runs (a typo in the task's command, perhaps).
	Missing bool
	// Elsewhere and Counts are, when no run speaks for it, the directory
	// (relative to the root, "." for the root) of the newest run of it as
	// written that passed where it does not count, and the one where it
	// would have.
	Elsewhere, Counts string
}

// OK reports whether the requirement is met.
func (f Finding) OK() bool {
	if f.Run == nil || f.Stale.Path != "" {
		return false
	}
	if f.Command == "" {
		return f.Run.Pass
	}
	return f.Run.Exit == 0
}

// Verdict is a task's judgement.
type Verdict struct {
	File     string // relative to the root
	Task     tasks.Task
	Need     Need
	Findings []Finding
	NoCheck  bool // it needs commands and none were found
	Damaged  int  // records lost to damage in the run log (Session.Damaged)
	// Unreadable is set when the evidence could not be read: the task is
	// unverified, and this says why.
	Unreadable string
	// NoStart is set when the session has no record of its start (the
	// baseline), or of its task file then (StartUnread says why): what the
	// task needed then is not known, so no run can show it passed; a
	// waiver of the user's still stands.
	NoStart     bool
	StartUnread string
}

// OK reports whether the box may be ticked.
func (v Verdict) OK() bool {
	if v.Unreadable != "" {
		return false
	}
	if v.Need.Waiver != nil {
		return true
	}
	if v.NoCheck || v.Need.Manual || v.NoStart {
		return false
	}
	for _, f := range v.Findings {
		if !f.OK() {
			return false
		}
	}
	return true
}

// Judge judges the tasks of a file (relative path) against the session's
// evidence, with one walk of the tree for the staleness of every run.
func (s *Session) Judge(items []Item) ([]Verdict, error) {
	runs, err := s.Runs()
	if err != nil {
		return nil, err
	}
	var out []Verdict
	var times []time.Time
	var refs []*Finding
	for _, it := range items {
		v := Verdict{File: it.File, Task: it.Task, Need: s.NeedOf(it.File, it.Task), Damaged: s.Damaged, NoStart: s.Baseline == nil}
		if s.Baseline != nil && s.Baseline.Unread[it.File] != "" {
			v.NoStart, v.StartUnread = true, s.Baseline.Unread[it.File]
		}
		if len(v.Need.Commands) == 0 && !v.Need.QA && !v.Need.Manual {
			v.NoCheck = true
		}
		for _, c := range v.Need.Commands {
			f := Finding{Command: c.Run, Source: c.Source}
			f.Run, f.Via = s.latestCommand(runs, it.File, it.Task, c.Run, v.Need.Commands)
			if f.Run == nil {
				// The exact command run from another folder says more than
				// a line that held it (a monorepo's package run, after an
				// old `a && b` at the root).
				f.Elsewhere, f.Counts = s.elsewhereRun(runs, it.File, c.Run)
				if f.Elsewhere == "" {
					f.Near = nearRun(runs, c.Run, it.Task.Ref)
				}
				if f.Near == "" && f.Elsewhere == "" {
					f.Failed = failedVerify(runs, it.Task.Ref)
				}
				if f.Near == "" && f.Elsewhere == "" && f.Failed == nil {
					f.Missing = !tasks.FoundIn(s.RunDir(it.File, c.Run), c.Run)
				}
			}
			v.Findings = append(v.Findings, f)
		}
		if v.Need.QA {
			f := Finding{}
			f.Run = latestQA(runs, QAPrompt(it.File, it.Task))
			v.Findings = append(v.Findings, f)
		}
		out = append(out, v)
	}
	var files []string // the task file of each of refs
	for i := range out {
		for j := range out[i].Findings {
			if f := &out[i].Findings[j]; f.Run != nil {
				t := s.evidenceTime(f.Run)
				f.FromStart, f.Chained = !t.Equal(f.Run.When()), s.chainedRuns[f.Run]
				times = append(times, t)
				refs = append(refs, f)
				files = append(files, out[i].File)
			}
		}
	}
	// A run the session's transcript shows nothing written since needs
	// no walk (quietSince); the others share one.
	var walkTimes []time.Time
	var walkRefs []*Finding
	var walkFiles []string
	for i, f := range refs {
		if !s.quietSince(f.Run) {
			walkTimes, walkRefs, walkFiles = append(walkTimes, times[i]), append(walkRefs, f), append(walkFiles, files[i])
		}
	}
	if len(walkTimes) > 0 {
		changes := freshness.NewestUntil(s.tree(), walkTimes, s.asOf)
		var now *project.Tree
		for i, c := range changes {
			if c.Path == "" && walkRefs[i].Command != "" {
				c = s.scriptChanged(walkFiles[i], walkRefs[i].Command, walkTimes[i])
			}
			walkRefs[i].Stale = c
			if c.Path != "" {
				if now == nil {
					now = project.NewTree(s.Root, s.Config)
				}
				walkRefs[i].IgnoredNow = now.IgnoresPath(c.Path)
			}
		}
	}
	return out, nil
}

// tree is the source tree a check's freshness is judged on, with the root
// .gitignore the session began with (ledger.GitignorePath): the agent's
// `src/` added to it since hides no change. A session begun by an older
// rodin has none kept: the file as it is.
func (s *Session) tree() *project.Tree {
	cfg := s.Config
	if logs := s.serverLogs(); len(logs) > 0 {
		cfg.Ignore = append(append([]string(nil), cfg.Ignore...), logs...)
	}
	if p := ledger.GitignorePath(s.Data, s.ID); s.ID != "" && s.Data != "" {
		if _, err := os.Lstat(p); err == nil {
			return project.NewTreeIgnoring(s.Root, cfg, p)
		}
	}
	return project.NewTree(s.Root, cfg)
}

// serverLogs are the logs at the root that a command of the session which
// left a process running writes into (`nohup sh serve.sh > dev.log 2>&1
// &`, `… >> server.log &`, nohup's own nohup.out): a dev server writes its
// own all along, which made every check of the session stale (honest day
// 62). Only such a command's, only a `.log` (or nohup.out) at the root: a
// log a test reads is code (attack 63).
func (s *Session) serverLogs() []string {
	runs, err := s.Runs()
	if err != nil {
		return nil
	}
	var out []string
	first := s.firstDetached() // no command before it detaches: not looked at again
	for i := range runs {
		r := &runs[i]
		if r.Kind != ledger.KindBash && r.Kind != ledger.KindSkillShell || !(r.Exit == ledger.ExitBackground || r.Time >= first && detaches(r.Command)) {
			continue
		}
		if r.Cwd != "" && filepath.Clean(r.Cwd) != s.Root {
			continue
		}
		f := strings.Fields(r.Command)
		for j, w := range f {
			target := ""
			switch {
			case (w == ">" || w == ">>" || w == "&>" || w == "1>" || w == "2>") && j+1 < len(f):
				target = f[j+1]
			case strings.HasPrefix(w, ">>"), strings.HasPrefix(w, "&>"):
				target = w[2:]
			case strings.HasPrefix(w, ">") && !strings.HasPrefix(w, ">&"):
				target = w[1:]
			case w == "nohup":
				target = "nohup.out"
			}
			target = strings.TrimPrefix(strings.Trim(target, `'"`), "./")
			if target != "" && !strings.Contains(target, "/") && (strings.HasSuffix(target, ".log") || target == "nohup.out") {
				out = append(out, target)
			}
		}
	}
	return out
}

// Call is the tool call a decision is made in, for quietSince.
type Call struct {
	Transcript string // the session's transcript (transcript_path)
	ToolUseID  string
	Agent      string // agent_id: "" for the main thread
}

// quietSince reports whether nothing can have written a source file since
// run r, without a walk of the tree: r and the call being judged are the
// main thread's, in its transcript, with only calls that write no source
// file between them (transcript.QuietBetween), no background task of the
// session (a Bash call, a subagent) running since r, and no other agent's
// call since r. Anything else is left to the walk.
func (s *Session) quietSince(r *ledger.Run) bool {
	c := s.Call
	if c.Transcript == "" || c.ToolUseID == "" || c.Agent != "" || r.Kind != ledger.KindBash || r.Tool == "" || r.Agent != "" || s.chainedRuns[r] {
		return false
	}
	if q, ok := s.quiet[r.Tool]; ok {
		return q // several tasks can stand on one run: one look
	}
	q := s.lookQuiet(r)
	if s.quiet == nil {
		s.quiet = map[string]bool{}
	}
	s.quiet[r.Tool] = q
	return q
}

// scriptChanged is the script a task's command runs, when it changed at or
// after since: the walk leaves out hidden folders and ignored files, and a
// check kept in `.ci/check.sh` made to pass, run and put back is code no
// check ran on. The zero Change when it did not change, or names none.
func (s *Session) scriptChanged(file, cmd string, since time.Time) freshness.Change {
	script := tasks.ScriptOf(cmd)
	if script == "" {
		return freshness.Change{}
	}
	p := script
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.RunDir(file, cmd), p)
	}
	rel := project.Rel(s.Root, p)
	fi, err := os.Stat(p)
	if rel == "" || err != nil {
		return freshness.Change{}
	}
	if t := freshness.ChangeTime(fi); !t.Before(since) && (s.asOf.IsZero() || !t.After(s.asOf)) {
		return freshness.Change{Path: rel, Time: t}
	}
	return freshness.Change{}
}

// evidenceTime is the time a run's pass speaks for: its end (files the
// check itself writes as it runs are older), or its start when something
// else of the session could write while it ran (a background task, another
// agent's call): code swapped during the check is code no check ran on.
func (s *Session) evidenceTime(r *ledger.Run) time.Time {
	start, overlap := s.overlapped(r)
	if overlap || s.chainedRuns[r] {
		return time.Unix(0, start)
	}
	return r.When()
}

// chained notes a run that speaks for a check it began with (chain.go):
// its pass speaks from its start, and what the line went on to write is
// walked.
func (s *Session) chained(r *ledger.Run) {
	if s.chainedRuns == nil {
		s.chainedRuns = map[*ledger.Run]bool{}
	}
	s.chainedRuns[r] = true
}

// firstDetached is the time of the session's first command that can leave
// a process running (detaches, or too long to read), math.MaxInt64 when
// none did; looked up once (a session runs thousands of commands).
func (s *Session) firstDetached() int64 {
	if s.detachedRead {
		return s.detachedAt
	}
	s.detachedRead, s.detachedAt = true, math.MaxInt64
	runs, _ := s.Runs()
	for i := range runs {
		// A skill's shell command too (`!` lines of a skill or command the
		// agent wrote): one that leaves a process running writes later.
		if (runs[i].Kind == ledger.KindBash || runs[i].Kind == ledger.KindSkillShell) && (runs[i].Oversize || detaches(runs[i].Command)) {
			s.detachedAt = min(s.detachedAt, runs[i].Time)
		}
	}
	return s.detachedAt
}

// overlapped reports whether a background task of the session, or another
// agent's call, ran during r, and when r began.
func (s *Session) overlapped(r *ledger.Run) (start int64, overlap bool) {
	start = r.Time
	if r.Dur > 0 {
		start -= r.Dur * int64(time.Millisecond)
	}
	ws, err := s.sessionWindows()
	if err != nil {
		return start, true
	}
	// A process an earlier command left running (`cmd &`, setsid, nohup)
	// may write at any time, the check's too.
	if s.firstDetached() <= r.Time {
		return start, true
	}
	for _, w := range ws {
		if w.Background != "" && w.Background == r.Bg {
			continue // the run itself
		}
		if strings.HasPrefix(w.Background, "skill:") && w.End-int64(ledger.EndSlack) <= start {
			continue // a skill's shell, ended before the check began
		}
		if (w.Background != "" || w.Agent != r.Agent) && w.Start <= r.Time && w.End >= start {
			return start, true
		}
	}
	return start, false
}

func (s *Session) lookQuiet(r *ledger.Run) bool {
	c := s.Call
	ws, err := s.sessionWindows()
	if err != nil || s.Damaged > 0 {
		return false
	}
	// A process a command left running (`cmd &`, nohup, setsid) writes
	// where no transcript shows it, at any time after: any such command
	// in the session sends the tick to the walk.
	if s.firstDetached() != math.MaxInt64 {
		return false
	}
	for i := range s.runs {
		// A command rodin's own log holds after r: the transcript that
		// shows none (rewritten outside the project, with no sandbox) is
		// not taken over the log.
		if (s.runs[i].Kind == ledger.KindBash || s.runs[i].Kind == ledger.KindSkillShell) && s.runs[i].Time > r.Time {
			return false
		}
	}
	now := freshness.Now().UnixNano()
	start := r.Time
	if r.Dur > 0 {
		start -= r.Dur * int64(time.Millisecond)
	}
	for _, w := range ws {
		// A background task (a Bash call, a subagent) running during r or
		// since, or another agent's call then, writes where this
		// transcript does not show it (overlapped: the files decide, from
		// r's start).
		if (w.Background != "" || w.Agent != r.Agent) && w.End >= start && w.Start <= now {
			return false
		}
	}
	excused := func(p string) bool {
		rel := project.Rel(s.Root, p)
		if rel == "" || !project.MatchAny(s.Config.TaskFiles, rel) && !project.MatchAny(s.Config.Ignore, rel) {
			return false
		}
		// Only the file itself: a link named like a task file (a symbolic
		// one to a source file, or a second name of its inode) writes the
		// source when it is edited.
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			return false
		}
		return links(fi) <= 1
	}
	return transcript.QuietBetween(c.Transcript, r.Tool, c.ToolUseID, excused, 150*time.Millisecond)
}

// detaches reports whether a command line can leave a process running
// after it returns: a job put in the background (`&`, not `&&` or a
// redirection's `2>&1`, `&>`; also inside quotes, where `bash -c '… &'`
// or `"$( … & )"` still runs it, unless a word goes on right after it, as
// in a URL's `?a=1&b=2`), or a program that detaches one (by its name,
// whatever its path: `/usr/bin/setsid`, `\setsid`). A script that
// backgrounds a process, or a program that starts one itself, is not seen:
// only Claude Code's sandbox ends those with their command
// (docs/security.md).
func detaches(c string) bool {
	if c == "" {
		return false
	}
	if strings.Contains(c, "docker") && (strings.Contains(c, " -d") || strings.Contains(c, "--detach")) {
		return true // docker run -d, docker compose up -d
	}
	if strings.Contains(c, "<(") || strings.Contains(c, ">(") {
		return true // a process substitution, which the shell does not wait for
	}
	quote := byte(0)
	word := make([]byte, 0, 16)
	detacher := func() bool {
		w := string(word)
		if i := strings.LastIndexByte(w, '/'); i >= 0 {
			w = w[i+1:]
		}
		switch strings.TrimLeft(w, "\\") {
		case "nohup", "setsid", "disown", "daemonize", "start-stop-daemon", "systemd-run", "tmux", "screen", "at", "batch",
			"coproc", "crontab", "systemctl", "launchctl", "pm2", "forever":
			return true
		}
		return false
	}
	for i := 0; i < len(c); i++ {
		ch := c[i]
		if ch == '\\' && quote == 0 && i+1 < len(c) {
			i++ // an escaped character: a\&b is no job, \setsid still setsid
			if c[i] != '&' {
				word = append(word, c[i])
			}
			continue
		}
		if ch == '&' {
			next, prev := byte(0), byte(0)
			if i+1 < len(c) {
				next = c[i+1]
			}
			if i > 0 {
				prev = c[i-1]
			}
			switch {
			case next == '&':
				i++ // &&
				ch = ' '
			case next == '>', prev == '>', prev == '<':
				// &> file, 2>&1, <&3
			case quote == 0:
				return true
			case next == 0 || next == ' ' || next == '\t' || next == '\n' || next == ')' || next == ';' || next == quote:
				return true // in quotes: a job put in the background by a shell the quoted text is given to
			}
		}
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			} else if ch == '\\' && quote == '"' {
				i++
			} else if ch == ' ' || ch == '\t' || ch == '\n' || ch == ';' {
				// Words in quotes too: `bash -c 'nohup ./server'`; only the
				// ones no sentence uses (a commit message says "at").
				switch string(word) {
				case "nohup", "setsid", "disown", "coproc", "daemonize", "systemd-run", "start-stop-daemon":
					return true
				}
				word = word[:0]
			} else {
				word = append(word, ch) // "setsid" is setsid
			}
			continue
		case ch == '\'' || ch == '"':
			quote = ch
			continue
		}
		if ch == ' ' || ch == '\t' || ch == '\n' || ch == ';' || ch == '|' || ch == '&' || ch == '(' || ch == ')' || ch == '{' || ch == '}' {
			if detacher() {
				return true
			}
			word = word[:0]
			continue
		}
		word = append(word, ch)
	}
	return detacher()
}

// Item is a task of a file.
type Item struct {
	File string
	Task tasks.Task
}

// latestCommand is the latest run that speaks for command c of task t:
// the command itself, run from the project root (or, for `cd D && rest`,
// rest run in D), or `rodin verify` of the task.
func (s *Session) latestCommand(runs []ledger.Run, file string, t tasks.Task, c string, need []tasks.Command) (*ledger.Run, string) {
	want := Normalize(c)
	// The task's checks, as links a chained line may run before this one.
	own := func(l string) bool {
		return slices.ContainsFunc(need, func(k tasks.Command) bool { return Normalize(k.Run) == l })
	}
	// The directory a run of it counts in, decided by the task file's
	// place (tasks.RunDir): looked up once, at the first run of it.
	dir, looked := "", false
	inDir := func(cwd string) bool {
		if !looked {
			dir, looked = s.RunDir(file, c), true
		}
		if cwd == "" {
			return dir == s.Root
		}
		return filepath.Clean(cwd) == dir
	}
	// Its stderr joined to its stdout (`2>&1`, as agents write commands)
	// changes no exit, after a command that ends in a word: after `;` or
	// `|` it is a command of its own, which succeeds.
	joinable := !strings.HasSuffix(want, " 2>&1") && wordEnd(want)
	for i := len(runs) - 1; i >= 0; i-- {
		r := &runs[i]
		if r.Kind != ledger.KindBash || !Evidential(r.Command) {
			continue
		}
		got := Normalize(r.Command)
		if joinable {
			got = strings.TrimSuffix(got, " 2>&1")
		}
		// A line piped into a filter succeeds whatever its first command
		// does, as Claude Code's Bash runs it: only rodin verify's run of
		// it (with pipefail) speaks for it.
		if got == want && inDir(r.Cwd) && !tasks.PipeHidesExit(c) {
			return r, ""
		}
		// The run `cd packages/api && sh check.sh` (or `cd /abs/project &&
		// npm test`), which Claude Code reports from the directory its cd
		// left the shell in, is the rest run there: what the deny asks.
		if rest, ok := s.ranIn(r.Cwd, got); ok && inDir(r.Cwd) && !tasks.PipeHidesExit(c) {
			if rest = Normalize(rest); rest == want {
				return r, ""
			}
			if r.Exit == 0 && chainedOf(rest, want, joinable, own) {
				s.chained(r)
				return r, ""
			}
		}
		// `cd daemon && cargo build` is `cargo build` run in daemon/: the
		// agent's shell may have changed there first. And the line itself
		// may be reported from daemon/, where its cd left the shell.
		if dir, rest, ok := tasks.InDir(c); ok && r.Cwd != "" && filepath.Clean(r.Cwd) == filepath.Join(s.Root, filepath.FromSlash(dir)) && !tasks.PipeHidesExit(rest) {
			if rest = Normalize(rest); got == rest || got == want {
				return r, ""
			}
			if r.Exit == 0 && (chainedOf(got, rest, joinable, own) || chainedOf(got, want, joinable, own)) {
				s.chained(r)
				return r, ""
			}
		}
		// `cd .. && check` from a subfolder, or any `cd X && check` that
		// moves the shell once: Claude Code reports the call from where
		// the cd left it, where the check ran.
		if dir, rest, ok := tasks.CdThen(got); ok && Normalize(rest) == want && !movesShell(rest) && inDir(r.Cwd) && cdLeadsTo(dir, shellBefore(runs, i, s.Root), r.Cwd) && !tasks.PipeHidesExit(c) {
			return r, ""
		}
		// `(cd web && npm test)`: the check run in web by a subshell, the
		// call reported from where it began.
		if inner, ok := subshell(got); ok {
			if Normalize(inner) == want && inDir(r.Cwd) && !tasks.PipeHidesExit(c) {
				return r, "" // the task's own `cd web && …`, in a subshell
			}
			if dir, rest, ok := tasks.InDir(inner); ok && Normalize(rest) == want && !movesShell(rest) && r.Cwd != "" &&
				filepath.Join(filepath.Clean(r.Cwd), filepath.FromSlash(dir)) == s.RunDir(file, c) && !tasks.PipeHidesExit(c) {
				return r, ""
			}
		}
		// The check as a link of a line of `&&` links (chain.go), after
		// the `cd DIR && check` forms above: a pass of it, from the line's
		// start; a failed line says nothing of which link failed.
		if r.Exit == 0 && chainedOf(got, want, joinable, own) && inDir(r.Cwd) && !tasks.PipeHidesExit(c) {
			s.chained(r)
			return r, ""
		}
		// rodin verify runs the task's commands from the project root
		// wherever it is started in the project.
		if s.inProject(r.Cwd) && s.isVerifyOf(got, r.Cwd, file, t, r) && s.verifiedThis(r, file, t) {
			if verifyChained(got) {
				if r.Exit != 0 {
					continue
				}
				s.chained(r)
			}
			return r, got
		}
		// A pass of the same command for another task is evidence too
		// (VERIFY-SPEC §2): a passing rodin verify of a task that ran it.
		if r.Exit == 0 && r.PromptSum != "" && strings.Contains(got, "rodin verify ") && s.inProject(r.Cwd) && s.verifyRan(r, got, file, c) {
			if verifyChained(got) {
				s.chained(r)
			}
			return r, got
		}
	}
	return nil, ""
}

// verifyRan reports whether a passing `rodin verify` run ran command c,
// where c of file runs: the task its id named, as the run's sum has it,
// still needs c (NeedOf, as rodin verify ran it) with no waiver (a waived
// task passes with failing commands), and runs it in the same directory.
// The task is looked for in the file the run named, or in file when it
// named none.
func (s *Session) verifyRan(r *ledger.Run, cmd, file, c string) bool {
	key := r.PromptSum + "\x00" + cmd + "\x00" + file + "\x00" + c
	if ran, ok := s.ranCache[key]; ok {
		return ran
	}
	ran := s.lookVerifyRan(r, cmd, file, c)
	if s.ranCache == nil {
		s.ranCache = map[string]bool{}
	}
	s.ranCache[key] = ran
	return ran
}

func (s *Session) lookVerifyRan(r *ledger.Run, cmd, file, c string) bool {
	id, fileArg, ok := verifyArgs(cmd)
	if !ok {
		return false
	}
	files := []string{file}
	if fileArg != "" {
		files[0] = s.verifyFile(r.Cwd, fileArg)
	} else {
		// The run found its id in one task file (its sum is of that task):
		// this one, or another the session knows.
		for _, f := range s.taskFiles() {
			if f != file && s.mentions(f, id) {
				files = append(files, f)
			}
		}
	}
	for _, rel := range files {
		if rel != "" && s.verifyRanIn(rel, rel, id, r, c, file) {
			return true
		}
	}
	// The file it named is gone (the spec folder moved since, `git mv`):
	// it speaks for the same task in the file being judged, as the run
	// summed it under the name it had.
	if named := files[0]; fileArg != "" && named != "" && named != file && s.gone(named) {
		return s.verifyRanIn(file, named, id, r, c, file)
	}
	return false
}

// gone reports whether the task file rel is not there now.
func (s *Session) gone(rel string) bool {
	_, err := os.Lstat(filepath.Join(s.Root, filepath.FromSlash(rel)))
	return os.IsNotExist(err)
}

// verifyRanIn reports whether the task id names in rel, as the run's sum has it
// (summed as the task of the file named, rel unless it moved), ran command c
// where c of file runs (lookVerifyRan).
func (s *Session) verifyRanIn(rel, named, id string, r *ledger.Run, c, file string) bool {
	idOf, _, _ := strings.Cut(id, "#")
	want := Normalize(c)
	for _, a := range s.tasksIn(rel) {
		if a.Ref != id && (!tasks.Positional(id) || a.ID == "" || a.ID != idOf) {
			continue
		}
		if s.taskSumAs(rel, named, a) != r.PromptSum {
			continue
		}
		ticked := a
		ticked.Checked = true
		need := s.NeedOf(rel, ticked)
		if need.Waiver != nil {
			return false
		}
		for _, nc := range need.Commands {
			if Normalize(nc.Run) == want && s.RunDir(rel, nc.Run) == s.RunDir(file, c) {
				return true
			}
		}
		return false
	}
	return false
}

// mentions reports whether a task file holds id at all, without parsing
// it (lookVerifyRan reads the session's task files for a run that named
// none: most hold no task of its id).
func (s *Session) mentions(rel, id string) bool {
	if _, ok := s.present[rel]; ok {
		return true
	}
	idOf, _, _ := strings.Cut(id, "#")
	b, err := safefile.ReadFile(filepath.Join(s.Root, filepath.FromSlash(rel)), tasks.MaxRead)
	if err != nil || !bytes.Contains(b, []byte(idOf)) {
		return false
	}
	if ts, ok := s.parseKept(rel, b); ok {
		s.SetPresent(rel, ts) // tasksIn reads it next: not twice
	}
	return true
}

// tasksIn are a task file's tasks as judged (SetPresent), else as read.
func (s *Session) tasksIn(rel string) []tasks.Task {
	if ts, ok := s.present[rel]; ok {
		return ts
	}
	b, err := safefile.ReadFile(filepath.Join(s.Root, filepath.FromSlash(rel)), tasks.MaxRead)
	if err != nil {
		return nil
	}
	ts, ok := s.parseKept(rel, b)
	if !ok {
		return nil
	}
	s.SetPresent(rel, ts)
	return ts
}

// nearRun is the newest command of runs that holds command c, or a
// rodin verify of ref, in a form that does not speak for it ("" when none).
func nearRun(runs []ledger.Run, c, ref string) string {
	want := Normalize(c)
	for i := len(runs) - 1; i >= 0; i-- {
		r := &runs[i]
		if r.Kind != ledger.KindBash || r.Oversize {
			continue
		}
		got := Normalize(r.Command)
		if got == want || !strings.ContainsAny(verifyPart(got), "|;&<>\n\r") {
			continue // a plain form: another reason (its directory) kept it out
		}
		if strings.Contains(got, want) || strings.Contains(got, "rodin verify "+ref) || strings.Contains(got, "rodin verify '"+ref+"'") {
			// A block pasted whole into one call: its lines shown as ⏎.
			return hookio.Clip(strings.NewReplacer("\r\n", "⏎", "\n", "⏎", "\r", "⏎").Replace(got), 120)
		}
	}
	return ""
}

// elsewhereRun is, for a command no run speaks for, the directory of its
// newest passing run as written (or after a `cd DIR && `) in another
// directory than the one it counts in, and that one (tasks.RunDir), both
// relative to the root; "" when there is none.
func (s *Session) elsewhereRun(runs []ledger.Run, file, c string) (ran, counts string) {
	want := Normalize(c)
	var dir string
	for i := len(runs) - 1; i >= 0; i-- {
		r := &runs[i]
		if r.Kind != ledger.KindBash || r.Exit != 0 || r.Cwd == "" {
			continue
		}
		got := Normalize(r.Command)
		if _, rest, ok := tasks.CdThen(got); ok {
			got = Normalize(rest)
		}
		if got != want {
			continue
		}
		if dir == "" {
			dir = s.RunDir(file, c)
		}
		if cwd := filepath.Clean(r.Cwd); cwd != dir {
			return relDir(s.Root, cwd), relDir(s.Root, dir)
		}
	}
	return "", ""
}

// relDir is dir relative to root for a message: "." for the root itself,
// the path as it is outside the project.
func relDir(root, dir string) string {
	if dir == root {
		return "."
	}
	if r := project.Rel(root, dir); r != "" {
		return r
	}
	return dir
}

// failedVerify is the newest `rodin verify` of ref that failed, or that
// Claude Code moved to the background (the Bash tool's timeout), nil when
// none did.
func failedVerify(runs []ledger.Run, ref string) *ledger.Run {
	for i := len(runs) - 1; i >= 0; i-- {
		r := &runs[i]
		if r.Kind != ledger.KindBash || r.Exit <= 0 && r.Exit != ledger.ExitBackground {
			continue // passed, or ended in another way
		}
		if id, _, ok := verifyArgs(r.Command); ok && id == ref {
			return r
		}
	}
	return nil
}

// ranIn is the rest of a run that opened by changing to the directory it
// is reported from (`cd packages/api && sh check.sh`, reported from
// packages/api; `cd /abs/project && npm test`, from /abs/project): the
// rest ran there. Claude Code reports a Bash call from the directory its
// shell is left in (2.1.295 and 2.1.332, e2e TestVerifyDirectoryInWords),
// so only a cd that names that very directory is taken.
func (s *Session) ranIn(cwd, cmd string) (rest string, ok bool) {
	if cwd == "" {
		return "", false
	}
	if dir, rest, ok := tasks.InDir(cmd); ok && filepath.Clean(cwd) == filepath.Join(s.Root, filepath.FromSlash(dir)) {
		return rest, true
	}
	if dir, rest, ok := tasks.CdThen(cmd); ok && filepath.IsAbs(dir) && filepath.Clean(dir) == filepath.Clean(cwd) {
		return rest, true
	}
	return "", false
}

// wordEnd reports whether a command ends in a word, not in an operator
// (`;`, `|`, `&`) after which a redirection is a command of its own.
func wordEnd(c string) bool {
	c = strings.TrimRight(c, " \t")
	return c != "" && !strings.ContainsRune(";|&", rune(c[len(c)-1]))
}

func (s *Session) inProject(cwd string) bool {
	if in, ok := s.within[cwd]; ok {
		return in
	}
	in := s.lookWithin(cwd)
	if s.within == nil {
		s.within = map[string]bool{}
	}
	s.within[cwd] = in
	return in
}

func (s *Session) lookWithin(cwd string) bool {
	return cwd == "" || project.Rel(s.Root, filepath.Clean(cwd)) != "" || filepath.Clean(cwd) == s.Root
}

// isVerifyOf reports whether the command is `rodin verify ID [FILE]
// [--timeout D]`, and nothing else: no pipe, no `|| true`, no redirection,
// no second command, no expansion. rodin is named as a program on PATH
// (the PATH of Claude Code's shell, which no Bash call can change for the
// next): a path to a file called rodin (`.tools/rodin`) is another
// program. A relative FILE is read from cwd, where the command ran.
func (s *Session) isVerifyOf(cmd, cwd, file string, t tasks.Task, r *ledger.Run) bool {
	id, fileArg, ok := verifyArgs(cmd)
	// A task told apart by its place may have had another ref when it was
	// verified (a step above it deleted since): the run's sum, of the task
	// without its place, says whether it was this one (verifiedThis).
	if !ok || id != t.Ref && !(tasks.Positional(t.Ref) && r.PromptSum != "") {
		return false
	}
	return fileArg == "" || s.verifyFile(cwd, fileArg) == file
}

// verifyFile is the task file a `rodin verify` command names, relative to
// the root: a relative FILE is read from cwd, where the command ran; ""
// when it is outside the project.
func (s *Session) verifyFile(cwd, fileArg string) string {
	if cwd == "" {
		cwd = s.Root
	}
	// As `rodin verify` read it: from cwd, or from the root when nothing
	// is there (a path as rodin prints it, typed in a subfolder).
	return project.Rel(s.Root, ResolveTaskFile(s.Root, fileArg, cwd))
}

// verifyPart is the rodin verify command of a line as agents write it:
// after a `cd DIR && ` (rodin verify runs from the root wherever it
// starts, and a relative FILE is read from where the cd left the shell,
// which Claude Code reports as the call's cwd), and without a trailing
// `2>&1` (stderr joined to stdout: the exit is the command's).
func verifyPart(cmd string) string {
	cmd = strings.TrimSpace(cmd)
	if _, rest, ok := tasks.CdThen(cmd); ok {
		cmd = rest
	}
	if head, ok := verifyHead(cmd); ok {
		cmd = head // `rodin verify V1 tasks.md && sed …` (chain.go)
	}
	return strings.TrimSpace(strings.TrimSuffix(cmd, " 2>&1"))
}

// verifyHead is the `rodin verify …` head of a line that goes on with
// `&& …` (chainHeads): the first head, which holds no other command.
func verifyHead(line string) (string, bool) {
	if !strings.HasPrefix(line, "rodin verify ") || !strings.Contains(line, "&&") {
		return "", false
	}
	if heads := chainHeads(line); len(heads) > 0 && !strings.Contains(heads[0], "&&") {
		return heads[0], true
	}
	return "", false
}

// verifyChained reports whether a line is a rodin verify run followed by
// more (verifyHead).
func verifyChained(line string) bool {
	if _, rest, ok := tasks.CdThen(line); ok {
		line = rest
	}
	_, ok := verifyHead(strings.TrimSpace(line))
	return ok
}

// verifyArgs are the id and file of a `rodin verify ID [FILE] [--timeout
// D]` command line ("" when it names no file); ok is false for any other.
func verifyArgs(cmd string) (id, fileArg string, ok bool) {
	f, ok := shellWords(verifyPart(cmd))
	if !ok || len(f) < 3 || f[0] != "rodin" || f[1] != "verify" {
		return "", "", false
	}
	rest := f[2:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--timeout" && i+1 < len(rest):
			i++
		case strings.HasPrefix(a, "--timeout="):
		case strings.HasPrefix(a, "-"):
			return "", "", false
		case id == "":
			id = RefArg(a)
		case fileArg == "":
			fileArg = a
		default:
			return "", "", false
		}
	}
	return id, fileArg, id != ""
}

// RefArg is a task reference as a person or an agent writes it: Kiro's
// `1.` (its list's own spelling) is task 1, whose id the parser reads
// without the dot.
func RefArg(ref string) string {
	if r, ok := strings.CutSuffix(ref, "."); ok && r != "" && r[len(r)-1] >= '0' && r[len(r)-1] <= '9' {
		return r
	}
	return ref
}

// verifiedThis reports whether a `rodin verify` run of t's ref verified t:
// the task its id named when it ran, and what it ran for it (recorded
// then), are t and what t needs as it stands. A run recorded without it
// (an older rodin) speaks for no task: it may have run another task of the
// id (a file too large for it to read, or a task renamed while it ran).
func (s *Session) verifiedThis(r *ledger.Run, file string, t tasks.Task) bool {
	return r.PromptSum != "" && r.PromptSum == s.taskSum(file, t)
}

// shellWords splits a command into the words sh would pass, for commands
// made of plain words and quoted strings only: anything the shell would
// expand, redirect, chain or treat as a comment makes it false.
func shellWords(cmd string) ([]string, bool) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			w.WriteString(cmd[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			j := strings.IndexByte(cmd[i+1:], '"')
			if j < 0 || strings.ContainsAny(cmd[i+1:i+1+j], "$`\\!") {
				return nil, false
			}
			w.WriteString(cmd[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '#' && !inWord, strings.IndexByte("|;&<>`$()\\*?[]{}~!\n\r", c) >= 0:
			return nil, false
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, true
}

// latestQA is the latest qa-engineer run given prompt. A later answer of
// a run (resumed by SendMessage) is a run of its own that never passes.
func latestQA(runs []ledger.Run, prompt string) *ledger.Run {
	want := ledger.SumPrompt(prompt)
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].Kind == ledger.KindQA && runs[i].PromptSum == want {
			return &runs[i]
		}
	}
	return nil
}

// Unverified are the verdicts that do not allow the box.
func Unverified(vs []Verdict) []Verdict {
	var out []Verdict
	for _, v := range vs {
		if !v.OK() {
			out = append(out, v)
		}
	}
	return out
}

// Explain says, for one verdict, what it demands (each command and where
// it was read) and what is missing, so a misreading shows at once.
func (v Verdict) Explain() string {
	var parts []string
	if v.Unreadable != "" {
		parts = append(parts, "rodin cannot read this session's evidence ("+v.Unreadable+"), so it is unverified")
	}
	if v.NoCheck {
		parts = append(parts, "it names no command and the project declares no quality command (`rodin checks`)")
	}
	if v.NoStart && v.StartUnread != "" && v.Need.Waiver == nil {
		parts = append(parts, fmt.Sprintf("rodin could not read %s when this session began (%s), so what its checks were then is not known and no run can stand for them: a new session with the file readable records them (or the user waives the task)", v.File, v.StartUnread))
	} else if v.NoStart && v.Need.Waiver == nil {
		// A full disk at the session's start (attack 68): the commands a
		// task had then are not known, and the agent may have changed them.
		parts = append(parts, "rodin has no record of the task boxes as this session began (its start could not write one: a full disk, or rodin was enabled during the session), so what its checks were then is not known and no run can stand for them: a new session records them (or the user waives the task)")
	}
	if v.Need.ChangedBefore && v.Need.Waiver == nil {
		parts = append(parts, fmt.Sprintf("an agent changed its commands in an earlier session, and those it had before still stand (an agent alone may not change what checks a task, in one session or over several; a change saved while the agent's command ran, the user's own too, is taken for the agent's): %s", acceptAdvice(v)))
	} else if v.Need.Changed && v.Need.Waiver == nil {
		parts = append(parts, fmt.Sprintf("its commands changed since the session began, and those it had then still stand (an agent alone may not change what checks a task; a change saved while the agent's command ran, the user's own too, is taken for the agent's): %s", acceptAdvice(v)))
	}
	if v.Need.Manual {
		why := "its words say so"
		switch {
		case !v.Task.Manual:
			why = "it said so when the session began; rewording it does not change that"
		case len(v.Task.Commands) > 0:
			why = "it says so; the commands it names do not stand for a person"
		}
		parts = append(parts, "it is checked by a person ("+why+"): no command can stand for that, so only the user can tick it, by waiving it with what they checked")
	}
	for _, f := range v.Findings {
		if v.Need.Manual && f.Command != "" {
			continue // no command stands for a person: running it changes nothing
		}
		what := "`" + f.Command + "` (" + string(f.Source) + ")"
		if f.Command == "" {
			what = "a rodin:qa-engineer run on it"
		}
		switch {
		case f.Run == nil && f.Command == "" && len(v.Task.Servers) > 0:
			parts = append(parts, fmt.Sprintf("no rodin:qa-engineer run on it has been seen in this session (%s starts a server that never ends: no run of it is a check, so it is not run; the qa-engineer starts it and reads what it serves)", codeList(v.Task.Servers)))
		case f.Run == nil && f.Command == "":
			parts = append(parts, "no rodin:qa-engineer run on it has been seen in this session")
		case f.Run == nil && tasks.PipeHidesExit(f.Command):
			parts = append(parts, what+" has not run through `rodin verify` in this session (it pipes into a filter, whose exit hides the first command's: only rodin verify, which runs it with pipefail, proves it)")
		case f.Run == nil && f.Failed != nil && f.Failed.Exit == ledger.ExitBackground:
			parts = append(parts, fmt.Sprintf("%s has not passed in this session: `%s` went to the background at %s (the Bash tool moves a command there at its timeout, 2 minutes unless the call sets `timeout`), so its outcome reached no hook: run it again in the foreground with the Bash call's `timeout` set as long as it needs, up to 600000 ms (a check longer than that, or run only in the user's own terminal, can only be waived by the user, who types `%s %s %s WHAT THEY RAN` in Claude Code)", what, hookio.Clip(f.Failed.Command, 120), f.Failed.When().Format("15:04:05"), WaiveCommand, v.Task.Ref, v.File))
		case f.Run == nil && f.Failed != nil:
			parts = append(parts, fmt.Sprintf("%s has no pass that counts in this session: `%s` failed at %s (its output says which of the task's commands failed; a rodin verify run counts for its commands only when every one passes)", what, hookio.Clip(f.Failed.Command, 120), f.Failed.When().Format("15:04:05")))
		case f.Run == nil && f.Elsewhere != "":
			where := "the project root"
			if f.Counts != "." {
				where = f.Counts + " (the task file's package, whose command it is)"
			}
			from := f.Elsewhere
			if from == "." {
				from = "the project root"
			}
			parts = append(parts, fmt.Sprintf("%s passed only from %s, which does not count: it counts from %s", what, from, where))
		case f.Run == nil && f.Near != "":
			parts = append(parts, what+" ran only as `"+f.Near+"`, which does not count: rodin takes a check as written (from the project root, or `cd DIR && ` it, with `2>&1` at most, alone or as a link of a line of `&&` links), or `rodin verify ID FILE` (alone or followed by `&& …`); a pipe into a filter, `|| true`, another redirection or a command before it or after `;` change what its exit says, and a call of several lines (⏎) is never evidence: run each line alone")
		case f.Run == nil:
			if f.Missing {
				parts = append(parts, what+" has not run in this session, and the file it names is not in the project (a typo in the task's command is the user's to fix, or to accept the agent's fix of; creating the file to make it pass is no fix)")
			} else {
				parts = append(parts, what+" has not run in this session")
			}
		case f.Command == "" && f.Run.Resumed:
			parts = append(parts, "the last rodin:qa-engineer answer on it came from a run that was resumed, or sent a message after its prompt (SendMessage): only a run's first answer, to its prompt alone, counts, so start a new one")
		case f.Command == "" && !f.Run.Pass:
			parts = append(parts, "the last rodin:qa-engineer run on it did not pass ("+oneLineTail(f.Run.Tail)+")")
		case f.Command != "" && f.Run.Exit == ledger.ExitBackground:
			// Not a failure: its outcome reached no hook.
			parts = append(parts, fmt.Sprintf("%s has not passed in this session: it ran in the background at %s (run_in_background, or moved there at the Bash tool's timeout, 2 minutes unless the call sets `timeout`), so its outcome reached no hook: run it again in the foreground with the Bash call's `timeout` set as long as it needs, up to 600000 ms (a check longer than that can only be waived by the user)", what, f.Run.When().Format("15:04:05")))
		case f.Command != "" && f.Run.Exit != 0:
			how := fmt.Sprintf("exit %d", f.Run.Exit)
			if f.Run.Exit < 0 {
				how = ledger.ExitMeaning(f.Run.Exit)
			}
			if f.Via != "" {
				parts = append(parts, fmt.Sprintf("%s failed under `%s` (%s)", what, f.Via, how))
			} else {
				parts = append(parts, fmt.Sprintf("%s failed (%s)", what, how))
			}
		case f.Stale.Path != "":
			stale := fmt.Sprintf("%s passed at %s, but %s changed after it", what, f.Run.When().Format("15:04:05"), f.Stale.Path)
			if f.FromStart && f.Chained {
				stale += " began (its line went on with `&& …` after the check, which could write, so its pass speaks from the line's start: what the check itself writes there counts too; run the check as a command of its own, or keep what it writes in a folder .gitignore ignores)"
			} else if f.FromStart {
				stale += " began (a background task, another agent or a process left running could write while it ran, so its pass speaks from its start: what the check itself writes there counts too; run it again once they are done, or keep what it writes in a folder .gitignore ignores)"
			}
			if f.IgnoredNow {
				stale += fmt.Sprintf(" (the root .gitignore ignores it now, but this session judges with the one it began with: a change of .gitignore counts from the next session once the user accepts it, `%s %s`)", WaiveCommand, AcceptConfig)
			}
			parts = append(parts, stale)
		}
	}
	out := fmt.Sprintf("%s (%s line %d): %s", v.Task.Name(), v.File, v.Task.Line, strings.Join(parts, "; "))
	if a := v.Need.Asked; a != nil && v.Need.Waiver == nil {
		out += fmt.Sprintf(" (a request to waive it, %q, was made from Claude Code: it counts once the user confirms it by typing `%s %s %s`)", a.Reason, WaiveCommand, v.Task.Ref, v.File)
	}
	if len(v.Need.StandsFor) > 0 {
		out += fmt.Sprintf(" (it is new since the session began, and %s, open then, is gone from its task file: ticking it counts as ticking %s, renamed, moved or replaced)", strings.Join(v.Need.StandsFor, ", "), strings.Join(v.Need.StandsFor, ", "))
	}
	if v.Damaged > 0 {
		out += fmt.Sprintf(" (rodin's record of this session's runs was damaged: %d earlier records no longer count)", v.Damaged)
	}
	if v.Need.Quality && len(v.Need.Commands) > 0 && len(v.Task.Commands) > 0 {
		out += " (the task named no command of its own when the session began, so its file's or the project's quality commands still stand for it beside the one it names now)"
	} else if v.Need.Quality && len(v.Need.Commands) > 0 {
		out += " (the task names no command of its own"
		if v.Need.Prose != "" {
			out += fmt.Sprintf("; %q reads as prose, not as a command", v.Need.Prose)
		}
		out += ", so its file's or the project's quality commands stand for it)"
	}
	return out
}

func oneLineTail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return "no answer"
	}
	return last
}

// fixRun says what to run for the verdicts: "To fix: run … , fix what
// fails; have a rodin:qa-engineer judge it with …". The callers end it:
// the edit gate with "then tick the box again", the stop hook with "or
// untick the box".
func (s *Session) fixRun(vs []Verdict) string {
	var cmds, qa, person, dirs []string
	for _, v := range vs {
		needsCmd, needsQA := false, false
		for _, f := range v.Findings {
			if !f.OK() {
				if f.Command == "" {
					needsQA = true
				} else {
					needsCmd = true
				}
			}
		}
		for _, c := range v.Need.Commands {
			if d := s.RunDir(v.File, c.Run); !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
		_, statErr := os.Stat(filepath.Join(s.Root, filepath.FromSlash(v.File)))
		switch {
		case (needsCmd || v.NoCheck) && (v.File == TaskList || os.IsNotExist(statErr)):
			// A task of Claude Code's task list, or of a file a denied Write
			// would have made (tasks moved into an archive), is in no file
			// rodin verify can read: its commands, as written.
			for _, c := range v.Need.Commands {
				cmds = append(cmds, "`"+c.Run+"`")
			}
		case needsCmd || v.NoCheck:
			// Runnable as printed, from wherever the agent's shell is: the
			// id quoted when the shell would read it otherwise ("#1"), the
			// task file's path absolute.
			cmds = append(cmds, fmt.Sprintf("`rodin verify %s %s`", ShellArg(v.Task.Ref), ShellArg(filepath.Join(s.Root, filepath.FromSlash(v.File)))))
		}
		if needsQA {
			qa = append(qa, fmt.Sprintf("`/rodin:verify %s %s`", v.Task.Ref, v.File))
		}
		if v.Need.Manual && v.Need.Waiver == nil {
			person = append(person, fmt.Sprintf("`%s %s %s WHAT YOU CHECKED`", WaiveCommand, v.Task.Ref, v.File))
		}
	}
	sort.Strings(cmds)
	var b strings.Builder
	b.WriteString("To fix: ")
	if len(cmds) > 0 {
		if len(dirs) == 0 {
			dirs = []string{s.Root}
		}
		b.WriteString("run " + strings.Join(cmds, ", ") + " through Bash (or each command exactly as written, from " + strings.Join(dirs, " or ") + "), fix what fails")
	}
	if len(qa) > 0 {
		if len(cmds) > 0 {
			b.WriteString("; ")
		}
		b.WriteString("have a rodin:qa-engineer judge it with " + strings.Join(qa, ", "))
	}
	if len(person) > 0 {
		if len(cmds)+len(qa) > 0 {
			b.WriteString("; ")
		}
		b.WriteString("ask the user to check it and, when it holds, to type " + strings.Join(person, ", ") + " in Claude Code (no agent can: leave the box open meanwhile; an unattended loop goes on with other tasks)")
	}
	noStart := slices.ContainsFunc(vs, func(v Verdict) bool { return v.NoStart && v.Need.Waiver == nil })
	switch {
	case len(cmds)+len(qa)+len(person) == 0 && noStart:
		b.WriteString("leave the box open and tell the user: a new session records what it needs (the user can also waive it)")
	case len(cmds)+len(qa)+len(person) == 0:
		b.WriteString("name the command that checks it (in its task's words, or as the project's quality commands: `rodin checks`)")
	}
	return b.String()
}

// codeList is commands as the messages name them: `a`, `b`.
func codeList(cs []string) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = "`" + c + "`"
	}
	return strings.Join(out, ", ")
}

// ShellArg is s as one shell word: as it is when it holds only characters
// no shell reads specially, else in single quotes.
func ShellArg(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._/-:+@%=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// cdLeadsTo reports whether `cd dir`, typed in a shell at before, left it
// in cwd, where the call is reported from: the check ran there. A call
// reported from elsewhere (the project's root, when Claude Code keeps the
// shell there or resets it after a cd out of the project) ran its check
// in dir, not where it counts (attacks 64 and 65: a decoy folder, `cd ..`
// from the root). `~` is the user's home.
func cdLeadsTo(dir, before, cwd string) bool {
	// A folder the shell expands (`cd [d]ecoy`, `cd {a,b}`), the previous
	// folder (`cd -`): where it led is not in its words (attack 67).
	if dir == "" || dir == "-" || strings.ContainsAny(dir, "*?[]{}") {
		return false
	}
	// A name CDPATH may take (`cd pkg/..`) whose `..` brings it back to
	// where it began only as written: with CDPATH it went elsewhere, and
	// came back here only by a reset (attack 68). `cd ..` and `cd ../x`
	// are no CDPATH names.
	if !filepath.IsAbs(dir) && !strings.HasPrefix(dir, "~") && !strings.HasPrefix(dir, "./") && !strings.HasPrefix(dir, "../") && dir != ".." &&
		slices.Contains(strings.Split(dir, "/"), "..") {
		return false
	}
	if strings.HasPrefix(dir, "~") {
		home, err := os.UserHomeDir()
		if err != nil || dir != "~" && !strings.HasPrefix(dir, "~/") {
			return false
		}
		dir = home + strings.TrimPrefix(dir, "~")
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(before, dir)
	}
	// Compared as written: a symlink's target is where it points when the
	// tick is judged, which may not be where it pointed when the check ran
	// (attack 67: a link swapped after the run). A check run through a
	// symlinked folder is counted by `rodin verify`, not by this rule.
	return filepath.Clean(dir) == filepath.Clean(cwd)
}

// shellBefore is where the agent's shell was when runs[i] began: where
// the Bash call before it was reported from, or the project's root for
// the session's first.
func shellBefore(runs []ledger.Run, i int, root string) string {
	// The same agent's shell, in the foreground: a subagent's call, or
	// one sent to the background, says nothing of where this shell was
	// (attack 67).
	for j := i - 1; j >= 0; j-- {
		if r := runs[j]; r.Kind == ledger.KindBash && r.Cwd != "" && r.Agent == runs[i].Agent && r.Bg == "" {
			return r.Cwd
		}
	}
	return root
}

// acceptAdvice says how the user accepts a task's change of commands: its
// commands as they are now, or, for a task that names none now (a task
// written where a verification task was, new work beside one deleted:
// attack 72), a waiver of it.
func acceptAdvice(v Verdict) string {
	if len(v.Task.Commands) == 0 {
		return fmt.Sprintf("when the change is right (it names no command now), the user waives it by typing `%s %s %s WHAT IS RIGHT` in Claude Code, or by running `rodin waive %s %s --reason \"WHAT IS RIGHT\"` at a terminal of their own (no agent can; an unattended loop leaves the box open meanwhile)", WaiveCommand, v.Task.Ref, v.File, ShellArg(v.Task.Ref), v.File)
	}
	return fmt.Sprintf("when the change is right, the user accepts the commands as they are now by typing `%s %s %s %s` in Claude Code, or by running `rodin waive --commands %s %s` at a terminal of their own (no agent can; an unattended loop leaves the box open meanwhile)", WaiveCommand, v.Task.Ref, v.File, AcceptCommands, ShellArg(v.Task.Ref), v.File)
}
