package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/rodin-gate/rodin/pkg/assess"
	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/plangate"
	"github.com/rodin-gate/rodin/pkg/provenance"
	"github.com/rodin-gate/rodin/pkg/verifygate"
)

// The commands below read the runs the hooks recorded for the plan's
// session, so that the skill never copies a subagent's answer through the
// shell (a heredoc in a Bash command needs the user's approval on current
// Claude Code, and a model retyping an answer is where text drifts).
//
// Subagents run in the background on current Claude Code. A command that
// needs a run waits while one is in flight (up to waitLimit), so the skill
// stays in one turn: the skill's allowed-tools hold only during the turn,
// and a model that ended its turn to wait would be asked for permission on
// its next rodin command.

// recorded reads PLAN and the evidence of the session its marker names.
func recorded(e *env, command string, args []string) (string, *planfile.Doc, evidence.Log, error) {
	path, d, err := wellFormedPlan(command, "", args)
	if err != nil {
		return "", nil, evidence.Log{}, err
	}
	// In the Bash tool, the session is Claude Code's own (the one the hooks
	// record under); in a terminal, the one the plan's marker names.
	session := e.getenv("CLAUDE_CODE_SESSION_ID")
	if session == "" {
		session = d.Trailer().Session
	}
	if session == "" {
		return "", nil, evidence.Log{}, withHint(fmt.Errorf("%s has no session marker yet", path), "edit the plan once in plan mode so rodin's hook marks it, then run this again")
	}
	store := evidence.Path(e.getenv, session)
	if store == "" {
		return "", nil, evidence.Log{}, withHint(errors.New("rodin cannot find its data directory"), "start a new Claude Code session so rodin's SessionStart hook records it")
	}
	log, err := evidence.Load(store)
	return path, d, log, err
}

// running says that a run of agent started and has not finished, naming
// the run: when it was launched and its agent id.
func running(log evidence.Log, agent string) error {
	for id, l := range log.Launches {
		if l.Agent == agent {
			return withHint(fmt.Errorf("the %s run launched at %s (agent %s) has not finished: rodin has not seen its SubagentStop", agent, l.TS, id), "wait until it finishes, then run this again")
		}
	}
	return nil
}

// waitLimit is how long a command waits for a run in flight: under the
// Bash tool's longest timeout (10 minutes), which the skill asks for.
// RODIN_WAIT sets another (tests).
var waitLimit = 9*time.Minute + 30*time.Second

// roundWait shows a wait limit as a person would say it.
func roundWait(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}

