package plangate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/safefile"
	"github.com/rodin-gate/rodin/pkg/transcript"
)

// Between the gate's "no decision" and the user's answer, the plan file is
// frozen (SPEC 5a): the user reads the text the gate let through, and on
// approval Claude Code hands the model the plan read from the file again.
// An edit in between (a background subagent's, say) would be approved
// unseen. So the gate records what it let through, the guard denies every
// file-tool edit of that plan while the call is unanswered, and the
// ExitPlanMode result is checked against the digests that were assessed.
//
// The record is one small file per session in the plugin's data directory:
// the plan's real path, its two digests and the ExitPlanMode call's id. The
// call counts as answered at the main thread's next call of a file tool
// (the main thread waits on the dialog), or once the session's transcript
// holds its result; the record goes at ExitPlanMode's PostToolUse or
// failure, and at the user's next prompt.

// frozen is the gate's record of the plan in the approval dialog.
type frozen struct {
	path, plan, gaps, call string
	validation             string // the sum of the verdict line the gate let through
}

const frozenMagic = "rodin frozen 2"

// validationSum sums a plan's `rodin:validation` value: a line of the file
// the user is shown, which no digest covers.
func validationSum(d *planfile.Doc) string { return planfile.Digest([]byte(d.Trailer().Validation)) }

// frozenPath is the session's record, "" without a data directory or a
// usable session id.
func frozenPath(getenv func(string) string, session string) string {
	data := evidence.DataDir(getenv)
	if data == "" || !planfile.ValidSessionID(session) {
		return ""
	}
	return filepath.Join(data, "plangate", session+".frozen")
}

