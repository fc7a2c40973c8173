// Package ledger keeps the verify gate's evidence: what ran in a session
// (every Bash command Claude Code reports, every qa-engineer run), the task
// boxes as they stood when the session began, and the waivers people gave.
//
// It lives under the plugin's data directory (${CLAUDE_PLUGIN_DATA}/verify),
// out of reach of the agent's file tools (Claude Code asks the user before
// a Write there). The run log is JSON lines appended with one write each
// (O_APPEND: concurrent hooks never interleave a record) and compacted
// under a lock when it grows past MaxLog.
package ledger

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/pkg/freshness"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/safefile"
)

// Run is one observed command or qa-engineer run.
type Run struct {
	Time    int64  `json:"t"` // unix nanoseconds when rodin recorded it: after it finished
	Kind    string `json:"k"` // KindBash or KindQA
	Command string `json:"cmd,omitempty"`
	Exit    int    `json:"exit"`
	Cwd     string `json:"cwd,omitempty"`
	Agent   string `json:"agent,omitempty"` // agent_id when a subagent ran it
	Type    string `json:"at,omitempty"`    // agent_type when a subagent (or a --agent session) ran it
	Tool    string `json:"tu,omitempty"`    // tool_use_id of the Bash call: its line in the transcript
	// Dur is how long a Bash call ran (duration_ms), -1 when Claude Code
	// did not say: with Time it is the call's window, in which the files
	// it changed were changed (who.go).
	Dur int64 `json:"dur,omitempty"`
	// Bg is the backgroundTaskId of a call run in the background (its
	// process may write files until it ends), or, for KindBgDone, the
	// ids of tasks known to have ended, space-separated.
	Bg string `json:"bg,omitempty"`
	// Session is the session of a KindClaim.
	Session string `json:"sid,omitempty"`
	// PromptSum is the SHA-256 (hex) of what a qa run was asked, its line
	// endings and trailing blank space aside: a digest, so that a huge
	// prompt makes no huge record.
	PromptSum string `json:"psum,omitempty"`
	Pass      bool   `json:"pass,omitempty"`    // qa: ended VERIFICATION_PASS with no failed AC
	Tail      string `json:"tail,omitempty"`    // qa: the end of its answer
	Resumed   bool   `json:"resumed,omitempty"` // qa: a later answer of a run that had answered (SendMessage): never evidence
	Oversize  bool   `json:"big,omitempty"`     // its command was too long to keep: it matches no task command
}

// SumPrompt is the PromptSum of a prompt.
func SumPrompt(p string) string {
	p = strings.TrimRight(strings.ReplaceAll(p, "\r\n", "\n"), " \t\n")
	sum := sha256.Sum256([]byte(p))
	return hex.EncodeToString(sum[:])
}

// Exits that are not a process's: a run that did not finish in the
// foreground, or that Claude Code did not report as it was. None is a pass.
const (
	ExitInterrupted = -1 // interrupted, killed, or no exit code reported
	ExitBackground  = -2 // run in the background, or moved there: reported at launch
	ExitUnsandboxed = -3 // asked to leave Claude Code's sandbox
	ExitInterpreted = -4 // a non-zero exit Claude Code read as no error (grep's 1)
	ExitUnknown     = -5 // a skill's inline shell command: no hook sees how it ended
	ExitCdPath      = -6 // its opening cd went where CDPATH took it, out of where it was reported from
)

// ExitMeaning says what a negative exit stands for.
func ExitMeaning(exit int) string {
	switch exit {
	case ExitBackground:
		return "it ran in the background, so its outcome reached no hook"
	case ExitUnsandboxed:
		return "it asked to run outside Claude Code's sandbox (dangerouslyDisableSandbox)"
	case ExitInterpreted:
		return "it exited non-zero (Claude Code read the exit as no error)"
	case ExitUnknown:
		return "it was a skill's inline shell command, whose outcome reaches no hook"
	case ExitCdPath:
		return "its cd went to a folder CDPATH chose (the shell printed it), not the one the command names"
	}
	return "interrupted"
}

