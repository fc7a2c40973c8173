package verifygate

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rodin-gate/rodin/pkg/checks"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/freshness"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/project"
	"github.com/rodin-gate/rodin/pkg/safefile"
	"github.com/rodin-gate/rodin/pkg/sandbox"
	"github.com/rodin-gate/rodin/pkg/tasks"
)

// Stop decides a Stop, a SubagentStop or a TaskCompleted: it blocks while
// a verification task ticked during this session lacks passing checks for
// the code as it stands, which catches boxes ticked through Bash. It
// blocks once in a row: when Claude Code says the stop already follows a
// block (stop_hook_active), it lets the session stop, and a box still
// ticked without its checks does not survive it: rodin unticks it, keeps a
// note of that in the session's record, and says so (to the model in the
// block, to the user in a systemMessage, and in the task file itself,
// which is all a `claude -p` loop leaves behind).
//
// State rodin cannot read (a damaged or missing record of the session's
// start, an unreadable run log) means "unverified": the stop is blocked
// once with what is wrong, never let through in silence.
func Stop(in hookio.Input, getenv func(string) string) hookio.StopOutcome {
	return stop(in, getenv, time.Time{})
}

// stop is Stop, judging the files as they stood at asOf when it is set.
func stop(in hookio.Input, getenv func(string) string, asOf time.Time) hookio.StopOutcome {
	if Off(getenv) {
		return hookio.StopOutcome{}
	}
	again := in.Get("stop_hook_active").Bool()
	var indexed []string // the task files the quick look found, for the full path
	if in.HookEventName() != "TaskCompleted" {
		var quiet bool
		if quiet, indexed = nothingTicked(getenv, in); quiet {
			return hookio.StopOutcome{}
		}
	}
	s, err := Open(getenv, in.SessionID(), in.Cwd())
	if err != nil {
		return unverifiable(in, again, "rodin cannot read its record of this session ("+err.Error()+"), so it cannot tell whether a verification task was ticked without its checks. To fix: run `rodin doctor`")
	}
	s.indexed = indexed
	s.asOf = asOf
	s.Strict = sandbox.StrictDenial(getenv, s.Root, in.PermissionMode(), "") != ""
	var items []Item
	noBaseline := false
	if in.HookEventName() == "TaskCompleted" {
		its, ok := s.completedTask(in)
		if ok {
			its = s.notTickedYet(its)
		}
		if !ok || len(its) == 0 {
			return hookio.StopOutcome{}
		}
		items = its
	} else {
		if s.Baseline == nil {
			// No record of the boxes at the session's start (it could not
			// be written, or was deleted): every checked verification task
			// is judged, since rodin cannot tell which were ticked now.
			noBaseline = true
			items = s.checkedNow()
			if _, _, err := TakeBaseline(getenv, in.SessionID(), in.Cwd()); err != nil && len(items) == 0 {
				return unverifiable(in, again, "rodin has no record of the task boxes at this session's start and cannot write one ("+err.Error()+"). To fix: free space in rodin's data directory, then run `rodin doctor`")
			}
		} else {
			var unread []string
			items, unread = s.outstanding(in)
			if len(unread) > 0 {
				return s.unreadStop(in, again, unread)
			}
		}
	}
	if len(items) == 0 {
		return hookio.StopOutcome{}
	}
	if why := sandbox.StrictDenial(getenv, s.Root, in.PermissionMode(), "the verify gate does not take "+names(verdictsOf(items))+" as ticked"); why != "" {
		if again {
			return hookio.StopOutcome{SystemMessage: "[rodin] " + why + " rodin blocked this stop once already, so it lets it through: these tasks are unverified."}
		}
		return hookio.StopOutcome{Block: true, Reason: "[rodin] " + why}
	}
	vs, err := s.Judge(items)
	if err != nil {
		vs = nil
		for _, it := range items {
			vs = append(vs, Verdict{File: it.File, Task: it.Task, Unreadable: err.Error()})
		}
	}
	bad := Unverified(vs)
	s.madeGood(vs)
	if len(bad) == 0 {
		if w := waived(vs); w != "" {
			return hookio.StopOutcome{SystemMessage: "[rodin] Checked without passing checks, as waived: " + w}
		}
		return hookio.StopOutcome{}
	}
	what := "is checked"
	if len(bad) > 1 {
		what = "are checked"
	}
	if in.HookEventName() == "TaskCompleted" {
		what = "cannot be completed"
	}
	msg := fmt.Sprintf("[rodin] %s %s without passing checks for the code as it stands. %s", names(bad), what, explainAll(bad))
	if noBaseline {
		msg += " (rodin has no record of the task boxes at this session's start, so it judged every checked verification task.)"
	}
	if s.noRecord {
		msg += " (rodin's record of who ticked which box in this session is missing or damaged, so it judged every box ticked since the session began as the code stands.)"
	}
	msg += s.broughtFromCommits(bad)
	if !again {
		if in.HookEventName() == "TaskCompleted" {
			return hookio.StopOutcome{Block: true, Reason: msg + " " + s.fixRun(bad) + "; or leave the task open until they pass."}
		}
		return hookio.StopOutcome{Block: true, Reason: msg + " " + s.fixRun(bad) + "; or untick the box until they pass."}
	}
	if noBaseline {
		// They may have been ticked before this session: rodin does not
		// touch them, and says they are unverified.
		return hookio.StopOutcome{SystemMessage: msg + " rodin blocked this stop once already, so it lets it through: these tasks are unverified."}
	}
	unticked, failed := s.untick(bad)
	s.noteUnticked(unticked)
	s.forget(unticked)
	out := msg + " rodin blocked this stop once already, so it lets it through"
	if len(unticked) > 0 {
		out += " and has unticked " + names(unticked) + " in the task file (boxes ticked without their checks do not outlive the session)"
	}
	if failed != "" {
		out += "; it could not untick " + failed + ": these tasks are unverified"
	}
	return hookio.StopOutcome{SystemMessage: out + "."}
}

