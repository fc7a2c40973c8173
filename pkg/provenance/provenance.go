// Package provenance binds a verdict to the assessment runs the hooks
// themselves observed, so that the agent cannot forge one.
//
// The plan-gate skill has the agent write the verdict signal; nothing in the
// signal proves an assessment happened. So PostToolUse also watches the
// Agent tool: when a rodin:critic or rodin:validator run completes, it
// records in the session's plan file what that run was given and what it
// answered (CriticRun, ValidatorRun). A verdict counts only when the chain
// holds: a critic ran on the plan as it stands without seeing the gaps, and
// a validator, given the gaps as they stand and exactly that critic's
// findings, reached the same verdict. The signal and the gate check the same
// chain (Check). RODIN_PROVENANCE=off turns this off for other
// orchestrations.
package provenance

import (
	"errors"
	"strings"

	"github.com/rodin-gate/rodin/pkg/assess"
	"github.com/rodin-gate/rodin/pkg/planfile"
)

// The agents whose runs count, as the Agent tool names them.
const (
	CriticAgent    = "rodin:critic"
	ValidatorAgent = "rodin:validator"
)

// Off reports whether provenance checks are turned off.
func Off(getenv func(string) string) bool { return getenv("RODIN_PROVENANCE") == "off" }

// OffNote is appended to every deny and shown by rodin status when the
// checks are off, so that nobody forgets.
const OffNote = " (Provenance checks are off: RODIN_PROVENANCE=off, so bare verdict signals count.)"

// trimmed is text as a prompt quotes it: without trailing newlines.
func trimmed(b []byte) string { return strings.TrimRight(string(b), "\n") }

// Critic is what a completed critic run tells: whether its prompt held the
// plan as it stands (as `rodin extract` prints it), whether it held
// anything from the gaps block, and what it found.
func Critic(d *planfile.Doc, prompt, answer, ts string) planfile.CriticRun {
	r := planfile.CriticRun{TS: ts, GapsSeen: sawGaps(d, prompt), Findings: assess.FindingsDigest(answer)}
	if plan := trimmed(d.PlanContent()); plan != "" && strings.Contains(prompt, plan) {
		r.Plan = d.PlanDigest()
	}
	if c, err := assess.ParseCritic(answer); err == nil {
		r.High, r.Medium, r.Low = c.Counts["high"], c.Counts["medium"], c.Counts["low"]
	}
	return r
}

// sawGaps reports whether prompt holds a line of the gaps block: any
// non-trivial line (12 characters or more) that is not also a line of the
// plan itself, so that text the two share does not count.
func sawGaps(d *planfile.Doc, prompt string) bool {
	planLines := map[string]bool{}
	for _, l := range strings.Split(string(d.PlanContent()), "\n") {
		planLines[strings.TrimSpace(l)] = true
	}
	for _, l := range strings.Split(string(d.GapsContent()), "\n") {
		l = strings.TrimSpace(l)
		if len(l) >= 12 && !planLines[l] && strings.Contains(prompt, l) {
			return true
		}
	}
	return false
}

// Validator is what a completed validator run tells: whether its prompt held
// the gaps as they stand, which findings it was given, and its verdict.
func Validator(d *planfile.Doc, prompt, answer, ts string) planfile.ValidatorRun {
	r := planfile.ValidatorRun{TS: ts, Findings: assess.FindingsDigest(prompt)}
	if gaps := trimmed(d.GapsContent()); strings.Contains(prompt, gaps) {
		r.Gaps = d.GapsDigest()
	}
	if v, err := assess.ParseValidator(answer); err == nil {
		r.Verdict, r.Reason = v.Verdict, v.Reason
	}
	return r
}

// Check reports whether the recorded runs back a verdict of status for the
// plan as it stands; the error names the missing or broken evidence.
func Check(d *planfile.Doc, status string) error {
	t := d.Trailer()
	if t.Critic == "" {
		return errors.New("no critic run was recorded for this plan (the critic must run as the rodin:critic agent)")
	}
	c, err := planfile.ParseCriticRun(t.Critic)
	if err != nil {
		return errors.New("the critic record is not readable")
	}
	switch {
	case c.GapsSeen:
		return errors.New("the critic's prompt held text from the gaps block, and the critic must not see the gaps")
	case c.Plan != d.PlanDigest():
		return errors.New("the latest critic run did not assess the plan as it stands (its prompt must hold `rodin extract` output of this plan)")
	case c.Findings == "":
		return errors.New("the latest critic answer held no findings and no `### NO ISSUES FOUND`")
	}
	if t.Validator == "" {
		return errors.New("no validator run was recorded after the critic (the validator must run as the rodin:validator agent)")
	}
	v, err := planfile.ParseValidatorRun(t.Validator)
	if err != nil {
		return errors.New("the validator record is not readable")
	}
	switch {
	case v.Findings != c.Findings:
		return errors.New("the validator was given other findings than the latest critic run produced")
	case v.Gaps != d.GapsDigest():
		return errors.New("the validator was not given the gaps block as it stands")
	case v.Verdict == "":
		return errors.New("the validator's answer had no `### VERDICT: PASS` or `### VERDICT: FAIL`")
	case v.Verdict != status:
		return errors.New("the signal says " + status + " but the validator said " + v.Verdict)
	}
	return nil
}
