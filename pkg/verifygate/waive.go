package verifygate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rodin-gate/rodin/pkg/project"
	"github.com/rodin-gate/rodin/pkg/safefile"
	"github.com/rodin-gate/rodin/pkg/tasks"
)

// WaiveCommand is what the user types in Claude Code to waive a task:
// `/rodin:waive ID [FILE] REASON`. The UserPromptSubmit hook records it:
// only a person at the prompt (or the script that drives `claude -p`)
// submits a prompt, so a waiver recorded from one is the user's. The
// plugin's waive skill is not model-invocable, and UserPromptSubmit does
// not fire for skills the model runs.
const WaiveCommand = "/rodin:waive"

// AcceptCommands, as a waiver's reason (`/rodin:waive V1 tasks.md
// --commands`), accepts the task's commands as they stand in place of
// those it had when the session began: no waiver of its checks.
const AcceptCommands = "--commands"

// WaiveFromPrompt records a waiver the user typed. Any other prompt gets
// nothing (a prefix test: it runs on every prompt).
func WaiveFromPrompt(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	prompt, _, _ := in.Field("prompt")
	rest, ok := strings.CutPrefix(strings.TrimSpace(prompt), WaiveCommand)
	if !ok || (rest != "" && !strings.ContainsAny(rest[:1], " \t\r\n")) {
		return hookio.PostOutcome{}
	}
	say := func(format string, args ...any) hookio.PostOutcome {
		msg := "[rodin] " + fmt.Sprintf(format, args...)
		return hookio.PostOutcome{Context: msg, SystemMessage: msg}
	}
	args := strings.Fields(rest)
	if len(args) == 0 {
		return say("Nothing was waived: %s takes a task id, optionally its task file, and the reason (`%s V4 specs/x/tasks.md the staging database is down`).", WaiveCommand, WaiveCommand)
	}
	s, err := Open(getenv, in.SessionID(), in.Cwd())
	if err != nil {
		return say("Nothing was waived: %v.", err)
	}
	if args[0] == AcceptConfig && len(args) == 1 {
		if err := AcceptConfigFile(s.Data, s.Root); err != nil {
			return say("Nothing was accepted: %v.", err)
		}
		return say("The user accepted %s and .gitignore as they stand: the verify gate uses them from the next session.", project.ConfigFile)
	}
	id, file := args[0], ""
	if len(args) > 1 && strings.HasSuffix(args[1], ".md") {
		file, args = args[1], args[1:]
	}
	reason := strings.Join(args[1:], " ")
	accept := reason == AcceptCommands
	// The user types the path as rodin prints it, from the project root:
	// a file of that name in the agent's current folder is another one.
	cwd := in.Cwd()
	if file != "" && !filepath.IsAbs(file) {
		if _, err := os.Stat(filepath.Join(s.Root, file)); err == nil {
			cwd = s.Root
		}
	}
	rel, t, err := s.FindTask(id, file, cwd)
	if te, ok := err.(*TaskError); ok && te.Hint != "" {
		return say("Nothing was waived: %v; %s.", err, te.Hint)
	} else if err != nil {
		return say("Nothing was waived: %v.", err)
	}
	if accept {
		shown, err := s.AcceptCommands(rel, t, "prompt")
		if err != nil {
			return say("Nothing was accepted: %v.", err)
		}
		return say("The user accepted the commands of %s (%s) as they stand: %s, in place of those it had when the session began. They must pass as any check does.", t.Name(), rel, shown)
	}
	ws, err := ledger.Waivers(s.Data)
	if err != nil {
		return say("Nothing was waived: %v.", err)
	}
	if reason == "" {
		if p := ledger.FindPending(ws, s.Root, rel, t.Ref, t.Title); p != nil {
			reason = p.Reason // the user confirms the agent's request
		} else {
			return say("Nothing was waived: give the reason after the task (`%s %s %s REASON`).", WaiveCommand, t.Ref, rel)
		}
	}
	w := ledger.Waiver{Root: s.Root, File: rel, Task: t.Ref, Title: t.Title, Reason: reason, Time: time.Now().UnixNano(), By: "prompt"}
	if err := ledger.AddWaiver(s.Data, w); err != nil {
		return say("Nothing was waived: %v.", err)
	}
	return say("The user waived %s (%s): %q. Its box may be ticked without passing checks; rodin says so each time, and `rodin tasks` lists the waiver.", t.Name(), rel, reason)
}