// The kinds of run.
const (
	KindBash = "bash"
	KindQA   = "qa"
	// KindUnticked notes a box rodin unticked at a stop (Command is
	// FILE:REF): it is no run, and no evidence.
	KindUnticked = "unticked"
	// KindBgDone notes that background tasks (Bg) had ended by Time: a
	// Stop input's background_tasks no longer listed them.
	KindBgDone = "bgdone"
	// KindAgentBg notes a subagent launched in the background (Bg is its
	// agentId, Agent and Type the launcher's): it may write files, through
	// calls no hook of the launcher sees, until a stop no longer lists it.
	KindAgentBg = "agentbg"
	// KindClaim notes, for every session of the project, that one
	// session's agent ticked a box with its checks passed (Cwd is the
	// project root, Command FILE NUL KEY, Session the session, Tool the
	// file tool's call): the session's PostToolUse knows the tick its edit
	// gate let through, and another session that sees the tick in its own
	// call's window knows it is not its own.
	KindClaim = "claim"
	// KindUnclaim notes that someone other than an agent took a claimed
	// box back (the user unticked it in an editor, or a session began with
	// it open): a claim before it speaks for no later tick of that box.
	KindUnclaim = "unclaim"
	// KindSkillShell notes a skill's or command's inline shell command
	// (PreSkillShellCommand, Claude Code 2.1.332): it runs before the
	// skill's prompt, past every Bash hook, and no hook sees how it ended.
	// It is never evidence; its window makes what it wrote the agent's.
	KindSkillShell = "skillshell"
)

// When is the run's time.
func (r Run) When() time.Time { return time.Unix(0, r.Time) }

// Limits: a command longer than MaxCommand is kept as a run of no command
// (no task runs one; its exit still counts as a run), an answer's tail is
// cut to MaxTail, so that no record is longer than MaxRecord, and the log
// is compacted to its newer half past MaxLog.
const (
	MaxCommand = 4 << 10
	MaxTail    = 2000
	MaxRecord  = 64 << 10
	MaxLog     = 1 << 20
)

// Dir is the ledger's directory under the plugin data directory.
func Dir(data string) string { return filepath.Join(data, "verify") }

func logPath(data, session string) string { return filepath.Join(Dir(data), session+".jsonl") }

// claimsPath is the project's record of claimed ticks, shared by its
// sessions.
func claimsPath(data, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(Dir(data), "claims-"+hex.EncodeToString(sum[:8])+".jsonl")
}

// Claim is a tick one session's agent made with its checks passed (or
// waived), judged when it was made: by the edit gate before the file tool
// wrote it (Call is then the tool call), or right after the Bash command
// that made it.
type Claim struct {
	Session, Root, File, Key, Call, Agent string
	// Runs is the sum of what the task asks (its commands), so that a
	// claim speaks only for the task it was made for, not for another
	// task given its key since; "" in claims of older rodins, which any
	// task of the key matches.
	Runs string
}

// AppendClaim records a claimed tick (KindClaim), one append.
func AppendClaim(data string, c Claim) error {
	return appendTo(data, claimsPath(data, c.Root), Run{Time: freshness.Now().UnixNano(), Kind: KindClaim, Cwd: c.Root, Command: c.File + "\x00" + c.Key, Session: c.Session, Tool: c.Call, Agent: c.Agent, PromptSum: c.Runs})
}

// Claimed reports whether a claim made at since or later matches: one by
// a session other than c.Session for c's file and key (other), or c itself
// by its session and call (!other).
func Claimed(data string, c Claim, since int64, other bool) bool {
	claims, _, _ := readRuns(claimsPath(data, c.Root))
	want := c.File + "\x00" + c.Key
	for i := len(claims) - 1; i >= 0 && claims[i].Time >= since; i-- {
		r := claims[i]
		if r.Kind == KindUnclaim && r.Cwd == c.Root && r.Command == want && other {
			return false // taken back since: older claims speak for nothing
		}
		if r.Kind != KindClaim || r.Cwd != c.Root || r.Command != want || c.Runs != "" && r.PromptSum != "" && r.PromptSum != c.Runs {
			continue
		}
		if other && r.Session != c.Session || !other && r.Session == c.Session && r.Tool == c.Call {
			return true
		}
	}
	return false
}

// AppendUnclaim records that a claimed box of c's file and key was taken
// back by someone other than an agent (KindUnclaim).
func AppendUnclaim(data string, c Claim) error {
	return appendTo(data, claimsPath(data, c.Root), Run{Time: freshness.Now().UnixNano(), Kind: KindUnclaim, Cwd: c.Root, Command: c.File + "\x00" + c.Key, Session: c.Session})
}

