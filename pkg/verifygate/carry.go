package verifygate

import (
	"maps"
	"slices"
	"time"

	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rodin-gate/rodin/pkg/tasks"
)

// carryChanges keeps, past the session, what each verification task of
// file needed as the session began when this session's agent has changed
// it (its commands, a person, an acceptance check): the next session
// starts from what it needed then (TakeBaseline), so that an agent that
// loosens a check in one session without ticking it does not find the
// loosened check in force in the next (an unattended loop starts a session
// per iteration). A change the user accepted (`/rodin:waive ID FILE
// --commands`) is not kept; a change someone else made is never seen here
// (look calls it for the agent's changes only).
func (s *Session) carryChanges(file string, ts []tasks.Task, quality []tasks.Command, readQuality bool) {
	if s.Baseline == nil || s.Data == "" {
		return
	}
	var add []ledger.Carried
	qualityStands := [2]string{}
	if readQuality {
		if c := s.carryQuality(file, quality); c != nil {
			add = append(add, *c)
		}
		qualityStands = [2]string{qualityWords, qualitySum(quality)}
	}
	taken := map[*ledger.Snap]bool{} // the gone tasks a new task stands for
	// The tasks of an earlier session gone with no place in the file, once
	// for the whole file: any new verification task stands for them.
	var lost []*ledger.Snap
	if slices.ContainsFunc(s.Baseline.Files[file], func(sn ledger.Snap) bool { return sn.Gone }) {
		for _, g := range s.vanished(file) {
			if s.lostPlace(file, g, ts) {
				lost = append(lost, g)
			}
		}
	}
	for j, t := range ts {
		// Cheap tests first: a task file holds hundreds of tasks, and most
		// are as they began.
		sns := s.snaps(file, t)
		if len(sns) == 0 && t.ID != "" {
			// Its file moved, or the task: what each copy gone needed.
			if gone := s.goneElsewhere(file, t); len(gone) > 0 {
				sns = []*ledger.Snap{mergeSnaps(gone)}
			}
		}
		if len(sns) == 0 || !t.Verify && !s.hadTask(file, t) {
			// A task new since the session began (by key, or an id the
			// file has given to new words: attack 72) at the place of an
			// open verification task gone from the file (renamed to it,
			// its tag dropped or moved to a heading's end, its heading cut
			// from its box): it stands for it past the session too, as a
			// tick of it does in the session (NeedOf's StandsFor), so that
			// the next session does not start from the plain task (attack
			// 71, B2). A task written elsewhere in the file (new work
			// beside a task deleted) stands for none.
			gone := s.goneAt(file, ts, j)
			if t.Verify {
				for _, g := range lost {
					if !slices.Contains(gone, g) {
						gone = append(gone, g)
					}
				}
			}
			if len(gone) > 0 {
				sns = []*ledger.Snap{mergeSnaps(append(sns, gone...))}
				for _, g := range gone {
					taken[g] = true
				}
			}
		}
		if len(sns) == 0 {
			continue
		}
		// A task that stands for several (a repeated id, its key new)
		// carries what they all asked, as it needs it in the session.
		sn := sns[0]
		if len(sns) > 1 {
			sn = mergeSnaps(sns)
		}
		if len(sns) == 1 && s.acceptedByEdit(file, t) {
			continue // as the user's own edit left it
		}
		if !t.Verify && !sn.Verify || !asksOtherThan(t, sn) {
			continue
		}
		runs := make([]string, len(t.Commands))
		for i, c := range t.Commands {
			runs[i] = Normalize(c.Run)
		}
		if w, _ := s.waiver(file, t); w != nil && len(w.Commands) > 0 && slices.Equal(w.Commands, runs) {
			continue // the user accepted the task as it is
		}
		words, sum := placeOf(t)
		add = append(add, ledger.Carried{Root: s.Root, File: file, Words: words, Runs: sum, Time: time.Now().UnixNano(),
			Need: ledger.Snap{Commands: sn.Commands, Sources: sn.Sources, Verify: sn.Verify, AC: sn.AC, Manual: sn.Manual}})
	}
	// An open verification task of the start deleted, none standing in
	// its place: kept as it was for the next sessions (goneCarried).
	add = append(add, s.goneCarried(file, taken)...)
	if len(add) > 0 {
		stands := make(map[[2]string]bool, len(ts)+1)
		for _, t := range ts {
			w, r := placeOf(t)
			stands[[2]string{w, r}] = true
		}
		for _, c := range add {
			if c.Gone {
				stands[[2]string{c.Words, c.Runs}] = true
			}
		}
		if readQuality {
			stands[qualityStands] = true
		} else {
			stands[[2]string{qualityWords, "*"}] = true // not read: kept as it is
		}
		ledger.AddCarried(s.Data, s.Root, file, stands, add)
	}
}