// AcceptCommands records the user's acceptance of a task's commands as
// they stand, in place of those it had when the session began (or before
// an agent changed them in an earlier session): not a waiver, they must
// pass. by says where the user accepted them ("prompt", "terminal"). It
// returns the commands as a message shows them.
func (s *Session) AcceptCommands(rel string, t tasks.Task, by string) (string, error) {
	var cmds, shown []string
	for _, c := range t.Commands {
		cmds, shown = append(cmds, Normalize(c.Run)), append(shown, "`"+c.Run+"`")
	}
	if len(cmds) == 0 {
		return "", fmt.Errorf("%s (%s) names no command now", t.Name(), rel)
	}
	w := ledger.Waiver{Root: s.Root, File: rel, Task: t.Ref, Title: t.Title, Reason: "the user accepts its commands as they stand: " + strings.Join(shown, ", "),
		Time: time.Now().UnixNano(), By: by, Commands: cmds}
	if err := ledger.AddWaiver(s.Data, w); err != nil {
		return "", err
	}
	return strings.Join(shown, ", "), nil
}

// ResolveTaskFile is the path a task file argument names: relative to
// cwd, as a shell reads it; or, when nothing is there and the project has
// it, relative to the project root, as rodin prints task files (a path
// copied from a deny typed in a subfolder).
func ResolveTaskFile(root, file, cwd string) string {
	if filepath.IsAbs(file) {
		return file
	}
	p := filepath.Join(cwd, file)
	if _, err := os.Stat(p); err != nil {
		if q := filepath.Join(root, file); project.Rel(root, q) != "" {
			if _, err := os.Stat(q); err == nil {
				return q
			}
		}
	}
	return p
}

// TaskError is FindTask's error: what is wrong, and a hint at what to do.
type TaskError struct{ Msg, Hint string }

func (e *TaskError) Error() string { return e.Msg }

// FindTask finds the task whose reference (its id, or ID#N where the id
// repeats) is ref, in file (relative to cwd, or absolute) when it is
// given, else in the project's task files; a *TaskError when it is in
// none, in more than one, or the id repeats and ref does not say which.
func (s *Session) FindTask(ref, file, cwd string) (string, tasks.Task, error) {
	ref = RefArg(ref)
	fail := func(hint, format string, args ...any) (string, tasks.Task, error) {
		return "", tasks.Task{}, &TaskError{Msg: fmt.Sprintf(format, args...), Hint: hint}
	}
	var files []string
	if file != "" {
		p := ResolveTaskFile(s.Root, file, cwd)
		rel := project.Rel(s.Root, p)
		if rel == "" {
			return fail("", "%s is not inside the project (%s)", file, s.Root)
		}
		files = []string{rel}
	} else {
		files = project.TaskFiles(s.Root, s.Config)
	}
	var found []string
	var task tasks.Task
	for _, rel := range files {
		b, err := safefile.ReadFile(filepath.Join(s.Root, rel), tasks.MaxSize)
		if err != nil {
			if file != "" {
				return fail("name a task file of this project; `rodin tasks` lists them", "cannot read the task file %s: %v", file, unwrapPath(err))
			}
			continue
		}
		var repeats []string
		for _, t := range tasks.Parse(b) {
			switch {
			case t.Ref == ref:
				found = append(found, rel)
				task = t
			case t.ID == ref:
				repeats = append(repeats, fmt.Sprintf("%s (line %d)", t.Ref, t.Line))
			}
		}
		if len(repeats) > 0 && (len(found) == 0 || found[len(found)-1] != rel) {
			return fail("name one of them as it is listed, e.g. rodin verify "+strings.SplitN(repeats[0], " ", 2)[0], "%s has %d tasks %s: %s", rel, len(repeats), ref, strings.Join(repeats, ", "))
		}
	}
	switch len(found) {
	case 0:
		if len(files) == 0 {
			return fail("task files are found by "+strings.Join(s.Config.TaskFiles, ", ")+" (.rodin/config.json's verify.taskFiles)", "no task %s: the project (%s) has no task files", ref, s.Root)
		}
		return fail("`rodin tasks` lists the tasks and their ids", "no task %s in %s", ref, strings.Join(files, ", "))
	case 1:
		return found[0], task, nil
	}
	return fail("name the file: rodin verify "+ref+" FILE", "task %s is in %s", ref, strings.Join(found, " and "))
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
