// Package provenance binds a verdict to the assessment runs the hooks
// themselves observed, so that the agent cannot forge one.
//
// The plan-gate skill has the agent write the verdict signal; nothing in the
// signal proves an assessment happened. So the hooks also watch the Agent
// tool and SubagentStop: what each rodin:critic and rodin:validator run was
// given and what it answered goes into the session's evidence (package
// evidence), outside the plan file. A verdict counts only when the chain
// holds: a critic ran on the plan as it stands without seeing the gaps, and
// a validator, given the gaps as they stand and exactly that critic's
// findings, reached the same verdict. The signal and the gate check the same
// chain (Check). RODIN_PROVENANCE=off turns this off for other
// orchestrations.
package provenance

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rodin-gate/rodin/pkg/assess"
	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/planfile"
)

// The agents whose runs count, as the Agent tool names them.
const (
	CriticAgent    = "rodin:critic"
	ValidatorAgent = "rodin:validator"
	LeakageAgent   = "rodin:leakage-detector" // recorded for the skill, not evidence
)

// Recorded reports whether the hooks record runs of agent.
func Recorded(agent string) bool {
	return agent == CriticAgent || agent == ValidatorAgent || agent == LeakageAgent
}

// Off reports whether provenance checks are turned off.
func Off(getenv func(string) string) bool { return getenv("RODIN_PROVENANCE") == "off" }

// OffNote is appended to every deny and shown by rodin status when the
// checks are off, so that nobody forgets.
const OffNote = " (Provenance checks are off: RODIN_PROVENANCE=off, so bare verdict signals count.)"

// trimmed is text as a prompt quotes it: without trailing newlines.
func trimmed(b []byte) string { return strings.TrimRight(string(b), "\n") }

// Launch is what a run's prompt tells, judged against the plan as it stands
// when the run starts.
func Launch(d *planfile.Doc, agent, prompt, model, ts string) evidence.Launch {
	l := evidence.Launch{Agent: agent, TS: ts}
	if agent == LeakageAgent {
		l.Leakage = &evidence.LeakageRun{TS: ts}
		return l
	}
	if agent == CriticAgent {
		r := evidence.CriticRun{TS: ts, Model: model, GapsSeen: sawGaps(d, prompt)}
		if plan := trimmed(d.PlanContent()); plan != "" && strings.Contains(prompt, plan) {
			r.Plan = d.PlanDigest()
		}
		l.Critic = &r
	} else {
		r := evidence.ValidatorRun{TS: ts, Model: model, Findings: assess.FindingsDigest(prompt)}
		if gaps := trimmed(d.GapsContent()); strings.Contains(prompt, gaps) {
			r.Gaps = d.GapsDigest()
		}
		l.Validator = &r
	}
	return l
}

// Finish records a launched run's answer in the log. It reports what the
// run amounts to, for the message to the agent.
func Finish(log *evidence.Log, id string, l evidence.Launch, answer, ts string) string {
	switch {
	case l.Leakage != nil:
		r := evidence.LeakageRun{AgentID: id, TS: ts}
		if len(answer) <= evidence.MaxAnswer {
			r.Answer = answer
		}
		log.AddLeakage(r)
		return ""
	case l.Critic != nil:
		r := *l.Critic
		r.AgentID, r.TS, r.Findings = id, ts, assess.FindingsDigest(answer)
		if len(answer) <= evidence.MaxAnswer {
			r.Answer = answer
		}
		if c, err := assess.ParseCritic(answer); err == nil {
			r.High, r.Medium, r.Low = c.Counts["high"], c.Counts["medium"], c.Counts["low"]
		}
		log.AddCritic(r)
		return criticNote(r)
	case l.Validator != nil:
		r := *l.Validator
		r.AgentID, r.TS = id, ts
		if v, err := assess.ParseValidator(answer); err == nil {
			r.Verdict, r.Reason = v.Verdict, v.Reason
		}
		log.AddValidator(r)
		return validatorNote(log, r)
	}
	return ""
}

func criticNote(r evidence.CriticRun) string {
	note := strconv.Itoa(r.High) + " high, " + strconv.Itoa(r.Medium) + " medium, " + strconv.Itoa(r.Low) + " low findings"
	if r.Findings == "" {
		note = "no findings and no `### NO ISSUES FOUND` in its answer, so it backs no verdict"
	}
	if r.Plan == "" {
		note += "; its prompt did not hold the plan as it stands (`rodin extract` output), so it backs no verdict"
	}
	if r.GapsSeen {
		note += "; its prompt held text from the gaps block, so it backs no verdict"
	}
	return note
}

func validatorNote(log *evidence.Log, r evidence.ValidatorRun) string {
	note := "verdict " + r.Verdict
	if r.Verdict == "" {
		note = "verdict unparseable"
	}
	if c, ok := log.LastCritic(); !ok || c.Findings != r.Findings {
		note += "; it was not given the latest critic's findings, so it backs no verdict"
	}
	if r.Gaps == "" {
		note += "; it was not given the gaps block as it stands, so it backs no verdict"
	}
	return note
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

// Check reports whether the recorded runs back a verdict of status for the
// plan as it stands; the error names the missing or broken evidence.
func Check(d *planfile.Doc, status string, log evidence.Log) error {
	c, ok := log.LastCritic()
	if !ok {
		if len(log.Launches) > 0 {
			return errors.New("no critic run has finished yet (a background run is still going: wait for it, then run /rodin:plan-gate's last steps again)")
		}
		return errors.New("no critic run was recorded for this session (the critic must run as the rodin:critic agent)")
	}
	switch {
	case c.GapsSeen:
		return errors.New("the critic's prompt held text from the gaps block, and the critic must not see the gaps")
	case c.Plan != d.PlanDigest():
		return errors.New("the latest critic run did not assess the plan as it stands (its prompt must hold `rodin extract` output of this plan)")
	case c.Findings == "":
		return errors.New("the latest critic answer held no findings and no `### NO ISSUES FOUND`")
	}
	v, ok := log.LastValidator()
	if !ok {
		return errors.New("no validator run was recorded after the critic (the validator must run as the rodin:validator agent)")
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

// Checker is the check the keeper applies to a verdict signal: the session's
// recorded runs must back it, unless RODIN_PROVENANCE=off (nil). The
// evidence is read only when a signal needs it.
func Checker(getenv func(string) string, session string) func(*planfile.Doc, string) error {
	if Off(getenv) {
		return nil
	}
	return func(d *planfile.Doc, status string) error {
		log, err := evidence.Load(evidence.Path(getenv, session))
		if err != nil {
			return fmt.Errorf("the evidence of this session is not readable: %v", err)
		}
		return Check(d, status, log)
	}
}