// goneCarried are the open verification tasks of the session's start
// (a gone one carried from an earlier session among them) that the agent
// deleted from file with no new task at their place (taken): without them, a
// task deleted in one session and its replacement written in the next
// would escape the carry, which pairs a gone task with the task at its
// place only within the session that saw both (attack 72, R6). A user's
// acceptance of the deletion is a waiver of the task that replaces it.
func (s *Session) goneCarried(file string, taken map[*ledger.Snap]bool) []ledger.Carried {
	gone := s.vanished(file)
	if len(gone) == 0 {
		return nil
	}
	fs := s.Baseline.Files[file]
	var out []ledger.Carried
	for _, g := range gone {
		i := slices.IndexFunc(fs, func(sn ledger.Snap) bool { return sn.Key == g.Key && sn.Verify })
		if i < 0 || taken[g] {
			continue // someone else's task (acceptEdits), or one a task took the place of
		}
		after, next := "", ""
		if i > 0 {
			after = fs[i-1].Key
		}
		if i+1 < len(fs) {
			next = fs[i+1].Key
		}
		if g.Placeless {
			after, next = noPlace, "" // still none: the file's end is no place of its
		}
		need := ledger.Snap{Commands: g.Commands, Sources: g.Sources, Verify: g.Verify, AC: g.AC, Manual: g.Manual, Title: g.Title}
		out = append(out, ledger.Carried{Root: s.Root, File: file, Words: goneWords + g.Key, Runs: goneWords, Time: time.Now().UnixNano(),
			Need: need, Gone: true, Key: g.Key, After: after, Next: next})
	}
	return out
}

// noPlace is a gone task's After when it has no place: no task's key.
const noPlace = "\x00"

// goneWords starts a gone task's Words and is its Runs: no task's sums
// (hex) are ever these.
const goneWords = "gone "

// qualityWords stands in a carried need's Words for a task file's Quality
// Commands section (no task's words sum to it: they are hex).
const qualityWords = "quality commands"

// qualitySum is the sum of a Quality Commands section as it stands, in a
// carried need's Runs.
func qualitySum(q []tasks.Command) string {
	runs := make([]string, len(q))
	for i, c := range q {
		runs[i] = Normalize(c.Run)
	}
	_, sum := placeSums("", runs, false, false)
	return sum
}

// carryQuality is, when this session's agent changed a task file's
// Quality Commands section (the commands that stand for its tasks that
// name none), what must stand for them past the session: the section as
// the session began, or, when it had none, the project's checks then; nil
// when the agent took nothing away.
func (s *Session) carryQuality(file string, q []tasks.Command) *ledger.Carried {
	if s.Baseline.Files[file] == nil {
		return nil // a file new since the session began: its section is its own
	}
	need := s.Baseline.Quality[file]
	if len(need) == 0 {
		if len(q) == 0 {
			return nil
		}
		need = s.Baseline.Quality[ProjectChecks]
	}
	now := make([]string, len(q))
	for i, c := range q {
		now[i] = Normalize(c.Run)
	}
	lost := false
	for _, c := range need {
		if !slices.Contains(now, Normalize(c)) {
			lost = true
		}
	}
	if !lost {
		return nil
	}
	return &ledger.Carried{Root: s.Root, File: file, Words: qualityWords, Runs: qualitySum(q), Time: time.Now().UnixNano(),
		Need: ledger.Snap{Commands: need}}
}

// sameCommands reports whether a task's commands are a snap's, as rodin
// compares commands (Normalize).
func sameCommands(cs []tasks.Command, was []string) bool {
	if len(cs) != len(was) {
		return false
	}
	for i, c := range cs {
		if Normalize(c.Run) != Normalize(was[i]) {
			return false
		}
	}
	return true
}