// broughtFromCommits says which of vs came in with a git command (a
// merge or a pull may bring a teammate's ticks), and how the user keeps
// such a tick; "" when none did.
func (s *Session) broughtFromCommits(vs []Verdict) string {
	st, err := loadTicks(s.Data, s.ID)
	if st == nil || err != nil {
		return ""
	}
	var out string
	for _, v := range vs {
		if b, ok := st.boxes[boxKey{v.File, v.Task.Key()}]; ok && b.via != "" {
			out += fmt.Sprintf(" (%s came in with `%s`: a tick a command brings from commits is judged as the agent's; if it is a teammate's, the user keeps it by typing `%s %s %s WHAT THEY CHECKED` in Claude Code.)", v.Task.Name(), b.via, WaiveCommand, v.Task.Ref, v.File)
		}
	}
	return out
}

// unverifiable is the outcome when rodin cannot judge: block once with
// what is wrong, then let the stop through with it said.
func unverifiable(in hookio.Input, again bool, what string) hookio.StopOutcome {
	if in.HookEventName() == "TaskCompleted" {
		if !tasks.MentionsTag(readSubject(in)) {
			return hookio.StopOutcome{}
		}
		return hookio.StopOutcome{Block: true, Reason: "[rodin] This task cannot be completed: " + what + "."}
	}
	if again {
		return hookio.StopOutcome{SystemMessage: "[rodin] The verify gate did not check the task boxes: " + what + ". rodin blocked this stop once already, so it lets it through: any box ticked in this session is unverified."}
	}
	return hookio.StopOutcome{Block: true, Reason: "[rodin] The verify gate cannot check the task boxes: " + what + "."}
}

func readSubject(in hookio.Input) string {
	s, _, _ := in.Field("task_subject")
	return s
}

// nothingTicked is the stop hook's quick look, which most stops end with:
// the session's index of task files (kept since it began) says which task
// files there are, and none was written since the session began, so no
// box in one was ticked since. It reads the index, stats the run log and
// each task file, and a directory each only when a Bash command ran since
// the last look: no walk of the tree, no parse of Markdown, no decode of
// the baseline. Anything it cannot tell sends the stop down the full path.
func nothingTicked(getenv func(string) string, in hookio.Input) (quiet bool, files []string) {
	session := in.SessionID()
	data := evidence.DataDir(getenv)
	if data == "" || !planfile.ValidSessionID(session) {
		return false, nil
	}
	var ix project.TaskIndex
	if !ledger.LoadIndex(data, session, &ix) || ix.Since == 0 {
		return false, nil
	}
	root := ix.Root
	cfg := project.Config{TaskFiles: ix.Globs}
	// The directories are looked at again only when a Bash command ran
	// since they last were (the run log grew), or ever ran in the
	// background: a file tool's write of a task file is in the index
	// already (the edit gate notes it).
	if ix.Watch {
		// A background task ran in this session: note which have ended
		// (they explain no later change).
		ledger.NoteStop(in, data)
	}
	looked := ix.LogSize // an index written before the mark holds it
	if m, ok := ledger.LoadLogMark(data, session); ok {
		looked = m
	}
	size, background := ledger.LogGrowth(data, session, looked)
	refreshed := ix.Watch || background || size != looked
	if refreshed {
		// The index is written when what it holds changed, the log's size
		// in the mark (in place: cheaper than the index's rename), and the
		// mark only once the index holds what this look found: a mark past
		// an index that failed to save would hide a new task file.
		saved := true
		if ix.Refresh(root, cfg) || background && !ix.Watch {
			ix.LogSize, ix.Watch = size, ix.Watch || background
			saved = ledger.SaveIndex(data, session, ix) == nil
		}
		if saved && size != looked {
			ledger.SaveLogMark(data, session, size)
		}
	}
	if refreshed {
		files = ix.Files // up to date: the full path need not look again
	}
	// With the session's record of its boxes, a stop is quiet when no
	// task file changed since rodin last looked and no box the agent
	// ticked without its checks is left; without it, when none changed
	// since the session began.
	st, err := loadTicks(data, session)
	if err != nil || st != nil && st.outstanding() {
		return false, files
	}
	// A Bash command may have changed the configuration (watchConfig).
	if refreshed && st != nil && configMoved(root, st) {
		return false, files
	}
	since := time.Unix(0, ix.Since)
	for _, rel := range ix.Files {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		switch {
		case err != nil:
			return false, files
		case st != nil:
			if st.changed(rel, fi) {
				return false, files
			}
		case !ix.Known[rel] || !freshness.ChangeTime(fi).Before(since):
			return false, files
		}
	}
	return true, files
}