// StandingClaims are the file NUL key of root's boxes whose latest record
// is a claim (not taken back since).
func StandingClaims(data, root string) map[string]bool {
	claims, _, _ := readRuns(claimsPath(data, root))
	out := map[string]bool{}
	for _, r := range claims {
		switch {
		case r.Cwd != root:
		case r.Kind == KindClaim:
			out[r.Command] = true
		case r.Kind == KindUnclaim:
			delete(out, r.Command)
		}
	}
	return out
}

// Append adds a run to the session's log.
func Append(data, session string, r Run) error {
	return appendTo(data, logPath(data, session), r)
}

func appendTo(data, p string, r Run) error {
	if len(r.Command) > MaxCommand {
		r.Command, r.Oversize = "", true
	}
	if len(r.Tail) > MaxTail {
		r.Tail = strings.ToValidUTF8(r.Tail[len(r.Tail)-MaxTail:], "")
	}
	line := append(marshalRun(r), '\n')
	size, err := safefile.Append(p, line, 0o600)
	if os.IsNotExist(err) {
		if err = os.MkdirAll(Dir(data), 0o700); err == nil {
			size, err = safefile.Append(p, line, 0o600)
		}
	}
	if err != nil {
		return err
	}
	if size > MaxLog {
		return compact(p)
	}
	return nil
}

// compact keeps the newer half of the log, under the file's lock so that
// two hooks never compact at once. An append that races with it lands in
// the replaced file and is lost: a command long before the ones a task
// needs, or one the gate then asks to run again.
func compact(p string) error {
	_, err := safefile.Update(p, 4*MaxLog, func(b []byte) ([]byte, error) {
		if len(b) <= MaxLog {
			return nil, nil
		}
		keep := b[len(b)-MaxLog/2:]
		if i := bytes.IndexByte(keep, '\n'); i >= 0 {
			keep = keep[i+1:]
		}
		return keep, nil
	})
	return err
}

// Runs reads the session's log, oldest first. A line that does not parse
// (a crash mid-write, a full disk) or is longer than MaxRecord (no record
// rodin writes is) is damage: the runs before it are dropped too, since
// the run it held may have been a later failure of one of them, and
// skipped counts what was lost. Damage costs evidence, never the rest of
// the log, and never turns a failure into a pass. Only a log that cannot
// be read is an error.
func Runs(data, session string) (runs []Run, skipped int, err error) {
	return readRuns(logPath(data, session))
}

// knownKind reports whether k is a kind of record rodin writes: any other
// line is damage (TestEveryKindRead holds every Kind constant to it).
func knownKind(k string) bool {
	switch k {
	case KindBash, KindQA, KindUnticked, KindBgDone, KindAgentBg, KindClaim, KindUnclaim, KindSkillShell:
		return true
	}
	return false
}

func readRuns(p string) (runs []Run, skipped int, err error) {
	take := func(l []byte, long bool) {
		l = bytes.TrimSpace(l)
		if len(l) == 0 && !long {
			return
		}
		r, decoded := decodeRunFast(l)
		if !decoded {
			r, decoded = decodeRun(l)
		}
		if !long && len(l) <= MaxRecord && decoded && knownKind(r.Kind) {
			runs = append(runs, r)
		} else {
			skipped += len(runs) + 1
			runs = runs[:0]
		}
	}
	// A log as rodin keeps it (compacted past MaxLog) is read whole, in
	// one call, and its runs counted before they are decoded.
	b, err := safefile.ReadFile(p, wholeLog)
	switch {
	case os.IsNotExist(err):
		return nil, 0, nil
	case err == nil:
		runs = make([]Run, 0, bytes.Count(b, []byte{'\n'})+1)
		for len(b) > 0 {
			line := b
			if i := bytes.IndexByte(b, '\n'); i >= 0 {
				line, b = b[:i], b[i+1:]
			} else {
				b = nil
			}
			take(line, len(line) > MaxRecord)
		}
		return runs, skipped, nil
	case !errors.Is(err, safefile.ErrTooLarge):
		return nil, 0, err
	}
	// Larger (another program wrote it): streamed, a line at a time.
	f, err := safefile.Open(p)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var line []byte
	n := 0 // the line's length so far, kept or not
	for {
		chunk, err := br.ReadSlice('\n')
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return nil, 0, err
		}
		n += len(bytes.TrimSuffix(chunk, []byte{'\n'}))
		if n <= MaxRecord {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		take(line, n > MaxRecord)
		line, n = line[:0], 0
		if err == io.EOF {
			return runs, skipped, nil
		}
	}
}

// wholeLog is the largest log read whole (a variable for tests, which
// compare both ways of reading).
var wholeLog int64 = 4 * MaxLog

