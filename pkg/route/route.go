// Package route is where a hook input becomes a decision: for each hook
// event, one table of which capability sees which tool or agent, in order,
// and how their outcomes combine. hooks.json says the same in its matchers
// (TestTablesMatchHooksJSON keeps them together); each capability is a
// package of routes that return "no decision" fast for calls that are not
// their business:
//
//   - pkg/plangate: the plan gate (ExitPlanMode, plan files, critic and
//     validator runs)
//   - pkg/verifygate: the verify gate (task files, Bash outcomes,
//     qa-engineer runs, stops, waivers)
//   - pkg/contracts: artifact contracts (what agents hand each other)
//   - pkg/messages: messages sent to subagents (first answers only)
//   - pkg/datadir: rodin's data directory is not for reading
//
// Three executables run the tables, one per kind of outcome Claude Code
// reads: pretooluse (deny or no decision), posttooluse (notes) and stop
// (block once in a row). A fifth capability is one package and one line per
// event it sees.
package route

import (
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rodin-gate/rodin/pkg/contracts"
	"github.com/rodin-gate/rodin/pkg/datadir"
	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/messages"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/plangate"
	"github.com/rodin-gate/rodin/pkg/verifygate"
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

// PreToolUse is the pretooluse executable's table. The first deny wins;
// the notes of the others are joined.
var PreToolUse = []Route[hookio.PreOutcome]{
	{"ExitPlanMode", plangate.Gate},
	{"Write|Edit|MultiEdit", plangate.Guard},     // plan files
	{"Write|Edit|MultiEdit", verifygate.PreEdit}, // task files (a plan file may be one too)
	{"Write|Edit|MultiEdit", contracts.PreWrite}, // artifacts (JSON, Markdown)
	{"SendMessage", messages.PreSend},
	{"Read", datadir.PreRead},
}

// The posttooluse executable's tables, by event. Every route that matches
// runs; their notes are joined.
var (
	PostToolUse = []Route[hookio.PostOutcome]{
		{"Write|Edit|MultiEdit", plangate.Keep},
		{"Write|Edit|MultiEdit", contracts.PostWrite}, // artifacts as written
		{"Agent|Task", plangate.RecordAgent},
		{"Bash", verifygate.RecordBash},
		{"Bash", contracts.PostBash}, // artifacts a command wrote
	}
	PostToolUseFailure = []Route[hookio.PostOutcome]{
		{"Bash", verifygate.RecordBash},
		{"Bash", contracts.PostBash},
	}
	// SubagentStopRecords records the answers of rodin's own subagents; the
	// stop executable's SubagentStop table blocks executors.
	SubagentStopRecords = []Route[hookio.PostOutcome]{
		{"rodin:critic|rodin:validator|rodin:leakage-detector", plangate.RecordStop},
		{"rodin:qa-engineer", verifygate.RecordQA},
	}
	UserPromptSubmit = []Route[hookio.PostOutcome]{
		{"", verifygate.WaiveFromPrompt},
	}
	// A dialog that would wait for a person, answered for unattended roles.
	PermissionRequest = []Route[hookio.PostOutcome]{
		{"", contracts.PermissionRequest},
	}
	Notification = []Route[hookio.PostOutcome]{
		{"", contracts.Notification},
	}
)

// The stop executable's tables, by event. The first block wins.
var (
	Stop          = []Route[hookio.StopOutcome]{{"", verifygate.Stop}, {"", contracts.Stop}}
	TaskCompleted = []Route[hookio.StopOutcome]{{"", verifygate.Stop}, {"", contracts.Stop}}
	SubagentStop  = []Route[hookio.StopOutcome]{
		{".*executor.*", verifygate.Stop},
		{"", contracts.Stop}, // any subagent that writes artifacts
	}
)

// postTable and stopTable pick an executable's table by hook_event_name
// (switches, not maps: a map would be built at start, and link every
// table's routes into every executable).
func postTable(event string) []Route[hookio.PostOutcome] {
	switch event {
	case "PostToolUse", "": // an input without an event is a PostToolUse
		return PostToolUse
	case "PostToolUseFailure":
		return PostToolUseFailure
	case "SubagentStop":
		return SubagentStopRecords
	case "UserPromptSubmit":
		return UserPromptSubmit
	case "PermissionRequest":
		return PermissionRequest
	case "Notification":
		return Notification
	}
	return nil
}

func stopTable(event string) []Route[hookio.StopOutcome] {
	switch event {
	case "TaskCompleted":
		return TaskCompleted
	case "SubagentStop":
		return SubagentStop
	}
	return Stop // Stop, and an input without an event
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

// subject is what an event's matcher is matched against: the tool, or the
// subagent's type.
func subject(in hookio.Input) string {
	if in.HookEventName() == "SubagentStop" {
		agent, _, _ := in.Field("agent_type")
		return agent
	}
	return in.ToolName()
}

// MainPre is the pretooluse executable; its result is the exit code, 0 or 2.
func MainPre(stdin io.Reader, stdout, stderr io.Writer) int {
	hookio.TuneGC()
	planfile.SetSealKeyFunc(func() []byte { return evidence.SealKey(os.Getenv, false) })
	return hookio.RunPre(stdin, stdout, stderr, Deadline(os.Getenv), func(in hookio.Input) hookio.PreOutcome {
		if d, err := time.ParseDuration(os.Getenv("RODIN_TEST_STALL")); err == nil {
			time.Sleep(d) // a test seam: a hook that hangs (it can only make it deny)
		}
		return Pre(in, os.Getenv)
	})
}

// MainPost is the posttooluse executable; it always exits 0.
func MainPost(stdin io.Reader, stdout, stderr io.Writer) int {
	hookio.TuneGC()
	planfile.SetSealKeyFunc(func() []byte { return evidence.SealKey(os.Getenv, true) })
	return hookio.RunPost(stdin, stdout, func(in hookio.Input) hookio.PostOutcome {
		return Post(in, os.Getenv)
	})
}

// MainStop is the stop executable: Stop, TaskCompleted, SubagentStop of an
// executor.
func MainStop(stdin io.Reader, stdout, stderr io.Writer) int {
	hookio.TuneGC()
	return hookio.RunStop(stdin, stdout, stderr, func(in hookio.Input) hookio.StopOutcome {
		return StopEvent(in, os.Getenv)
	})
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

// malformed denies an input the hook cannot read as Claude Code's.
func malformed(what string) hookio.PreOutcome {
	return hookio.Denial("[rodin] The hook input is malformed: " + what + ". To fix: update rodin (`rodin doctor`).")
}

// Pre decides a PreToolUse call by the PreToolUse table. hooks.json starts
// the executable for named tools only, so an input without a tool name, or
// with two (parsers disagree on which wins), means the input changed
// shape: it denies rather than guess.
func Pre(in hookio.Input, getenv func(string) string) hookio.PreOutcome {
	tool, ok, err := in.Field("tool_name")
	switch {
	case err != nil:
		return malformed(err.Error())
	case !ok:
		return malformed("it has no tool_name")
	case in.TopLevelCount("tool_name") > 1:
		return malformed("tool_name appears " + strconv.Itoa(in.TopLevelCount("tool_name")) + " times")
	}
	deny, notes, ok := firstDecision(PreToolUse, tool, in, getenv, func(o hookio.PreOutcome) (bool, string) { return o.Deny, o.SystemMessage })
	if ok {
		return deny
	}
	return hookio.PreOutcome{SystemMessage: notes}
}

// firstDecision runs a table's routes that see name until one decides
// (the first deny or block wins); otherwise it joins the others' notes.
func firstDecision[O any](table []Route[O], name string, in hookio.Input, getenv func(string) string, read func(O) (decided bool, note string)) (O, string, bool) {
	var decision O
	var decided bool
	var notes []string
	each(table, name, in, getenv, func(out O) bool {
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

// each runs the routes of a table that see name, in order, handing each
// outcome to visit, until visit says to stop.
func each[O any](table []Route[O], name string, in hookio.Input, getenv func(string) string, visit func(O) bool) {
	for _, r := range table {
		if Matches(r.Match, name) && !visit(r.Run(in, getenv)) {
			return
		}
	}
}

// Post runs the posttooluse executable's table for the input's event (an
// input without one is a PostToolUse).
func Post(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	var context, notes, blocks []string
	var denyPermission string
	each(postTable(in.HookEventName()), subject(in), in, getenv, func(out hookio.PostOutcome) bool {
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

// StopEvent runs the stop executable's table for the input's event (an
// input without one is a Stop).
func StopEvent(in hookio.Input, getenv func(string) string) hookio.StopOutcome {
	block, notes, ok := firstDecision(stopTable(in.HookEventName()), subject(in), in, getenv, func(o hookio.StopOutcome) (bool, string) { return o.Block, o.SystemMessage })
	if ok {
		return block
	}
	return hookio.StopOutcome{SystemMessage: notes}
}
