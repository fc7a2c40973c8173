package verifygate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rodin-gate/rodin/internal/lazy"
	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/freshness"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rodin-gate/rodin/pkg/messages"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/project"
	"github.com/rodin-gate/rodin/pkg/safefile"
	"github.com/rodin-gate/rodin/pkg/sandbox"
	"github.com/rodin-gate/rodin/pkg/tasks"
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
	return judgeBashTicks(in, getenv)
}

// judgeBashTicks judges, right after a Bash command, the boxes ticked in
// the session's task files since rodin last looked: the command's (those
// changed in its window) as of now, a background task's the same, anyone
// else's not at all. It stats the task files rodin knows and reads only
// those that changed; a new task file is found by the stop.
func judgeBashTicks(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	data, session, st := sessionTicks(in, getenv)
	if st == nil {
		return hookio.PostOutcome{} // the stop says what it cannot read
	}
	changed := st.changedFiles()
	cfgMoved := configMoved(st.root, st) // the configuration: one stat
	if len(changed) == 0 && !cfgMoved {
		return hookio.PostOutcome{}
	}
	s, err := Open(getenv, session, in.Cwd())
	if err != nil {
		return hookio.PostOutcome{}
	}
	var cfgNote string
	watch := func(st *tickState) {
		if !cfgMoved {
			return
		}
		if carried := s.watchConfig(st); len(carried) > 0 {
			what := strings.Join(carried, " and ")
			cfgNote = "[rodin] This Bash command changed " + what + ", which the verify gate reads for what it checks and what makes a check stale, and which is the user's: the change is not in force in this session, nor in the next ones until the user accepts it (`rodin waive --config` at a terminal of their own, or `" + WaiveCommand + " " + AcceptConfig + "` in Claude Code). If the user asked for it, tell them so."
		}
	}
	if len(changed) == 0 {
		updateTicks(data, session, func(st *tickState) error { watch(st); return nil })
		if cfgNote != "" {
			return hookio.PostOutcome{Context: cfgNote}
		}
		return hookio.PostOutcome{}
	}
	s.Strict = sandbox.StrictDenial(getenv, s.Root, in.PermissionMode(), "") != ""
	var bad []Verdict
	var unread []string
	// One update of the session's record: the configuration's look, then
	// the task files'.
	updateTicks(data, session, func(st *tickState) error {
		cfgNote, bad, unread = "", nil, nil
		watch(st)
		for _, rel := range changed {
			b, why := s.look(st, rel, s.byTime, nil)
			bad = append(bad, b...)
			if why != "" {
				if u, ok := st.unread[rel]; ok && u.why == why {
					unread = append(unread, why)
				}
			}
		}
		return nil
	})
	var say []string
	if len(bad) > 0 {
		cmd := in.Get("tool_input.command").String()
		named := false
		for _, v := range bad {
			named = named || strings.Contains(cmd, filepath.Base(v.File))
		}
		if _, _, ok := verifyArgs(cmd); ok {
			named = false // rodin verify reads its task file; it writes none
		}
		switch {
		case onlyFromCommits(cmd):
			// A merge brings a teammate's ticks, or the agent's own
			// committed before: rodin cannot tell them apart.
			v := bad[0]
			say = append(say, fmt.Sprintf("%s came in with `%s`, which brought the task file from commits: a tick a command brings is judged as the agent's (rodin cannot tell a teammate's from one the agent committed), and it has no passing checks for the code as it stands. %s If it is a teammate's, the user keeps it by typing `%s %s %s WHAT THEY CHECKED` in Claude Code (ask them), or runs such a merge in a terminal of their own. %s, then tick the box again: a box ticked without its checks is unticked when the session stops.", names(bad), hookio.Clip(cmd, 80), explainAll(bad), WaiveCommand, v.Task.Ref, v.File, s.fixRun(bad)+"; untick it"))
		case named:
			// It wrote the task file: the tick is taken for its own, though
			// the user may have ticked the box in their editor before it
			// wrote (rodin sees one change of the file).
			v := bad[0]
			say = append(say, fmt.Sprintf("This Bash command ticked %s before its checks passed for the code as it stands (it wrote the task file, and a change of the file in its call is taken for the agent's). %s If the user ticked it in their editor while you worked, they keep it by typing `%s %s %s WHAT THEY CHECKED` in Claude Code (ask them). %s, then tick the box again: a box ticked without its checks is unticked when the session stops.", names(bad), explainAll(bad), WaiveCommand, v.Task.Ref, v.File, s.fixRun(bad)+"; untick it"))
		default:
			// The command does not name the task file: perhaps the user
			// ticked it in an editor while it ran (a long suite). rodin
			// cannot tell, and takes a change in the agent's call for the
			// agent's; the user keeps their tick by waiving it.
			v := bad[0]
			while := fmt.Sprintf("while this Bash command (`%s`) ran, and a change made during the agent's command is taken for the agent's", hookio.Clip(cmd, 80))
			if w, ok := s.windowOfChange(v.File); ok && w.Background != "" && w.Command != "" && w.Command != cmd {
				// The change fell before this command, in a background
				// task's window (a dev server): name that task.
				while = fmt.Sprintf("while a background task of the agent's ran (`%s`, since %s), and a change made while one runs is taken for the agent's", hookio.Clip(w.Command, 80), time.Unix(0, w.Start).Format("15:04:05"))
			}
			say = append(say, fmt.Sprintf("%s was ticked %s: ticked before its checks passed for the code as it stands. %s If the user ticked it in their editor, they keep it by typing `%s %s %s WHAT THEY CHECKED` in Claude Code (ask them). %s, then tick the box again: a box ticked without its checks is unticked when the session stops.", names(bad), while, explainAll(bad), WaiveCommand, v.Task.Ref, v.File, s.fixRun(bad)+"; untick it"))
		}
	}
	if len(unread) > 0 {
		say = append(say, fmt.Sprintf("This Bash command changed a task file rodin cannot read: %s. Its boxes are unverified, and the stop is blocked until it can be read. To fix: undo the change (a task file stays under %d MiB and plain Markdown).", strings.Join(unread, "; "), tasks.MaxSize>>20))
	}
	if len(say) == 0 {
		if cfgNote != "" {
			return hookio.PostOutcome{Context: cfgNote}
		}
		return hookio.PostOutcome{}
	}
	if cfgNote != "" {
		say = append(say, strings.TrimPrefix(cfgNote, "[rodin] "))
	}
	return hookio.PostOutcome{Block: true, Reason: "[rodin] " + strings.Join(say, " ")}
}