// Snap is a task as it stood when the session began.
type Snap struct {
	Key      string   `json:"key"`
	Checked  bool     `json:"checked,omitempty"`
	Verify   bool     `json:"verify,omitempty"`
	AC       bool     `json:"ac,omitempty"`
	Manual   bool     `json:"manual,omitempty"` // a person checks it (tasks.Task.Manual)
	Commands []string `json:"commands,omitempty"`
	Sources  []string `json:"sources,omitempty"` // where each command was read
	// Title tells apart tasks whose key is their place (Step#3, @line7),
	// which a task added above them changes; and it is what a box checked
	// when the session began is known by (tasks.PlaceFree).
	Title string `json:"title,omitempty"`
	// Carried is set when what it needs (Commands, Verify, AC, Manual) is
	// what it needed before an agent of an earlier session changed it
	// (Carried records): the change counts once the user accepts it.
	Carried bool `json:"carried,omitempty"`
	// Gone is set for an open verification task an agent of an earlier
	// session deleted (Carried.Gone), put back at its place: it is not in
	// the file as the session begins, and only its id or a task written at
	// its place stands for it.
	Gone bool `json:"gone,omitempty"`
	// Placeless is set for a Gone task whose neighbours are both gone (or
	// renamed) too: its place is unknown, so any new verification task of
	// its file stands for it.
	Placeless bool `json:"placeless,omitempty"`
}

// Carried is what a verification task needed before an agent changed it
// (its commands, a person, an acceptance check, the project's checks),
// kept past the session: the next session starts from it, not from the
// task as the agent left it, until the user accepts the change (an agent
// alone may not loosen a check, in one session or over several).
type Carried struct {
	Root  string `json:"root"`
	File  string `json:"file"`
	Words string `json:"words"` // the task as the agent left it: a sum of its words (tasks.PlaceFree)
	Runs  string `json:"runs"`  // and of its commands
	Need  Snap   `json:"need"`  // what it needed before: Commands, Sources, Verify, AC, Manual
	Time  int64  `json:"t"`
	// Gone is set for an open verification task the agent deleted, with
	// no task taking its place: the next sessions start with it as it
	// was (Need, its Key, its words in Need.Title) after the task keyed
	// After ("" for the file's start), so that a task written in its
	// place later, or its id given again, stands for it (attack 72, R6).
	Gone  bool   `json:"gone,omitempty"`
	Key   string `json:"key,omitempty"`
	After string `json:"after,omitempty"`
	// Next is the key of the task after it ("" for the file's end): with
	// After, where it stood.
	Next string `json:"next,omitempty"`
}

// MaxCarried bounds the carried needs kept: past it, other projects'
// oldest go first.
const MaxCarried = 20000

func carriedPath(data string) string { return filepath.Join(Dir(data), "carried.json") }

// CarriedNeeds reads every carried need.
func CarriedNeeds(data string) ([]Carried, error) { return readList[Carried](carriedPath(data)) }

// readList reads a JSON list rodin keeps (none when there is no file).
func readList[T any](path string) ([]T, error) {
	js, err := safefile.ReadFile(path, 16<<20)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var l []T
	if err := json.Unmarshal(js, &l); err != nil {
		return nil, fmt.Errorf("%s is damaged: %v", path, err)
	}
	return l, nil
}

// AddCarried keeps needs, each in place of one kept for the same task as
// the agent left it, and drops those of file that stands names no task of
// any more (stands holds the Words and Runs of each of its tasks now: a
// task changed again, or put back, needs no carry of its old form; Runs
// "*" keeps every need of those Words).
func AddCarried(data, root, file string, stands map[[2]string]bool, add []Carried) error {
	if err := os.MkdirAll(Dir(data), 0o700); err != nil {
		return err
	}
	all, err := CarriedNeeds(data)
	if err != nil {
		all = nil // damaged: start again from what is known now
	}
	same := func(a, b Carried) bool {
		return a.Root == b.Root && a.File == b.File && a.Words == b.Words && a.Runs == b.Runs
	}
	kept := all[:0]
	for _, o := range all {
		stale := o.Root == root && o.File == file && !stands[[2]string{o.Words, o.Runs}] && !stands[[2]string{o.Words, "*"}]
		if !stale && !slices.ContainsFunc(add, func(c Carried) bool { return same(o, c) }) {
			kept = append(kept, o)
		}
	}
	kept = append(kept, add...)
	for over := len(kept) - MaxCarried; over > 0; over = len(kept) - MaxCarried {
		// Other projects' oldest first: one project's changes do not push
		// out its own carried needs.
		i := slices.IndexFunc(kept, func(c Carried) bool { return c.Root != root })
		if i < 0 {
			i = 0
		}
		kept = slices.Delete(kept, i, i+1)
	}
	js, err := json.Marshal(kept)
	if err != nil {
		return err
	}
	return safefile.WriteAtomic(carriedPath(data), js, 0o600)
}

