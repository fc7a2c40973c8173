package verifygate

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/sjson"

	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rodin-gate/rodin/pkg/project"
)

// A session whose Claude Code was killed (a loop's timeout, `kill`, a
// crash) never reaches its stop: a box its agent ticked without passing
// checks, blocked right after the command, would be taken by the next
// session as ticked before it began. The hook that marks such a box notes
// which Claude Code process ran it; a later session's start that finds
// that process gone finishes the stop the session never reached: the
// box is judged with that session's own evidence (a check it ran after
// the tick still makes it good) and unticked when it is still bad, as its
// stop would have. A box someone changed since (the user in an editor) is
// theirs, as at any stop.

// clientID names the Claude Code process that started this hook (its
// parent): its pid and its start time, which a new process with the same
// pid does not share. "" where /proc does not tell (the check is then not
// made).
func clientID() string {
	ppid := os.Getppid()
	if start := procStart(ppid); start != "" {
		return strconv.Itoa(ppid) + " " + start
	}
	return ""
}

// procStart is field 22 of /proc/PID/stat (start time in clock ticks
// since boot), "" when it cannot be read.
func procStart(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	i := bytes.LastIndexByte(b, ')') // the command's name may hold spaces
	if i < 0 {
		return ""
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return ""
	}
	return f[19] // fields 3.. after the name: 22 is the 20th
}

// gone reports whether the client a record names has ended.
func gone(client string) bool {
	pid, start, ok := strings.Cut(client, " ")
	if !ok {
		return false
	}
	n, err := strconv.Atoi(pid)
	if err != nil || n <= 0 {
		return false
	}
	return procStart(n) != start
}

// endedWithin bounds the earlier sessions FinishEnded looks at: the
// project's newest records, changed in the last two days.
const (
	endedWithin = 48 * time.Hour
	endedMax    = 32  // of this project's
	endedRead   = 512 // of all projects'
)

// FinishEnded finishes the stops of this project's earlier sessions that
// ended without one (see above), as a new session begins: it returns what
// it unticked, for the session's start to say, "" when nothing.
func FinishEnded(getenv func(string) string, session, cwd string) string {
	data := evidence.DataDir(getenv)
	root := project.Root(getenv, cwd)
	if data == "" || root == "" || Off(getenv) {
		return ""
	}
	// A session resumed (`claude --resume`, a loop that resumes) runs in
	// a new Claude Code: its record names that one from now on, so that
	// another session's start does not take it for ended.
	if st, err := loadTicks(data, session); err == nil && st != nil && st.client != "" {
		if c := clientID(); c != "" && c != st.client {
			updateTicks(data, session, func(st *tickState) error {
				st.client = c
				return nil
			})
		}
	}
	entries, err := os.ReadDir(ledger.Dir(data))
	if err != nil {
		return ""
	}
	type rec struct {
		id  string
		mod time.Time
	}
	var recs []rec
	now := time.Now()
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".ticks")
		if !ok || id == session || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) < endedWithin {
			recs = append(recs, rec{id, fi.ModTime()})
		}
	}
	slices.SortFunc(recs, func(a, b rec) int { return b.mod.Compare(a.mod) })
	var said []string
	mine := 0 // this project's records looked at
	for i, r := range recs {
		if mine == endedMax || i == endedRead {
			break
		}
		st, err := loadTicks(data, r.id)
		if err != nil || st == nil || st.root != root {
			continue
		}
		if mine++; st.client == "" || !gone(st.client) {
			continue
		}
		if !st.outstanding() {
			continue
		}
		// It ended after its last record: its background tasks ended with
		// it (a change since is not its agent's), and its stop judges the
		// files as they stood then (a user's edit since does not make a
		// check it passed stale).
		// Its last run's record (the file of its boxes is written again by
		// a start that tries its stop, which is no time of its own).
		var end time.Time
		runs, _, err := ledger.Runs(data, r.id)
		for _, x := range runs {
			if t := time.Unix(0, x.Time).Add(ledger.Slack); t.After(end) {
				end = t
			}
		}
		if end.IsZero() {
			end = r.mod
		}
		if err == nil {
			ledger.BackgroundEnded(data, r.id, runs, []string{}, end)
		}
		in, _ := sjson.SetBytes([]byte(`{"hook_event_name":"Stop","stop_hook_active":true}`), "session_id", r.id)
		in, _ = sjson.SetBytes(in, "cwd", root)
		out := stop(hookio.NewInput(in), getenv, end)
		updateTicks(data, r.id, func(st *tickState) error {
			if !st.outstanding() {
				st.client = "" // finished: not again (a box it could not untick is tried again at the next start)
			}
			return nil
		})
		if out.SystemMessage != "" {
			msg := strings.TrimSuffix(strings.TrimPrefix(out.SystemMessage, "[rodin] "), ".")
			msg = strings.Replace(msg, " rodin blocked this stop once already, so it lets it through and has unticked ", " rodin has unticked ", 1)
			msg = strings.ReplaceAll(msg, " in this session", " in that session")
			said = append(said, "a session of this project ended without its stop (its Claude Code is gone), so rodin finished it: "+msg)
		}
	}
	return strings.Join(said, " ")
}