// sessionTicks is the session's record of its boxes, with where it is
// kept; nil when there is none or it cannot be read.
func sessionTicks(in hookio.Input, getenv func(string) string) (data, session string, st *tickState) {
	data, session = evidence.DataDir(getenv), in.SessionID()
	if data == "" || !hookio.ValidSessionID(session) {
		return data, session, nil
	}
	st, err := loadTicks(data, session)
	if err != nil {
		return data, session, nil
	}
	return data, session, st
}

// LookAtPrompt looks at the session's task files when the user types a
// prompt. A change since rodin last looked, made outside every call of the
// agent's, is someone else's: the user's edit in their editor before they
// told the agent about it. It is recorded as theirs now, before the
// agent's first call can write the file again: a Bash write as that first
// call took the whole change for the agent's, and the user's new task with
// it, loosened in the same write (attack 72, R2). It judges nothing and
// says nothing: the agent's ticks are judged after its calls and at the
// stop. A stat of each task file rodin knows and of each directory of
// the session's index (a new task file); a read only of those that
// changed.
func LookAtPrompt(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	if Off(getenv) {
		return hookio.PostOutcome{}
	}
	if p, _, _ := in.Field("prompt"); strings.HasPrefix(strings.TrimSpace(p), "/") {
		// A slash command: a skill's inline shell commands run around
		// this hook (RecordSlashCommand), and what they write is the
		// agent's; the next look tells them apart by their window.
		return hookio.PostOutcome{}
	}
	data, session, st := sessionTicks(in, getenv)
	if st == nil {
		return hookio.PostOutcome{} // the stop says what it cannot read
	}
	changed := st.changedFiles()
	// And task files new since rodin last looked (the user's new spec,
	// ticks and all): a stat of each directory of the session's index.
	var ix project.TaskIndex
	if ledger.LoadIndex(data, session, &ix) && ix.Dirs != nil {
		if ix.Refresh(ix.Root, project.Config{TaskFiles: ix.Globs}) {
			ledger.SaveIndex(data, session, ix)
		}
		for _, rel := range ix.Files {
			if _, known := st.files[rel]; !known {
				changed = append(changed, rel)
			}
		}
	}
	if len(changed) == 0 {
		return hookio.PostOutcome{}
	}
	s, err := Open(getenv, session, in.Cwd())
	if err != nil {
		return hookio.PostOutcome{}
	}
	s.Strict = sandbox.StrictDenial(getenv, s.Root, in.PermissionMode(), "") != ""
	updateTicks(data, session, func(st *tickState) error {
		for _, rel := range changed {
			s.look(st, rel, s.byTime, nil)
		}
		return nil
	})
	return hookio.PostOutcome{}
}

