package verifygate

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/internal/realpath"
	"github.com/rodin-gate/rodin/pkg/edits"
	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rodin-gate/rodin/pkg/project"
	"github.com/rodin-gate/rodin/pkg/safefile"
	"github.com/rodin-gate/rodin/pkg/sandbox"
	"github.com/rodin-gate/rodin/pkg/tasks"
)

func deny(format string, args ...any) hookio.PreOutcome {
	return hookio.Denial("[rodin] " + fmt.Sprintf(format, args...))
}

// PreEdit is the gate on a Write, Edit or MultiEdit: when the file is a
// task file and the change ticks a verification task, it denies unless
// the task's checks passed for the code as it stands. Every other edit
// gets no decision.
func PreEdit(in hookio.Input, getenv func(string) string) hookio.PreOutcome {
	input := in.Get("tool_input")
	path := input.Get("file_path").String()
	if !strings.HasSuffix(path, ".md") || Off(getenv) {
		return hookio.NoDecision
	}
	tool := in.ToolName()
	s, err := Open(getenv, in.SessionID(), in.Cwd())
	if err != nil {
		if rel := project.Rel(project.Root(getenv, in.Cwd()), path); rel == "" || !project.MatchAny(project.DefaultTaskFiles, rel) {
			return hookio.NoDecision // not a task file by the defaults either
		}
		return deny("The verify gate cannot check this %s of %s: %v. To fix: run `rodin doctor`, or set RODIN_VERIFY=off to leave task boxes unchecked.", tool, path, err)
	}
	rel, path := s.taskFile(path)
	if rel == "" {
		return hookio.NoDecision
	}
	// The record of the session's boxes knows the task files it began with:
	// only another one is noted in the index (which a stop reads).
	st, stErr := loadTicks(s.Data, s.ID)
	if _, known := st.fileSeen(rel); !known {
		s.noteTaskFile(rel)
	}
	old, err := safefile.ReadFile(path, tasks.MaxSize)
	exists := true
	switch {
	case os.IsNotExist(err):
		exists, old = false, nil
	case err != nil:
		return deny("Cannot read %s to check this %s: %v. To fix: make the task file readable, then try again.", rel, tool, err)
	}
	next, ok := edits.Apply(tool, input, string(old), exists)
	if !ok {
		// Claude Code fails it, unless it matches in a way rodin does not
		// know: a tick rodin cannot replay is not let through unjudged.
		if ticksABox(input) {
			return deny("rodin cannot find this %s's old_string in %s as Claude Code would match it, and its new_string ticks a box, so it cannot judge the tick. To fix: Read %s and edit with its exact text.", tool, rel, rel)
		}
		return hookio.NoDecision // the tool fails on its own
	}
	if len(next) > tasks.MaxSize {
		return deny("This %s would make %s larger than %d MiB, more than rodin reads. To fix: split the task file.", tool, rel, tasks.MaxSize>>20)
	}
	kept := loadReadings(s.Data, s.ID, rel)
	var files [2]tasks.File
	var keys [2][sha256.Size]byte
	files[0], keys[0] = kept.read(old)
	nextBytes := []byte(next)
	reflipped := false
	if f, ok := tasks.Reflip(files[0], old, nextBytes); ok {
		files[1], keys[1], reflipped = f, kept.key(nextBytes), true
	} else {
		files[1], keys[1] = kept.read(nextBytes)
	}
	kept.keep(keys, files)
	before, after := files[0].Tasks, files[1].Tasks
	// A change of boxes' marks alone (reflipped) adds no character.
	if !reflipped {
		if line, r := invisibleAdded(before, after, old, nextBytes); line > 0 {
			return deny("This %s puts an invisible character (U+%04X) into the task on line %d of %s: rodin reads ids and tags without such characters, and they make one task look like another. To fix: write the task line without it.", tool, r, line, rel)
		}
	}
	// What changed in the file since rodin last saw it, before this
	// edit, is someone's: the agent's when one of its calls explains it
	// (a background task), else someone else's, never judged as a tick
	// of this edit.
	if exists && stErr == nil && st != nil {
		if fi, err := os.Stat(path); err != nil || st.changed(rel, fi) {
			updateTicks(s.Data, s.ID, func(st *tickState) error {
				s.look(st, rel, s.byTime, before)
				return nil
			})
		}
	}
	if s.accepted == nil {
		// What the record accepts, from the read above (acceptedByEdit
		// would read it again).
		s.accepted, s.added = map[boxKey]string{}, map[boxKey]ledger.Snap{}
		if stErr == nil && st != nil {
			maps.Copy(s.accepted, st.accepted)
			maps.Copy(s.added, st.added)
		}
	}
	if t, line := unboxed(before, after, nextBytes, func(t tasks.Task) bool { return s.IsVerification(rel, t) }); line > 0 {
		return deny("This %s turns the box of %s into text rodin does not read as a box (%s line %d): a box that may look ticked, which no gate judges. To fix: keep its `- [ ]` as it is, and tick it with `[x]` once its checks pass (`rodin verify %s %s`). A task that is no longer wanted is the user's to drop: delete its lines whole, or leave it open and tell the user; a note about it is a sentence that starts with a word.", tool, t.Name(), rel, line, ShellArg(t.Ref), ShellArg(filepath.Join(s.Root, filepath.FromSlash(rel))))
	}
	if line := newLookalike(old, nextBytes, before, after, func(t tasks.Task) bool { return s.IsVerification(rel, t) }); line > 0 {
		return deny("This %s writes a line that looks like a ticked box but is none rodin reads (%s line %d): a box that may look done, which no gate judges. To fix: write a task's box as `- [ ]` or `- [x]`, and tick a verification task once its checks pass (`rodin verify ID FILE`).", tool, rel, line)
	}
	s.SetPresent(rel, after)
	var items []Item
	for _, t := range tasks.Ticked(before, after) {
		if s.IsVerification(rel, t) || s.standsFor(rel, t) {
			items = append(items, Item{File: rel, Task: t})
		}
	}
	if len(items) == 0 {
		return hookio.NoDecision
	}
	if why := sandbox.StrictDenial(getenv, s.Root, in.PermissionMode(), "the verify gate denies ticking "+names(verdictsOf(items))); why != "" {
		return deny("%s", why)
	}
	s.Call = Call{Transcript: in.Get("transcript_path").String(), ToolUseID: in.Get("tool_use_id").String(), Agent: in.Get("agent_id").String()}
	vs, err := s.Judge(items)
	if err != nil {
		return deny("The verify gate cannot read this session's evidence: %v. To fix: run `rodin doctor`.", err)
	}
	if bad := Unverified(vs); len(bad) > 0 {
		then := ", then tick the box again"
		if slices.ContainsFunc(bad, func(v Verdict) bool { return v.NoStart && v.Need.Waiver == nil }) {
			then = "" // no tick can pass in this session: a new session's start records the boxes
		}
		return deny("This %s ticks %s before its checks passed for the code as it stands. %s %s", tool, names(bad), explainAll(bad), s.fixRun(bad)+then+". A task that cannot pass here can be waived by the user, who types `"+WaiveCommand+" ID FILE REASON` in Claude Code.")
	}
	// Justified now: claimed for this call (PostEdit sees it written) and
	// for the project's other sessions; one append each.
	agent, _, _ := in.Field("agent_id")
	call, _, _ := in.Field("tool_use_id")
	for _, it := range items {
		ledger.AppendClaim(s.Data, ledger.Claim{Session: s.ID, Root: s.Root, File: rel, Key: it.Task.Key(), Call: call, Agent: agent, Runs: runsOf(it.Task)})
	}
	if w := waived(vs); w != "" {
		return hookio.PreOutcome{SystemMessage: "[rodin] Ticked without passing checks, as waived: " + w}
	}
	return hookio.NoDecision
}