// noteTaskFile adds a task file a file tool writes to the session's index,
// so that the stop hook's quick look sees it without a look at the
// directories. A file the tool then fails to write is skipped later.
func (s *Session) noteTaskFile(rel string) {
	var ix project.TaskIndex
	if s.ID == "" || !ledger.LoadIndex(s.Data, s.ID, &ix) || slices.Contains(ix.Files, rel) {
		return
	}
	ix.Files = append(ix.Files, rel)
	slices.Sort(ix.Files)
	ledger.SaveIndex(s.Data, s.ID, ix)
}

// taskFiles are the project's task files, found through the session's
// index (project.TaskIndex): a stat per directory, not a walk of the tree,
// unless the index is missing or damaged.
func (s *Session) taskFiles() []string {
	if s.indexed != nil {
		return s.indexed // the stop hook's quick look has just refreshed the index
	}
	var ix project.TaskIndex
	if s.ID == "" || !ledger.LoadIndex(s.Data, s.ID, &ix) || ix.Dirs == nil {
		known := ix.Known
		ix = project.IndexTaskFiles(s.Root, s.Config)
		ix.Known = known
		if s.Baseline != nil {
			ix.Since, ix.Known = s.Baseline.Time, map[string]bool{}
			for rel := range s.Baseline.Files {
				ix.Known[rel] = true
			}
		}
		if s.ID != "" {
			ledger.SaveIndex(s.Data, s.ID, ix)
		}
		return ix.Files
	}
	if ix.Refresh(s.Root, s.Config) {
		ledger.SaveIndex(s.Data, s.ID, ix)
	}
	return ix.Files
}

// outstanding are the boxes this stop answers for: ticked by this
// session's agent (by the stopping agent, for a subagent's stop) without
// their checks when they were ticked, and still ticked. It first looks at
// every task file changed since rodin last saw it, and judges the ticks
// made since by whoever made them (ledger.Attribute): the agent's now,
// someone else's never. Without a record of the session's boxes (a
// session from before it was kept, or one damaged), every verification
// box ticked since the session began is judged, as it stands. unread
// names the task files the agent changed that rodin cannot read.
func (s *Session) outstanding(in hookio.Input) (items []Item, unread []string) {
	ledger.NoteStop(in, s.Data)
	s.runsRead, s.windowsRead = false, false // read again, with the ends noted
	st, err := loadTicks(s.Data, s.ID)
	if st == nil || err != nil {
		s.noRecord = true
		return s.tickedSinceStart(), nil
	}
	stopping := ""
	if in.HookEventName() == "SubagentStop" {
		stopping, _, _ = in.Field("agent_id")
	}
	files := map[string]bool{}
	for _, rel := range s.taskFiles() {
		files[rel] = true
	}
	for rel := range st.files {
		files[rel] = true
	}
	err = updateTicks(s.Data, s.ID, func(st *tickState) error {
		s.watchConfig(st) // a Bash command may have changed the configuration
		for _, rel := range slices.Sorted(maps.Keys(files)) {
			fi, err := os.Stat(filepath.Join(s.Root, filepath.FromSlash(rel)))
			if err == nil && !st.changed(rel, fi) {
				continue
			}
			s.look(st, rel, s.byTime, nil)
		}
		for _, u := range st.unread {
			if stopping == "" || u.agent == stopping {
				unread = append(unread, u.why)
			}
		}
		bad := map[string]bool{}
		for k, b := range st.boxes {
			if b.mark == markBad && (stopping == "" || b.agent == stopping) {
				bad[k.file] = true
			}
		}
		for _, rel := range slices.Sorted(maps.Keys(bad)) {
			ts, ok := s.present[rel]
			if !ok {
				b, err := safefile.ReadFile(filepath.Join(s.Root, filepath.FromSlash(rel)), tasks.MaxRead)
				if safefile.IsNotExist(err) {
					continue // gone: its boxes with it (a moved file's are paired by words)
				}
				if err != nil {
					unread = append(unread, fmt.Sprintf("%s cannot be read (%v)", rel, err))
					continue
				}
				if ts, ok = s.parseKept(rel, b); !ok {
					unread = append(unread, fmt.Sprintf("%s did not parse within %s", rel, parseBudget))
					continue
				}
			}
			for _, t := range ts {
				if b, ok := st.boxes[boxKey{rel, t.Key()}]; ok && b.mark == markBad && t.Checked && (stopping == "" || b.agent == stopping) {
					items = append(items, Item{File: rel, Task: t})
				}
			}
		}
		return nil
	})
	if err != nil {
		s.noRecord = true
		return s.tickedSinceStart(), nil
	}
	sort.Strings(unread)
	return items, unread
}

// madeGood records the agent's ticks whose checks have passed by the stop
// as justified: a tick made too early and made good before the session
// stops is taken as made then (as if unticked and ticked again).
func (s *Session) madeGood(vs []Verdict) {
	var good []Verdict
	for _, v := range vs {
		if v.OK() {
			good = append(good, v)
		}
	}
	if len(good) == 0 {
		return
	}
	now := time.Now().UnixNano()
	updateTicks(s.Data, s.ID, func(st *tickState) error {
		for _, v := range good {
			k := boxKey{v.File, v.Task.Key()}
			if b, ok := st.boxes[k]; ok && b.mark == markBad {
				b.mark, b.time = markOK, now
				st.boxes[k] = b
			}
		}
		return nil
	})
}