// outputOnly are the redirections that write no file (onlyFromCommits),
// built on first use: no work at package init.
var outputOnly lazy.Value[*strings.Replacer]

func newOutputOnly() *strings.Replacer {
	return strings.NewReplacer("2>&1", " ", "1>&2", " ", ">&2", " ", ">&1", " ", "&>/dev/null", " ", "2>/dev/null", " ", ">/dev/null", " ", "2> /dev/null", " ", "> /dev/null", " ")
}

// onlyFromCommits reports whether a command is git alone bringing files
// from commits: each part a git command (run as `git` itself, `-C DIR`
// and `--no-pager` aside: no program of the project's, no variable set for
// it, no `-c` that stands for another command), a `cd` into a folder, or
// a tail that only shows output (`| tail -5`, `2>&1`, `>/dev/null`); no
// command substitution and no other redirection anywhere. A command that also runs anything else (`sed …;
// git stash list`) may have written a box itself. It is what gives a box
// its earlier tick back (owner.restores).
func onlyFromCommits(cmd string) bool {
	if strings.Contains(cmd, "$(") || strings.Contains(cmd, "`") || strings.Contains(cmd, "<(") || strings.Contains(cmd, ">(") {
		return false
	}
	// Output sent nowhere, or to the terminal, is no write; any other
	// redirection may write a task file (`cat ticked.md > tasks.md`).
	cmd = outputOnly.Get(newOutputOnly).Replace(cmd)
	if strings.ContainsAny(cmd, "<>") {
		return false
	}
	brings := false
	for _, part := range strings.FieldsFunc(cmd, func(r rune) bool { return r == ';' || r == '&' || r == '|' || r == '\n' }) {
		f := strings.Fields(part)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "cd", "pushd", "popd":
			if len(f) > 2 {
				return false
			}
			continue
		case "tail", "head", "cat":
			if len(f) > 3 {
				return false
			}
			continue
		case "git":
		default:
			return false
		}
		f = f[1:]
		for len(f) > 0 && (f[0] == "-C" || f[0] == "--no-pager") {
			if f[0] == "-C" {
				if len(f) < 2 {
					return false
				}
				f = f[1:]
			}
			f = f[1:]
		}
		if len(f) == 0 {
			return false
		}
		switch f[0] {
		case "merge", "pull", "checkout", "switch", "rebase", "cherry-pick", "reset", "restore", "revert", "am":
		case "stash":
			if len(f) > 1 && f[1] != "pop" && f[1] != "apply" && f[1] != "push" && f[1] != "save" && !strings.HasPrefix(f[1], "-") {
				return false
			}
		case "status", "log", "diff", "add", "commit", "fetch", "show", "branch":
			continue // reads, or writes only .git
		default:
			return false
		}
		brings = true
	}
	return brings
}

// RecordAgent records a subagent launched in the background as a
// background task of the session (ledger.AppendAgentLaunch): what it
// writes through calls no hook of its launcher sees is the session's.
func RecordAgent(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	if !Off(getenv) {
		ledger.AppendAgentLaunch(in, evidence.DataDir(getenv))
	}
	return hookio.PostOutcome{}
}

// AppendRun adds the Bash call of in to the session's record of runs
// (ledger.AppendBash).
func AppendRun(in hookio.Input, getenv func(string) string) {
	data := evidence.DataDir(getenv)
	cmd, _, _ := in.Field("tool_input.command")
	ledger.AppendBashAbout(in, data, verifiedTask(getenv, in, cmd))
}

// noTask is the sum of a `rodin verify` run that speaks for no task: what
// it printed it would run is not what the task needs as it stands after
// the run (a command it ran rewrote the task, or moved what decides where a
// command runs), or its task was waived (rodin verify passes a waived task
// whose commands fail; a waived task's own tick needs no run).
const noTask = "-"

// ChecksLine opens the line `rodin verify` prints before it runs a task's
// commands: the digest of what it is about to run, and where (ChecksDigest),
// or "waived". The hook that records the run finds exactly one such line in
// its output, or the run speaks for no task: a command that writes more
// lines to rodin verify's output cannot take the first one back.
const ChecksLine = "rodin verify checks: "

// ChecksDigest sums the commands a need runs and the directory each runs
// in, relative to the root: what a `rodin verify` run of the task ran.
func (s *Session) ChecksDigest(file string, need Need) string {
	var b strings.Builder
	for _, c := range need.Commands {
		b.WriteString(Normalize(c.Run))
		b.WriteByte(0)
		b.WriteString(project.Rel(s.Root, s.RunDir(file, c.Run)))
		b.WriteByte(0)
	}
	return ledger.SumPrompt(b.String())[:16]
}

