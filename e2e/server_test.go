package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// block is one content block the scripted model answers with: text, or a
// tool call.
type block struct {
	Text  string
	Tool  string
	Input map[string]any
	ID    string // a tool call's id, assigned by the server
}

func text(s string) block                          { return block{Text: s} }
func tool(name string, input map[string]any) block { return block{Tool: name, Input: input} }

// turn answers the main agent's request after `step` assistant turns.
type turn func(s *server, step int) []block

// toolResult is what Claude Code sent back for one of the model's tool calls.
type toolResult struct {
	ID, Tool string
	Text     string
	IsError  bool
}

// server is a scripted Messages API on 127.0.0.1: the main agent's answers
// come from a script, one per step; subagents are told apart by their
// system prompts and answered from their own scripts; every request is
// recorded so tests can read what the model was told.
type server struct {
	t   testing.TB
	url string
	ln  net.Listener

	mu     sync.Mutex
	main   []turn
	agents map[string][]string // agent kind -> answers, in order
	// agentTurns scripts a kind of agent step by step, tool calls and all
	// (like main), for agents that act rather than answer; it is consulted
	// before agents.
	agentTurns map[string][]turn
	agentN     map[string]int
	// holds delays the answers of a kind of agent by their order:
	// holds["critic"] = {0, 20s} gives the first critic answer at once and
	// holds the second for 20 s (outside the lock), so that its run stays
	// in flight meanwhile. (Pages a reader asks for are never held.)
	holds    map[string][]time.Duration
	held     map[string]time.Duration // request body -> hold, for takeHold
	requests []recorded
	results  []toolResult
	calls    map[string]string // tool_use id -> tool name
	commands map[string]string // tool_use id -> a Bash call's command
	planPath string
	searched map[string]bool   // deferred tools the model has loaded with ToolSearch
	body     []byte            // the request being answered
	vars     map[string]string // what the scripted model remembers between steps
	answered int               // main-agent steps answered so far (the highest step + 1)
	// agentMarks, when set, is a directory where each subagent answer is
	// counted in .answers-<kind>, for scripted Bash calls to wait on.
	agentMarks string
	changed    chan struct{}
}

type recorded struct {
	Kind string // main, critic, validator, leakage-detector, title, other
	Body []byte
}

func newServer(t testing.TB) *server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, ln: ln, url: "http://" + ln.Addr().String(),
		agents: map[string][]string{}, agentN: map[string]int{}, calls: map[string]string{}, commands: map[string]string{}, searched: map[string]bool{}, vars: map[string]string{}, changed: make(chan struct{}, 1)}
	srv := &http.Server{Handler: s}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

// subagents: a phrase of each agent's system prompt (plugin/agents/*.md).
var subagents = map[string]string{
	"critic":           "You are an adversarial reviewer.",
	"validator":        "You are given a plan's gaps",
	"leakage-detector": "You read one plan and find phrases",
	"qa-engineer":      "You check whether a task really is done.",
	// rodin exercise's evaluator runs as the session's agent (--agent).
	"exercise-evaluator": "You judge a test run of a Claude Code skill.",
	// A project agent of the capture tests (a loop's worker), as a
	// subagent or as the session's agent.
	"worker":   "You are the loop's worker.",
	"verifier": "You are the loop's verifier.",
}

