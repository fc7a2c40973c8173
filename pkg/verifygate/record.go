package verifygate

import (
	"strconv"
	"strings"
	"time"

	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/freshness"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rodin-gate/rodin/pkg/messages"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/transcript"
)

// QAAgent is the agent whose runs are evidence for AC tasks.
const QAAgent = "rodin:qa-engineer"

// RecordBash records a Bash command Claude Code ran: PostToolUse (it
// succeeded) or PostToolUseFailure (`error` begins "Exit code N"). It runs
// on every Bash call, so it does one append and nothing else.
func RecordBash(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	if Off(getenv) {
		return hookio.PostOutcome{}
	}
	AppendRun(in, getenv)
	return hookio.PostOutcome{}
}

// AppendRun adds the Bash call of in to the session's record of runs:
// what it ran, from where, by which agent, and how it ended.
func AppendRun(in hookio.Input, getenv func(string) string) {
	session := in.SessionID()
	data := evidence.DataDir(getenv)
	if !planfile.ValidSessionID(session) || data == "" {
		return
	}
	cmd, ok, err := in.Field("tool_input.command")
	if !ok || err != nil {
		return
	}
	// The time is read from the clock files are stamped with, never from
	// RODIN_NOW (the plan gate's test clock): it is compared with file times.
	r := ledger.Run{Time: freshness.Now().UnixNano(), Kind: ledger.KindBash, Command: cmd, Cwd: in.Cwd()}
	r.Agent, _, _ = in.Field("agent_id")
	switch in.HookEventName() {
	case "PostToolUse":
		r.Exit = finishedExit(in)
	case "PostToolUseFailure":
		r.Exit = exitCode(in)
	default:
		return
	}
	if in.Get("tool_input.dangerouslyDisableSandbox").Bool() || in.Get("tool_response.dangerouslyDisableSandbox").Bool() {
		r.Exit = ledger.ExitUnsandboxed
	}
	ledger.Append(data, session, r)
}

// finishedExit is the exit a PostToolUse reports: 0 only for a call that
// ran in the foreground to its end and that Claude Code did not read a
// non-zero exit of as no error. A call run in the background, or moved
// there (it outlived its timeout, the user pressed Ctrl+B, a message or
// a turn's end moved it: the backgrounded* fields of 2.1.295 and 2.1.330),
// gets PostToolUse at launch: its outcome reaches no hook.
func finishedExit(in hookio.Input) int {
	res := in.Get("tool_response")
	switch {
	case res.Get("backgroundTaskId").String() != "" || res.Get("timedOutAfterMs").Exists() ||
		res.Get("backgroundedByUser").Bool() || res.Get("backgroundedToDeliverMessage").Bool() ||
		res.Get("backgroundedByTurnAbort").Bool() || res.Get("backgroundedForAgentReport").Bool():
		return ledger.ExitBackground
	case res.Get("interrupted").Bool():
		return ledger.ExitInterrupted
	case res.Get("returnCodeInterpretation").String() != "":
		// grep's 1 ("No matches found") and the like: a non-zero exit
		// Claude Code reports as success.
		return ledger.ExitInterpreted
	}
	return 0
}

// exitCode reads "Exit code N" at the start of a failure's error; -1 when
// it is not there (interrupted, timed out, refused).
func exitCode(in hookio.Input) int {
	if in.Get("is_interrupt").Bool() {
		return ledger.ExitInterrupted
	}
	e, _, _ := in.Field("error")
	rest, ok := strings.CutPrefix(e, "Exit code ")
	if !ok {
		return ledger.ExitInterrupted
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	n, err := strconv.Atoi(rest[:end])
	if err != nil || n == 0 {
		return ledger.ExitInterrupted // a failure is never a pass
	}
	return n
}

// RecordQA records a rodin:qa-engineer run from its SubagentStop: the
// prompt it was started with (from its transcript) and whether its answer
// passed: the last line is VERIFICATION_PASS and no row of its AC table
// says FAIL.
func RecordQA(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	session := in.SessionID()
	data := evidence.DataDir(getenv)
	if Off(getenv) || !planfile.ValidSessionID(session) || data == "" {
		return hookio.PostOutcome{}
	}
	path, _, _ := in.Field("agent_transcript_path")
	prompt, told, err := transcript.Prompts(path)
	if err != nil {
		return hookio.PostOutcome{SystemMessage: "[rodin] The rodin:qa-engineer run could not be recorded as evidence: its prompt is unreadable (" + err.Error() + ")."}
	}
	msg, _, _ := in.Field("last_assistant_message")
	r := ledger.Run{Time: freshness.Now().UnixNano(), Kind: ledger.KindQA, PromptSum: ledger.SumPrompt(prompt), Pass: QAPassed(msg), Tail: msg}
	r.Agent, _, _ = in.Field("agent_id")
	// Only a run's first answer is independent: a run resumed through
	// SendMessage answers again as the same agent, after being told what
	// to say. Its later answers are recorded as such and never pass. A log
	// that cannot be read says nothing of earlier answers, so the answer is
	// taken as a later one.
	runs, _, err := ledger.Runs(data, session)
	for _, o := range runs {
		if o.Kind == ledger.KindQA && o.Agent != "" && o.Agent == r.Agent {
			r.Resumed = true
		}
	}
	// A message given to it after its prompt (SendMessage while it worked,
	// or resuming it) makes the answer the main agent's to shape.
	started, _ := transcript.Started(path)
	if err != nil || r.Agent == "" || told > 0 || messages.Told(data, session, r.Agent, started, time.Now()) {
		r.Resumed = true
	}
	if r.Resumed {
		r.Pass = false
	}
	ledger.Append(data, session, r)
	return hookio.PostOutcome{}
}

// QAPassed reads a qa-engineer answer: its last non-blank line is exactly
// VERIFICATION_PASS, and no table row has a FAIL cell.
func QAPassed(msg string) bool {
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(msg, "\r\n", "\n")), "\n")
	if strings.TrimSpace(lines[len(lines)-1]) != "VERIFICATION_PASS" {
		return false
	}
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "|") {
			continue
		}
		for _, cell := range strings.Split(l, "|") {
			if strings.EqualFold(strings.Trim(strings.TrimSpace(cell), "*"), "FAIL") {
				return false
			}
		}
	}
	return true
}
