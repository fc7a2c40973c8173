// Package exercise verifies a changed skill, command or agent of a Claude Code
// plugin by running it: it finds what changed on the branch, makes a
// disposable project, runs the skill there in the real claude CLI with
// the plugin loaded (AskUserQuestion answered by rodin through the
// stream-JSON control protocol, package headless), judges the run against
// acceptance criteria (rodin's own checks first, the
// rodin:exercise-evaluator agent where judgement is needed), reports, and
// removes the project on every path.
package exercise

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rodin-gate/rodin/internal/every"
	"github.com/rodin-gate/rodin/pkg/headless"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/plansdir"
	"github.com/tidwall/gjson"
)

// Options are what every exercise of one invocation shares.
type Options struct {
	Claude         string   // the CLI
	Env            []string // its environment
	RodinPlugin    string   // rodin's plugin directory, for the evaluator agent; "" when unknown
	NoSandbox      bool     // run the session outside Claude Code's sandbox (--no-sandbox)
	Scaffold       string   // a project to copy; "" for the default one
	Timeout        time.Duration
	Prompt         string // replaces the default prompt
	Args           string // after the skill's slash command
	Criteria       []Criterion
	Model          string
	PermissionMode string
	MaxTurns       int
	Keep           bool
	// NoControl skips the control protocol (the fallback, by choice).
	NoControl bool
	// Baseline runs the session without the plugin (the baseline arm).
	Baseline bool
	// Budget, when positive, is the most the session may spend
	// (claude's --max-budget-usd).
	Budget   float64
	Progress io.Writer
	// Log, when set, gets every protocol line of the sessions.
	Log io.Writer
}

// Statuses of an exercised component.
const (
	Passed  = "passed"
	Failed  = "failed"
	Skipped = "skipped"
)

// Outcome is one component's exercise.
type Outcome struct {
	Component
	Arm         string               `json:"arm"` // plugin, or baseline (without it)
	Run         int                  `json:"run"` // 1, 2, … within its arm
	Status      string               `json:"status"`
	Method      string               `json:"method"`
	Interactive bool                 `json:"interactive"`
	Prompt      string               `json:"prompt"`
	Model       string               `json:"model,omitempty"`
	DurationMS  int64                `json:"duration_ms"`
	Project     string               `json:"project,omitempty"`
	Kept        bool                 `json:"kept"`
	Criteria    []Judged             `json:"criteria"`
	Files       []FileChange         `json:"files"`
	Answers     []Answer             `json:"answers"`
	Tools       []*headless.ToolCall `json:"tool_calls"`
	Final       string               `json:"final_message,omitempty"`
	Errors      []string             `json:"errors"`
	Notes       []string             `json:"notes"`
	Reason      string               `json:"reason,omitempty"` // why skipped
	// What the session and its judge used, as their result events say.
	CostUSD      float64        `json:"cost_usd"`
	Usage        headless.Usage `json:"usage"`
	Turns        int            `json:"turns"`
	JudgeCostUSD float64        `json:"judge_cost_usd,omitempty"`
}

// DefaultPrompt is what the exercised session is asked: the skill's slash
// command with args, or, for an agent, to delegate to it.
func DefaultPrompt(c Component, args string) string {
	if c.NotInvocable {
		p := fmt.Sprintf("Use the Skill tool to run the skill %q, then do what it says in this project.", c.ID())
		if args != "" {
			p += " " + args
		}
		return p
	}
	if c.Kind == "agent" {
		p := fmt.Sprintf("Use the Agent tool with subagent_type %q to do its job in this project, then report what it returned.", c.ID())
		if args != "" {
			p += " " + args
		}
		return p
	}
	return strings.TrimSpace("/" + c.ID() + " " + args)
}

// dryRunInstruction is appended to the system prompt of every exercise of
// a skill that uses GitHub.
const dryRunInstruction = "This session is a test run of a plugin in a disposable project (rodin exercise). " +
	"Do not create, change or delete anything on GitHub: where you would run gh, write the command and the content " +
	"you would send in your answer instead."

// noQuestionsInstruction is appended in print mode, where nobody answers.
const noQuestionsInstruction = "Make reasonable default choices. Do not ask questions."

