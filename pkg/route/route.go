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
// (block once in a row). A fourth, artifacts (pkg/route/artifacts), runs
// for Writes and Edits of JSON files, where only the contracts have a say,
// without the Markdown parser the others link. How an input runs through a
// table is pkg/route/table. A fifth capability is one package and one line
// per event it sees.
package route

import (
	"io"
	"os"
	"time"

	"github.com/rodin-gate/rodin/internal/realpath"
	"github.com/rodin-gate/rodin/pkg/contracts"
	"github.com/rodin-gate/rodin/pkg/datadir"
	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/messages"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/plangate"
	"github.com/rodin-gate/rodin/pkg/route/table"
	"github.com/rodin-gate/rodin/pkg/verifygate"
)

// Route is one capability's part in an event (table.Route).
type Route[O any] = table.Route[O]

// PreToolUse is the pretooluse executable's table. The first deny wins;
// the notes of the others are joined.
var PreToolUse = []Route[hookio.PreOutcome]{
	{Match: "ExitPlanMode", Run: plangate.Gate},
	{Match: "Write|Edit|MultiEdit", Run: plangate.Guard},     // plan files
	{Match: "Write|Edit|MultiEdit", Run: verifygate.PreEdit}, // task files (a plan file may be one too)
	{Match: "Write|Edit|MultiEdit", Run: contracts.PreWrite}, // artifacts (JSON, Markdown)
	{Match: "SendMessage", Run: messages.PreSend},
	{Match: "Read", Run: datadir.PreRead},
	{Match: "Read", Run: plangate.PreReadInput}, // the critic's input file: written, and allowed to rodin's agents
}

// The posttooluse executable's tables, by event. Every route that matches
// runs; their notes are joined.
var (
	PostToolUse = []Route[hookio.PostOutcome]{
		{Match: "Write|Edit|MultiEdit", Run: plangate.Keep},
		{Match: "Write|Edit|MultiEdit", Run: verifygate.PostEdit}, // ticks a file tool made
		{Match: "Write|Edit|MultiEdit", Run: contracts.PostWrite}, // artifacts as written
		{Match: "ExitPlanMode", Run: plangate.Approved},           // the plan approved is the plan assessed
		{Match: "Read", Run: plangate.RecordRead},                 // the pages of its input file the critic was shown
		{Match: "Agent|Task", Run: plangate.RecordAgent},
		{Match: "Agent|Task", Run: verifygate.RecordAgent}, // a background subagent: the session's background task
		{Match: "Skill", Run: verifygate.RecordSkillShell}, // a skill's inline commands ran in its call (before 2.1.332 no hook sees them)
		{Match: "Bash", Run: verifygate.RecordBash},
		{Match: "Bash", Run: contracts.PostBash},         // artifacts a command wrote
		{Match: "Bash", Run: plangate.AfterRodinCommand}, // the skill's writes the sandbox keeps from Bash
	}
	PostToolUseFailure = []Route[hookio.PostOutcome]{
		{Match: "ExitPlanMode", Run: plangate.Thaw}, // the user said no: the plan may change again
		{Match: "Bash", Run: verifygate.RecordBash},
		{Match: "Bash", Run: contracts.PostBash},
	}
	// SubagentStopRecords records the answers of rodin's own subagents; the
	// stop executable's SubagentStop table blocks executors.
	SubagentStopRecords = []Route[hookio.PostOutcome]{
		{Match: "rodin:critic|rodin:validator|rodin:leakage-detector", Run: plangate.RecordStop},
		{Match: "rodin:qa-engineer", Run: verifygate.RecordQA},
	}
	UserPromptSubmit = []Route[hookio.PostOutcome]{
		{Match: "", Run: verifygate.LookAtPrompt}, // what the user wrote before typing is theirs
		{Match: "", Run: verifygate.WaiveFromPrompt},
		{Match: "", Run: plangate.Thaw},                 // a person typed: no approval dialog is open
		{Match: "", Run: verifygate.RecordSlashCommand}, // a slash command's inline shell commands run after it
	}
	// A dialog that would wait for a person, answered for unattended roles.
	PermissionRequest = []Route[hookio.PostOutcome]{
		{Match: "", Run: contracts.PermissionRequest},
	}
	Notification = []Route[hookio.PostOutcome]{
		{Match: "", Run: contracts.Notification},
	}
	// A skill's inline shell command, before it runs (2.1.332): recorded,
	// so that what it writes is the agent's; never evidence.
	PreSkillShellCommand = []Route[hookio.PostOutcome]{
		{Match: "", Run: verifygate.RecordSkillShell},
	}
)

