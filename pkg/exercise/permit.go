package exercise

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/rodin-gate/rodin/pkg/headless"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Answer is one AskUserQuestion question and the option rodin chose.
type Answer struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// policy answers the exercised session's permission prompts as a user who
// says yes to everything inside the scaffold would: AskUserQuestion gets
// the first option of each question; edits stay in the scaffold (and the
// session's plan files); GitHub commands are kept from running (dry run).
type policy struct {
	dir   string   // the scaffold
	plans []string // the plans directories, where plan mode writes

	mu      sync.Mutex
	answers []Answer
}

var writeTools = map[string]bool{"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}

// dryRunMessage is what the model reads when a gh command is kept from
// running.
const dryRunMessage = "rodin exercise: this is a dry run in a disposable project, so GitHub commands do not run. " +
	"Show the command and the content you would send instead, and carry on."

// guardedTools are the tools guard sees before every call, whatever the
// permission mode lets through unasked.
const guardedTools = "Write|Edit|MultiEdit|NotebookEdit|Bash"

// permit answers a permission prompt: AskUserQuestion gets its answers,
// every other call what guard says.
func (p *policy) permit(r headless.PermissionRequest) headless.Decision {
	if r.Tool == "AskUserQuestion" {
		return p.ask(r)
	}
	return p.guard(r)
}

// guard keeps writes in the project and the plans directories and gh from
// running. The session asks it through a PreToolUse hook before every
// call of guardedTools, prompt or not.
func (p *policy) guard(r headless.PermissionRequest) headless.Decision {
	switch {
	case r.Tool == "Bash":
		if usesGitHub(gjson.GetBytes(r.Input, "command").String()) {
			return headless.Decision{Message: dryRunMessage}
		}
	case writeTools[r.Tool]:
		path := gjson.GetBytes(r.Input, "file_path").String()
		if path == "" {
			path = gjson.GetBytes(r.Input, "notebook_path").String()
		}
		if !p.writable(path) {
			return headless.Decision{Message: "rodin exercise: edits stay inside the disposable project " + p.dir + "; " + path + " is outside it."}
		}
	}
	return headless.Decision{Allow: true}
}

// ask answers every question with its first option, in the input's
// answers map (AskUserQuestionInput.answers in the CLI's sdk-tools.d.ts:
// question text to answer).
func (p *policy) ask(r headless.PermissionRequest) headless.Decision {
	input := []byte(r.Input)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, q := range gjson.GetBytes(input, "questions").Array() {
		question := q.Get("question").String()
		label := q.Get("options.0.label").String()
		if question == "" || label == "" {
			continue
		}
		var err error
		input, err = sjson.SetBytes(input, "answers."+escapePath(question), label)
		if err != nil {
			continue
		}
		p.answers = append(p.answers, Answer{question, label})
	}
	return headless.Decision{Allow: true, Input: json.RawMessage(input)}
}

// escapePath makes a question usable as one sjson path element.
func escapePath(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '.', '*', '?', '|', '#', '@', '\\', ':', '!', '=', '<', '>', '%':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// writable reports whether a write tool may write path: inside the project
// or a plans directory once symbolic links are resolved, so that a link
// the session made in the project does not lead a write out of it. A plans
// directory that does not exist yet (plan mode makes it) counts as well.
func (p *policy) writable(path string) bool {
	if path == "" {
		return true // the tool will complain itself
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(p.dir, path)
	}
	real, ok := resolve(path)
	if !ok {
		return false
	}
	for _, root := range append([]string{p.dir}, p.plans...) {
		r, ok := resolve(root)
		if !ok {
			continue
		}
		if rel, err := filepath.Rel(r, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// resolve is path with the links of its existing part resolved: what does
// not exist yet cannot be a link. A link that leads nowhere is not resolved
// (a write through it would land where it points).
func resolve(path string) (string, bool) {
	path = filepath.Clean(path)
	rest := ""
	for probe := path; ; probe = filepath.Dir(probe) {
		if _, err := os.Lstat(probe); err == nil {
			real, err := filepath.EvalSymlinks(probe)
			if err != nil {
				return "", false
			}
			return filepath.Join(real, rest), true
		}
		if filepath.Dir(probe) == probe {
			return "", false
		}
		rest = filepath.Join(filepath.Base(probe), rest)
	}
}

func (p *policy) answered() []Answer {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Answer(nil), p.answers...)
}

var ghCommand = sync.OnceValue(func() *regexp.Regexp {
	// gh where a command starts: after a separator, a subshell, a quote
	// (sh -c 'gh …', eval "gh …"), env assignments and the words that run
	// the rest of the line as a command (env, xargs, sudo, timeout N, …).
	// Erring toward a match costs a dry-run message, a miss a real issue.
	return regexp.MustCompile(`(?:^|[;&|({\n'"` + "`" + `]|\$\()\s*` +
		`(?:(?:[A-Za-z_][A-Za-z0-9_]*=\S*|command|exec|builtin|eval|env|xargs|sudo|nohup|time|nice|timeout\s+\S+|-\S+)\s+)*` +
		`(?:\S*/)?gh(?:\s|$)`)
})

// usesGitHub reports whether a shell command runs the gh CLI.
func usesGitHub(command string) bool { return ghCommand().MatchString(command) }

var ghInSkill = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?m)(?:Bash\\(gh[ :]|`gh |^\\s*gh (?:issue|pr|api|repo|release|label|project|run|workflow)\\b)")
})

// isGitHubSkill reports whether a skill's file has it run gh, so that its
// exercise gets the dry-run instruction.
func isGitHubSkill(file string) bool {
	data, err := os.ReadFile(file)
	return err == nil && ghInSkill().Match(data)
}