// Args is the claude command line for a component (after the protocol's
// own flags), for running and for --dry-run.
func Args(c Component, o Options, mode headless.Mode) []string {
	var args []string
	if !o.Baseline {
		args = append(args, "--plugin-dir", c.LoadDir())
	}
	if o.Budget > 0 {
		args = append(args, "--max-budget-usd", strconv.FormatFloat(o.Budget, 'f', 2, 64))
	}
	if o.MaxTurns > 0 {
		args = append(args, "--max-turns", strconv.Itoa(o.MaxTurns))
	}
	if o.Model != "" {
		args = append(args, "--model", o.Model)
	}
	switch {
	case o.PermissionMode != "":
		args = append(args, "--permission-mode", o.PermissionMode)
	case mode == headless.Control:
		// Every prompt comes to rodin (the CLI's default may be auto mode,
		// whose classifier would decide instead).
		args = append(args, "--permission-mode", "manual")
	default:
		// Nobody answers prompts: edits inside the project and commands
		// are allowed up front (gh only by the dry-run instruction).
		args = append(args, "--permission-mode", "acceptEdits", "--allowedTools", "Bash")
	}
	if !o.NoSandbox {
		args = append(args, "--settings", sandboxSettings())
	}
	var system []string
	if c.Kind != "agent" && isGitHubSkill(c.Abs) {
		system = append(system, dryRunInstruction)
	}
	if mode == headless.Print {
		system = append(system, noQuestionsInstruction)
	}
	if len(system) > 0 {
		args = append(args, "--append-system-prompt", strings.Join(system, " "))
	}
	return args
}