// Baseline is what the verify gate took at session start: the project, its
// configuration, and its task files. Judging against it, an edit of the
// configuration or of a task's commands made during the session cannot
// loosen the gate (it counts from the next session, which says so).
type Baseline struct {
	Time   int64             `json:"t"`
	Root   string            `json:"root"`
	Config json.RawMessage   `json:"config"`
	Files  map[string][]Snap `json:"files"` // by path relative to the root
	// Quality are each task file's own Quality Commands, by path: a
	// section added during the session counts from the next.
	Quality map[string][]string `json:"quality,omitempty"`
	// Dirs are where each task file's commands ran when the session began
	// (tasks.RunDir), by file and command, relative to the root: a
	// manifest or file written since (a decoy go.mod beside a spec) does
	// not move a command. A file directly in the root has no entry (its
	// commands always run there); a command not noted (new since, or naming
	// a file found nowhere yet) runs where it runs now; one noted "?" (the
	// root's manifest could not run it) runs in one of the root's
	// workspaces when one runs it now, else at the root.
	Dirs map[string]map[string]string `json:"dirs,omitempty"`
	// Unread are the task files the session's start could not read, and
	// why (one over the size rodin reads): what their tasks needed then is
	// not known, so no tick in them is verified this session (attack 70).
	Unread map[string]string `json:"unread,omitempty"`
}

func baselinePath(data, session string) string {
	return filepath.Join(Dir(data), session+".baseline.json")
}

// SaveBaseline writes the session's baseline unless it has one (a resumed
// or compacted session keeps the first).
func SaveBaseline(data, session string, b Baseline) (saved bool, err error) {
	p := baselinePath(data, session)
	if _, err := os.Lstat(p); err == nil {
		return false, nil
	}
	if err := os.MkdirAll(Dir(data), 0o700); err != nil {
		return false, err
	}
	js, err := json.Marshal(b)
	if err != nil {
		return false, err
	}
	return true, safefile.WriteAtomic(p, js, 0o600)
}

// LoadBaseline reads the session's baseline; nil when it has none.
func LoadBaseline(data, session string) (*Baseline, error) {
	js, err := safefile.ReadFile(baselinePath(data, session), 16<<20)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	b, ok := decodeBaseline(js)
	if !ok {
		return nil, fmt.Errorf("the session's baseline is damaged: it is not the JSON rodin writes")
	}
	return &b, nil
}

// Waiver is a person's (or an agent's, in plain view) decision that a
// verification task need not pass.
type Waiver struct {
	Root string `json:"root"`
	File string `json:"file"` // relative to the root
	Task string `json:"task"` // the task's ref (its id, or the id and its place: Step#3)
	// Title is the task's title when it was waived: a waiver is for that
	// task, not for another an edit gives its ref to. Empty in waivers of
	// older releases.
	Title  string `json:"title,omitempty"`
	Reason string `json:"reason"`
	Time   int64  `json:"t"`
	// By says who waived it: "prompt" (the user typed /rodin:waive in
	// Claude Code), "terminal" (rodin waive at a terminal), or "agent"
	// (rodin waive from Claude Code's Bash: a request, Pending until the
	// user confirms it).
	By      string `json:"by,omitempty"`
	Pending bool   `json:"pending,omitempty"`
	// Commands, when set, make it no waiver of the checks: the user
	// accepts the task's commands as they are now (normalized) in place of
	// those it had when the session began (a typo the agent fixed). They
	// must pass as any check does.
	Commands []string `json:"commands,omitempty"`
}

func waiversPath(data string) string { return filepath.Join(Dir(data), "waivers.json") }

// Waivers reads every waiver.
func Waivers(data string) ([]Waiver, error) { return readList[Waiver](waiversPath(data)) }

