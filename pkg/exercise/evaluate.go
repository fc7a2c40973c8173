package exercise

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/rodin-gate/rodin/pkg/headless"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/tidwall/gjson"
)

// Verdicts of a criterion. Unjudged is what a criterion with no check gets
// when no evaluator could rate it: it is not a pass.
const (
	Pass     = "Pass"
	Fail     = "Fail"
	Partial  = "Partial"
	Unjudged = "Unjudged"
)

// Judged is one criterion with its verdict and one line of evidence.
type Judged struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Verdict  string `json:"verdict"`
	Evidence string `json:"evidence"`
	By       string `json:"by"` // checks (rodin), evaluator, run (rodin)
}

// Evidence is what a run left to judge it by.
type Evidence struct {
	Dir     string // the scaffold
	Changes []FileChange
	Run     *headless.Run
}

// judgeChecks rates a criterion by its checks alone: all pass is Pass,
// none is Fail, some is Partial. The evidence is the first failing
// check's, or every check's when all pass.
func judgeChecks(c Criterion, ev *Evidence) Judged {
	j := Judged{ID: c.ID, Title: c.Title, By: "checks"}
	var ok, bad []string
	for _, ck := range c.Checks {
		if pass, why := runCheck(ck, ev); pass {
			ok = append(ok, why)
		} else {
			bad = append(bad, why)
		}
	}
	switch {
	case len(bad) == 0:
		j.Verdict, j.Evidence = Pass, strings.Join(ok, "; ")
	case len(ok) == 0:
		j.Verdict, j.Evidence = Fail, strings.Join(bad, "; ")
	default:
		j.Verdict, j.Evidence = Partial, strings.Join(bad, "; ")+" (passed: "+strings.Join(ok, "; ")+")"
	}
	return j
}

// runCheck verifies one check against the evidence, with one line saying
// what was found.
func runCheck(ck Check, ev *Evidence) (bool, string) {
	run := ev.Run
	switch ck.Kind {
	case "file", "no file":
		p, inside := inScaffold(ev.Dir, ck.Arg)
		if !inside {
			return false, fmt.Sprintf("`%s` is outside the project", ck.Arg)
		}
		data, err := os.ReadFile(p)
		info, statErr := os.Stat(p)
		exists := statErr == nil
		if ck.Kind == "no file" {
			if exists {
				return false, fmt.Sprintf("`%s` exists", ck.Arg)
			}
			return true, fmt.Sprintf("no `%s`", ck.Arg)
		}
		if !exists {
			return false, fmt.Sprintf("no `%s` in the project", ck.Arg)
		}
		how := "present"
		for _, c := range ev.Changes {
			if c.Path == filepath.ToSlash(filepath.Clean(ck.Arg)) {
				how = c.Change
			}
		}
		if ck.With == "" {
			if info.IsDir() {
				return true, fmt.Sprintf("`%s/` %s", ck.Arg, how)
			}
			return true, fmt.Sprintf("`%s` %s (%d lines)", ck.Arg, how, lineCount(p))
		}
		if err != nil {
			return false, fmt.Sprintf("`%s` cannot be read: %v", ck.Arg, err)
		}
		if strings.Contains(string(data), ck.With) {
			return true, fmt.Sprintf("`%s` %s, holds `%s`", ck.Arg, how, ck.With)
		}
		return false, fmt.Sprintf("`%s` %s but does not hold `%s`", ck.Arg, how, ck.With)
	case "tool", "no tool":
		calls := run.Calls(ck.Arg)
		var matching []*headless.ToolCall
		for _, c := range calls {
			if ck.With == "" || strings.Contains(inputText(c), ck.With) {
				matching = append(matching, c)
			}
		}
		if ck.Kind == "no tool" {
			if len(matching) > 0 {
				return false, fmt.Sprintf("%s called %d time(s)", ck.Arg, len(matching))
			}
			return true, fmt.Sprintf("no %s call", ck.Arg)
		}
		for _, c := range matching {
			if c.Done && !c.IsError {
				return true, fmt.Sprintf("%s called (%d), succeeded: %s", ck.Arg, len(matching), hookio.Clip(c.Result, 80))
			}
		}
		switch {
		case len(calls) == 0:
			return false, fmt.Sprintf("%s never called", ck.Arg)
		case len(matching) == 0:
			return false, fmt.Sprintf("%s called %d time(s), never with `%s`", ck.Arg, len(calls), ck.With)
		}
		last := matching[len(matching)-1]
		if !last.Done {
			return false, fmt.Sprintf("%s called, no result (the run ended first)", ck.Arg)
		}
		return false, fmt.Sprintf("%s called %d time(s), every one failed: %s", ck.Arg, len(matching), hookio.Clip(last.Result, 100))
	case "command":
		for _, c := range run.Calls("Bash") {
			cmd := gjson.GetBytes(c.Input, "command").String()
			if !strings.Contains(cmd, ck.Arg) {
				continue
			}
			switch {
			case strings.HasPrefix(c.Permission, "denied"):
				return true, fmt.Sprintf("`%s` would have run (kept from running: dry run)", hookio.Clip(cmd, 60))
			case !c.Done:
				return true, fmt.Sprintf("`%s` started, no result", hookio.Clip(cmd, 60))
			case c.IsError:
				return true, fmt.Sprintf("`%s` ran and failed: %s", hookio.Clip(cmd, 60), hookio.Clip(c.Result, 60))
			}
			return true, fmt.Sprintf("`%s` ran", hookio.Clip(cmd, 60))
		}
		return false, fmt.Sprintf("no command with `%s` (%d Bash calls)", ck.Arg, len(run.Calls("Bash")))
	case "output":
		final := finalText(run)
		if strings.Contains(final, ck.Arg) {
			return true, fmt.Sprintf("the final message says `%s`", ck.Arg)
		}
		return false, fmt.Sprintf("the final message does not say `%s`: %q", ck.Arg, hookio.Clip(final, 80))
	}
	return false, "unknown check " + ck.Kind
}

