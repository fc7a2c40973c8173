package ledger

import (
	"math"
	"strings"
	"time"

	"github.com/rodin-gate/rodin/pkg/freshness"
	"github.com/rodin-gate/rodin/pkg/hookio"
)

// Who made a change, as rodin tells it (VERIFY-SPEC §2, CONTRACTS-SPEC
// "Who wrote it"): this session's agent in a foreground tool call (the
// call's window), this session's agent through a background task it
// launched that is still running, or someone else (the user's editor,
// another session, a process rodin never saw start). Only the agent's
// changes are judged, blocked, unticked, removed or put back; someone
// else's are shown, never reverted.
//
// Time tells them apart: a file's change time (the newer of its mtime and
// ctime, which no one can set back) against the windows of this session's
// calls. A file written twice carries the later time only, so a change by
// someone else followed by one of the agent's in the same file is taken
// for the agent's (an error toward judging; docs/security.md).

// Slack widens a call's window at its start: Claude Code measures
// duration_ms around the command, not around the hook's own start.
const Slack = 2 * time.Second

// EndSlack widens a call's window at its end: the time a run is recorded
// at is read from the coarse clock, and a kernel that stamps a file with a
// fine-grained time (multigrain timestamps) can stamp a write made before
// the hook ran a little after it.
const EndSlack = 500 * time.Millisecond

// Window is a span of time in which one of this session's agents was
// acting: a foreground call, or a background task from its launch until
// it was known to have ended (End is math.MaxInt64 while it may run).
type Window struct {
	Start, End int64 // unix ns, by the clock files are stamped with
	Agent      string
	Type       string // agent_type ("" for the main thread)
	Background string // the task's id, for a background task
	Command    string // the Bash command ("" for a subagent)
}

// Covers reports whether a change at t (unix ns) falls in the window.
func (w Window) Covers(t int64) bool { return t >= w.Start && t <= w.End }

// Windows are the windows of a session's Bash calls and background
// subagents, in the order of its runs: each foreground call from its start
// (less Slack) to when it was recorded; each background task (a Bash call
// or a subagent) from its launch until a later record says it ended, open
// while none does. A call whose duration Claude Code
// did not give gets Slack only.
func Windows(runs []Run) []Window {
	done := map[string]int64{}
	for _, r := range runs {
		if r.Kind == KindBgDone {
			for _, id := range strings.Fields(r.Bg) {
				if _, ok := done[id]; !ok {
					done[id] = r.Time
				}
			}
		}
	}
	out := make([]Window, 0, len(runs)) // at most one a run: no copies as it grows
	for i, r := range runs {
		if r.Kind == KindSkillShell {
			out = append(out, skillShellWindow(r, runs[i+1:]))
			continue
		}
		if r.Kind != KindBash && r.Kind != KindAgentBg {
			continue
		}
		start := r.Time - int64(Slack) - max(r.Dur, 0)*int64(time.Millisecond)
		w := Window{Start: start, End: r.Time + int64(EndSlack), Agent: r.Agent, Type: r.Type, Command: r.Command}
		if r.Exit == ExitBackground {
			w.Background = r.Bg
			if w.Background == "" {
				w.Background = "?"
			}
			w.End = math.MaxInt64
			if t, ok := done[w.Background]; ok && t >= r.Time {
				w.End = t
			}
		}
		out = append(out, w)
	}
	return out
}

// SkillShellMax bounds a skill shell command's window when nothing later
// ends it: the Bash tool's default timeout.
const SkillShellMax = 2 * time.Minute