// The stop executable's tables, by event. The first block wins.
var (
	Stop          = []Route[hookio.StopOutcome]{{Match: "", Run: verifygate.Stop}, {Match: "", Run: contracts.Stop}}
	TaskCompleted = []Route[hookio.StopOutcome]{{Match: "", Run: verifygate.Stop}, {Match: "", Run: contracts.Stop}}
	SubagentStop  = []Route[hookio.StopOutcome]{
		{Match: ".*executor.*", Run: verifygate.Stop},
		{Match: "", Run: contracts.Stop}, // any subagent that writes artifacts
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
	case "PreSkillShellCommand":
		return PreSkillShellCommand
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

// Matches reports whether a matcher admits name (table.Matches).
func Matches(matcher, name string) bool { return table.Matches(matcher, name) }

// MainPre is the pretooluse executable; its result is the exit code, 0 or 2.
func MainPre(stdin io.Reader, stdout, stderr io.Writer) int {
	hookio.TuneRuntime()
	defer realpath.Begin()()
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
	hookio.TuneRuntime()
	defer realpath.Begin()()
	planfile.SetSealKeyFunc(func() []byte { return evidence.SealKey(os.Getenv, true) })
	return hookio.RunPost(stdin, stdout, func(in hookio.Input) hookio.PostOutcome {
		return Post(in, os.Getenv)
	})
}

// MainStop is the stop executable: Stop, TaskCompleted, SubagentStop of an
// executor.
func MainStop(stdin io.Reader, stdout, stderr io.Writer) int {
	hookio.TuneRuntime()
	defer realpath.Begin()()
	return hookio.RunStopWithin(stdin, stdout, stderr, StopDeadline(os.Getenv), func(in hookio.Input) hookio.StopOutcome {
		if d, err := time.ParseDuration(os.Getenv("RODIN_TEST_STALL")); err == nil {
			time.Sleep(d) // a test seam: a hook that hangs (it can only make it block)
		}
		if os.Getenv("RODIN_TEST_CRASH") == "stop" {
			panic("RODIN_TEST_CRASH") // a test seam: a hook that crashes (it can only make it block)
		}
		return StopEvent(in, os.Getenv)
	})
}

// DefaultDeadline is how long a PreToolUse decision may take before the
// hook denies instead (table.DefaultDeadline).
const DefaultDeadline = table.DefaultDeadline

// DefaultStopDeadline is how long the stop executable may decide before it
// blocks instead: inside the 60 s timeout hooks.json gives it, past which
// Claude Code would let the stop through (it ignores onFailure there).
const DefaultStopDeadline = 50 * time.Second

// StopDeadline is DefaultStopDeadline, or RODIN_STOP_DEADLINE when that is
// shorter (tests): the setting can only make the hook block sooner.
func StopDeadline(getenv func(string) string) time.Duration {
	if d, err := time.ParseDuration(getenv("RODIN_STOP_DEADLINE")); err == nil && d > 0 && d < DefaultStopDeadline {
		return d
	}
	return DefaultStopDeadline
}

// Deadline is table.Deadline.
func Deadline(getenv func(string) string) time.Duration { return table.Deadline(getenv) }

// Pre decides a PreToolUse call by the PreToolUse table (table.Pre: an
// input without a tool name, or with two, is denied as malformed).
func Pre(in hookio.Input, getenv func(string) string) hookio.PreOutcome {
	return table.Pre(PreToolUse, in, getenv)
}

// Post runs the posttooluse executable's table for the input's event (an
// input without one is a PostToolUse).
func Post(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	return table.Post(postTable(in.HookEventName()), in, getenv)
}

// StopEvent runs the stop executable's table for the input's event (an
// input without one is a Stop).
func StopEvent(in hookio.Input, getenv func(string) string) hookio.StopOutcome {
	block, notes, ok := table.FirstDecision(stopTable(in.HookEventName()), table.Subject(in), in, getenv, func(o hookio.StopOutcome) (bool, string) { return o.Block, o.SystemMessage })
	if ok {
		return block
	}
	return hookio.StopOutcome{SystemMessage: notes}
}
