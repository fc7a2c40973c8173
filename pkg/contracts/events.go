package contracts

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/safefile"
)

// Event is one thing an unattended loop's leader wants to know without
// scraping panes: a permission dialog rodin answered for a worker, or a
// notification Claude Code sent.
type Event struct {
	Time    int64  `json:"t"` // unix ns
	Session string `json:"session"`
	Kind    string `json:"kind"` // permission_denied, notification
	Agent   string `json:"agent,omitempty"`
	AgentID string `json:"agent_id,omitempty"`
	Tool    string `json:"tool,omitempty"`
	Subject string `json:"subject,omitempty"` // the file or command the call was about
	Message string `json:"message,omitempty"`
	Type    string `json:"type,omitempty"` // a notification's type
}

// EventsDir is where events are kept, one JSON line each, per session.
func EventsDir(data string) string { return filepath.Join(data, "events") }

func appendEvent(getenv func(string) string, e Event) {
	data := evidence.DataDir(getenv)
	if data == "" || !hookio.ValidSessionID(e.Session) {
		return
	}
	b, err := json.Marshal(e)
	if err != nil || len(b) > 16<<10 {
		return
	}
	dir := EventsDir(data)
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	safefile.Append(filepath.Join(dir, e.Session+".jsonl"), append(b, '\n'), 0o600) // one write: lines of concurrent hooks do not mix
}

// subjectOf is what a tool call is about, briefly: its file or command.
func subjectOf(in hookio.Input) string {
	for _, k := range []string{"tool_input.file_path", "tool_input.command", "tool_input.url"} {
		if s, _, _ := in.Field(k); s != "" {
			if r := []rune(s); len(r) > 200 {
				s = string(r[:197]) + "..."
			}
			return s
		}
	}
	return ""
}

// PermissionRequest is the route for Claude Code's permission dialogs: one
// that would wait for a person while an unattended role works (contracts'
// "unattended") is answered with a deny and what to do, never an allow,
// and recorded for `rodin events`.
func PermissionRequest(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	c, _, _, err := active(in, getenv)
	if err != nil {
		// Whether the writer is unattended cannot be told: the dialog is
		// left to Claude Code (rodin never allows), and the user told.
		return hookio.PostOutcome{SystemMessage: unreadable(err)}
	}
	if c == nil {
		return hookio.PostOutcome{}
	}
	name, id := Writer(in)
	roles := c.RoleOf(name)
	if !slices.ContainsFunc(roles, func(r string) bool { return slices.Contains(c.Unattended, r) }) {
		return hookio.PostOutcome{}
	}
	tool := in.ToolName()
	msg := fmt.Sprintf("[rodin] %s runs unattended (role %s in %s), so nobody would answer this permission dialog for %s; rodin denied it rather than let the run wait. To fix: do the work with what is allowed, or stop and say what permission is needed; the leader sees this in `rodin events`.", name, strings.Join(roles, ", "), File, tool)
	appendEvent(getenv, Event{Time: time.Now().UnixNano(), Session: in.SessionID(), Kind: "permission_denied", Agent: name, AgentID: id, Tool: tool, Subject: subjectOf(in), Message: msg})
	return hookio.PostOutcome{DenyPermission: msg}
}

// Notification records what Claude Code notifies (a permission prompt, an
// idle session) for `rodin events`, in sessions with contracts.
func Notification(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	if c, _, _, err := active(in, getenv); c == nil && err == nil {
		return hookio.PostOutcome{}
	}
	name, id := Writer(in)
	kind, _, _ := in.Field("notification_type")
	msg, _, _ := in.Field("message")
	appendEvent(getenv, Event{Time: time.Now().UnixNano(), Session: in.SessionID(), Kind: "notification", Agent: name, AgentID: id, Type: kind, Message: msg})
	return hookio.PostOutcome{}
}