// forget drops the boxes rodin unticked from the record, and notes the
// files as its untick left them (rodin's own write is no one's tick).
func (s *Session) forget(vs []Verdict) {
	updateTicks(s.Data, s.ID, func(st *tickState) error {
		for _, v := range vs {
			delete(st.boxes, boxKey{v.File, v.Task.Key()})
			if fi, err := os.Stat(filepath.Join(s.Root, filepath.FromSlash(v.File))); err == nil {
				st.files[v.File] = seenAs(fi)
			}
		}
		return nil
	})
}

// unreadStop blocks a stop, once in a row, while a task file the agent
// changed cannot be read: its boxes are unverified, never skipped.
func (s *Session) unreadStop(in hookio.Input, again bool, unread []string) hookio.StopOutcome {
	msg := "[rodin] This session changed task files rodin cannot read, so any box ticked in them is unverified: " + strings.Join(unread, "; ") + "."
	if in.HookEventName() == "TaskCompleted" {
		return hookio.StopOutcome{Block: true, Reason: msg}
	}
	if again {
		return hookio.StopOutcome{SystemMessage: msg + " rodin blocked this stop once already, so it lets it through; it cannot untick boxes in a file it cannot read: these tasks are unverified."}
	}
	return hookio.StopOutcome{Block: true, Reason: msg + fmt.Sprintf(" To fix: undo the change that made them unreadable (a task file rodin reads is plain Markdown under %d MiB), or untick what you ticked.", tasks.MaxSize>>20)}
}

// checkedNow are the verification tasks checked now.
func (s *Session) checkedNow() []Item {
	var items []Item
	for _, rel := range s.taskFiles() {
		b, err := safefile.ReadFile(s.Root+"/"+rel, tasks.MaxRead)
		if err != nil {
			continue
		}
		for _, t := range tasks.Parse(b) {
			if t.Checked && s.IsVerification(rel, t) {
				items = append(items, Item{File: rel, Task: t})
			}
		}
	}
	return items
}

// tickedSinceStart are the verification tasks checked now that were not
// checked when the session began.
func (s *Session) tickedSinceStart() []Item {
	var items []Item
	start := time.Unix(0, s.Baseline.Time)
	for _, rel := range s.taskFiles() {
		if s.Baseline.Files[rel] != nil {
			// Unchanged since the session began: nothing in it was ticked
			// since (the change time cannot be set back).
			if fi, err := os.Lstat(s.Root + "/" + rel); err == nil && freshness.ChangeTime(fi).Before(start) {
				continue
			}
		}
		b, err := safefile.ReadFile(s.Root+"/"+rel, tasks.MaxRead)
		if err != nil {
			continue
		}
		for _, t := range tasks.Parse(b) {
			if !t.Checked || !s.IsVerification(rel, t) {
				continue
			}
			if s.wasChecked(rel, t) {
				continue
			}
			items = append(items, Item{File: rel, Task: t})
		}
	}
	return items
}

// notTickedYet are the tasks a completion names whose tick has not been
// judged: a file's task ticked with its tick judged when it was made (and
// justified then), or ticked by someone else, or before the session, is
// not judged again when Claude Code's task list marks it done (a tick is
// judged once, VERIFY-SPEC §2); every other is judged now, an open task
// beside a ticked twin too. The record is brought up to date first.
func (s *Session) notTickedYet(items []Item) []Item {
	files := map[string]bool{}
	for _, it := range items {
		if it.File != TaskList && it.Task.Checked {
			files[it.File] = true
		}
	}
	if len(files) == 0 {
		return items
	}
	var judge []Item
	err := updateTicks(s.Data, s.ID, func(st *tickState) error {
		for rel := range files {
			if fi, err := os.Stat(filepath.Join(s.Root, filepath.FromSlash(rel))); err != nil || st.changed(rel, fi) {
				s.look(st, rel, s.byTime, nil)
			}
		}
		judge = nil
		for _, it := range items {
			if b, ok := st.boxes[boxKey{it.File, it.Task.Key()}]; !ok || !it.Task.Checked || b.mark == markBad {
				judge = append(judge, it)
			}
		}
		return nil
	})
	if err != nil {
		return items // no record: judged as they stand
	}
	return judge
}

// TaskList stands for the file of a task of Claude Code's task list that
// no task file holds.
const TaskList = "(task list)"

