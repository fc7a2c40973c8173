package plangate

import (
	"fmt"
	"strings"

	"github.com/rodin-gate/rodin/pkg/claudecode"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/plansdir"
	"github.com/rodin-gate/rodin/pkg/project"
	"github.com/rodin-gate/rodin/pkg/provenance"
	"github.com/rodin-gate/rodin/pkg/safefile"
	"github.com/rodin-gate/rodin/pkg/sandbox"
)

const fix = " To fix: run /rodin:plan-gate."

func deny(format string, args ...any) hookio.PreOutcome {
	return hookio.Denial("[rodin] " + fmt.Sprintf(format, args...))
}

// malformedInput denies an input the gate cannot read as Claude Code's.
func malformedInput(what string) hookio.PreOutcome {
	return deny("The hook input is malformed: %s. To fix: update rodin (`rodin doctor`).", what)
}

// Gate is the PreToolUse route for ExitPlanMode: the hook input and the
// plan file it names (or the session's newest plan file) in, a decision
// out. It fails closed: the only outcomes are no decision (Claude Code
// shows the user its approval dialog) and deny; it never says allow.
func Gate(in hookio.Input, getenv func(string) string) hookio.PreOutcome {
	return noteOff(gate(in, getenv), getenv)
}

// noteOff adds to a deny of the plan gate that its provenance checks are
// off, when they are, so that nobody forgets.
func noteOff(out hookio.PreOutcome, getenv func(string) string) hookio.PreOutcome {
	if out.Deny && provenance.Off(getenv) {
		if i := strings.LastIndex(out.Reason, " To fix:"); i >= 0 {
			out.Reason = out.Reason[:i] + provenance.OffNote + out.Reason[i:]
		}
	}
	return out
}

func gate(in hookio.Input, getenv func(string) string) hookio.PreOutcome {
	if in.ToolName() != "ExitPlanMode" {
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

	var path, real string
	var data []byte
	if hasPath && planPath != "" {
		var err error
		real, err = plansdir.Resolve(planPath, dirs)
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
		path, real, data = plansdir.FindSession(dirs, session)
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
	// A signal no file tool's edit recorded (written through Bash, or
	// outside plan mode) is a verdict the hooks never weighed, and its text
	// is in none of the digests: the model would be handed it unassessed.
	if n := len(doc.Signals()); n > 0 {
		return deny("%s holds %s not yet recorded (the hooks record a signal at the next Write or Edit of the plan in plan mode), so its verdict is not the plan's, and the text of a signal line is never assessed. To fix: run /rodin:plan-gate (its edit of the plan records a signal), or delete the `<!-- rodin:verdict:signal=` %s to stand on the assessment as it was.", path, plural(n, "a verdict signal", "verdict signals"), plural(n, "line", "lines"))
	}
	// Claude Code sends the file's own text; only a text that differs needs
	// a parse of its own, and the text shown must be one the gate would
	// take as a file: hook-owned lines out of the digests carry no steps.
	if hasText && !planText.Equals(data) {
		shown := planfile.Parse([]byte(planText.String()))
		if shown.Malformed() || len(shown.Signals()) > 0 || shown.PlanDigest() != doc.PlanDigest() || shown.GapsDigest() != doc.GapsDigest() {
			return deny("The plan submitted for approval differs from %s, so it is not the plan that was assessed. To fix: call ExitPlanMode again with the plan file as it is; if it still differs, run /rodin:plan-gate.", path)
		}
	}
	// A plan assessed in another session is not this session's: its
	// evidence is that session's, and an old pass must not open this gate.
	if marker, session := doc.Trailer().Session, in.SessionID(); marker != "" && marker != session {
		return deny("%s belongs to another session (%s), so its assessment does not count here. To fix: edit the plan in this session (rodin then adopts it), then run /rodin:plan-gate.", path, marker)
	}
	out := decideStatus(doc, provenance.Checker(getenv, in.SessionID()))
	if !out.Deny {
		// The plan goes to the user's approval dialog: frozen until the
		// answer (freeze.go).
		if err := freeze(getenv, in.SessionID(), real, in.Get("tool_use_id").String(), doc); err != nil {
			return deny("rodin cannot record that %s goes to your approval dialog (%v), and without that record it cannot keep the plan from changing under the dialog. To fix: make rodin's data directory writable (`rodin doctor`), then call ExitPlanMode again.", path, err)
		}
	}
	return out
}

// decideStatus checks the recorded metadata against the plan as it stands,
// and, with check (nil when provenance is off), that a pass is backed by
// the critic and validator runs the hooks recorded.
func decideStatus(doc *planfile.Doc, check func(*planfile.Doc, string) (string, error)) hookio.PreOutcome {
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
	reason := v.Reason
	if check != nil {
		r, err := check(doc, v.Status)
		if err != nil {
			return deny("The pass verdict is not backed by the assessment runs rodin observed: %v.%s", err, fix)
		}
		reason = r
	}
	// The line is exactly what rodin writes, with the validator's own
	// reason: text added to it (a field of its own, a reason rewritten)
	// would reach the model in the approved plan unassessed (attack 69).
	if !planfile.OwnKeysOnly(t.Validation) || strings.Join(strings.Fields(v.Reason), " ") != strings.Join(strings.Fields(reason), " ") {
		return deny("The plan file's `rodin:validation` line is not the one rodin wrote: it holds more than rodin writes, or a reason that is not the validator's own.%s", fix)
	}
	return hookio.NoDecision
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
