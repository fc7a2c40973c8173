// Package messages keeps the messages the main agent sent to subagents
// (the SendMessage tool), so that a critic, validator or qa-engineer run
// that was told something after its prompt is known as such: its answer is
// not its own. The subagent's transcript says so too, but Claude Code
// writes transcripts behind, and a SubagentStop can come before the line.
//
// One JSON line per message, appended by the PreToolUse hook on
// SendMessage (before the message reaches the subagent), under the
// plugin's data directory.
package messages

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/safefile"
)

// Message is one SendMessage call.
type Message struct {
	Time int64  `json:"t"` // unix ns, before it was delivered
	To   string `json:"to"`
}

func path(data, session string) string {
	return filepath.Join(data, "messages", session+".jsonl")
}

// Record appends a message.
func Record(data, session, to string, at time.Time) error {
	line, err := json.Marshal(Message{Time: at.UnixNano(), To: to})
	if err != nil {
		return err
	}
	p := path(data, session)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	_, err = safefile.Append(p, append(line, '\n'), 0o600)
	return err
}

// maxMessages bounds what is read: a session sends few.
const maxMessages = 10000

// Told reports whether a subagent run (agent id, started at start, stopped
// at or before stop) may have been sent a message: one addressed to its id,
// or one addressed by a name (not an agent id, not "main") while it ran.
// A log that cannot be read says it may have been.
func Told(data, session, agent string, start, stop time.Time) bool {
	f, err := safefile.Open(path(data, session))
	if os.IsNotExist(err) {
		return false
	}
	if err != nil {
		return true
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 0; sc.Scan() && n < maxMessages; n++ {
		var m Message
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			return true
		}
		at := time.Unix(0, m.Time)
		switch {
		case m.To == agent:
			return true
		case m.To == "main" || looksLikeAgentID(m.To):
		case !at.Before(start) && !at.After(stop):
			return true // a name: it may be this run's
		}
	}
	return sc.Err() != nil
}

// looksLikeAgentID reports whether s is an agent id as Claude Code makes
// them ("a" and hex), so a message to it is to that agent only.
func looksLikeAgentID(s string) bool {
	if len(s) < 8 || s[0] != 'a' {
		return false
	}
	return strings.Trim(s[1:], "0123456789abcdef") == ""
}

// PreSend is the PreToolUse route for SendMessage: it notes the message
// before it is delivered, so that a critic, validator or qa-engineer run
// told something after its prompt is not evidence. It never decides: a
// message is the agent's to send.
func PreSend(in hookio.Input, getenv func(string) string) hookio.PreOutcome {
	data, session := evidence.DataDir(getenv), in.SessionID()
	to, _, _ := in.Field("tool_input.to")
	if data == "" || !planfile.ValidSessionID(session) {
		return hookio.NoDecision
	}
	Record(data, session, to, time.Now())
	return hookio.NoDecision
}