// completedTask is the verification task a TaskCompleted names: the task
// file's task with the subject's ID when there is one, else the subject
// read as a task title.
func (s *Session) completedTask(in hookio.Input) ([]Item, bool) {
	subject, _, _ := in.Field("task_subject")
	if !tasks.MentionsTag(subject) {
		return nil, false
	}
	desc, _, _ := in.Field("task_description")
	parsed := tasks.Parse([]byte("- [x] " + strings.ReplaceAll(subject, "\n", " ") + "\n"))
	if len(parsed) == 0 {
		return nil, false
	}
	t := parsed[0]
	// The file's task of the subject's id; of several (repeated ids, the
	// steps of a plan, tasks with no id), those with the subject's title
	// (its code spans and a last colon aside: a subject often leaves the
	// command out), else all of them: a completion that could be any of
	// them is judged as each.
	var found, byRef, byTitle, byLead, byStart []Item
	for _, rel := range project.TaskFiles(s.Root, s.Config) {
		b, err := safefile.ReadFile(s.Root+"/"+rel, tasks.MaxRead)
		if err != nil {
			continue
		}
		fts := tasks.Parse(b)
		s.SetPresent(rel, fts) // read once: IsVerification's look for renumbered tasks too
		for _, ft := range fts {
			if !s.IsVerification(rel, ft) {
				continue
			}
			switch {
			case ft.ID == t.ID:
				found = append(found, Item{File: rel, Task: ft})
			case strings.EqualFold(ft.Ref, t.ID):
				byRef = append(byRef, Item{File: rel, Task: ft}) // rodin's own ref ("Step#2 …")
			case sameTitle(ft.Title, t.Title) || sameTitle(ft.Name(), subject):
				byTitle = append(byTitle, Item{File: rel, Task: ft}) // another id, or none
			case leadNames(subject, ft):
				byLead = append(byLead, Item{File: rel, Task: ft}) // "Run T008 …", "Phase 2 …"
			case t.ID == "" && startsTitle(t.Title, ft.Title):
				byStart = append(byStart, Item{File: rel, Task: ft}) // its title's opening words
			}
		}
	}
	if len(byRef) > 0 {
		return byRef, true
	}
	if len(found) == 1 && t.ID != "" {
		if t.Title == "" || sameTitle(found[0].Task.Title, t.Title) || leadNames(subject, found[0].Task) && leadOnlyNames(subject, found[0].Task) {
			return found, true
		}
		// The subject's id names one task and its words another (a checked
		// task's id over an open one's title and command): each is judged,
		// the subject's own commands too when no task of its words is.
		out := append(found, byTitle...)
		if len(byTitle) == 0 && len(t.Commands) > 0 {
			t.Text += "\n" + desc
			out = append(out, Item{File: TaskList, Task: t})
		}
		return out, true
	}
	var titled []Item
	for _, it := range found {
		if sameTitle(it.Task.Title, t.Title) {
			titled = append(titled, it)
		}
	}
	switch {
	case len(titled) > 0:
		return titled, true
	case len(found) > 0 && t.ID != "":
		return found, true
	case len(byTitle) > 0:
		// The subject names a file's task by its words under another id
		// (or none): that task is judged, not the subject alone.
		return byTitle, true
	case len(byLead) > 0:
		// The subject is a task's title after words that name it: its id
		// ("Run T008 …") or its heading ("Phase 2 …").
		return byLead, true
	case len(byStart) > 0:
		// The subject opens a file's task's title (a subject cut short):
		// that task is judged (each, when several open so).
		return byStart, true
	}
	if !t.Verify {
		// The tag after the words ("Verify the writer handles empty input
		// [VERIFY]") is prose, as in a task file (honest day 62): no
		// verification item of its own.
		return nil, false
	}
	t.Text += "\n" + desc
	return []Item{{File: TaskList, Task: t}}, true
}

// sameTitle reports whether two titles are the same words, their code
// spans and a last colon aside.
func sameTitle(a, b string) bool {
	return strings.EqualFold(titleWords(a), titleWords(b))
}

// startsTitle reports whether the words of a subject open a task's title
// (a subject that leaves the title's end out: "Run the unit tests" of "Run
// the unit tests for the parser"), at a word's end, with three words at
// least.
func startsTitle(subject, title string) bool {
	s, t := strings.ToLower(titleWords(subject)), strings.ToLower(titleWords(title))
	return len(strings.Fields(s)) >= 3 && strings.HasPrefix(t, s) && len(t) > len(s) && strings.ContainsRune(" :,;(", rune(t[len(s)]))
}

// leadNames reports whether a subject is t's title after words that name
// t: its id among them ("Run T008 [VERIFY] Quality checkpoint"), or all of
// them in the headings t stands under ("Phase 2 [VERIFY] Quality
// checkpoint" of a task under "Phase 2: Foundational").
func leadNames(subject string, t tasks.Task) bool {
	sw, tw := strings.Fields(titleWords(subject)), strings.Fields(titleWords(t.Title))
	if len(tw) == 0 || len(sw) <= len(tw) || !strings.EqualFold(strings.Join(sw[len(sw)-len(tw):], " "), strings.Join(tw, " ")) {
		return false
	}
	lead := sw[:len(sw)-len(tw)]
	if t.ID != "" && slices.ContainsFunc(lead, func(w string) bool { return strings.TrimRight(w, ":.,") == t.ID }) {
		return true
	}
	heading := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(t.Section), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		heading[w] = true
	}
	for _, w := range lead {
		if !heading[strings.ToLower(strings.TrimRight(w, ":.,"))] {
			return false
		}
	}
	return len(heading) > 0
}

// leadOnlyNames reports whether the words of a subject before t's title
// are only what names t: its id, its headings' words, and a verb of doing
// ("Run", "Complete"). Another task's words there ("T004 Full e2e suite
// Quality checkpoint") make the subject name that task too.
func leadOnlyNames(subject string, t tasks.Task) bool {
	sw, tw := strings.Fields(titleWords(subject)), strings.Fields(titleWords(t.Title))
	if len(sw) < len(tw) {
		return false
	}
	allowed := map[string]bool{"run": true, "complete": true, "completed": true, "done": true, "finish": true, "verify": true, "task": true, "check": true}
	for _, w := range strings.FieldsFunc(strings.ToLower(t.Section), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		allowed[w] = true
	}
	for _, w := range sw[:len(sw)-len(tw)] {
		w = strings.ToLower(strings.TrimRight(w, ":.,"))
		if w != strings.ToLower(t.ID) && !allowed[w] {
			return false
		}
	}
	return true
}