// Run exercises one component. It returns when the session and the
// evaluation are over, the project removed (unless Keep); ctx's
// cancellation (Ctrl-C) ends the session early.
func Run(ctx context.Context, c Component, o Options) (out Outcome) {
	out = Outcome{Component: c, Arm: ArmPlugin, Run: 1, Prompt: o.Prompt, Errors: []string{}, Notes: []string{}, Answers: []Answer{}, Files: []FileChange{}}
	if o.Baseline {
		out.Arm = ArmBaseline
	}
	if out.Prompt == "" {
		out.Prompt = DefaultPrompt(c, o.Args)
	}
	start := time.Now()
	defer func() { out.DurationMS = time.Since(start).Milliseconds() }()

	top, err := os.MkdirTemp("", "rodin-exercise-")
	if err == nil {
		top, err = filepath.EvalSymlinks(top)
	}
	if err != nil {
		out.Status, out.Reason = Failed, "cannot make the disposable project: "+err.Error()
		return out
	}
	project := filepath.Join(top, "project")
	out.Project = project
	if o.Keep {
		out.Kept = true
		out.Notes = append(out.Notes, "The project was kept (--keep): "+project)
	} else {
		defer os.RemoveAll(top)
	}
	if err := Scaffold(project, o.Scaffold); err != nil {
		out.Status, out.Reason = Failed, "cannot make the disposable project: "+err.Error()
		return out
	}
	progress(o, c, start, "project %s", project)
	if o.RodinPlugin != "" {
		judge, err := copyEvaluator(o.RodinPlugin, filepath.Join(top, "judge"))
		if err != nil {
			out.Status, out.Reason = Failed, "cannot copy the evaluator's definition before the session: "+err.Error()
			return out
		}
		o.RodinPlugin = judge
	}
	switch missing := sandboxMissing(); {
	case o.NoSandbox:
		out.Notes = append(out.Notes, "Not sandboxed (--no-sandbox): the session's Bash could write outside its project and reach GitHub.")
	case missing != "":
		o.NoSandbox = true
		out.Notes = append(out.Notes, "Not sandboxed: Claude Code's sandbox needs "+missing+", which is not on PATH; the session's Bash could write outside its project and reach GitHub.")
	default:
		out.Notes = append(out.Notes, "Sandboxed: the session's Bash could not write outside its project, leave the sandbox, or reach GitHub; it was judged by a copy of the evaluator taken before it started.")
	}
	before := Take(project)

	// Plan mode writes its plan where the user's settings say (plansDirectory,
	// CLAUDE_CONFIG_DIR): resolved as the hooks resolve it.
	getenv := os.Getenv
	if o.Env != nil {
		getenv = func(k string) string { return envValue(o.Env, k) }
	}
	pol := &policy{dir: project, plans: plansdir.Dirs(plansdir.Env{Getenv: getenv, Cwd: project})}
	mode := headless.Control
	if o.NoControl {
		mode = headless.Print
	}
	calls := &pendingCalls{open: map[string]pendingCall{}}
	stopBeat := heartbeat(o, c, start, calls)
	run, err := session(ctx, c, o, out.Prompt, project, pol, mode, start, calls)
	if errors.Is(err, headless.ErrNoControlProtocol) && ctx.Err() == nil {
		progress(o, c, start, "the CLI does not speak the control protocol (%v); running without AskUserQuestion", err)
		out.Notes = append(out.Notes, "The CLI did not answer the control protocol: "+err.Error())
		mode = headless.Print
		run, err = session(ctx, c, o, out.Prompt, project, pol, mode, start, calls)
	}
	stopBeat()
	if err != nil {
		out.Status, out.Reason = Failed, "cannot run claude: "+err.Error()
		return out
	}
	if notLoggedIn(run) {
		out.Status, out.Reason = Skipped, "the claude CLI is not logged in: start `claude` and run /login (or set ANTHROPIC_API_KEY), then run rodin exercise again"
		return out
	}
	out.Method = mode.String()
	out.Interactive = mode == headless.Control
	if !out.Interactive {
		out.Notes = append(out.Notes, "Non-interactive path only: AskUserQuestion was disallowed and nobody answered prompts.")
	}
	out.Model = run.Model
	out.CostUSD, out.Usage, out.Turns = usageOf(run)
	out.Tools = run.ToolCalls
	out.Answers = pol.answered()
	out.Final = finalText(run)
	ev := &Evidence{Dir: project, Run: run, Changes: Diff(before, Take(project))}
	out.Files = ev.Changes
	out.Errors = capturedErrors(run)
	if c.Kind != "agent" && isGitHubSkill(c.Abs) {
		out.Notes = append(out.Notes, "GitHub operations were exercised as a dry run: gh commands were kept from running.")
	}

	out.Criteria = runCriteria(c, run, o.Baseline)
	if run.Interrupted {
		out.Status = Failed
		out.Notes = append(out.Notes, "Interrupted: the session was stopped before its end.")
		return out
	}
	var judge []Criterion
	for _, cr := range o.Criteria {
		if len(cr.Checks) > 0 {
			out.Criteria = append(out.Criteria, judgeChecks(cr, ev))
		} else {
			judge = append(judge, cr)
			out.Criteria = append(out.Criteria, Judged{ID: cr.ID, Title: cr.Title})
		}
	}
	if len(o.Criteria) == 0 {
		out.Notes = append(out.Notes, "No acceptance criteria (--spec): only that the "+c.Kind+" loaded and the session ran to its end was checked.")
	}
	if len(judge) > 0 {
		progress(o, c, start, "asking rodin:exercise-evaluator about %d criteria", len(judge))
		verdicts, why, cost := evaluate(ctx, c, o, judge, out, top)
		out.JudgeCostUSD = cost
		for i, j := range out.Criteria {
			if j.By != "" {
				continue
			}
			if v, ok := verdicts[strings.ToUpper(j.ID)]; ok {
				v.ID, v.Title = j.ID, j.Title
				out.Criteria[i] = v
			} else {
				out.Criteria[i] = Judged{ID: j.ID, Title: j.Title, Verdict: Unjudged, Evidence: why, By: "evaluator"}
			}
		}
	}
	out.Status = Passed
	for _, j := range out.Criteria {
		if j.Verdict != Pass {
			out.Status = Failed
		}
	}
	return out
}