// verifiedTask is, for a `rodin verify ID [FILE]` command, the sum of the
// task the id names now (taskSum), "" for any other command or when it
// names none, noTask when the run cannot speak for it (its output's
// ChecksLine): read after the command ran, before any later edit of the
// file can give the id to another task.
func verifiedTask(getenv func(string) string, in hookio.Input, cmd string) string {
	if !strings.Contains(cmd, "verify") {
		return "" // every Bash call comes here: most are no rodin verify
	}
	id, fileArg, ok := verifyArgs(cmd)
	if !ok {
		return ""
	}
	session, cwd := in.SessionID(), in.Cwd()
	printed, lines := "", 0
	for _, l := range strings.Split(in.Get("tool_response.stdout").String(), "\n") {
		if rest, ok := strings.CutPrefix(l, ChecksLine); ok {
			printed, lines = strings.TrimRight(rest, "\r"), lines+1
		}
	}
	s, err := Open(getenv, session, cwd)
	if err != nil {
		return noTask
	}
	var files []string
	if fileArg != "" {
		if rel := s.verifyFile(cwd, fileArg); rel != "" {
			files = []string{rel}
		}
	} else {
		files = project.TaskFiles(s.Root, s.Config)
	}
	sum := ""
	for _, rel := range files {
		b, err := safefile.ReadFile(filepath.Join(s.Root, filepath.FromSlash(rel)), tasks.MaxRead)
		if err != nil {
			continue
		}
		for _, t := range tasks.Parse(b) {
			if t.Ref != id {
				continue
			}
			if sum != "" {
				return noTask // the id in two files: neither
			}
			ticked := t
			ticked.Checked = true
			if need := s.NeedOf(rel, ticked); lines != 1 || need.Waiver != nil || printed != s.ChecksDigest(rel, need) {
				sum = noTask
				continue
			}
			sum = s.taskSum(rel, t)
		}
	}
	if sum == "" {
		return noTask // no task of the id: a run of nothing (a sum of "" is an older rodin's)
	}
	return sum
}

// taskSum is what identifies a task for a `rodin verify` run of it: its
// file, its words without its place (PlaceFree: id, title without a
// step's number, headings; not its box) and the commands rodin verify runs for it
// (NeedOf as its tick is judged: a task new since the session began runs
// those of the tasks gone from its file too). A run made before a task it
// now stands for was gone ran less, and speaks for it no more.
func (s *Session) taskSum(file string, t tasks.Task) string { return s.taskSumAs(file, file, t) }

// taskSumAs is taskSum of a task of file, summed under the name named (a
// file moved since `rodin verify` named it).
func (s *Session) taskSumAs(file, named string, t tasks.Task) string {
	ticked := t
	ticked.Checked = true
	return ledger.SumPrompt("rodin verify\x00" + named + "\x00" + t.PlaceFree() + "\x00" + s.ChecksDigest(file, s.NeedOf(file, ticked)))
}

// RecordSkillShell records a skill's or command's inline shell command as
// it is about to run (PreSkillShellCommand, Claude Code 2.1.332). Before
// that release such commands ran past every Bash hook, so a skill the
// agent wrote could tick a box no hook saw being ticked. The run is never
// evidence (no hook sees it end); its window makes the boxes it ticks and
// the files it writes the agent's, judged at rodin's next look.
func RecordSkillShell(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	if Off(getenv) {
		return hookio.PostOutcome{}
	}
	ledger.AppendSkillShell(in, evidence.DataDir(getenv))
	return hookio.PostOutcome{}
}

// RecordSlashCommand is the UserPromptSubmit route for a prompt that is a
// slash command: on releases before 2.1.332 a skill's inline shell
// commands reach no hook, so the command's invocation opens the window
// they run in (until the session's next run). Any other prompt costs a
// byte test.
func RecordSlashCommand(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	prompt, _, _ := in.Field("prompt")
	if p := strings.TrimSpace(prompt); !strings.HasPrefix(p, "/") || strings.HasPrefix(p, WaiveCommand) {
		return hookio.PostOutcome{}
	}
	return RecordSkillShell(in, getenv)
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

// windowOfChange is the window of the session's calls that the task
// file's last change falls in (ledger.Attribute), for messages: a
// foreground call's first, else a background task's.
func (s *Session) windowOfChange(file string) (ledger.Window, bool) {
	fi, err := os.Lstat(filepath.Join(s.Root, filepath.FromSlash(file)))
	if err != nil {
		return ledger.Window{}, false
	}
	ws, err := s.sessionWindows()
	if err != nil {
		return ledger.Window{}, false
	}
	return ledger.Attribute(ws, freshness.ChangeTime(fi).UnixNano())
}