// titleWords are a title's words as sameTitle compares them: code spans,
// tags, emphasis and a step's number left out.
func titleWords(s string) string {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i := 0; i < len(parts); i += 2 {
		b.WriteString(parts[i] + " ")
	}
	var w []string
	for _, x := range strings.Fields(b.String()) {
		if len(w) > 0 && tasks.ResultMark(x) {
			break // the author's note of a run ("… ✅ 12 passed"): no word of the task (attack 71, B4)
		}
		if x = strings.Trim(x, "*_"); !strings.HasPrefix(x, "[") && x != "" {
			w = append(w, x) // tags aside: [VERIFY] may stand anywhere
		}
	}
	if len(w) > 1 && strings.HasSuffix(w[0], ":") && w[0][0] >= '0' && w[0][0] <= '9' {
		w = w[1:] // a step's number ("3: the export")
	}
	return strings.TrimRight(strings.Join(w, " "), ":.")
}

// TakeBaseline records the task boxes and the configuration as the session
// begins (SessionStart, through `rodin setup`). A resumed session keeps
// the baseline it has. An unreadable configuration is reported and the
// defaults are used.
func TakeBaseline(getenv func(string) string, session, cwd string) (saved bool, note string, err error) {
	data := evidence.DataDir(getenv)
	root := project.Root(getenv, cwd)
	if data == "" || root == "" || session == "" {
		return false, "", fmt.Errorf("no data directory, project root or session")
	}
	tasks.SetProjectRoot(root)
	cfg, cfgErr := project.LoadConfig(root)
	if cfgErr != nil {
		cfg = project.Defaults()
	}
	seen := seeConfig(root)
	c, cfgCarried, carryErr := configInForce(data, root, cfg, seen)
	switch {
	case cfgCarried:
		cfg, cfgErr, note = c, nil, ConfigCarried
	case carryErr != nil:
		note = "rodin cannot read what it keeps of configurations agents changed (" + carryErr.Error() + "), so this session uses .rodin/config.json as it stands: if an agent changed it, check it (`rodin doctor`)"
	}
	switch {
	case cfgErr != nil:
		// The user's file does not read (a typo in a key): the
		// configuration last read from it stands, not the defaults, whose
		// task files may not be the user's. Said at the start, never an
		// error that stops the session's record.
		in := "rodin's defaults (task files: every tasks.md)"
		if js, ok := ledger.LastReadConfig(data, root); ok {
			var last project.Config
			if json.Unmarshal(js, &last) == nil && len(last.TaskFiles) > 0 {
				cfg = last
				in = "the configuration a session last read from it (task files: " + strings.Join(last.TaskFiles, ", ") + ")"
			}
		}
		note = joinNotes(note, "rodin cannot use "+project.ConfigFile+" ("+cfgErr.Error()+"), so the verify gate uses "+in+" until it is fixed")
		cfgErr = nil
	case !cfgCarried && seen.sum != "":
		if js, err := json.Marshal(cfg); err == nil {
			ledger.SetLastReadConfig(data, root, js)
		}
	}
	b := ledger.Baseline{Time: freshness.Now().UnixNano(), Root: root, Files: map[string][]ledger.Snap{}}
	b.Config, _ = json.Marshal(cfg)
	ix := project.IndexTaskFiles(root, cfg)
	if q := checks.Quality(checks.Discover(root)); len(q) > 0 {
		b.Quality = map[string][]string{ProjectChecks: q}
	}
	// The packages below the root whose tests a task names in words, as
	// the session begins: one made since is no package of the project's
	// for a task of then (a decoy `test: true`).
	if subs := checks.Subprojects(root); len(subs) > 0 {
		b.Dirs = map[string]map[string]string{SubprojectsKey: {}}
		for _, sb := range subs {
			b.Dirs[SubprojectsKey][sb.Dir] = sb.Test + "\n" + sb.E2E
		}
	}
	all, _ := ledger.CarriedNeeds(data) // unreadable: the tasks as they stand
	var carried []ledger.Carried        // this project's: no sum of a task for another's
	for _, c := range all {
		if c.Root == root {
			carried = append(carried, c)
		}
	}
	asIs := map[boxKey][2]string{} // the words and runs of checked tasks with a carried need
	for _, rel := range ix.Files {
		src, err := safefile.ReadFile(root+"/"+rel, tasks.MaxSize)
		if err != nil {
			if !safefile.IsNotExist(err) {
				// Kept as unread: its ticks this session are unverified,
				// never judged by what it says later (attack 70: padded
				// past the size limit in one session, weakened in the next).
				why := err.Error()
				if errors.Is(err, safefile.ErrTooLarge) {
					why = fmt.Sprintf("it is larger than %d MiB, more than rodin reads", tasks.MaxSize>>20)
				}
				if b.Unread == nil {
					b.Unread = map[string]string{}
				}
				b.Unread[rel] = why
				note = joinNotes(note, "rodin cannot read "+rel+" ("+why+"), so no verification task in it can be ticked this session; make it readable and start a new session")
			}
			continue
		}
		var snaps []ledger.Snap
		f := tasks.ParseFile(src)
		for _, c := range f.Quality {
			if b.Quality == nil {
				b.Quality = map[string][]string{}
			}
			b.Quality[rel] = append(b.Quality[rel], c.Run)
		}
		// An agent of an earlier session took commands out of the file's
		// Quality Commands (or wrote the section over the project's checks):
		// what stood then stands beside the section as it is.
		if need := carriedQuality(carried, root, rel, f.Quality); need != nil {
			if b.Quality == nil {
				b.Quality = map[string][]string{}
			}
			for _, c := range need {
				if !slices.ContainsFunc(b.Quality[rel], func(x string) bool { return Normalize(x) == Normalize(c) }) {
					b.Quality[rel] = append(b.Quality[rel], c)
				}
			}
		}
		for _, t := range f.Tasks {
			sn := ledger.Snap{Key: t.Key(), Checked: t.Checked, Verify: t.Verify, AC: t.AC, Manual: t.Manual}
			if tasks.Positional(t.Ref) || t.Verify {
				sn.Title = t.PlaceFree()
			}
			for _, c := range t.Commands {
				sn.Commands = append(sn.Commands, c.Run)
				sn.Sources = append(sn.Sources, string(c.Source))
			}
			if c := carriedFor(carried, root, rel, t); c != nil {
				if t.Checked {
					// Its box is known by the task as it stands, not by
					// the commands it carries (ticks are paired by them).
					w, r := placeOf(t)
					asIs[boxKey{rel, t.Key()}] = [2]string{w, r}
				}
				sn.Commands, sn.Sources, sn.Carried = c.Need.Commands, carriedSources(c.Need), true
				sn.Verify, sn.AC, sn.Manual = sn.Verify || c.Need.Verify, sn.AC || c.Need.AC, sn.Manual || c.Need.Manual
				if sn.Verify {
					// Its words too, as a verification task's: moved to
					// another task file, it is paired by them (attack 72,
					// R5).
					sn.Title = t.PlaceFree()
				}
			}
			snaps = append(snaps, sn)
		}
		snaps = withGone(snaps, carried, root, rel)
		b.Files[rel] = snaps
		startDirs(&b, root, rel, snaps)
	}
	// A claimed box open when the session begins was taken back (the user
	// unticked it, between sessions): the claim speaks for no later tick.
	if claimed := ledger.StandingClaims(data, root); len(claimed) > 0 {
		for rel, snaps := range b.Files {
			for _, sn := range snaps {
				if sn.Verify && !sn.Checked && claimed[rel+"\x00"+sn.Key] {
					ledger.AppendUnclaim(data, ledger.Claim{Session: session, Root: root, File: rel, Key: sn.Key})
				}
			}
		}
	}
	ix.Since, ix.Known = b.Time, map[string]bool{}
	for rel := range b.Files {
		ix.Known[rel] = true
	}
	saved, err = ledger.SaveBaseline(data, session, b)
	if saved && err == nil {
		// The root .gitignore as the session began (Session.tree).
		gi, gerr := safefile.ReadFile(filepath.Join(root, ".gitignore"), 1<<20)
		if gerr != nil {
			gi = nil
		}
		if before, carried := gitignoreInForce(data, root, gi, seen.gi); carried {
			gi, note = before, joinNotes(note, GitignoreCarried)
		}
		safefile.WriteAtomic(ledger.GitignorePath(data, session), gi, 0o600)
		ledger.SaveIndex(data, session, ix) // a resumed session keeps its own
		err = startTicks(data, session, &b, cfg.TaskFiles, seen, asIs, func(rel string) (os.FileInfo, error) {
			return os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		})
	}
	if err == nil && cfgErr != nil {
		err = cfgErr
	}
	return saved, note, err
}