// AddWaiver records a waiver, replacing an earlier one for the same task.
func AddWaiver(data string, w Waiver) error {
	if err := os.MkdirAll(Dir(data), 0o700); err != nil {
		return err
	}
	all, err := Waivers(data)
	if err != nil {
		return err
	}
	kept := all[:0]
	for _, o := range all {
		if o.Root != w.Root || o.File != w.File || o.Task != w.Task {
			kept = append(kept, o)
		} else if w.Pending && !o.Pending {
			return nil // a request never replaces a waiver the user gave
		}
	}
	js, err := json.MarshalIndent(append(kept, w), "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteAtomic(waiversPath(data), js, 0o600)
}

// Find is the waiver the user gave for a task, if any: a pending request
// is not one.
func Find(ws []Waiver, root, file, task, title string) *Waiver {
	w := lookup(ws, root, file, task, title)
	if w == nil || w.Pending {
		return nil
	}
	return w
}

// FindPending is the agent's pending request to waive a task, if any.
func FindPending(ws []Waiver, root, file, task, title string) *Waiver {
	w := lookup(ws, root, file, task, title)
	if w == nil || !w.Pending {
		return nil
	}
	return w
}

func lookup(ws []Waiver, root, file, task, title string) *Waiver {
	for i := range ws {
		if ws[i].Root == root && ws[i].File == file && strings.EqualFold(ws[i].Task, task) && (ws[i].Title == "" || ws[i].Title == title) {
			return &ws[i]
		}
	}
	return nil
}

func indexPath(data, session string) string {
	return filepath.Join(Dir(data), session+".index.json")
}

// SaveIndex keeps the session's index of task files (project.TaskIndex),
// a cache: a lost or damaged one is rebuilt by a walk.
func SaveIndex(data, session string, ix encoding.TextMarshaler) error {
	b, err := ix.MarshalText()
	if err != nil {
		return err
	}
	// Not flushed to disk: the index is a cache the stop hook rebuilds from
	// the session's baseline when it is missing or does not parse (what a
	// crash may leave), and a flush at every stop after a Bash command was
	// most of that stop's cost (issue 31, bench row v5).
	return safefile.WriteAtomicNoSync(indexPath(data, session), b, 0o600)
}

// LoadIndex reads the session's index of task files into ix; false when
// there is none or it cannot be read.
func LoadIndex(data, session string, ix encoding.TextUnmarshaler) bool {
	b, err := safefile.ReadFile(indexPath(data, session), 64<<20)
	return err == nil && ix.UnmarshalText(b) == nil
}

func logMarkPath(data, session string) string {
	return filepath.Join(Dir(data), session+".mark")
}

// SaveLogMark notes how much of the session's run log the stop hook has
// looked at (its size then): the next stop looks at the project's
// directories again only when the log grew past it. The mark is a
// fixed-size record written in place (the size twice), not a replaced
// file: a stop after every Bash command writes it, and the rename of an
// atomic write was most of that stop's cost (issue 31, bench row v5).
func SaveLogMark(data, session string, size int64) error {
	n := strconv.FormatInt(size, 10)
	if size < 0 || len(n) > 20 {
		return fmt.Errorf("a run log of %d bytes", size)
	}
	n = strings.Repeat("0", 20-len(n)) + n // as fmt's %020d, read back by LoadLogMark
	return safefile.Overwrite(logMarkPath(data, session), []byte(n+" "+n+"\n"), 0o600)
}

// LoadLogMark reads the mark SaveLogMark wrote; false when there is none,
// or it is torn (its two sizes differ) or damaged: the stop then looks at
// the whole log and every directory, as if none had been made.
func LoadLogMark(data, session string) (int64, bool) {
	b, err := safefile.ReadFile(logMarkPath(data, session), 64)
	if err != nil || len(b) != 42 || b[20] != ' ' || b[41] != '\n' || string(b[:20]) != string(b[21:41]) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(b[:20]), 10, 64)
	return n, err == nil && n >= 0
}

// LogGrowth is the size of the session's run log, and whether what was
// appended after offset records a run in the background (whose process may
// still write files). A log that shrank (compacted) or cannot be read
// reports background, the cautious answer.
func LogGrowth(data, session string, offset int64) (size int64, background bool) {
	b, size, err := safefile.ReadFrom(logPath(data, session), max(offset, 0), 4*MaxLog)
	switch {
	case os.IsNotExist(err):
		return 0, false
	case err != nil:
		return -1, true
	case size < offset || offset < 0:
		return size, true
	}
	return size, bytes.Contains(b, []byte(`"exit":`+strconv.Itoa(ExitBackground)))
}

