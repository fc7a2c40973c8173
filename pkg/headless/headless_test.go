package headless

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// The protocol edges the E2E tier cannot provoke from the real CLI, against
// a fake one: this test binary, started again with FAKE_CLAUDE set, speaks
// the CLI's side of the stream-JSON control protocol.

func TestMain(m *testing.M) {
	if mode := os.Getenv("FAKE_CLAUDE"); mode != "" {
		os.Exit(fakeClaude(mode))
	}
	os.Exit(m.Run())
}

func fakeClaude(mode string) int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	next := func() gjson.Result {
		if !in.Scan() {
			return gjson.Result{}
		}
		return gjson.Parse(in.Text())
	}
	switch mode {
	case "refuse":
		fmt.Fprintln(os.Stderr, "error: unknown option '--permission-prompt-tool'")
		return 1
	case "guard":
		// rodin's PreToolUse hook: registered at initialize, asked before
		// a Write that no permission prompt would have stopped.
		init := next()
		matcher := init.Get("request.hooks.PreToolUse.0.matcher").String()
		callback := init.Get("request.hooks.PreToolUse.0.hookCallbackIds.0").String()
		out.Encode(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": init.Get("request_id").String()}})
		next()
		out.Encode(map[string]any{"type": "assistant", "message": map[string]any{"content": []any{
			map[string]any{"type": "tool_use", "id": "t1", "name": "Write", "input": map[string]any{"file_path": "/etc/passwd", "content": "x"}}}}})
		out.Encode(map[string]any{"type": "control_request", "request_id": "h1", "request": map[string]any{"subtype": "hook_callback", "callback_id": callback,
			"tool_use_id": "t1", "input": map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": map[string]any{"file_path": "/etc/passwd"}, "tool_use_id": "t1"}}})
		decision := next().Get("response.response.hookSpecificOutput")
		out.Encode(map[string]any{"type": "user", "message": map[string]any{"content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "t1", "is_error": true, "content": decision.Get("permissionDecision").String() + ": " + decision.Get("permissionDecisionReason").String()}}}})
		out.Encode(map[string]any{"type": "assistant", "message": map[string]any{"content": []any{
			map[string]any{"type": "text", "text": "hook matcher " + matcher}}}})
		out.Encode(map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": "done", "num_turns": 1})
		for in.Scan() {
		}
		return 0
	case "hang":
		next()
		out.Encode(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": "rodin-init"}})
		time.Sleep(time.Hour)
		return 0
	}
	// "ask": one AskUserQuestion, one unknown control request, one denied
	// Write, then the result; exit when stdin closes.
	init := next()
	out.Encode(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": init.Get("request_id").String()}})
	user := next()
	out.Encode(map[string]any{"type": "system", "subtype": "init", "model": "fake-model", "session_id": "s1",
		"slash_commands": []string{"sample:greet"}, "agents": []string{"general-purpose"}})
	ask := map[string]any{"questions": []any{map[string]any{"question": "Which one?", "header": "H", "multiSelect": false,
		"options": []any{map[string]any{"label": "First", "description": "d"}, map[string]any{"label": "Second", "description": "d"}}}}}
	out.Encode(map[string]any{"type": "assistant", "message": map[string]any{"content": []any{
		map[string]any{"type": "text", "text": "Asking: " + user.Get("message.content").String()},
		map[string]any{"type": "tool_use", "id": "t1", "name": "AskUserQuestion", "input": ask}}}})
	out.Encode(map[string]any{"type": "control_request", "request_id": "r1", "request": map[string]any{"subtype": "can_use_tool", "tool_name": "AskUserQuestion", "input": ask, "tool_use_id": "t1"}})
	answer := next()
	chosen := answer.Get("response.response.updatedInput.answers.Which one?").String()
	out.Encode(map[string]any{"type": "user", "message": map[string]any{"content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": "answered: " + chosen}}}})
	out.Encode(map[string]any{"type": "control_request", "request_id": "r2", "request": map[string]any{"subtype": "hook_callback", "callback_id": "x"}})
	unknown := next()
	out.Encode(map[string]any{"type": "assistant", "message": map[string]any{"content": []any{
		map[string]any{"type": "tool_use", "id": "t2", "name": "Write", "input": map[string]any{"file_path": "/etc/passwd", "content": "x"}}}}})
	out.Encode(map[string]any{"type": "control_request", "request_id": "r3", "request": map[string]any{"subtype": "can_use_tool", "tool_name": "Write", "input": map[string]any{"file_path": "/etc/passwd"}, "tool_use_id": "t2"}})
	denied := next()
	out.Encode(map[string]any{"type": "user", "message": map[string]any{"content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "t2", "is_error": true, "content": denied.Get("response.response.message").String()}}}})
	out.Encode(map[string]any{"type": "assistant", "message": map[string]any{"content": []any{
		map[string]any{"type": "text", "text": "unknown control request answered " + unknown.Get("response.subtype").String()}}}})
	out.Encode(map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": "done", "num_turns": 3})
	for in.Scan() {
	}
	return 0
}

func fake(t *testing.T, mode string, o Options) (*Run, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	o.Claude = exe
	o.Env = append(os.Environ(), "FAKE_CLAUDE="+mode)
	o.Dir = t.TempDir()
	return Start(context.Background(), o)
}

func TestControlProtocol(t *testing.T) {
	var asked []string
	run, err := fake(t, "ask", Options{Prompt: "go", Timeout: 30 * time.Second, Permit: func(r PermissionRequest) Decision {
		asked = append(asked, r.Tool)
		if r.Tool == "AskUserQuestion" {
			return Decision{Allow: true, Input: json.RawMessage(`{"answers":{"Which one?":"First"}}`)}
		}
		return Decision{Message: "outside the project"}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(asked, ",") != "AskUserQuestion,Write" || run.Prompts != 2 {
		t.Errorf("asked %v (%d prompts)", asked, run.Prompts)
	}
	if !run.Inited || run.Model != "fake-model" || strings.Join(run.Commands, ",") != "sample:greet" {
		t.Errorf("init: %v %q %v", run.Inited, run.Model, run.Commands)
	}
	ask := run.Calls("AskUserQuestion")
	if len(ask) != 1 || !ask[0].Done || ask[0].Result != "answered: First" || ask[0].Permission != "allowed" {
		t.Errorf("AskUserQuestion: %+v", ask)
	}
	write := run.Calls("Write")
	if len(write) != 1 || !write[0].IsError || write[0].Permission != "denied: outside the project" || write[0].Result != "outside the project" {
		t.Errorf("Write: %+v", write)
	}
	if run.Result == nil || run.Result.IsError || run.ExitCode != 0 || run.TimedOut {
		t.Errorf("result %+v, exit %d, timed out %v", run.Result, run.ExitCode, run.TimedOut)
	}
	if got := strings.Join(run.Texts, " | "); got != "Asking: go | unknown control request answered error" {
		t.Errorf("texts: %q", got)
	}
}

func TestNoControlProtocol(t *testing.T) {
	start := time.Now()
	_, err := fake(t, "refuse", Options{Prompt: "go", Timeout: 30 * time.Second})
	if !errors.Is(err, ErrNoControlProtocol) || !strings.Contains(err.Error(), "unknown option '--permission-prompt-tool'") {
		t.Fatalf("err = %v", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %s to notice a CLI that exited", took)
	}
}

func TestTimeoutKills(t *testing.T) {
	run, err := fake(t, "hang", Options{Prompt: "go", Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !run.TimedOut || run.Took > 20*time.Second {
		t.Errorf("timed out %v after %s", run.TimedOut, run.Took)
	}
}

func TestGuardHook(t *testing.T) {
	run, err := fake(t, "guard", Options{Prompt: "go", Timeout: 30 * time.Second, GuardTools: "Write|Edit",
		Guard: func(r PermissionRequest) Decision {
			if r.Tool == "Write" && strings.Contains(string(r.Input), "/etc/passwd") {
				return Decision{Message: "outside the project"}
			}
			return Decision{Allow: true}
		}})
	if err != nil {
		t.Fatal(err)
	}
	w := run.Calls("Write")
	if len(w) != 1 || w[0].Result != "deny: outside the project" || w[0].Permission != "denied: outside the project" {
		t.Errorf("Write: %+v", w)
	}
	if got := strings.Join(run.Texts, " | "); got != "hook matcher Write|Edit" {
		t.Errorf("texts: %q", got)
	}
	if run.Prompts != 0 {
		t.Errorf("a hook counted as %d permission prompts", run.Prompts)
	}
}