func session(ctx context.Context, c Component, o Options, prompt, project string, pol *policy, mode headless.Mode, start time.Time, calls *pendingCalls) (*headless.Run, error) {
	return headless.Start(ctx, headless.Options{
		Claude: o.Claude, Args: Args(c, o, mode), Dir: project, Env: o.Env, Prompt: prompt, Mode: mode,
		Timeout: o.Timeout, Permit: pol.permit, Guard: pol.guard, GuardTools: guardedTools, Log: o.Log,
		Event: func(e headless.Event) {
			if e.Type != "assistant" && e.Type != "user" {
				return
			}
			gjson.GetBytes(e.Raw, "message.content").ForEach(func(_, b gjson.Result) bool {
				switch b.Get("type").String() {
				case "tool_use":
					what := b.Get("name").String() + " " + hookio.Clip(toolSummary(b.Get("input")), 70)
					calls.started(b.Get("id").String(), what)
					progress(o, c, start, "%s", what)
				case "tool_result":
					calls.ended(b.Get("tool_use_id").String())
				}
				return true
			})
		},
	})
}

// pendingCalls are the tool calls of the session still without a result,
// so that a quiet session says what it waits for.
type pendingCalls struct {
	mu   sync.Mutex
	open map[string]pendingCall
}

type pendingCall struct {
	what  string
	since time.Time
}

func (p *pendingCalls) started(id, what string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.open[id] = pendingCall{what, time.Now()}
}

func (p *pendingCalls) ended(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.open, id)
}

// oldest is the call waited on longest, "" when none is open.
func (p *pendingCalls) oldest() (string, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var best pendingCall
	for _, c := range p.open {
		if best.what == "" || c.since.Before(best.since) {
			best = c
		}
	}
	if best.what == "" {
		return "", 0
	}
	return best.what, time.Since(best.since)
}

// toolSummary is the part of a tool's input a person recognises it by.
func toolSummary(in gjson.Result) string {
	for _, k := range []string{"command", "file_path", "subagent_type", "pattern", "questions.0.question", "skill", "query"} {
		if v := in.Get(k); v.Exists() {
			return v.String()
		}
	}
	return ""
}

// capturedErrors are the tool calls that failed or were refused, and the
// CLI's own complaint when it ended badly.
func capturedErrors(run *headless.Run) []string {
	out := []string{}
	for _, c := range run.ToolCalls {
		switch {
		case strings.HasPrefix(c.Permission, "denied"):
			out = append(out, fmt.Sprintf("%s %s: %s", c.Name, hookio.Clip(toolSummary(gjson.ParseBytes(c.Input)), 60), c.Permission))
		case c.IsError:
			out = append(out, fmt.Sprintf("%s %s: %s", c.Name, hookio.Clip(toolSummary(gjson.ParseBytes(c.Input)), 60), hookio.Clip(c.Result, 160)))
		}
	}
	if run.Result != nil && run.Result.IsError {
		out = append(out, fmt.Sprintf("result %s: %s", run.Result.Subtype, hookio.Clip(run.Result.Text, 200)))
	}
	if run.ExitCode != 0 && !run.TimedOut && !run.Interrupted && strings.TrimSpace(run.Stderr) != "" {
		out = append(out, fmt.Sprintf("claude exited %d: %s", run.ExitCode, hookio.Clip(lastLines(run.Stderr, 3), 300)))
	}
	return out
}

// progress prints one line on stderr: which component, how long so far,
// what happens.
func progress(o Options, c Component, start time.Time, format string, args ...any) {
	if o.Progress == nil {
		return
	}
	el := time.Since(start)
	fmt.Fprintf(o.Progress, "rodin: [%s %d:%02d] %s\n", c.ID(), int(el.Minutes()), int(el.Seconds())%60, fmt.Sprintf(format, args...))
}

// heartbeat says the session still runs when it has been quiet.
func heartbeat(o Options, c Component, start time.Time, calls *pendingCalls) (stop func()) {
	return every.Start(30*time.Second, func(time.Duration) {
		if what, d := calls.oldest(); what != "" {
			progress(o, c, start, "still running (timeout %s): %s has had no result for %s", o.Timeout, what, d.Round(time.Second))
		} else {
			progress(o, c, start, "still running (timeout %s): waiting for the model", o.Timeout)
		}
	})
}

func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// notLoggedIn reports whether the session ended at once because the CLI
// has no credentials: nothing was exercised, so the run is a skip that
// says to log in, not a failure of the component.
func notLoggedIn(run *headless.Run) bool {
	text := finalText(run) + "\n" + run.Stderr
	return len(run.ToolCalls) == 0 && (strings.Contains(text, "Not logged in") || strings.Contains(text, "Please run /login"))
}