// mergeSnaps is one snap that needs what each of sns needed.
func mergeSnaps(sns []*ledger.Snap) *ledger.Snap {
	m := *sns[0]
	m.Commands, m.Sources = nil, nil
	for _, sn := range sns {
		for i, c := range sn.Commands {
			if !slices.Contains(m.Commands, c) {
				m.Commands = append(m.Commands, c)
				if i < len(sn.Sources) {
					m.Sources = append(m.Sources, sn.Sources[i])
				} else {
					m.Sources = append(m.Sources, "as the session began")
				}
			}
		}
		m.Verify, m.AC, m.Manual = m.Verify || sn.Verify, m.AC || sn.AC, m.Manual || sn.Manual
	}
	return &m
}

// acceptEdits records, for a change someone else made (the user in an
// editor, outside every call of the agent), the tasks whose commands (or
// person, acceptance checklist, tag) it changed from the session's start:
// the user's own edit stands at once, as if they had accepted it, for
// this session (an agent's is carried instead, carryChanges).
func (s *Session) acceptEdits(st *tickState, file string, ts []tasks.Task) {
	for _, t := range ts {
		sns := s.snaps(file, t)
		if len(sns) == 0 && t.Verify && s.Baseline != nil {
			// A verification task someone else wrote during the session:
			// as they wrote it, it stands for what it asks (snaps).
			sn := ledger.Snap{Key: t.Key(), Verify: true, AC: t.AC, Manual: t.Manual}
			for _, c := range t.Commands {
				sn.Commands, sn.Sources = append(sn.Commands, c.Run), append(sn.Sources, string(c.Source))
			}
			st.added[boxKey{file, t.Key()}] = sn
			if s.added != nil {
				s.added[boxKey{file, t.Key()}] = sn
			}
			continue
		}
		if len(sns) != 1 || !asksOtherThan(t, sns[0]) {
			continue
		}
		runs := runsOf(t)
		st.accepted[boxKey{file, t.Key()}] = runs
		if s.accepted != nil {
			s.accepted[boxKey{file, t.Key()}] = runs
		}
	}
}

// asksOtherThan reports whether t no longer asks what it asked as the
// snap has it: another command, or a person, an acceptance checklist, its
// tag dropped.
func asksOtherThan(t tasks.Task, sn *ledger.Snap) bool {
	return !(sameCommands(t.Commands, sn.Commands) && (t.Manual || !sn.Manual) && (t.AC || !sn.AC) && (t.Verify || !sn.Verify))
}

// acceptedByEdit reports whether someone else's edit in this session made
// t ask what it asks now (acceptEdits), read from the session's record
// once.
func (s *Session) acceptedByEdit(file string, t tasks.Task) bool {
	s.readEdits()
	runs, ok := s.accepted[boxKey{file, t.Key()}]
	return ok && runs == runsOf(t)
}

// readEdits reads, once, what someone else's edits of the session left
// (acceptEdits): the tasks they changed and the ones they wrote.
func (s *Session) readEdits() {
	if s.accepted != nil {
		return
	}
	s.accepted, s.added = map[boxKey]string{}, map[boxKey]ledger.Snap{}
	if st, err := loadTicks(s.Data, s.ID); err == nil && st != nil {
		maps.Copy(s.accepted, st.accepted)
		maps.Copy(s.added, st.added)
	}
}

// addedSnap is a verification task someone else wrote during the session,
// as they wrote it, when t is that task (its key); nil otherwise.
func (s *Session) addedSnap(file string, t tasks.Task) *ledger.Snap {
	if s.Data == "" || s.ID == "" {
		return nil
	}
	s.readEdits()
	if sn, ok := s.added[boxKey{file, t.Key()}]; ok {
		return &sn
	}
	return nil
}

// goneAt are the open verification tasks of the session's start gone from
// file whose place ts[j] takes: the task before it (or after it) now is
// the one that stood before (or after) the gone task then, the start of
// the file counting as one.
func (s *Session) goneAt(file string, ts []tasks.Task, j int) []*ledger.Snap {
	gone := s.vanished(file)
	if len(gone) == 0 {
		return nil
	}
	fs := s.Baseline.Files[file]
	var out []*ledger.Snap
	for _, g := range gone {
		i := slices.IndexFunc(fs, func(sn ledger.Snap) bool { return sn.Key == g.Key })
		if i < 0 || g.Placeless {
			continue // no place: none is at it (goneFor)
		}
		before := i == 0 && j == 0 || i > 0 && j > 0 && fs[i-1].Key == ts[j-1].Key()
		after := i+1 == len(fs) && j+1 == len(ts) && j > 0 || i+1 < len(fs) && j+1 < len(ts) && fs[i+1].Key == ts[j+1].Key()
		if before || after {
			out = append(out, g)
		}
	}
	return out
}