// freeze records that the plan at real (as doc reads it) went to the
// user's approval dialog by the call id. Without a data directory there is
// nothing to record in, and nothing to freeze with; without a call id
// (`rodin status` asks the gate what it would decide) there is no dialog.
func freeze(getenv func(string) string, session, real, call string, doc *planfile.Doc) error {
	p := frozenPath(getenv, session)
	if p == "" || call == "" {
		return nil
	}
	text := strings.Join([]string{frozenMagic, real, doc.PlanDigest(), doc.GapsDigest(), call, validationSum(doc)}, "\n") + "\n"
	if have, err := safefile.ReadFile(p, 64<<10); err == nil && string(have) == text {
		return nil // the same call asked again
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	// Not flushed to disk: the gate answers in about a millisecond, and a
	// record a crash left empty reads as damaged, which keeps the plan as
	// it is until the user's next message.
	return safefile.WriteAtomicNoSync(p, []byte(text), 0o600)
}

// readFrozen is the session's record; ok is false when there is none. A
// record that cannot be read or parsed is an error (the guard then denies).
func readFrozen(getenv func(string) string, session string) (f frozen, ok bool, err error) {
	p := frozenPath(getenv, session)
	if p == "" {
		return f, false, nil
	}
	b, err := safefile.ReadFile(p, 64<<10)
	if safefile.IsNotExist(err) {
		return f, false, nil
	}
	if err != nil {
		return f, true, err
	}
	fields := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(fields) != 6 || fields[0] != frozenMagic {
		return f, true, fmt.Errorf("%s is damaged", p)
	}
	return frozen{path: fields[1], plan: fields[2], gaps: fields[3], call: fields[4], validation: fields[5]}, true, nil
}

// thaw removes the session's record.
func thaw(getenv func(string) string, session string) {
	if p := frozenPath(getenv, session); p != "" {
		os.Remove(p)
	}
}

// frozenDenial is the guard's answer for an edit of the plan file real
// while the session's ExitPlanMode call waits for the user: a deny, or no
// decision when the plan is not frozen.
func frozenDenial(in hookio.Input, getenv func(string) string, real, shown string) (hookio.PreOutcome, bool) {
	f, ok, err := readFrozen(getenv, in.SessionID())
	switch {
	case !ok:
		return hookio.NoDecision, false
	case err != nil:
		return deny("rodin cannot read its record of the plan in the approval dialog (%v), so it keeps %s as the user sees it. To fix: answer the approval dialog, or send any message (that ends the freeze).", err, shown), true
	case f.path != real:
		return hookio.NoDecision, false
	}
	// The main thread waits on the dialog: a call of its own means the
	// user has answered (Claude Code writes the answer to the transcript a
	// little later, so the transcript cannot tell it yet). Only subagents,
	// background ones above all, act while the dialog is open.
	if agent, _, _ := in.Field("agent_id"); agent == "" {
		thaw(getenv, in.SessionID())
		return hookio.NoDecision, false
	}
	if answered, _ := transcript.Answered(in.Get("transcript_path").String(), f.call); answered {
		thaw(getenv, in.SessionID())
		return hookio.NoDecision, false
	}
	return deny("%s is in the user's approval dialog (ExitPlanMode), so it cannot change until the user answers: the plan approved must be the plan assessed. To fix: wait for the user's answer; to change the plan, have the user reject it (or send a message), then edit it and run /rodin:plan-gate again.", shown), true
}

// Thaw is the route for the events that end the approval dialog for sure:
// ExitPlanMode's failure (the user said no) and the user's next prompt.
func Thaw(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	thaw(getenv, in.SessionID())
	return hookio.PostOutcome{}
}

// Approved is the PostToolUse route for ExitPlanMode: the plan the user
// approved, as Claude Code hands it to the model (read from the file at
// approval), must be the plan that was assessed. A plan changed under the
// open dialog is said to the model (a block: the call has happened) and to
// the user; an edit the user made in the approval step (planWasEdited) is
// the user's own, and only noted.
func Approved(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	f, ok, err := readFrozen(getenv, in.SessionID())
	thaw(getenv, in.SessionID())
	if !ok {
		return hookio.PostOutcome{}
	}
	const loud = "[rodin] The plan approved is not the plan rodin assessed"
	if err != nil {
		return hookio.PostOutcome{Block: true, Reason: fmt.Sprintf("[rodin] rodin cannot confirm that the plan approved is the plan it assessed: %v. Treat the approved plan as unassessed: tell the user, and run /rodin:plan-gate again before acting on it.", err),
			SystemMessage: "[rodin] rodin could not confirm that the plan you approved is the plan it assessed."}
	}
	var text string
	if s := in.Get("tool_response.plan"); s.Type == 0 || s.String() == "" {
		b, err := safefile.ReadFile(f.path, planfile.MaxSize)
		if err != nil {
			return hookio.PostOutcome{Block: true, Reason: fmt.Sprintf("%s: it cannot read %s (%v). Stop, tell the user, and run /rodin:plan-gate again before acting on it.", loud, f.path, err),
				SystemMessage: loud + ": the plan file could not be read after approval."}
		}
		text = string(b)
	} else {
		text = s.String()
	}
	d := planfile.Parse([]byte(text))
	if d.PlanDigest() == f.plan && d.GapsDigest() == f.gaps {
		if validationSum(d) == f.validation {
			return hookio.PostOutcome{}
		}
		return hookio.PostOutcome{Block: true, Reason: loud + ": its `rodin:validation` line changed after rodin's gate let it through (text there reached you unassessed). Stop, tell the user, and run /rodin:plan-gate again before acting on it.",
			SystemMessage: loud + ": its verdict line changed after the gate."}
	}
	if in.Get("tool_response.planWasEdited").Bool() {
		return hookio.PostOutcome{Context: "[rodin] The user edited the plan in the approval step; rodin assessed the plan before those edits.",
			SystemMessage: "[rodin] You edited the plan while approving it: rodin assessed it before your edits."}
	}
	return hookio.PostOutcome{Block: true,
		Reason:        fmt.Sprintf("%s: %s changed after the gate let ExitPlanMode through and before the user's answer (by something rodin's hooks did not see, such as a shell command), so the plan you were handed holds text nobody assessed and the user did not see. Do not act on it: tell the user, then run /rodin:plan-gate again and call ExitPlanMode.", loud, f.path),
		SystemMessage: loud + ": " + f.path + " changed while the approval dialog was open. The agent was told not to act on it."}
}
