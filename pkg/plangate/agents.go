package plangate

import (
	"fmt"
	"strings"
	"time"

	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/messages"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/plansdir"
	"github.com/rodin-gate/rodin/pkg/provenance"
	"github.com/rodin-gate/rodin/pkg/transcript"
)

// RecordAgent is the PostToolUse route for Agent (Task on older releases)
// in plan mode: it records a rodin:critic or rodin:validator run, a
// foreground run whole (status "completed"), a background run as a launch
// that its SubagentStop completes.
func RecordAgent(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	if in.PermissionMode() != "plan" {
		return hookio.PostOutcome{}
	}
	agent, _, _ := in.Field("tool_input.subagent_type")
	if !provenance.Recorded(agent) {
		return hookio.PostOutcome{}
	}
	status, _, _ := in.Field("tool_response.status")
	id, _, _ := in.Field("tool_response.agentId")
	prompt, _, _ := in.Field("tool_input.prompt")
	model, _, _ := in.Field("tool_input.model")
	effort, _, _ := in.Field("tool_input.effort")
	sessionEffort, _, _ := in.Field("effort.level")
	resolved, _, _ := in.Field("tool_response.resolvedModel")
	model = provenance.Override(agent, model, effort, sessionEffort, resolved)
	name := strings.TrimPrefix(agent, "rodin:")

	path, doc, out := sessionPlan(in, getenv, agent)
	if doc == nil {
		return out
	}
	store := evidence.Path(getenv, in.SessionID())
	ts := Now(getenv).UTC().Format(time.RFC3339)

	var note string
	err := evidence.Update(store, func(log *evidence.Log) bool {
		if log.Finished(id) {
			// Its SubagentStop came first and recorded it from the
			// transcript, which does not tell a model override.
			return model != "" && log.SetModel(id, model)
		}
		launch := provenance.Launch(doc, log, agent, prompt, model, ts, provenance.InputDir(getenv))
		if stop, ok := log.Stopped[id]; ok && status == "async_launched" {
			// Its SubagentStop came first, before the transcript could
			// tell its prompt: the answer waited for this launch.
			delete(log.Stopped, id)
			note = provenance.Finish(log, id, launch, stop.Answer, stop.TS, doc)
			return true
		}
		if status == "async_launched" {
			log.AddLaunch(id, launch)
			return true
		}
		note = provenance.Finish(log, id, launch, in.AgentAnswer(), ts, doc)
		return true
	})
	switch {
	case err != nil:
		// Kept as lost: the plan cannot pass on what is left (a lost run
		// may have been a finding).
		evidence.MarkLost(store, doc.PlanSight())
		return hookio.PostOutcome{Context: fmt.Sprintf("[rodin] Could not record the %s run: %v. This plan cannot pass until it changes and is assessed again.", name, err)}
	case status == "async_launched":
		return hookio.PostOutcome{Context: fmt.Sprintf("[rodin] The %s run on %s started in the background; rodin records it when it finishes. Wait for its result before the next step of /rodin:plan-gate.", name, path)}
	case note != "":
		return hookio.PostOutcome{Context: fmt.Sprintf("[rodin] Recorded the %s run on %s: %s.", name, path, note)}
	}
	return hookio.PostOutcome{}
}

// RecordStop is the SubagentStop route for rodin's critic, validator and
// leakage detector: it completes a background run
// with its answer (SubagentStop). When the launch is not known (its
// PostToolUse has not run yet, or was lost), the prompt is read from the
// subagent's transcript and judged now.
func RecordStop(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	agent, _, _ := in.Field("agent_type")
	if !provenance.Recorded(agent) {
		return hookio.PostOutcome{}
	}
	id, _, _ := in.Field("agent_id")
	if id == "" {
		return hookio.PostOutcome{}
	}
	answer, _, _ := in.Field("last_assistant_message")
	store := evidence.Path(getenv, in.SessionID())
	ts := Now(getenv).UTC().Format(time.RFC3339)

	// A first look without the lock, to read the transcript (slow) outside
	// it. What it saw may change before the lock is taken, and a log it
	// cannot read (another hook making the file) is decided under the lock:
	// a stop that is not kept leaves its run "in flight" for good.
	log, err := evidence.Load(store)
	if err == nil && log.Finished(id) {
		return hookio.PostOutcome{}
	}
	var prompt string
	var doc *planfile.Doc
	// Only a run's first answer, to its prompt alone, is independent: one
	// given a message after its prompt (SendMessage while it worked, or a
	// resume) answered what the main agent told it.
	_, told, _ := transcript.Prompts(agentTranscript(in))
	if started, _ := transcript.Started(agentTranscript(in)); messages.Told(evidence.DataDir(getenv), in.SessionID(), id, started, time.Now()) {
		told++
	}
	// The plan as it stands now: a critic that read it from its input file
	// is complete when what it was shown is all of it.
	_, doc, _ = sessionPlan(in, getenv, agent)
	known := doc != nil
	if _, launched := log.Launches[id]; !launched {
		// The stop came before its launch's PostToolUse: the prompt from the
		// transcript, or, when it cannot tell yet, the answer waits there
		// for the launch.
		if prompt, err = transcript.FirstPrompt(agentTranscript(in)); err != nil {
			known = false
		}
	}
	err = evidence.Update(store, func(log *evidence.Log) bool {
		if log.Finished(id) {
			return false
		}
		launch, ok := log.Launches[id]
		if !ok {
			if !known {
				log.AddStop(id, evidence.Stop{Agent: agent, Answer: answer, TS: ts})
				return true
			}
			launch = provenance.Launch(doc, log, agent, prompt, "", ts, provenance.InputDir(getenv))
		}
		if told > 0 {
			launch = provenance.Told(launch)
		}
		provenance.Finish(log, id, launch, answer, ts, doc)
		return true
	})
	if err != nil {
		sight := "*"
		if doc != nil {
			sight = doc.PlanSight()
		}
		evidence.MarkLost(store, sight)
		return hookio.PostOutcome{SystemMessage: fmt.Sprintf("[rodin] Could not record the %s run: %v. The plan cannot pass until it changes and is assessed again.", agent, err)}
	}
	return hookio.PostOutcome{}
}

// sessionPlan finds and parses the plan file of the input's session; when
// there is none (or it cannot be read) out says why.
func sessionPlan(in hookio.Input, getenv func(string) string, agent string) (path string, doc *planfile.Doc, out hookio.PostOutcome) {
	session := in.SessionID()
	if !planfile.ValidSessionID(session) {
		return "", nil, out
	}
	dirs := plansdir.Dirs(plansdir.Env{Getenv: getenv, Cwd: in.Cwd()})
	path, _, data := plansdir.FindSession(dirs, session)
	if path == "" {
		out.Context = fmt.Sprintf("[rodin] The %s run was not recorded: no plan file carries this session's marker yet. Write the plan first, then run /rodin:plan-gate.", agent)
		return "", nil, out
	}
	return path, planfile.Parse(data), out
}

func agentTranscript(in hookio.Input) string {
	p, _, _ := in.Field("agent_transcript_path")
	return p
}