var planPathRe = regexp.MustCompile(`(/[^\s"'\x60]*/\.claude/plans/[^\s"'\x60/]+\.md)`)

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.Method == http.MethodHead || r.URL.Path == "/":
		w.WriteHeader(http.StatusOK)
		return
	case r.URL.Path == "/v1/messages/count_tokens":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens":100}`)
		return
	case r.URL.Path != "/v1/messages":
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"not scripted"}}`)
		return
	}
	kind, blocks := s.answer(body)
	if d := s.takeHold(body); d > 0 {
		time.Sleep(d) // an answer held back: a run still in flight meanwhile
	}
	model := gjson.GetBytes(body, "model").String()
	id := fmt.Sprintf("msg_%s_%d", kind, msgCounter.Add(1)) // Claude Code merges answers that share an id
	if gjson.GetBytes(body, "stream").Bool() {
		stream(w, id, model, blocks)
	} else {
		w.Header().Set("Content-Type", "application/json")
		w.Write(message(id, model, blocks))
	}
}

var msgCounter atomic.Int64

func (s *server) answer(body []byte) (string, []block) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.notify()
	system := gjson.GetBytes(body, "system").String()
	kind := "other"
	switch {
	case strings.Contains(system, "Generate a concise, sentence-case title"):
		kind = "title"
	default:
		for name, phrase := range subagents {
			if strings.Contains(system, phrase) {
				kind = name
			}
		}
		// The main agent is offered the Agent tool (2.1.3xx defers
		// ExitPlanMode to ToolSearch, so it may not be listed).
		if kind == "other" && (gjson.GetBytes(body, `tools.#(name=="ExitPlanMode").name`).Exists() || gjson.GetBytes(body, `tools.#(name=="Agent").name`).Exists()) {
			kind = "main"
		}
	}
	// An agent-team teammate's conversation opens with its lead's message.
	if strings.Contains(gjson.GetBytes(body, "messages.0").Raw, "<teammate-message") {
		kind = "teammate"
	}
	s.requests = append(s.requests, recorded{kind, body})
	s.body = body
	if dir := os.Getenv("RODIN_E2E_DUMP"); dir != "" {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%03d-%s.json", strings.ReplaceAll(s.t.Name(), "/", "-"), len(s.requests), kind)), body, 0o644)
	}
	switch kind {
	case "title":
		return kind, []block{text(`{"title": "Plan gate end-to-end"}`)}
	case "main":
		s.collect(body)
		if s.planPath == "" {
			if m := planPathRe.FindSubmatch(body); m != nil {
				s.planPath = string(m[1])
			}
		}
		step := scriptSteps(body)
		s.answered = max(s.answered, step+1)
		if step < len(s.main) {
			blocks := s.main[step](s, step)
			// A deferred tool (2.1.3xx: ExitPlanMode) must be loaded with
			// ToolSearch before it can be called, as a model would: that
			// answer is not a step of the script.
			for _, b := range blocks {
				if b.Tool != "" && !offered(body, b.Tool) && !s.searched[b.Tool] {
					s.searched[b.Tool] = true
					blocks = []block{tool("ToolSearch", map[string]any{"query": "select:" + b.Tool, "max_results": 1})}
					break
				}
			}
			for i := range blocks {
				if blocks[i].Tool != "" {
					blocks[i].ID = fmt.Sprintf("toolu_%02d_%d_%s", step, i, blocks[i].Tool)
					s.calls[blocks[i].ID] = blocks[i].Tool
					if c, ok := blocks[i].Input["command"].(string); ok {
						s.commands[blocks[i].ID] = c
					}
				}
			}
			return kind, blocks
		}
		return kind, []block{text("Done.")}
	case "worker", "verifier", "teammate":
		if step := scriptSteps(body); step < len(s.agentTurns[kind]) {
			if h := s.holds[kind]; step < len(h) && h[step] > 0 {
				if s.held == nil {
					s.held = map[string]time.Duration{}
				}
				s.held[string(body)] = h[step]
			}
			blocks := s.agentTurns[kind][step](s, step)
			for i := range blocks {
				if blocks[i].Tool != "" {
					blocks[i].ID = fmt.Sprintf("toolu_%s_%02d_%d_%s", kind, step, i, blocks[i].Tool)
					s.calls[blocks[i].ID] = blocks[i].Tool
				}
			}
			return kind, blocks
		}
		return kind, []block{text("Done.")}
	case "critic", "validator", "leakage-detector", "exercise-evaluator", "qa-engineer":
		// A reader whose prompt names its input file (rodin prompt critic,
		// rodin prompt leakage) reads all of it, a page at a time, first.
		if page := s.nextPage(body, kind); page != nil {
			return kind, []block{*page}
		}
		answers := s.agents[kind]
		n := s.agentN[kind]
		s.agentN[kind]++
		if s.agentMarks != "" {
			// A file a scripted Bash call can wait on: how many answers
			// this kind of subagent has been given.
			os.WriteFile(filepath.Join(s.agentMarks, ".answers-"+kind), []byte(strconv.Itoa(n+1)), 0o644)
		}
		if h := s.holds[kind]; n < len(h) && h[n] > 0 {
			if s.held == nil {
				s.held = map[string]time.Duration{}
			}
			s.held[string(body)] = h[n]
		}
		if n < len(answers) {
			return kind, []block{text(answers[n])}
		}
		return kind, []block{text("(no scripted answer)")}
	}
	return kind, []block{text("OK.")}
}