// joinNotes joins what a session start says.
func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// startDirs notes in b where the commands of the task file rel run as the
// session begins (ledger.Baseline.Dirs): its tasks', its Quality Commands
// and the project's checks.
func startDirs(b *ledger.Baseline, root, rel string, snaps []ledger.Snap) {
	if b.Dirs == nil {
		b.Dirs = map[string]map[string]string{}
	}
	// Commands written on another machine, mapped to this project's
	// folders as they are now (localCd): the tasks' and the file's
	// Quality Commands' (attack 64: a checkpoint standing on the section's
	// `cd /Users/…` was steered to a decoy folder made later).
	local := func(c string) {
		if !namesAbsPath(c) {
			return // nothing of another machine's to map
		}
		// Kept when mapped to itself too: a folder made since maps
		// nothing then either.
		if b.Dirs[LocalKey] == nil {
			b.Dirs[LocalKey] = map[string]string{}
		}
		b.Dirs[LocalKey][c] = mapLocal(root, c)
	}
	for _, sn := range snaps {
		for _, c := range sn.Commands {
			local(c)
		}
	}
	for _, c := range b.Quality[rel] {
		local(c)
	}
	if path.Dir(rel) == "." {
		return
	}
	byCmd := map[string]string{}
	add := func(c string) {
		if _, ok := byCmd[c]; ok {
			return
		}
		// A command naming a file found nowhere yet runs where a build
		// puts it: not noted. One the root's manifest cannot run is noted
		// "?": it runs where it runs now only in one of the root's
		// workspaces (a package made since), else at the root.
		dir, found := tasks.RunDirFound(root, rel, c)
		if !found {
			switch {
			case tasks.RootCannotRun(root, c):
				byCmd[c] = "?"
			case tasks.ScriptOf(c) != "":
				// A file found nowhere yet runs where it is once made,
				// but never in a package made since below the task
				// file's package of now ("^": it or above; attack 68: a
				// decoy package beside the task file took a search).
				p, err := filepath.Rel(root, tasks.PackageDir(root, rel))
				if err != nil {
					p = "."
				}
				byCmd[c] = "^" + filepath.ToSlash(p)
			}
			return
		}
		d, err := filepath.Rel(root, dir)
		if err != nil {
			d = "."
		}
		byCmd[c] = filepath.ToSlash(d)
	}
	for _, sn := range snaps {
		for _, c := range sn.Commands {
			add(c)
		}
	}
	for _, c := range b.Quality[rel] {
		add(c)
	}
	for _, c := range b.Quality[ProjectChecks] {
		add(c)
	}
	b.Dirs[rel] = byCmd
	for _, d := range byCmd {
		if (d == "?" || strings.HasPrefix(d, "^")) && b.Dirs[WorkspacesKey] == nil {
			// The root's workspaces as the session begins: a package made
			// since counts only as one of them (attack 70: a decoy added
			// to the workspaces took the command).
			b.Dirs[WorkspacesKey] = map[string]string{"globs": strings.Join(tasks.WorkspaceGlobs(root), "\n")}
		}
	}
}

