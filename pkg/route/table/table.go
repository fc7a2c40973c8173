// Package table is how a hook input runs through a routing table: which
// routes see it (hooks.json's matcher syntax), in what order, and how their
// outcomes combine. It links no capability, so an executable that needs a
// few routes (the artifacts executable) links only those.
package table

import (
	"strconv"
	"strings"
	"time"

	"github.com/rodin-gate/rodin/pkg/hookio"
)

// Route is one capability's part in an event: the calls it sees and what
// it does with them.
type Route[O any] struct {
	// Match names the tools (tool events) or agent types (SubagentStop)
	// the route sees, in hooks.json's matcher syntax (`Write|Edit`,
	// `.*executor.*`); "" sees every call of the event.
	Match string
	Run   func(in hookio.Input, getenv func(string) string) O
}

// Subject is what an event's matcher is matched against: the tool, or the
// subagent's type.
func Subject(in hookio.Input) string {
	if in.HookEventName() == "SubagentStop" {
		agent, _, _ := in.Field("agent_type")
		return agent
	}
	return in.ToolName()
}

// Matches reports whether a matcher (hooks.json's syntax, as rodin uses it:
// names and `.*part.*` joined by `|`) admits name.
func Matches(matcher, name string) bool {
	if matcher == "" {
		return true
	}
	for _, alt := range strings.Split(matcher, "|") {
		if mid, ok := strings.CutPrefix(alt, ".*"); ok && strings.HasSuffix(mid, ".*") {
			if strings.Contains(name, strings.TrimSuffix(mid, ".*")) {
				return true
			}
		} else if alt == name {
			return true
		}
	}
	return false
}

// Each runs the routes of a table that see name, in order, handing each
// outcome to visit, until visit says to stop.
func Each[O any](table []Route[O], name string, in hookio.Input, getenv func(string) string, visit func(O) bool) {
	for _, r := range table {
		if Matches(r.Match, name) && !visit(r.Run(in, getenv)) {
			return
		}
	}
}

// FirstDecision runs a table's routes that see name until one decides
// (the first deny or block wins); otherwise it joins the others' notes.
func FirstDecision[O any](table []Route[O], name string, in hookio.Input, getenv func(string) string, read func(O) (decided bool, note string)) (O, string, bool) {
	var decision O
	var decided bool
	var notes []string
	Each(table, name, in, getenv, func(out O) bool {
		d, note := read(out)
		if d {
			decision, decided = out, true
			return false
		}
		if note != "" {
			notes = append(notes, note)
		}
		return true
	})
	return decision, strings.Join(notes, " "), decided
}

// malformed denies an input the hook cannot read as Claude Code's.
func malformed(what string) hookio.PreOutcome {
	return hookio.Denial("[rodin] The hook input is malformed: " + what + ". To fix: update rodin (`rodin doctor`).")
}

// Pre decides a PreToolUse call by a table. hooks.json starts the
// executables for named tools only, so an input without a tool name, or
// with two (parsers disagree on which wins), means the input changed
// shape: it denies rather than guess.
func Pre(table []Route[hookio.PreOutcome], in hookio.Input, getenv func(string) string) hookio.PreOutcome {
	tool, ok, err := in.Field("tool_name")
	switch {
	case err != nil:
		return malformed(err.Error())
	case !ok:
		return malformed("it has no tool_name")
	case in.TopLevelCount("tool_name") > 1:
		return malformed("tool_name appears " + strconv.Itoa(in.TopLevelCount("tool_name")) + " times")
	}
	allow := false
	deny, notes, ok := FirstDecision(table, tool, in, getenv, func(o hookio.PreOutcome) (bool, string) {
		allow = allow || o.Allow
		return o.Deny, o.SystemMessage
	})
	if ok {
		deny.Allow = false
		return deny
	}
	return hookio.PreOutcome{SystemMessage: notes, Allow: allow}
}

// Post runs every route of a table that sees the input and joins what
// they say: every block, every note, the first permission deny.
func Post(table []Route[hookio.PostOutcome], in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	var context, notes, blocks []string
	var denyPermission string
	Each(table, Subject(in), in, getenv, func(out hookio.PostOutcome) bool {
		if out.DenyPermission != "" && denyPermission == "" {
			denyPermission = out.DenyPermission
		}
		if out.Block {
			blocks = append(blocks, out.Reason)
		}
		if out.Context != "" {
			context = append(context, out.Context)
		}
		if out.SystemMessage != "" {
			notes = append(notes, out.SystemMessage)
		}
		return true
	})
	return hookio.PostOutcome{Context: strings.Join(context, "\n"), SystemMessage: strings.Join(notes, " "),
		Block: len(blocks) > 0, Reason: strings.Join(blocks, " "), DenyPermission: denyPermission}
}

// DefaultDeadline is how long a PreToolUse decision may take before the
// hook denies instead: far inside the 30 s timeout hooks.json gives it, and
// far above what a 16 MiB plan costs (about a second).
const DefaultDeadline = 10 * time.Second

// Deadline is DefaultDeadline, or RODIN_GATE_DEADLINE when that is shorter
// (tests): a longer one is ignored, so the setting can only make the hook
// deny sooner.
func Deadline(getenv func(string) string) time.Duration {
	if d, err := time.ParseDuration(getenv("RODIN_GATE_DEADLINE")); err == nil && d > 0 && d < DefaultDeadline {
		return d
	}
	return DefaultDeadline
}