// PostEdit is the PostToolUse route for a Write, Edit or MultiEdit of a
// task file: the ticks the tool made are the agent's, judged by PreEdit
// before it ran (and judged now when PreEdit did not see them). It reads
// the session's record, and the file only when it is a task file.
func PostEdit(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	path := in.Get("tool_input.file_path").String()
	if filepath.Base(path) == ".gitignore" && !Off(getenv) && hookio.ValidSessionID(in.SessionID()) {
		return gitignoreWritten(in, getenv, path)
	}
	if !strings.HasSuffix(path, ".md") || Off(getenv) || !hookio.ValidSessionID(in.SessionID()) {
		return hookio.PostOutcome{}
	}
	data := evidence.DataDir(getenv)
	if data == "" {
		return hookio.PostOutcome{}
	}
	st, err := loadTicks(data, in.SessionID())
	if st == nil || err != nil {
		return hookio.PostOutcome{} // the stop judges what it cannot
	}
	cfg := project.Config{TaskFiles: st.globs}
	if !cfg.IsTaskFile(st.root, path) {
		if target, err := realpath.Eval(path); err != nil || !cfg.IsTaskFile(st.root, target) {
			return hookio.PostOutcome{}
		}
	}
	s, err := Open(getenv, in.SessionID(), in.Cwd())
	if err != nil {
		return hookio.PostOutcome{}
	}
	rel, _ := s.taskFile(path)
	if rel == "" {
		return hookio.PostOutcome{}
	}
	s.Strict = sandbox.StrictDenial(getenv, s.Root, in.PermissionMode(), "") != ""
	agent, _, _ := in.Field("agent_id")
	tool, _, _ := in.Field("tool_use_id")
	var bad []Verdict
	updateTicks(s.Data, s.ID, func(st *tickState) error {
		bad, _ = s.look(st, rel, func(int64) owner { return owner{mine: true, agent: agent, tool: tool} }, nil)
		return nil
	})
	if len(bad) > 0 {
		return hookio.PostOutcome{Block: true, Reason: fmt.Sprintf("[rodin] This %s ticked %s before its checks passed for the code as it stands. %s %s, then tick the box again; a box ticked without its checks is unticked when the session stops.", in.ToolName(), names(bad), explainAll(bad), s.fixRun(bad)+", untick it")}
	}
	return hookio.PostOutcome{}
}

