// Package headless runs one Claude Code session without a terminal and
// records what happened in it: `claude -p` streaming JSON events, driven
// through the stream-JSON control protocol that the Agent SDK speaks, so
// that the caller answers the session's permission prompts and its
// AskUserQuestion calls itself (the SDK's canUseTool).
//
// The protocol, as the CLI speaks it (read from the Agent SDK's client and
// confirmed against the real CLI; docs/claude-code.md):
//
//	claude -p --input-format stream-json --output-format stream-json --verbose --permission-prompt-tool stdio …
//	→ {"type":"control_request","request_id":"rodin-1","request":{"subtype":"initialize","hooks":null}}
//	← {"type":"control_response","response":{"subtype":"success","request_id":"rodin-1",…}}
//	→ {"type":"user","session_id":"","message":{"role":"user","content":PROMPT},"parent_tool_use_id":null}
//	← {"type":"system","subtype":"init",…} {"type":"assistant",…} {"type":"user",…}
//	← {"type":"control_request","request_id":R,"request":{"subtype":"can_use_tool","tool_name":T,"input":{…}}}
//	→ {"type":"control_response","response":{"subtype":"success","request_id":R,"response":{"behavior":"allow","updatedInput":{…}}}}
//	← {"type":"result",…}   then stdin is closed, unless a subagent still runs
//
// A CLI that does not answer the initialize request (an old release, or a
// wrapper that refuses the flags) is ErrNoControlProtocol: the caller may
// run the session again in Print mode, where nobody answers prompts.
package headless

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/rodin-gate/rodin/pkg/procgroup"
	"github.com/tidwall/gjson"
)

// Mode is how the session is driven.
type Mode int

const (
	// Control drives the session through the control protocol: the
	// caller's Permit answers every permission prompt and AskUserQuestion.
	Control Mode = iota
	// Print runs `claude -p PROMPT` with AskUserQuestion disallowed: only
	// the non-interactive path of a skill runs.
	Print
)

func (m Mode) String() string {
	if m == Print {
		return "print"
	}
	return "control"
}

// ErrNoControlProtocol is returned when the CLI ended without answering
// the initialize request: it does not speak the control protocol.
var ErrNoControlProtocol = errors.New("the claude CLI did not answer the control protocol's initialize request")

// Options describe one session.
type Options struct {
	Claude  string   // the CLI's path
	Args    []string // more arguments: --plugin-dir, --model, --permission-mode, …
	Dir     string   // the working directory
	Env     []string // the environment; nil for this process's
	Prompt  string
	Mode    Mode
	Timeout time.Duration // the whole session; 0 for none
	// Permit answers a permission prompt (Control mode). Nil allows all.
	Permit func(PermissionRequest) Decision
	// Guard is asked before every call of the tools GuardTools matches (a
	// PreToolUse hook registered through the protocol, Control mode): it
	// holds whatever the permission mode, which may let a call run without
	// a prompt (2.1.3xx -p sessions write files unasked). A Decision that
	// is not Allow blocks the call; Input is ignored.
	Guard      func(PermissionRequest) Decision
	GuardTools string // a hook matcher: "Write|Edit|Bash"
	// Event is called for each event line as it arrives (progress).
	Event func(Event)
	// Log, when set, receives every line written and read, with a
	// direction prefix ("> " to the CLI, "< " from it).
	Log io.Writer
}

// PermissionRequest is the CLI asking whether a tool call may run.
type PermissionRequest struct {
	Tool      string
	Input     json.RawMessage
	ToolUseID string
}

// Decision answers a PermissionRequest. Input, when set, replaces the
// tool's input (AskUserQuestion's answers go there).
type Decision struct {
	Allow   bool
	Input   json.RawMessage
	Message string // why, when denied: the model reads it
}

// Event is one line the CLI printed, with its type and subtype.
type Event struct {
	Type, Subtype string
	Raw           []byte
}