// takeHold is how long to hold the answer to the request body.
func (s *server) takeHold(body []byte) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := string(body)
	d := s.held[k]
	delete(s.held, k)
	return d
}

// inputFileRe finds the input file a reader's prompt names.
var inputFileRe = regexp.MustCompile(`(/\S+/\.rodin/critic-[0-9a-f]{16}\.md)`)

// pageLines is how many lines a scripted reader asks Read for at a time.
const pageLines = 400

// nextPage is the Read a scripted reader makes next: its input file's next
// page, or nil once it has asked for every page (or names no file).
func (s *server) nextPage(body []byte, kind string) *block {
	prompt := gjson.GetBytes(body, "messages.0.content").String()
	if c := gjson.GetBytes(body, "messages.0.content"); c.IsArray() {
		prompt = ""
		c.ForEach(func(_, b gjson.Result) bool { prompt += b.Get("text").String() + "\n"; return true })
	}
	path := inputFileRe.FindString(prompt)
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	lines := strings.Count(string(data), "\n")
	step := scriptSteps(body)
	if step*pageLines >= lines {
		return nil
	}
	b := tool("Read", map[string]any{"file_path": path, "offset": 1 + step*pageLines, "limit": pageLines})
	b.ID = fmt.Sprintf("toolu_%s_%d_%02d_Read", kind, msgCounter.Add(1), step)
	s.calls[b.ID] = "Read"
	return &b
}

// agentResult is the first result of a call of tool that an agent of kind
// made, as its later requests carry it.
func (s *server) agentResult(kind, toolName string) (toolResult, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.requests {
		if r.Kind != kind {
			continue
		}
		var found toolResult
		ok := false
		gjson.GetBytes(r.Body, "messages").ForEach(func(_, m gjson.Result) bool {
			m.Get("content").ForEach(func(_, b gjson.Result) bool {
				id := b.Get("tool_use_id").String()
				if b.Get("type").String() == "tool_result" && s.calls[id] == toolName {
					text := b.Get("content").String()
					if c := b.Get("content"); c.IsArray() {
						text = c.Get("0.text").String()
					}
					found, ok = toolResult{ID: id, Tool: toolName, Text: text, IsError: b.Get("is_error").Bool()}, true
					return false
				}
				return true
			})
			return !ok
		})
		if ok {
			return found, true
		}
	}
	return toolResult{}, false
}

// resultOf is the text of the newest result of a Bash call whose command
// starts with prefix (called with s.mu held, from a turn).
func (s *server) resultOf(prefix string) string {
	for i := len(s.results) - 1; i >= 0; i-- {
		if strings.HasPrefix(s.commands[s.results[i].ID], prefix) {
			return s.results[i].Text
		}
	}
	return ""
}

// offered reports whether the request offers tool to the model (listed,
// and not only as a deferred placeholder).
func offered(body []byte, tool string) bool {
	t := gjson.GetBytes(body, `tools.#(name=="`+tool+`")`)
	return t.Exists() && !t.Get("defer_loading").Bool()
}

// scriptSteps is how many steps of the script the model has answered: its
// answers in the conversation, less those that only loaded deferred tools.
func scriptSteps(body []byte) int {
	n := 0
	gjson.GetBytes(body, "messages").ForEach(func(_, m gjson.Result) bool {
		if m.Get("role").String() != "assistant" {
			return true
		}
		aside := false
		m.Get("content").ForEach(func(_, c gjson.Result) bool {
			switch c.Get("type").String() {
			case "tool_use":
				aside = c.Get("name").String() == "ToolSearch"
				return aside
			}
			return true
		})
		if !aside {
			n++
		}
		return true
	})
	return n
}