// taskFile is the task file an edit of path writes, relative to the root,
// and its real path; "" when it writes none. A path through a symbolic link
// (notes.md -> tasks.md) writes the link's target, so that is what counts.
func (s *Session) taskFile(path string) (rel, real string) {
	if s.Config.IsTaskFile(s.Root, path) {
		rel, real = project.Rel(s.Root, path), path
	}
	target, err := realpath.Eval(path)
	if err != nil {
		return rel, real // a new file: no link to follow
	}
	root, err := realpath.Eval(s.Root)
	if err != nil {
		root = s.Root
	}
	if r := project.Rel(root, target); r != "" && project.MatchAny(s.Config.TaskFiles, r) {
		return r, target
	}
	return rel, real
}

func names(vs []Verdict) string {
	var n []string
	for _, v := range vs {
		n = append(n, v.Task.Name())
	}
	return strings.Join(n, ", ")
}

func explainAll(vs []Verdict) string {
	var e []string
	for _, v := range vs {
		e = append(e, v.Explain()+".")
	}
	return strings.Join(e, " ")
}

// waived names the waived tasks among vs whose checks are not met, with
// the reasons given.
func waived(vs []Verdict) string {
	var w []string
	for _, v := range vs {
		if v.Need.Waiver == nil {
			continue
		}
		reason := v.Need.Waiver.Reason
		v.Need.Waiver = nil // a copy: would it pass without the waiver?
		if !v.OK() {
			w = append(w, fmt.Sprintf("%s (%q)", v.Task.Name(), reason))
		}
	}
	return strings.Join(w, ", ")
}

// invisibleAdded finds a Unicode format character (zero-width space,
// joiners, direction marks) on a task's line of next that the file did not
// have on its task lines before: the line and the character, 0 when none.
func invisibleAdded(before, after []tasks.Task, old, next []byte) (int, rune) {
	count := func(ts []tasks.Task, src []byte) (int, int, rune) {
		lines := strings.Split(string(src), "\n")
		n, first, r := 0, 0, rune(0)
		for _, t := range ts {
			if t.Line < 1 || t.Line > len(lines) {
				continue
			}
			for _, c := range lines[t.Line-1] {
				if tasks.IsFormat(c) {
					if n == 0 {
						first, r = t.Line, c
					}
					n++
				}
			}
		}
		return n, first, r
	}
	had, _, _ := count(before, old)
	has, line, r := count(after, next)
	if has > had {
		return line, r
	}
	return 0, 0
}