// inScaffold resolves a check's path inside the scaffold; a path that
// leaves it is not evidence.
func inScaffold(dir, rel string) (string, bool) {
	if filepath.IsAbs(rel) {
		return "", false
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	r, err := filepath.Rel(dir, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return p, true
}

// inputText is a tool call's input with its strings unescaped, so that a
// check can name text as the model wrote it.
func inputText(c *headless.ToolCall) string {
	var b strings.Builder
	var walk func(r gjson.Result)
	walk = func(r gjson.Result) {
		switch {
		case r.IsObject() || r.IsArray():
			r.ForEach(func(_, v gjson.Result) bool { walk(v); return true })
		default:
			b.WriteString(r.String())
			b.WriteByte('\n')
		}
	}
	walk(gjson.ParseBytes(c.Input))
	return b.String()
}

// finalText is what the session ended with: the result's text, else the
// main agent's last words.
func finalText(run *headless.Run) string {
	if run.Result != nil && run.Result.Text != "" {
		return run.Result.Text
	}
	if n := len(run.Texts); n > 0 {
		return run.Texts[n-1]
	}
	return ""
}

// runCriteria are rodin's own criteria for every run: the component was
// loaded, and the session ran to its end.
func runCriteria(c Component, run *headless.Run, baseline bool) []Judged {
	ended := runEnded(run)
	if baseline {
		return []Judged{ended} // no plugin to load
	}
	loaded := Judged{ID: "RUN-1", Title: "Claude Code loaded the " + c.Kind, By: "run"}
	list := run.Commands
	if c.Kind == "agent" {
		list = run.Agents
	}
	switch {
	case !run.Inited:
		loaded.Verdict, loaded.Evidence = Fail, "the session never started (no init event)"
	case c.NotInvocable:
		// No slash command: the session lists it nowhere; the Skill call
		// that ran it shows it loaded.
		loaded.Verdict, loaded.Evidence = Fail, fmt.Sprintf("no Skill call ran `%s` (user-invocable: false: the session's listing has no such command)", c.ID())
		for _, call := range run.Calls("Skill") {
			if gjson.GetBytes(call.Input, "skill").String() == c.ID() && call.Done && !call.IsError {
				loaded.Verdict, loaded.Evidence = Pass, fmt.Sprintf("the Skill tool ran `%s`", c.ID())
			}
		}
	case slices.Contains(list, c.ID()):
		loaded.Verdict, loaded.Evidence = Pass, fmt.Sprintf("`%s` listed by the session", c.ID())
	default:
		loaded.Verdict, loaded.Evidence = Fail, fmt.Sprintf("`%s` not among the session's %ss (%d listed)", c.ID(), c.Kind, len(list))
	}
	return []Judged{loaded, ended}
}

// runEnded is RUN-2: the session came to its own end.
func runEnded(run *headless.Run) Judged {
	ended := Judged{ID: "RUN-2", Title: "The session ran to its end", By: "run"}
	switch {
	case run.Interrupted:
		ended.Verdict, ended.Evidence = Fail, "interrupted"
	case run.TimedOut:
		ended.Verdict, ended.Evidence = Fail, fmt.Sprintf("timed out after %s; the process tree was killed", run.Took.Round(1e9))
		if open := unfinished(run); open != "" {
			ended.Evidence += "; still waiting for " + open
		}
	case run.Result == nil:
		ended.Verdict, ended.Evidence = Fail, fmt.Sprintf("no result event (exit %d): %s", run.ExitCode, hookio.Clip(lastLines(run.Stderr, 1), 100))
	case run.Result.IsError:
		ended.Verdict, ended.Evidence = Fail, fmt.Sprintf("%s: %s", run.Result.Subtype, hookio.Clip(run.Result.Text, 100))
	default:
		ended.Verdict, ended.Evidence = Pass, fmt.Sprintf("%s after %d turns", run.Result.Subtype, run.Result.NumTurns)
	}
	return ended
}

// unfinished names the tool calls that never got a result: what the
// session was waiting for when it was stopped.
func unfinished(run *headless.Run) string {
	var open []string
	for _, c := range run.ToolCalls {
		if !c.Done {
			open = append(open, fmt.Sprintf("%s %s", c.Name, hookio.Clip(toolSummary(gjson.ParseBytes(c.Input)), 60)))
		}
	}
	return strings.Join(open, ", ")
}

var evaluatorLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\|?\s*\**(AC-?[0-9]+[a-z]?)\**\s*\|\s*\**(pass|fail|partial)\**\s*\|\s*(.*?)\s*\|?\s*$`)
})

// parseEvaluator reads the evaluator's answer: a line per criterion,
// "AC-ID | Pass|Fail|Partial | evidence" (a Markdown table row too).
func parseEvaluator(answer string) map[string]Judged {
	out := map[string]Judged{}
	for _, line := range strings.Split(answer, "\n") {
		m := evaluatorLine().FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		v := strings.ToUpper(m[2][:1]) + strings.ToLower(m[2][1:])
		id := strings.ToUpper(m[1])
		if _, dup := out[id]; !dup {
			out[id] = Judged{ID: id, Verdict: v, Evidence: m[3], By: "evaluator"}
		}
	}
	return out
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
