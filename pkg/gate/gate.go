// Package gate is the PreToolUse hook on ExitPlanMode: it denies leaving
// plan mode until a passing verdict matches the plan exactly as it stands
// (SPEC section 5).
//
// It fails closed. The only outcomes are no decision (Claude Code shows the
// user its approval dialog) and deny; it never says allow. Unreadable input,
// an unreadable plan file and a panic all deny.
package gate

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rodin-gate/rodin/pkg/claudecode"
	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/guard"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/messages"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/plansdir"
	"github.com/rodin-gate/rodin/pkg/project"
	"github.com/rodin-gate/rodin/pkg/provenance"
	"github.com/rodin-gate/rodin/pkg/safefile"
	"github.com/rodin-gate/rodin/pkg/sandbox"
	"github.com/rodin-gate/rodin/pkg/verifygate"
)

// Main runs the hook; its result is the process exit code, 0 or 2.
func Main(stdin io.Reader, stdout, stderr io.Writer) int {
	hookio.TuneGC()
	planfile.SetSealKeyFunc(func() []byte { return evidence.SealKey(os.Getenv, false) })
	return hookio.RunPre(stdin, stdout, stderr, Deadline(os.Getenv), func(in hookio.Input) hookio.PreOutcome {
		if d, err := time.ParseDuration(os.Getenv("RODIN_TEST_STALL")); err == nil {
			time.Sleep(d) // a test seam: a gate that hangs (it can only make the gate deny)
		}
		return Decide(in, os.Getenv)
	})
}

// DefaultDeadline is how long the gate may take before it denies instead:
// far inside the 30 s timeout hooks.json gives it, and far above what a
// 16 MiB plan costs (about a second).
const DefaultDeadline = 10 * time.Second

// Deadline is DefaultDeadline, or RODIN_GATE_DEADLINE when that is shorter
// (tests): a longer one is ignored, so the setting can only make the gate
// deny sooner.
func Deadline(getenv func(string) string) time.Duration {
	if d, err := time.ParseDuration(getenv("RODIN_GATE_DEADLINE")); err == nil && d > 0 && d < DefaultDeadline {
		return d
	}
	return DefaultDeadline
}

const fix = " To fix: run /rodin:plan-gate."

func deny(format string, args ...any) hookio.PreOutcome {
	return hookio.Denial("[rodin] " + fmt.Sprintf(format, args...))
}

// malformedInput denies an input the gate cannot read as Claude Code's.
func malformedInput(what string) hookio.PreOutcome {
	return deny("The hook input is malformed: %s. To fix: update rodin (`rodin doctor`).", what)
}

// Decide is the gate: the hook input and the plan file it names (or the
// session's newest plan file) in, a decision out.
func Decide(in hookio.Input, getenv func(string) string) hookio.PreOutcome {
	out := decide(in, getenv)
	if out.Deny && provenance.Off(getenv) {
		// Every deny says the checks are off, so that nobody forgets.
		if i := strings.LastIndex(out.Reason, " To fix:"); i >= 0 {
			out.Reason = out.Reason[:i] + provenance.OffNote + out.Reason[i:]
		}
	}
	return out
}

