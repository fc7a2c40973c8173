package route

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/route/artifacts"
)

// TestTablesMatchHooksJSON: the routing tables and hooks.json say the same
// thing. Every hooks.json entry that starts an executable has a table for
// its event in that executable with a route for each tool or agent its
// matcher names, and every route is reached by some hooks.json entry: a
// route Claude Code never starts, or a hook with no route, is a mistake.
func TestTablesMatchHooksJSON(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "plugin", "hooks", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ exe, event string }
	tables := map[key][]string{} // the routes' matchers
	add := func(exe, event string, matchers []string) { tables[key{exe, event}] = matchers }
	add("pretooluse", "PreToolUse", matchersOf(PreToolUse))
	for _, event := range []string{"PostToolUse", "PostToolUseFailure", "SubagentStop", "UserPromptSubmit", "PermissionRequest", "Notification", "PreSkillShellCommand"} {
		add("posttooluse", event, matchersOf(postTable(event)))
	}
	for _, event := range []string{"Stop", "TaskCompleted", "SubagentStop"} {
		add("stop", event, matchersOf(stopTable(event)))
	}
	add("artifacts", "PreToolUse", matchersOf(artifacts.PreToolUse))
	add("artifacts", "PostToolUse", matchersOf(artifacts.PostToolUse))

	reached := map[key][]string{} // the hooks.json matchers that start each table
	gjson.GetBytes(b, "hooks").ForEach(func(event, entries gjson.Result) bool {
		for _, entry := range entries.Array() {
			for _, h := range entry.Get("hooks").Array() {
				exe, ok := strings.CutPrefix(h.Get("command").String(), "${CLAUDE_PLUGIN_DATA}/bin/")
				if !ok {
					continue // the launcher (SessionStart)
				}
				k := key{exe, event.String()}
				routes, ok := tables[k]
				if !ok {
					t.Errorf("hooks.json starts %s on %s, which has no table for it", exe, event)
					continue
				}
				if exe == "artifacts" && !strings.HasSuffix(h.Get("if").String(), "(**/*.json)") {
					// Only artifact contracts see its calls: Markdown files
					// are plan and task files too, pretooluse's business.
					t.Errorf("hooks.json starts artifacts on %s for %q, not only JSON files", event, h.Get("if"))
				}
				m := entry.Get("matcher").String()
				reached[k] = append(reached[k], m)
				for _, alt := range strings.Split(m, "|") {
					if !slices.ContainsFunc(routes, func(r string) bool { return r == "" || slices.Contains(strings.Split(r, "|"), alt) }) {
						t.Errorf("hooks.json starts %s on %s for %q, and no route sees it", exe, event, alt)
					}
				}
			}
		}
		return true
	})
	for k, routes := range tables {
		for _, r := range routes {
			for _, alt := range strings.Split(r, "|") {
				if !slices.ContainsFunc(reached[k], func(m string) bool { return m == "" || slices.Contains(strings.Split(m, "|"), alt) }) {
					t.Errorf("the %s table of %s has a route for %q, which no hooks.json entry starts", k.event, k.exe, alt)
				}
			}
		}
	}
}

func matchersOf[O any](table []Route[O]) []string {
	var out []string
	for _, r := range table {
		out = append(out, r.Match)
	}
	return out
}

func TestMatches(t *testing.T) {
	for _, c := range []struct {
		matcher, name string
		want          bool
	}{
		{"", "Bash", true},
		{"Write|Edit|MultiEdit", "Edit", true},
		{"Write|Edit|MultiEdit", "Edits", false},
		{"Write|Edit|MultiEdit", "", false},
		{".*executor.*", "ralph-specum:spec-executor", true},
		{".*executor.*", "rodin:critic", false},
		{"rodin:critic|rodin:validator", "rodin:validator", true},
	} {
		if got := Matches(c.matcher, c.name); got != c.want {
			t.Errorf("Matches(%q, %q) = %v, want %v", c.matcher, c.name, got, c.want)
		}
	}
}

// TestFirstDenyWins: a deny ends the PreToolUse table; the notes of the
// routes before it are dropped with the call, and notes of routes that
// decide nothing are joined.
func TestFirstDenyWins(t *testing.T) {
	saved := PreToolUse
	defer func() { PreToolUse = saved }()
	ran := []string{}
	note := func(name string) func(hookio.Input, func(string) string) hookio.PreOutcome {
		return func(hookio.Input, func(string) string) hookio.PreOutcome {
			ran = append(ran, name)
			return hookio.PreOutcome{SystemMessage: name}
		}
	}
	PreToolUse = []Route[hookio.PreOutcome]{
		{Match: "Write", Run: note("a")},
		{Match: "Edit", Run: note("not this tool")},
		{Match: "Write|Edit", Run: note("b")},
	}
	in := hookio.NewInput([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Write"}`))
	if out := Pre(in, os.Getenv); out.Deny || out.SystemMessage != "a b" {
		t.Errorf("notes: %+v", out)
	}
	PreToolUse = append(PreToolUse[:1:1], Route[hookio.PreOutcome]{Match: "Write", Run: func(hookio.Input, func(string) string) hookio.PreOutcome {
		return hookio.Denial("[rodin] no")
	}}, Route[hookio.PreOutcome]{Match: "Write", Run: note("after the deny")})
	ran = nil
	if out := Pre(in, os.Getenv); !out.Deny || out.Reason != "[rodin] no" || slices.Contains(ran, "after the deny") {
		t.Errorf("deny: %+v, ran %v", out, ran)
	}
}

// TestStopDeadlineInsideTimeout: the stop executable answers before every
// timeout hooks.json gives it. Claude Code ignores onFailure on the stop
// events, so a hook killed at its timeout would let the stop through.
func TestStopDeadlineInsideTimeout(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "plugin", "hooks", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	gjson.GetBytes(b, "hooks").ForEach(func(event, entries gjson.Result) bool {
		for _, e := range entries.Array() {
			for _, h := range e.Get("hooks").Array() {
				if !strings.HasSuffix(h.Get("command").String(), "/bin/stop") {
					continue
				}
				n++
				timeout := time.Duration(h.Get("timeout").Int()) * time.Second
				if timeout < DefaultStopDeadline+5*time.Second {
					t.Errorf("hooks.json gives the stop hook on %s %v; its own deadline is %v", event, timeout, DefaultStopDeadline)
				}
			}
		}
		return true
	})
	if n < 3 {
		t.Errorf("hooks.json starts the stop executable %d times, want Stop, SubagentStop and TaskCompleted", n)
	}
}