// ToolCall is one tool call of the session or of a subagent in it.
type ToolCall struct {
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Input   json.RawMessage `json:"input"`
	Parent  string          `json:"parent,omitempty"` // the Agent call it ran under, "" for the main agent
	Result  string          `json:"result,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
	Done    bool            `json:"done"`
	// Permission is what the caller answered when the CLI asked: "",
	// "allowed" or "denied: <message>".
	Permission string `json:"permission,omitempty"`
}

// Result is the session's result event.
type Result struct {
	Subtype  string  `json:"subtype"`
	IsError  bool    `json:"is_error"`
	Text     string  `json:"text"`
	NumTurns int     `json:"num_turns"`
	CostUSD  float64 `json:"cost_usd"`
	Usage    Usage   `json:"usage"`
	// DurationMS is the session's time as the CLI counts it.
	DurationMS int64 `json:"duration_ms"`
}

// Usage is the tokens a session used, as its result event sums them.
type Usage struct {
	InputTokens         int64 `json:"input_tokens"`
	OutputTokens        int64 `json:"output_tokens"`
	CacheReadTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationTokens int64 `json:"cache_creation_input_tokens"`
}

// Total is every token counted.
func (u Usage) Total() int64 {
	return u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheCreationTokens
}

// Add sums two usages.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.InputTokens + v.InputTokens, u.OutputTokens + v.OutputTokens,
		u.CacheReadTokens + v.CacheReadTokens, u.CacheCreationTokens + v.CacheCreationTokens}
}

// Run is what happened in a session.
type Run struct {
	Mode  Mode   `json:"-"`
	Model string `json:"model,omitempty"`
	// Commands and Agents are what the init event lists: slash commands
	// (skills are among them, as plugin:skill) and agent types.
	Commands    []string      `json:"-"`
	Agents      []string      `json:"-"`
	SessionID   string        `json:"session_id,omitempty"`
	Texts       []string      `json:"texts,omitempty"` // the main agent's text blocks, in order
	ToolCalls   []*ToolCall   `json:"tool_calls,omitempty"`
	Result      *Result       `json:"result,omitempty"`
	Stderr      string        `json:"stderr,omitempty"` // the last of it
	ExitCode    int           `json:"exit_code"`
	TimedOut    bool          `json:"timed_out,omitempty"`
	Interrupted bool          `json:"interrupted,omitempty"`
	Took        time.Duration `json:"-"`
	Events      int           `json:"events"`
	Inited      bool          `json:"-"` // the init event came
	// Prompts counts the permission prompts the caller answered.
	Prompts int `json:"prompts"`
}

// Calls returns the calls of tool name, in order.
func (r *Run) Calls(name string) []*ToolCall {
	var out []*ToolCall
	for _, c := range r.ToolCalls {
		if c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

// exitGrace is how long the CLI gets to exit after its input ends.
const exitGrace = 15 * time.Second

// initTimeout is how long the CLI gets to answer the initialize request.
const initTimeout = 60 * time.Second

// Start runs the session to its end, the timeout or ctx's cancellation,
// and returns what was captured in every case. Its error is
// ErrNoControlProtocol, or the CLI could not be started.
func Start(ctx context.Context, o Options) (*Run, error) {
	args := []string{"-p", "--output-format", "stream-json", "--verbose"}
	if o.Mode == Control {
		args = append(args, "--input-format", "stream-json", "--permission-prompt-tool", "stdio")
	} else {
		args = append(args, "--disallowedTools", "AskUserQuestion")
	}
	args = append(args, o.Args...)
	if o.Mode == Print {
		args = append(args, "--", o.Prompt)
	}
	cmd := exec.Command(o.Claude, args...)
	cmd.Dir = o.Dir
	cmd.Env = o.Env
	procgroup.Own(cmd)
	stderr := &tail{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &session{o: o, run: &Run{Mode: o.Mode}, stdin: stdin, calls: map[string]*ToolCall{}, notes: map[string]string{}, inflight: map[string]bool{},
		initialized: make(chan struct{}), done: make(chan struct{})}
	if o.Mode == Print {
		stdin.Close()
	} else {
		var hooks any
		if o.Guard != nil {
			hooks = map[string]any{"PreToolUse": []any{map[string]any{"matcher": o.GuardTools, "hookCallbackIds": []string{guardCallback}}}}
		}
		s.write(map[string]any{"type": "control_request", "request_id": "rodin-init",
			"request": map[string]any{"subtype": "initialize", "hooks": hooks}})
	}
	readDone := make(chan struct{})
	go func() {
		s.read(stdout)
		close(readDone)
	}()
	exited := make(chan error, 1)
	go func() {
		<-readDone
		exited <- cmd.Wait()
	}()

	var timeout <-chan time.Time
	if o.Timeout > 0 {
		t := time.NewTimer(o.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	kill := func() {
		procgroup.Kill(cmd)
	}
	var waitErr error
	noProtocol := false
	if o.Mode == Control {
		initTimer := time.NewTimer(initTimeout)
		select {
		case <-s.initialized:
			s.write(map[string]any{"type": "user", "session_id": "",
				"message": map[string]any{"role": "user", "content": o.Prompt}, "parent_tool_use_id": nil})
		case waitErr = <-exited:
			noProtocol = true
			exited <- waitErr
		case <-initTimer.C:
			noProtocol = true
			kill()
		case <-timeout:
			s.run.TimedOut = true
			kill()
		case <-ctx.Done():
			s.run.Interrupted = true
			kill()
		}
		initTimer.Stop()
	}
	var grace <-chan time.Time
	for finished := false; !finished; {
		select {
		case waitErr = <-exited:
			finished = true
		case <-s.done:
			// The result came and nothing runs in the background: end the
			// input, and give the CLI a moment to exit on its own.
			s.closeInput()
			g := time.NewTimer(exitGrace)
			defer g.Stop()
			grace = g.C
			s.done = nil
		case <-grace:
			kill()
		case <-timeout:
			s.run.TimedOut = true
			kill()
			timeout = nil
		case <-ctx.Done():
			s.run.Interrupted = true
			kill()
		}
	}
	kill() // what the CLI started and left behind goes with it
	s.closeInput()
	s.run.Took = time.Since(start)
	s.run.Stderr = stderr.String()
	var exit *exec.ExitError
	switch {
	case waitErr == nil:
	case errors.As(waitErr, &exit):
		s.run.ExitCode = exit.ExitCode()
	default:
		s.run.ExitCode = -1
	}
	s.mu.Lock()
	gotInit := s.initOK
	s.mu.Unlock()
	if o.Mode == Control && !gotInit && !s.run.TimedOut && !s.run.Interrupted && (noProtocol || s.run.Events == 0) {
		return s.run, fmt.Errorf("%w (exit %d): %s", ErrNoControlProtocol, s.run.ExitCode, lastLine(s.run.Stderr))
	}
	return s.run, nil
}

type session struct {
	o     Options
	run   *Run
	stdin io.WriteCloser

	mu          sync.Mutex
	closed      bool
	calls       map[string]*ToolCall
	inflight    map[string]bool // background agent tasks still running
	resultSeen  bool
	notes       map[string]string // permission answers for calls not seen yet
	initOK      bool
	initialized chan struct{}
	done        chan struct{} // closed when the input may end
	doneClosed  bool
}

func (s *session) write(v any) {
	line, _ := json.Marshal(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if s.o.Log != nil {
		fmt.Fprintf(s.o.Log, "> %s\n", line)
	}
	s.stdin.Write(append(line, '\n'))
}

func (s *session) closeInput() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.stdin.Close()
	}
}

// read handles every line the CLI prints until it closes stdout.
func (s *session) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			s.handle(line)
		}
		if err != nil {
			return
		}
	}
}

func (s *session) handle(line []byte) {
	if !gjson.ValidBytes(line) {
		return // the CLI's own diagnostics, not an event
	}
	if s.o.Log != nil {
		s.mu.Lock()
		fmt.Fprintf(s.o.Log, "< %s", line)
		s.mu.Unlock()
	}
	ev := gjson.ParseBytes(line)
	typ, sub := ev.Get("type").String(), ev.Get("subtype").String()
	s.mu.Lock()
	s.run.Events++
	s.mu.Unlock()
	switch typ {
	case "control_response":
		if ev.Get("response.request_id").String() == "rodin-init" {
			s.mu.Lock()
			ok := ev.Get("response.subtype").String() == "success"
			if ok && !s.initOK {
				s.initOK = true
				close(s.initialized)
			}
			s.mu.Unlock()
		}
	case "control_request":
		s.answer(ev)
	case "system":
		s.system(ev, sub)
	case "assistant":
		s.assistant(ev)
	case "user":
		s.toolResults(ev)
	case "result":
		s.mu.Lock()
		s.run.Result = &Result{Subtype: sub, IsError: ev.Get("is_error").Bool(), Text: ev.Get("result").String(),
			NumTurns: int(ev.Get("num_turns").Int()), CostUSD: ev.Get("total_cost_usd").Float(), DurationMS: ev.Get("duration_ms").Int(),
			Usage: Usage{ev.Get("usage.input_tokens").Int(), ev.Get("usage.output_tokens").Int(),
				ev.Get("usage.cache_read_input_tokens").Int(), ev.Get("usage.cache_creation_input_tokens").Int()}}
		s.resultSeen = true
		s.maybeDone()
		s.mu.Unlock()
	}
	if s.o.Event != nil {
		s.o.Event(Event{Type: typ, Subtype: sub, Raw: line})
	}
}

// maybeDone ends the input once a result came and no subagent runs in the
// background (each one's end wakes the main agent for another turn, which
// ends in another result). Called with s.mu held.
func (s *session) maybeDone() {
	if s.o.Mode == Control && s.resultSeen && len(s.inflight) == 0 && !s.doneClosed {
		s.doneClosed = true
		close(s.done)
	}
}

func (s *session) system(ev gjson.Result, sub string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch sub {
	case "init":
		s.run.Model = ev.Get("model").String()
		s.run.SessionID = ev.Get("session_id").String()
		for _, c := range ev.Get("slash_commands").Array() {
			s.run.Commands = append(s.run.Commands, c.String())
		}
		for _, a := range ev.Get("agents").Array() {
			s.run.Agents = append(s.run.Agents, a.String())
		}
		s.run.Inited = true
	case "task_started":
		if t := ev.Get("task_type").String(); t == "local_agent" || t == "local_workflow" {
			s.inflight[ev.Get("task_id").String()] = true
			s.resultSeen = false
		}
	case "task_notification":
		delete(s.inflight, ev.Get("task_id").String())
	case "task_updated":
		switch ev.Get("patch.status").String() {
		case "completed", "failed", "killed", "stopped", "cancelled":
			delete(s.inflight, ev.Get("task_id").String())
		}
	}
}

func (s *session) assistant(ev gjson.Result) {
	parent := ev.Get("parent_tool_use_id").String()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resultSeen = false
	ev.Get("message.content").ForEach(func(_, b gjson.Result) bool {
		switch b.Get("type").String() {
		case "text":
			if parent == "" && strings.TrimSpace(b.Get("text").String()) != "" {
				s.run.Texts = append(s.run.Texts, b.Get("text").String())
			}
		case "tool_use":
			id := b.Get("id").String()
			if _, seen := s.calls[id]; seen {
				return true
			}
			c := &ToolCall{ID: id, Name: b.Get("name").String(), Input: json.RawMessage(b.Get("input").Raw), Parent: parent, Permission: s.notes[id]}
			s.calls[id] = c
			s.run.ToolCalls = append(s.run.ToolCalls, c)
		}
		return true
	})
}

func (s *session) toolResults(ev gjson.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ev.Get("message.content").ForEach(func(_, b gjson.Result) bool {
		if b.Get("type").String() != "tool_result" {
			return true
		}
		c := s.calls[b.Get("tool_use_id").String()]
		if c == nil {
			return true
		}
		c.Done = true
		c.IsError = b.Get("is_error").Bool()
		c.Result = contentText(b.Get("content"))
		return true
	})
}

// contentText is a tool result's text, whether a string or blocks.
func contentText(c gjson.Result) string {
	if c.Type == gjson.String {
		return c.String()
	}
	var parts []string
	c.ForEach(func(_, p gjson.Result) bool {
		if t := p.Get("text"); t.Exists() {
			parts = append(parts, t.String())
		}
		return true
	})
	return strings.Join(parts, "\n")
}

// guardCallback is the id of the PreToolUse hook rodin registers for Guard.
const guardCallback = "rodin-guard"

// answer replies to a control request from the CLI: can_use_tool through
// Permit, rodin's PreToolUse hook through Guard, anything else with an
// error (rodin registers no other hooks and no MCP servers).
func (s *session) answer(ev gjson.Result) {
	id := ev.Get("request_id").String()
	req := ev.Get("request")
	var resp any
	switch sub := req.Get("subtype").String(); {
	case sub == "can_use_tool":
		pr := s.request(req.Get("tool_name").String(), req.Get("input").Raw, req.Get("tool_use_id").String())
		d := Decision{Allow: true}
		if s.o.Permit != nil {
			d = s.o.Permit(pr)
		}
		s.note(pr.ToolUseID, d, true)
		if d.Allow {
			input := d.Input
			if input == nil {
				input = pr.Input
			}
			resp = map[string]any{"behavior": "allow", "updatedInput": input}
		} else {
			resp = map[string]any{"behavior": "deny", "message": d.Message}
		}
	case sub == "hook_callback" && req.Get("callback_id").String() == guardCallback && s.o.Guard != nil:
		in := req.Get("input")
		useID := req.Get("tool_use_id").String()
		if useID == "" {
			useID = in.Get("tool_use_id").String()
		}
		pr := s.request(in.Get("tool_name").String(), in.Get("tool_input").Raw, useID)
		resp = map[string]any{} // no opinion: the CLI's own permission flow goes on
		if d := s.o.Guard(pr); !d.Allow {
			s.note(pr.ToolUseID, d, false)
			resp = map[string]any{"hookSpecificOutput": map[string]any{
				"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": d.Message}}
		}
	default:
		s.write(map[string]any{"type": "control_response", "response": map[string]any{
			"subtype": "error", "request_id": id, "error": "rodin does not handle " + sub}})
		return
	}
	s.write(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": id, "response": resp}})
}

func (s *session) request(tool, input, useID string) PermissionRequest {
	if input == "" {
		input = "{}"
	}
	return PermissionRequest{Tool: tool, Input: json.RawMessage(input), ToolUseID: useID}
}

// note records a decision on its tool call (or for the call to come);
// prompt counts it as a permission prompt answered.
func (s *session) note(useID string, d Decision, prompt bool) {
	note := "allowed"
	if !d.Allow {
		note = "denied: " + d.Message
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if prompt {
		s.run.Prompts++
	}
	if c := s.calls[useID]; c != nil {
		c.Permission = note
	} else {
		s.notes[useID] = note
	}
}

// tail keeps the last 16 KiB written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 32<<10 {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-16<<10:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if s == "" {
		return "(nothing on stderr)"
	}
	return s
}