// skillShellWindow is a skill's inline shell command's window: it runs
// before the skill's prompt reaches the model, so it has ended when the
// session's next recorded run began (that call's start, not its record:
// the first check of a `/implement` session ran after it, not beside it);
// lacking one, SkillShellMax after its start.
func skillShellWindow(r Run, later []Run) Window {
	if r.Dur >= 0 {
		// The Skill tool's call, reported when it ended (PostToolUse).
		return Window{Start: r.Time - int64(Slack) - r.Dur*int64(time.Millisecond), End: r.Time + int64(EndSlack), Agent: r.Agent, Type: r.Type, Background: "skill:" + r.Tool}
	}
	end := r.Time + int64(SkillShellMax)
	for _, n := range later {
		if n.Kind != KindClaim && n.Time >= r.Time {
			end = min(end, max(r.Time, n.Time-max(n.Dur, 0)*int64(time.Millisecond)))
			break
		}
	}
	// Background names it, so that a sweep after a later call (the
	// contracts' BackgroundWindows) takes what it wrote for the agent's.
	return Window{Start: r.Time - int64(Slack), End: end + int64(EndSlack), Agent: r.Agent, Type: r.Type, Background: "skill:" + r.Tool}
}

// Attribute is the window a change at t falls in: a foreground call's
// first (the latest one that covers it), else a background task's; ok is
// false when none does: someone else's change.
func Attribute(ws []Window, t int64) (Window, bool) {
	for i := len(ws) - 1; i >= 0; i-- {
		if ws[i].Background == "" && ws[i].Covers(t) {
			return ws[i], true
		}
	}
	for i := len(ws) - 1; i >= 0; i-- {
		if ws[i].Background != "" && ws[i].Covers(t) {
			return ws[i], true
		}
	}
	return Window{}, false
}

// BackgroundEnded records, from a stop input's background_tasks (the
// tasks still running, as 2.1.295 to 2.1.332 send them on Stop and
// SubagentStop), which of the session's background tasks have ended:
// those it launched and that the list no longer names. listed is nil when
// the input has no such field: nothing is known to have ended.
func BackgroundEnded(data, session string, runs []Run, listed []string, now time.Time) {
	if listed == nil {
		return
	}
	still := map[string]bool{}
	for _, id := range listed {
		still[id] = true
	}
	ended := map[string]bool{}
	for _, r := range runs {
		if r.Kind == KindBgDone {
			for _, id := range strings.Fields(r.Bg) {
				ended[id] = true
			}
		}
	}
	var gone []string
	for _, r := range runs {
		if (r.Kind == KindBash || r.Kind == KindAgentBg) && r.Exit == ExitBackground && r.Bg != "" && !still[r.Bg] && !ended[r.Bg] && !strings.HasPrefix(r.Bg, "?") && !strings.ContainsAny(r.Bg, " \t\n") {
			gone = append(gone, r.Bg)
			ended[r.Bg] = true
		}
	}
	if len(gone) > 0 {
		Append(data, session, Run{Time: now.UnixNano(), Kind: KindBgDone, Bg: strings.Join(gone, " ")})
	}
}

// RunningTasks are the ids of the background tasks a stop input lists as
// running (`background_tasks`, on Stop and SubagentStop of 2.1.295 and
// later: [{"id":"b…","type":"shell","status":"running",…}, {"id":"a…",
// "type":"subagent",…}]); nil when the input has no such list.
func RunningTasks(in hookio.Input) []string {
	bt := in.Get("background_tasks")
	if !bt.IsArray() {
		return nil
	}
	listed := []string{}
	for _, t := range bt.Array() {
		if st := t.Get("status"); st.Exists() && st.String() != "running" {
			continue
		}
		if id := t.Get("id").String(); id != "" {
			listed = append(listed, id)
		}
	}
	return listed
}

// NoteStop records, at a stop, which of the session's background tasks
// have ended (BackgroundEnded, from the input's background_tasks).
func NoteStop(in hookio.Input, data string) {
	listed := RunningTasks(in)
	if listed == nil || data == "" || !hookio.ValidSessionID(in.SessionID()) {
		return
	}
	if runs, _, err := Runs(data, in.SessionID()); err == nil {
		BackgroundEnded(data, in.SessionID(), runs, listed, freshness.Now())
	}
}

// BackgroundWindows are the windows of the session's background tasks
// (nil when its run log cannot be read).
func BackgroundWindows(data, session string) []Window {
	runs, _, err := Runs(data, session)
	if err != nil {
		return nil
	}
	var out []Window
	for _, w := range Windows(runs) {
		if w.Background != "" {
			out = append(out, w)
		}
	}
	return out
}