// collect records the tool results in a main-agent request (each once).
func (s *server) collect(body []byte) {
	seen := map[string]bool{}
	for _, r := range s.results {
		seen[r.ID] = true
	}
	gjson.GetBytes(body, "messages").ForEach(func(_, msg gjson.Result) bool {
		msg.Get("content").ForEach(func(_, b gjson.Result) bool {
			if b.Get("type").String() != "tool_result" {
				return true
			}
			id := b.Get("tool_use_id").String()
			if seen[id] {
				return true
			}
			seen[id] = true
			var parts []string
			if c := b.Get("content"); c.Type == gjson.String {
				parts = append(parts, c.String())
			} else {
				c.ForEach(func(_, part gjson.Result) bool {
					parts = append(parts, part.Get("text").String())
					return true
				})
			}
			s.results = append(s.results, toolResult{ID: id, Tool: s.calls[id], Text: strings.Join(parts, "\n"), IsError: b.Get("is_error").Bool()})
			return true
		})
		return true
	})
}

func (s *server) notify() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// result returns the n-th (0-based) tool result for tool, if it arrived.
func (s *server) result(toolName string, n int) (toolResult, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.results {
		if r.Tool == toolName {
			if n == 0 {
				return r, true
			}
			n--
		}
	}
	return toolResult{}, false
}

// stepsAnswered is how many main-agent steps the server has answered.
// mainRequests are the bodies of the main agent's requests so far.
func (s *server) mainRequests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out [][]byte
	for _, r := range s.requests {
		if r.Kind == "main" {
			out = append(out, r.Body)
		}
	}
	return out
}

func (s *server) stepsAnswered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answered
}

// resultText is the text of the newest result for tool: what the scripted
// model "read" (called with s.mu held, from a turn).
func (s *server) resultText(toolName string) string {
	for i := len(s.results) - 1; i >= 0; i-- {
		if s.results[i].Tool == toolName {
			return s.results[i].Text
		}
	}
	return ""
}

// summary lists the last tool results, for failure messages.
func (s *server) summary() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	from := max(0, len(s.results)-6)
	for _, r := range s.results[from:] {
		fmt.Fprintf(&b, "  %s (is_error=%v): %.600s\n", r.Tool, r.IsError, r.Text)
	}
	kinds := map[string]int{}
	for _, r := range s.requests {
		kinds[r.Kind]++
	}
	fmt.Fprintf(&b, "  requests by kind: %v; plan path %q\n", kinds, s.planPath)
	for i, r := range s.requests {
		if r.Kind != "main" {
			continue
		}
		var roles []string
		gjson.GetBytes(r.Body, "messages").ForEach(func(_, m gjson.Result) bool {
			types := []string{}
			m.Get("content").ForEach(func(_, c gjson.Result) bool { types = append(types, c.Get("type").String()); return true })
			if m.Get("content").Type == gjson.String {
				types = append(types, "string")
			}
			roles = append(roles, m.Get("role").String()+fmt.Sprint(types))
			return true
		})
		fmt.Fprintf(&b, "  main request %d: %s\n", i, strings.Join(roles, " "))
	}
	return b.String()
}

func (s *server) requestsOf(kind string) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out [][]byte
	for _, r := range s.requests {
		if r.Kind == kind {
			out = append(out, r.Body)
		}
	}
	return out
}

// stream writes blocks as the Messages API's server-sent events.
func stream(w http.ResponseWriter, id, model string, blocks []block) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	send := func(event string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 100, "output_tokens": 1}}})
	stop := "end_turn"
	for i, b := range blocks {
		if b.Tool == "" {
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": b.Text}})
		} else {
			stop = "tool_use"
			input, _ := json.Marshal(b.Input)
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{
				"type": "tool_use", "id": b.ID, "name": b.Tool, "input": map[string]any{}}})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// message is the non-streaming form of the same answer.
func message(id, model string, blocks []block) []byte {
	var content []any
	stop := "end_turn"
	for _, b := range blocks {
		if b.Tool == "" {
			content = append(content, map[string]any{"type": "text", "text": b.Text})
		} else {
			stop = "tool_use"
			content = append(content, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Tool, "input": b.Input})
		}
	}
	out, _ := json.Marshal(map[string]any{"id": id, "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 100, "output_tokens": 10}})
	return out
}