// Normalize is the form two commands are compared in: the command less
// the ASCII white space at its ends, which the shell ignores there. Inner
// white space is the command's own: `go⏎test ./...` is two commands to the
// shell, and `a  'b  c'` is not `a 'b c'`. Other Unicode spaces are text to
// the shell (`-run TestParse` followed by a no-break space names no test):
// they are kept, and never match a command without them.
func Normalize(c string) string { return strings.Trim(c, asciiSpace) }

const asciiSpace = " \t\n\r\v\f"

// Evidential reports whether a run of command c can be evidence at all: a
// command that holds a line break, or any other control character than a
// tab (C1 controls such as U+0085, a line break to some readers, too), is
// never evidence (the shell runs each line as a command of its own, so
// `rodin verify V1 --timeout⏎true` exits as `true` does).
func Evidential(c string) bool {
	for _, r := range Normalize(c) {
		if r < ' ' && r != '\t' || r >= 0x7f && r <= 0x9f || r == 0x2028 || r == 0x2029 {
			return false
		}
	}
	return true
}

// AppendBash adds the Bash call of in, a PostToolUse or
// PostToolUseFailure input, to the session's record of runs in the data
// directory: what it ran, from where, by which agent, and how it ended.
func AppendBash(in hookio.Input, data string) { AppendBashAbout(in, data, "") }

// AppendBashAbout is AppendBash with what the command verified: for
// `rodin verify ID FILE`, the sum of the task the id named when it ran
// (kept as PromptSum), so that the run speaks for that task only, not for
// another that takes its id later (a repeated id's position, a plan's
// step renumbered by an edit).
func AppendBashAbout(in hookio.Input, data, about string) {
	session := in.SessionID()
	if !hookio.ValidSessionID(session) || data == "" {
		return
	}
	cmd, ok, err := in.Field("tool_input.command")
	if !ok || err != nil {
		return
	}
	// The time is read from the clock files are stamped with, never from
	// RODIN_NOW (the plan gate's test clock): it is compared with file times.
	r := Run{Time: freshness.Now().UnixNano(), Kind: KindBash, Command: cmd, Cwd: in.Cwd(), PromptSum: about}
	r.Agent, _, _ = in.Field("agent_id")
	r.Type, _, _ = in.Field("agent_type")
	r.Tool, _, _ = in.Field("tool_use_id")
	r.Dur = -1
	if d := in.Get("duration_ms"); d.Type == gjson.Number {
		r.Dur = max(d.Int(), 0)
	}
	switch in.HookEventName() {
	case "PostToolUse":
		r.Exit = finishedExit(in)
		if r.Exit == ExitBackground {
			r.Bg = in.Get("tool_response.backgroundTaskId").String()
			if r.Bg == "" {
				r.Bg = "?" + in.Get("tool_use_id").String() // moved there: no id given
			}
		}
	case "PostToolUseFailure":
		r.Exit = exitCode(in)
	default:
		return
	}
	if in.Get("tool_input.dangerouslyDisableSandbox").Bool() || in.Get("tool_response.dangerouslyDisableSandbox").Bool() {
		r.Exit = ExitUnsandboxed
	}
	if r.Exit == 0 && strings.Contains(cmd, "cd ") && cdPathJumped(cmd, in.Get("tool_response.stdout").String(), r.Cwd) {
		r.Exit = ExitCdPath
	}
	Append(data, session, r)
}

// cdPathJumped reports whether a command that opens with `cd DIR` went
// where CDPATH took it, out of the folder the call was reported from: bash
// and zsh print the folder a CDPATH entry led to, and the check then ran
// in another project's DIR, not this one's (attack 68). A folder under the
// reported one (CDPATH=. finds ./DIR) is where the words lead.
func cdPathJumped(cmd, stdout, cwd string) bool {
	// The opening cd, also inside a subshell or a group (`(cd web && …)`,
	// `{ cd web && …; }`: attack 70).
	c := strings.TrimLeft(strings.TrimSpace(cmd), "({ \t")
	rest, ok := strings.CutPrefix(c, "cd ")
	if !ok {
		return false
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return false
	}
	d := strings.TrimRight(f[0], ";)")
	switch {
	case d == "-", d == ".", d == "..", strings.HasPrefix(d, "/"), strings.HasPrefix(d, "~"), strings.HasPrefix(d, "./"), strings.HasPrefix(d, "../"):
		return false // CDPATH is not looked in for these
	}
	line, _, _ := strings.Cut(stdout, "\n")
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") {
		return false
	}
	if cwd == "" {
		return true
	}
	// Where the words lead: the reported folder itself (the shell stayed
	// in DIR), or DIR under it (a subshell, or Claude Code keeping the
	// shell at the root). CDPATH=. finds ./DIR so; an entry inside the
	// project (vendor/x) leads elsewhere all the same (attack 70).
	line, cwd = filepath.Clean(line), filepath.Clean(cwd)
	return line != cwd && line != filepath.Join(cwd, d)
}