// awaited is recorded, waiting while a run of agent is in flight. It says
// on stderr what it waits for and, when the limit runs out, that it gave
// up; the caller then reports the run as not finished.
func awaited(e *env, command string, args []string, agent string) (string, *planfile.Doc, evidence.Log, error) {
	limit := waitLimit
	if d, err := time.ParseDuration(e.getenv("RODIN_WAIT")); err == nil {
		limit = d
	}
	start := time.Now()
	said := false
	for {
		path, d, log, err := recorded(e, command, args)
		if err != nil {
			return path, d, log, err
		}
		busy := running(log, agent)
		if busy == nil {
			return path, d, log, nil
		}
		if time.Since(start) >= limit {
			fmt.Fprintf(e.stderr, "rodin: gave up after %s waiting for the %s run to finish\n", roundWait(limit), agent)
			return path, d, log, nil
		}
		if !said {
			fmt.Fprintf(e.stderr, "rodin: waiting up to %s: %s\n", roundWait(limit), busy.Error())
			said = true
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// runPrompt prints the exact prompt of the critic (the plan content, never
// the gaps) or the validator (the gaps as they stand and the latest critic
// answer on this plan).
func runPrompt(e *env, args []string) error {
	if len(args) > 0 && args[0] == "qa" {
		if len(args) < 2 || len(args) > 3 {
			return usageError{"prompt qa takes a task id and, optionally, its task file"}
		}
		_, rel, t, err := sessionTask(e, args[1:])
		if err != nil {
			return err
		}
		io.WriteString(e.stdout, verifygate.QAPrompt(rel, t))
		return nil
	}
	inline := len(args) == 3 && args[0] == "critic" && args[1] == "--inline"
	if inline {
		args = []string{"critic", args[2]}
	}
	if len(args) != 2 || (args[0] != "critic" && args[0] != "validator" && args[0] != "leakage") {
		return usageError{"prompt takes `critic`, `leakage` or `validator` and one plan file, or `qa` and a task"}
	}
	if args[0] == "critic" || args[0] == "leakage" {
		_, d, err := wellFormedPlan("prompt", "", args[1:])
		if err != nil {
			return err
		}
		if inline {
			io.WriteString(e.stdout, provenance.CriticPrompt(d))
			return nil
		}
		// The plan reaches the critic through a file rodin writes (and
		// writes again at each of its Reads): a prompt of any plan's size
		// would not pass through a Bash result whole.
		// Written here when the Bash tool may write there; in Claude Code's
		// sandbox (no writes outside the project) rodin's PostToolUse hook
		// writes it when this command ends, and its PreToolUse again at
		// each of the critic's Reads.
		dir := provenance.InputDir(e.getenv)
		path := filepath.Join(dir, provenance.CriticInputName(d.PlanDigest()))
		plangate.WriteCriticInput(dir, d)
		if args[0] == "leakage" {
			fmt.Fprintln(e.stdout, provenance.LeakagePrompt(path))
		} else {
			fmt.Fprintln(e.stdout, provenance.CriticReadPrompt(path))
		}
		return nil
	}
	path, d, log, err := awaited(e, "prompt", args[1:], provenance.CriticAgent)
	if err != nil {
		return err
	}
	runs, err := criticsOn(path, d, log)
	if err != nil {
		return err
	}
	answers := make([]string, len(runs))
	for i, r := range runs {
		if r.Answer == "" {
			return withHint(errors.New("a critic answer on this plan was too long to keep (over 48 KiB)"), "edit the plan, then run the critic again")
		}
		answers[i] = r.Answer
	}
	io.WriteString(e.stdout, provenance.ValidatorPrompt(d, answers))
	return nil
}

// criticsOn are the finished critic runs on the plan as it stands whose
// answers parse: the ones the validator must see.
func criticsOn(path string, d *planfile.Doc, log evidence.Log) ([]evidence.CriticRun, error) {
	if _, err := latestCritic(path, d, log); err != nil {
		return nil, err
	}
	runs := provenance.Usable(log.CriticsOn(d.PlanDigest(), d.PlanSight()))
	if len(runs) == 0 {
		return nil, withHint(errors.New("no critic answer on the plan as it stands could be parsed"), "launch the rodin:critic agent again with the output of `rodin prompt critic` as its prompt")
	}
	return runs, nil
}

// latestCritic is the latest finished critic run, when it assessed the plan
// as it stands.
func latestCritic(path string, d *planfile.Doc, log evidence.Log) (evidence.CriticRun, error) {
	if err := running(log, provenance.CriticAgent); err != nil {
		return evidence.CriticRun{}, err
	}
	c, ok := log.LastCritic()
	switch {
	case !ok:
		return c, withHint(fmt.Errorf("no critic run was recorded for %s", path), "launch the rodin:critic agent with the output of `rodin prompt critic` as its prompt")
	case !evidence.OnPlan(c, d.PlanDigest(), d.PlanSight()):
		return c, withHint(errors.New("the latest critic run did not assess the plan as it stands (its prompt must be exactly `rodin prompt critic` output)"), "launch the rodin:critic agent again with the output of `rodin prompt critic` as its prompt")
	}
	return c, nil
}

// runFindings prints the latest critic answer on PLAN, parsed (JSON).
func runFindings(e *env, args []string) error {
	path, d, log, err := awaited(e, "findings", args, provenance.CriticAgent)
	if err != nil {
		return err
	}
	c, err := latestCritic(path, d, log)
	if err != nil {
		return err
	}
	if c.Answer == "" && c.Findings == "" {
		return withHint(errors.New("the critic's answer was over 48 KiB, so rodin could not keep it"), "it stands as an unresolved finding until the plan changes: revise the plan, then run /rodin:plan-gate again")
	}
	parsed, err := assess.ParseCritic(c.Answer)
	if err != nil {
		return withHint(fmt.Errorf("cannot parse the critic answer: %v", err), "it stands as an unresolved finding until the plan changes (a retry adds a run, it never replaces one): revise the plan, then run /rodin:plan-gate again")
	}
	return writeJSON(e.stdout, parsed)
}

// latestValidator is the latest finished validator run, parsed.
func latestValidator(log evidence.Log) (evidence.ValidatorRun, error) {
	if err := running(log, provenance.ValidatorAgent); err != nil {
		return evidence.ValidatorRun{}, err
	}
	v, ok := log.LastValidator()
	switch {
	case !ok:
		return v, withHint(errors.New("no validator run was recorded for this plan's session"), "launch the rodin:validator agent with the output of `rodin prompt validator` as its prompt")
	case v.Verdict == "":
		return v, withHint(errors.New("cannot parse the validator answer: it has no `### VERDICT: PASS` or `### VERDICT: FAIL`"), "it stands as a fail until the gaps or the plan change (a retry adds a run, it never replaces one): run `rodin signal PLAN` to record it")
	}
	return v, nil
}

// awaitedValidator is the latest validator run on PLAN's session, parsed,
// once no validator run is in flight (or the wait ran out).
func awaitedValidator(e *env, command string, args []string) (evidence.ValidatorRun, error) {
	_, _, log, err := awaited(e, command, args, provenance.ValidatorAgent)
	if err != nil {
		return evidence.ValidatorRun{}, err
	}
	return latestValidator(log)
}

// runVerdict prints the latest validator verdict, parsed (JSON). With
// --record it waits for every run in flight, judges them all
// (provenance.Judge) and records that verdict in the plan's trailer itself,
// as the hooks do for a signal, and prints what it recorded: the skill
// needs no Read and Edit of the plan for it.
func runVerdict(e *env, args []string) error {
	if len(args) > 0 && args[0] == "--record" {
		return recordVerdict(e, args[1:])
	}
	v, err := awaitedValidator(e, "verdict", args)
	if err != nil {
		return err
	}
	return writeJSON(e.stdout, assess.Validator{Verdict: v.Verdict, Reason: v.Reason})
}

func recordVerdict(e *env, args []string) error {
	if _, _, _, err := awaited(e, "verdict", args, provenance.CriticAgent); err != nil {
		return err
	}
	path, _, _, err := awaited(e, "verdict", args, provenance.ValidatorAgent)
	if err != nil {
		return err
	}
	session := e.getenv("CLAUDE_CODE_SESSION_ID")
	j, err := plangate.RecordVerdict(e.getenv, path, session)
	var judged plangate.UnwritableError
	switch {
	case errors.As(err, &judged):
		// Claude Code's sandbox keeps the Bash tool from writing the plan:
		// rodin's PostToolUse hook records the same verdict when this
		// command ends.
		j = judged.Judgement
	case err != nil:
		return withHint(err, "the steps of /rodin:plan-gate give every run the verdict needs")
	}
	fmt.Fprintf(e.stdout, "recorded: %s: %s\n", j.Status, j.Reason)
	if j.Status == planfile.StatusPass {
		fmt.Fprintln(e.stdout, "ExitPlanMode can go ahead: rodin's gate will take this verdict while the plan and its gaps stay as they are.")
	} else {
		fmt.Fprintln(e.stdout, "ExitPlanMode stays denied: update the gaps block to cover the findings (or revise the plan), then run /rodin:plan-gate again.")
	}
	return nil
}

// signalFromRecord prints the signal line for the verdict of every critic
// and validator run rodin observed on the plan as it stands (provenance.
// Judge), once none is in flight (or the wait ran out).
func signalFromRecord(e *env, args []string) error {
	if _, _, _, err := awaited(e, "signal", args, provenance.CriticAgent); err != nil {
		return err
	}
	_, d, log, err := awaited(e, "signal", args, provenance.ValidatorAgent)
	if err != nil {
		return err
	}
	j, err := provenance.Judge(d, log)
	if err != nil {
		return withHint(err, "the steps of /rodin:plan-gate give every run the verdict needs")
	}
	fmt.Fprintf(e.stdout, "<!-- rodin:verdict:signal=%s -->\n", planfile.Verdict{Status: j.Status, Reason: j.Reason}.Encode())
	return nil
}

// runLeakage prints the latest leakage-detector answer, waiting while one
// is in flight.
func runLeakage(e *env, args []string) error {
	_, _, log, err := awaited(e, "leakage", args, provenance.LeakageAgent)
	if err != nil {
		return err
	}
	if err := running(log, provenance.LeakageAgent); err != nil {
		return err
	}
	if len(log.Leakage) == 0 {
		return withHint(errors.New("no leakage-detector run was recorded for this plan's session"), "launch the rodin:leakage-detector agent with the output of `rodin extract` as its prompt")
	}
	fmt.Fprintf(e.stdout, "%s", canonical([]byte(log.Leakage[len(log.Leakage)-1].Answer)))
	// The id the first gap added for it takes, so that the skill needs no
	// other command before its Edit.
	if d, err := readPlan(args[0]); err == nil && !d.Malformed() {
		fmt.Fprintf(e.stdout, "(next free gap id: GAP-%d)\n", d.NextID("GAP", true))
	}
	return nil
}