// unboxed is an open verification task of before that after no longer
// has, whose words stand in next on a line that is no box rodin reads
// (tasks.Unboxed), and that line; 0 when there is none.
func unboxed(before, after []tasks.Task, next []byte, verification func(tasks.Task) bool) (tasks.Task, int) {
	keys := map[string]bool{}
	for _, t := range after {
		keys[t.Key()] = true
	}
	for _, t := range before {
		if t.Checked || keys[t.Key()] || !verification(t) {
			continue
		}
		if line := tasks.Unboxed(next, after, t.ID, t.Title); line > 0 {
			return t, line
		}
	}
	return tasks.Task{}, 0
}

// newLookalike is a line the edit wrote (not a line of old) that names an
// open verification task of before and looks like a ticked box but has no
// box rodin reads (tasks.LooksTicked), outside fenced code (an example):
// 0 when there is none. A legend or a format example names no task.
func newLookalike(old, next []byte, before, after []tasks.Task, verification func(tasks.Task) bool) int {
	var ids []string
	for _, t := range before {
		if !t.Checked && t.ID != "" && verification(t) {
			ids = append(ids, t.ID)
		}
	}
	if len(ids) == 0 || bytes.Equal(old, next) {
		return 0
	}
	boxed := map[int]bool{} // a box of its own: ticked or not, the gate reads it
	for _, t := range after {
		boxed[t.Line] = boxed[t.Line] || t.Boxed()
	}
	// The lines the edit wrote: between what old and next share at their
	// start and at their end (a tick writes one).
	pre := 0
	for pre < len(old) && pre < len(next) && old[pre] == next[pre] {
		pre++
	}
	suf := 0
	for suf < len(old)-pre && suf < len(next)-pre && old[len(old)-1-suf] == next[len(next)-1-suf] {
		suf++
	}
	start := bytes.LastIndexByte(next[:pre], '\n') + 1
	end := len(next) - suf
	if k := bytes.IndexByte(next[end:], '\n'); k >= 0 {
		end += k
	} else {
		end = len(next)
	}
	if start >= end {
		return 0
	}
	first := bytes.Count(next[:start], []byte{'\n'}) // lines before the region
	var lines []int
	if region := next[start:end]; bytes.Contains(region, []byte("```")) || bytes.Contains(region, []byte("~~~")) {
		// A fence in what the edit wrote: the whole file decides what is
		// inside one.
		for _, n := range tasks.LookalikeLines(next, func(n int) bool { return boxed[n] }) {
			if n > first && n <= first+1+bytes.Count(region, []byte{'\n'}) {
				lines = append(lines, n)
			}
		}
	} else {
		for _, n := range tasks.LookalikeLines(region, func(n int) bool { return boxed[first+n] }) {
			if !tasks.InFence(next, first+n) { // an example in a fence the edit did not touch
				lines = append(lines, first+n)
			}
		}
	}
	for _, n := range lines {
		l := lineAt(next, n)
		if hadLine(old, l) {
			continue // a line the file had: the edit did not write it
		}
		for _, id := range ids {
			if tasks.NamesID(l, id) {
				return n
			}
		}
	}
	return 0
}

// hadLine reports whether src has l as one of its lines.
func hadLine(src []byte, l string) bool {
	for from := 0; from <= len(src); {
		i := bytes.Index(src[from:], []byte(l))
		if i < 0 {
			return false
		}
		i += from
		end := i + len(l)
		if (i == 0 || src[i-1] == '\n') && (end == len(src) || src[end] == '\n' || src[end] == '\r') {
			return true
		}
		from = i + 1
	}
	return false
}

// ticksABox reports whether an edit's new text holds a ticked box its old
// text does not.
func ticksABox(input gjson.Result) bool {
	n := func(s string) int { return strings.Count(s, "[x]") + strings.Count(s, "[X]") }
	for _, e := range append([]gjson.Result{input}, input.Get("edits").Array()...) {
		if n(e.Get("new_string").String()) > n(e.Get("old_string").String()) {
			return true
		}
	}
	return false
}

// verdictsOf are empty verdicts for items, to name them.
func verdictsOf(items []Item) []Verdict {
	out := make([]Verdict, len(items))
	for i, it := range items {
		out[i] = Verdict{File: it.File, Task: it.Task}
	}
	return out
}
