package verifygate

import (
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

// AppendRun adds the Bash call of in to the session's record of runs
// (ledger.AppendBash).
func AppendRun(in hookio.Input, getenv func(string) string) {
	ledger.AppendBash(in, evidence.DataDir(getenv))
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