// AppendSkillShell records a skill's inline shell command as Claude Code
// is about to run it (PreSkillShellCommand): its command, its start, and
// who invoked the skill. No hook sees it end, so its exit is unknown.
// Releases before 2.1.332 report no such event: there the skill's
// invocation stands for its commands (a slash command the user types,
// from UserPromptSubmit on; the Skill tool's call, its PostToolUse with
// the call's duration_ms).
func AppendSkillShell(in hookio.Input, data string) {
	session := in.SessionID()
	if !hookio.ValidSessionID(session) || data == "" {
		return
	}
	cmd, _, _ := in.Field("tool_input.command")
	if in.HookEventName() == "UserPromptSubmit" {
		cmd, _, _ = in.Field("prompt")
	}
	r := Run{Time: freshness.Now().UnixNano(), Kind: KindSkillShell, Command: cmd, Cwd: in.Cwd(), Exit: ExitUnknown, Dur: -1}
	if d := in.Get("duration_ms"); d.Type == gjson.Number && in.HookEventName() == "PostToolUse" {
		r.Dur = max(d.Int(), 0)
	}
	r.Agent, _, _ = in.Field("agent_id")
	r.Type, _, _ = in.Field("agent_type")
	r.Tool, _, _ = in.Field("tool_use_id")
	Append(data, session, r)
}

// AppendAgentLaunch records a subagent launched in the background (the
// Agent tool's PostToolUse says async_launched, at launch) as a background
// task of the session (KindAgentBg); a foreground subagent records nothing.
func AppendAgentLaunch(in hookio.Input, data string) {
	session := in.SessionID()
	res := in.Get("tool_response")
	id := res.Get("agentId").String()
	if !hookio.ValidSessionID(session) || data == "" || id == "" || res.Get("status").String() != "async_launched" && !res.Get("isAsync").Bool() {
		return
	}
	r := Run{Time: freshness.Now().UnixNano(), Kind: KindAgentBg, Exit: ExitBackground, Bg: id}
	r.Agent, _, _ = in.Field("agent_id")
	r.Type, _, _ = in.Field("agent_type")
	r.Tool, _, _ = in.Field("tool_use_id")
	Append(data, session, r)
}

// finishedExit is the exit a PostToolUse reports: 0 only for a call that
// ran in the foreground to its end and that Claude Code did not read a
// non-zero exit of as no error. A call run in the background, or moved
// there (it outlived its timeout, the user pressed Ctrl+B, a message or
// a turn's end moved it: the backgrounded* fields of 2.1.295 and 2.1.330),
// gets PostToolUse at launch: its outcome reaches no hook.
func finishedExit(in hookio.Input) int {
	// Its fields found as hookio finds them: stdout, tens of kilobytes,
	// is skipped at once, not read again at every field.
	res, _, _ := in.Object("tool_response")
	switch {
	case res.Get("backgroundTaskId").String() != "" || res.Get("timedOutAfterMs").Exists() ||
		res.Get("backgroundedByUser").Bool() || res.Get("backgroundedToDeliverMessage").Bool() ||
		res.Get("backgroundedByTurnAbort").Bool() || res.Get("backgroundedForAgentReport").Bool():
		return ExitBackground
	case res.Get("interrupted").Bool():
		return ExitInterrupted
	case res.Get("returnCodeInterpretation").String() != "":
		// grep's 1 ("No matches found") and the like: a non-zero exit
		// Claude Code reports as success.
		return ExitInterpreted
	}
	return 0
}

// exitCode reads "Exit code N" at the start of a failure's error; -1 when
// it is not there (interrupted, timed out, refused).
func exitCode(in hookio.Input) int {
	if in.Get("is_interrupt").Bool() {
		return ExitInterrupted
	}
	e, _, _ := in.Field("error")
	rest, ok := strings.CutPrefix(e, "Exit code ")
	if !ok {
		return ExitInterrupted
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	n, err := strconv.Atoi(rest[:end])
	if err != nil || n == 0 {
		return ExitInterrupted // a failure is never a pass
	}
	return n
}