func decide(in hookio.Input, getenv func(string) string) hookio.PreOutcome {
	tool, ok, err := in.Field("tool_name")
	if err != nil {
		return malformedInput(err.Error())
	}
	if !ok {
		// The hook is registered for ExitPlanMode only: an input without a
		// tool name means the input changed shape, and the gate cannot tell.
		return malformedInput("it has no tool_name")
	}
	if n := in.TopLevelCount("tool_name"); n > 1 {
		// Parsers disagree on duplicate keys (first or last wins); the gate
		// does not guess which tool this is.
		return malformedInput(fmt.Sprintf("tool_name appears %d times", n))
	}
	if guard.Guards(tool) {
		// A plan file is the guard's; any Markdown file may be a task
		// file, the verify gate's, a plan file in a plans directory too:
		// both judge it, and a deny of either stands.
		if getenv("RODIN_GATE") != "off" {
			if out, planFile := guard.Decide(in, getenv); planFile && out.Deny {
				return out
			}
		}
		return verifygate.PreEdit(in, getenv)
	}
	if tool == "SendMessage" {
		recordMessage(in, getenv)
		return hookio.NoDecision
	}
	if tool == "Read" {
		return guardDataRead(in, getenv)
	}
	if tool != "ExitPlanMode" {
		return hookio.NoDecision
	}
	if getenv("RODIN_GATE") == "off" {
		return hookio.PreOutcome{SystemMessage: "[rodin] The plan gate is off (RODIN_GATE=off): ExitPlanMode was not checked."}
	}
	if why := sandbox.StrictDenial(getenv, project.Root(getenv, in.Cwd()), in.PermissionMode(), "the plan gate denies leaving plan mode"); why != "" {
		return deny("%s", why)
	}
	if v := claudecode.Version(getenv); !claudecode.Supported(v) {
		return deny("This Claude Code (%s) is older than %s, the oldest release rodin supports: on it a hook that fails or hangs lets ExitPlanMode through, so the gate denies instead. To fix: update Claude Code (`claude update`), or set RODIN_GATE=off to leave plans unchecked.", v, claudecode.MinVersion)
	}
	input, _, err := in.Object("tool_input")
	if err != nil {
		return malformedInput(err.Error())
	}
	planPath, hasPath, err := input.Field("planFilePath")
	if err != nil {
		return malformedInput(err.Error())
	}
	planText, hasText, err := input.StringField("plan")
	if err != nil {
		return malformedInput(err.Error())
	}
	dirs := plansdir.Dirs(plansdir.Env{Getenv: getenv, Cwd: in.Cwd()})

	var path string
	var data []byte
	if hasPath && planPath != "" {
		real, err := plansdir.Resolve(planPath, dirs)
		if err != nil {
			return deny("The plan file is not one rodin looks after: %v. To fix: keep the plan in a plans directory (see plansDirectory, RODIN_PLANS_DIR), then run /rodin:plan-gate.", err)
		}
		path = planPath
		if data, err = safefile.ReadFile(real, planfile.MaxSize); err != nil {
			return deny("Cannot read the plan file: %v.%s", err, fix)
		}
	} else {
		session := in.SessionID()
		if !planfile.ValidSessionID(session) {
			return deny("No assessment found for this session: the hook input has no usable session_id and no planFilePath.%s", fix)
		}
		path, _, data = plansdir.FindSession(dirs, session)
		if path == "" {
			return deny("No assessment found for this session: no plan file in %s carries its session marker.%s", strings.Join(dirs, ", "), fix)
		}
	}

	doc := planfile.Parse(data)
	if doc.Malformed() {
		return deny("The rodin markers in %s are malformed: %s. To fix: correct the markers, then run /rodin:plan-gate.", path, doc.ProblemSummary())
	}
	// The critic is shown the plan without its gaps block: anything but gap
	// entries there (plan steps above all) would pass unreviewed, whether
	// or not the skill's `rodin check` step ran.
	if stray := doc.StrayGapsLines(); len(stray) > 0 {
		more := ""
		if len(stray) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(stray)-1)
		}
		return deny("The gaps block of %s holds more than gap entries: %s%s. The critic never sees the gaps block, so anything there is unreviewed. To fix: move it above `<!-- rodin:gaps:start -->` (each gap is `### GAP-<n>: <title>` with its Severity and Description items), then run /rodin:plan-gate.", path, stray[0], more)
	}
	// Claude Code sends the file's own text; only a text that differs needs
	// a parse of its own.
	if hasText && !planText.Equals(data) {
		shown := planfile.Parse([]byte(planText.String()))
		if shown.PlanDigest() != doc.PlanDigest() || shown.GapsDigest() != doc.GapsDigest() {
			return deny("The plan submitted for approval differs from %s, so it is not the plan that was assessed. To fix: call ExitPlanMode again with the plan file as it is; if it still differs, run /rodin:plan-gate.", path)
		}
	}
	// A plan assessed in another session is not this session's: its
	// evidence is that session's, and an old pass must not open this gate.
	if marker, session := doc.Trailer().Session, in.SessionID(); marker != "" && marker != session {
		return deny("%s belongs to another session (%s), so its assessment does not count here. To fix: edit the plan in this session (rodin then adopts it), then run /rodin:plan-gate.", path, marker)
	}
	return decideStatus(doc, provenance.Checker(getenv, in.SessionID()))
}