// SubprojectsKey holds, in a baseline's Dirs, the packages below the root
// that run tests as the session began (checks.Subprojects): by folder, the
// command of its tests and of its browser tests, a line each.
const SubprojectsKey = ":subprojects"

// WorkspacesKey holds, in a baseline's Dirs, the root's workspace globs as
// the session began ("globs", one a line), when a command's folder depends
// on them.
const WorkspacesKey = ":workspaces"

// carriedQuality is what an agent of an earlier session took out of the
// Quality Commands of root's file rel, when the section is as it left it;
// nil otherwise.
func carriedQuality(cs []ledger.Carried, root, rel string, q []tasks.Command) []string {
	var sum string
	for i := len(cs) - 1; i >= 0; i-- {
		c := &cs[i]
		if c.Root != root || c.File != rel || c.Words != qualityWords {
			continue
		}
		if sum == "" {
			sum = qualitySum(q)
		}
		if c.Runs == sum {
			return c.Need.Commands
		}
	}
	return nil
}

// withGone puts back into a task file's snapshots the open verification
// tasks an agent of an earlier session deleted (ledger.Carried.Gone), as
// they were, where they stood: a task written in their place or given
// their id stands for them as it would in the session that deleted them.
// One whose id a verification task of the file has again (its
// replacement, written since) gives that task what it needed, unless the
// task already carries a need of its own.
func withGone(snaps []ledger.Snap, carried []ledger.Carried, root, rel string) []ledger.Snap {
	for _, c := range carried {
		if !c.Gone || c.Root != root || c.File != rel {
			continue
		}
		id := keyID(c.Key)
		if i := slices.IndexFunc(snaps, func(sn ledger.Snap) bool { return sn.Verify && snapOfID(sn.Key, id) }); i >= 0 {
			if !snaps[i].Carried {
				gone := c.Need
				snaps[i].Commands, snaps[i].Sources, snaps[i].Carried = gone.Commands, carriedSources(gone), true
				snaps[i].AC, snaps[i].Manual = snaps[i].AC || gone.AC, snaps[i].Manual || gone.Manual
			}
			continue
		}
		sn := c.Need
		sn.Key, sn.Sources, sn.Carried, sn.Gone = c.Key, carriedSources(c.Need), true, true
		// Where it stood: after the task that was before it, else before
		// the one that was after it. With both gone (or renamed), it has
		// no place: at the file's end, any new verification task of the
		// file stands for it, new plain work none (a place guessed would
		// hold the plain work written there to its check; attack 74).
		at := -1
		switch {
		case c.After == "":
			at = 0
		case slices.ContainsFunc(snaps, func(o ledger.Snap) bool { return o.Key == c.After }):
			at = slices.IndexFunc(snaps, func(o ledger.Snap) bool { return o.Key == c.After }) + 1
		case c.Next != "" && slices.ContainsFunc(snaps, func(o ledger.Snap) bool { return o.Key == c.Next }):
			at = slices.IndexFunc(snaps, func(o ledger.Snap) bool { return o.Key == c.Next })
		}
		if at < 0 {
			at, sn.Placeless = len(snaps), true
		}
		snaps = slices.Insert(snaps, at, sn)
	}
	return snaps
}

// carriedSources are where a carried need's commands were read, each
// said to be from before an agent changed it.
func carriedSources(need ledger.Snap) []string {
	var out []string
	for i := range need.Commands {
		src := "as it was"
		if i < len(need.Sources) {
			src = need.Sources[i]
		}
		out = append(out, strings.TrimSuffix(src, carriedNote)+carriedNote)
	}
	return out
}

// carriedNote ends where a carried command was read.
const carriedNote = ", before an agent changed it in an earlier session"

// carriedFor is what t needed before an agent of an earlier session
// changed it into what it is (ledger.Carried), nil when no agent did.
func carriedFor(cs []ledger.Carried, root, file string, t tasks.Task) *ledger.Carried {
	if len(cs) == 0 {
		return nil
	}
	words, runs := placeOf(t)
	var moved *ledger.Carried
	for i := len(cs) - 1; i >= 0; i-- {
		c := &cs[i]
		if c.Root != root || c.Words != words || c.Runs != runs {
			continue
		}
		if c.File == file {
			return c
		}
		if moved == nil {
			moved = c // the same task in another file: its file moved
		}
	}
	return moved
}