// decideStatus checks the recorded metadata against the plan as it stands,
// and, with check (nil when provenance is off), that a pass is backed by
// the critic and validator runs the hooks recorded.
func decideStatus(doc *planfile.Doc, check func(*planfile.Doc, string) error) hookio.PreOutcome {
	t := doc.Trailer()
	switch {
	case t.Session == "":
		return deny("The plan file has no session marker, so it has never been assessed.%s", fix)
	case t.PlanHash == "":
		return deny("The plan file has no `rodin:plan:hash` line, so no assessment can be matched to it.%s", fix)
	case t.GapsHash == "":
		return deny("The plan file has no `rodin:gaps:hash` line, so no assessment can be matched to it.%s", fix)
	case t.Validation == "":
		return deny("The plan file has no `rodin:validation` line, so it has no verdict.%s", fix)
	}
	v, _ := planfile.ParseValidation(t.Validation) // well formed: the doc is not malformed
	switch v.Status {
	case planfile.StatusPending:
		return deny("Assessment pending: %s.%s", strings.TrimSuffix(v.Reason, "."), fix)
	case planfile.StatusPass, planfile.StatusFail:
	default:
		return deny("Unexpected validation status %q.%s", v.Status, fix)
	}
	if changed := doc.Changed(); changed != "" {
		return deny("%s.%s", changed, fix)
	}
	if v.Status == planfile.StatusFail {
		return deny("Assessment failed: %s. To fix: update the gaps block to cover the findings, then run /rodin:plan-gate.", strings.TrimSuffix(v.Reason, "."))
	}
	if check != nil {
		if err := check(doc, v.Status); err != nil {
			return deny("The pass verdict is not backed by the assessment runs rodin observed: %v.%s", err, fix)
		}
	}
	return hookio.NoDecision
}

// recordMessage notes a SendMessage before it is delivered: a critic,
// validator or qa-engineer run told something after its prompt is not
// evidence (pkg/messages). It never decides: a message is the agent's to
// send.
func recordMessage(in hookio.Input, getenv func(string) string) {
	data, session := evidence.DataDir(getenv), in.SessionID()
	to, _, _ := in.Field("tool_input.to")
	if data == "" || !planfile.ValidSessionID(session) {
		return
	}
	messages.Record(data, session, to, time.Now())
}

// guardDataRead denies a Read of rodin's data directory (the evidence, the
// run logs, the waivers, the seal key) in every mode: plan mode lets a Read
// there through without asking, and an agent that has read seal.key can
// seal a plan it wrote. hooks.json starts this only for paths under the
// data directories (`if`), so no other Read starts a process.
func guardDataRead(in hookio.Input, getenv func(string) string) hookio.PreOutcome {
	path, _, err := in.Field("tool_input.file_path")
	if err != nil || path == "" {
		return hookio.NoDecision // the tool refuses it itself
	}
	real := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		real = r
	}
	for _, dir := range []string{evidence.DataDir(getenv), filepath.Join(getenv("HOME"), ".cache", "rodin")} {
		if dir == "" {
			continue
		}
		if d, err := filepath.EvalSymlinks(dir); err == nil {
			dir = d
		}
		if real == dir || strings.HasPrefix(real, dir+string(filepath.Separator)) {
			return deny("%s is in rodin's data directory (%s), which holds the gates' evidence and keys: no tool reads it. To fix: use `rodin status` or `rodin tasks` to see what rodin recorded.", path, dir)
		}
	}
	return hookio.NoDecision
}
