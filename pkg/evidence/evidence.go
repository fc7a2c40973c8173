// Package evidence keeps, for each session, the rodin:critic and
// rodin:validator runs that rodin's hooks observed, outside the plan file.
//
// The plan file is the agent's to edit, so nothing in it can prove that an
// assessment happened (SPEC section 2). The hooks therefore write what they
// saw of each run into a small file per session under the plugin's data
// directory (CLAUDE_PLUGIN_DATA), which the gate reads. What an agent with
// other tools could still do there is in docs/security.md.
//
// Since Claude Code 2.1.3xx subagents run in the background: a run is seen
// first as a launch (PostToolUse on Agent with status "async_launched":
// the agent id and its prompt) and later as a stop (SubagentStop: the agent
// id and its last message). A launch is kept until its stop arrives; a stop
// that comes first reads the prompt from the subagent's transcript. A
// foreground run (status "completed") is recorded whole at once.
package evidence

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rodin-gate/rodin/pkg/safefile"
)

// MaxSize bounds a session's evidence file; older entries are dropped
// first (maxLaunches, maxRuns), so it is never reached in practice.
const MaxSize = 1 << 20

const (
	maxLaunches = 32 // runs launched and not finished yet, per session
	maxRuns     = 16 // finished leakage runs, per session
	// MaxValidators bounds the validator runs kept per session. Runs on
	// other gaps go first: every run on the gaps as they stand counts (a
	// FAIL stands until they change), so none of those may be pushed out.
	MaxValidators = 64
	// MaxCritics bounds the critic runs kept per session. Runs on other
	// plans go first: every run on the plan as it stands must stay, or a
	// re-rolled critic could push an inconvenient answer out.
	MaxCritics = 64
)

// MaxAnswer bounds the critic answer kept with a run; a longer one is kept
// as its digest only.
const MaxAnswer = 48 << 10

// CriticRun is what the hooks saw of one rodin:critic run.
type CriticRun struct {
	AgentID  string `json:"agent_id,omitempty"`
	Plan     string `json:"plan"`             // the plan digest when the prompt was exactly `rodin prompt critic` output; else ""
	Sight    string `json:"sight,omitempty"`  // with Plan: the plan as a reader sees it (planfile.Doc.PlanSight)
	GapsSeen bool   `json:"gaps_seen"`        // the prompt held text from the gaps block
	Model    string `json:"model,omitempty"`  // what overrode the agent's model or effort (provenance.Override), "" when nothing did
	Findings string `json:"findings"`         // digest of the findings as parsed; "" when unparseable
	Answer   string `json:"answer,omitempty"` // the answer itself, up to MaxAnswer bytes (rodin prompt validator quotes it)
	// ByFile: the prompt was provenance.CriticReadPrompt, so the critic
	// read the plan from its input file; Reads are the pages it was shown.
	ByFile bool   `json:"by_file,omitempty"`
	Reads  []Read `json:"reads,omitempty"`
	// Complete: with ByFile, the pages it was shown were all of the plan
	// it was launched on, as it stood when the run ended; Missing says
	// what it did not see otherwise.
	Complete bool   `json:"complete,omitempty"`
	Missing  string `json:"missing,omitempty"`
	High     int    `json:"high"`
	Medium   int    `json:"medium"`
	Low      int    `json:"low"`
	TS       string `json:"ts"`
}

// ValidatorRun is what the hooks saw of one rodin:validator run.
type ValidatorRun struct {
	AgentID   string   `json:"agent_id,omitempty"`
	Gaps      string   `json:"gaps"`                 // the gaps digest when the prompt was exactly `rodin prompt validator` output; else ""
	GapsSight string   `json:"gaps_sight,omitempty"` // with Gaps: the gaps as a reader sees them (planfile.Doc.GapsSight)
	Critics   []string `json:"critics,omitempty"`    // with Gaps: the critic runs whose answers the prompt held
	Findings  string   `json:"findings"`             // digest of the findings the prompt held, as parsed
	Model     string   `json:"model,omitempty"`      // what overrode the agent's model or effort, "" when nothing did
	Verdict   string   `json:"verdict"`              // pass, fail, or "" when the answer could not be parsed
	Reason    string   `json:"reason"`
	TS        string   `json:"ts"`
}

// Read is one page a Read of one of rodin's input files returned to an
// agent (its PostToolUse): where it starts, how many lines, and the digest
// of their text (provenance.Sum).
type Read struct {
	File  string `json:"file"`
	Start int    `json:"start"`
	Num   int    `json:"num"`
	Total int    `json:"total"`
	Sum   string `json:"sum"`
}

// Reads bounds the pages kept per agent, and the agents whose pages wait
// for their run to be recorded.
const (
	maxReads      = 256
	maxReadAgents = 32
)

// AddRead keeps a page agent id was shown, until its run is recorded.
func (l *Log) AddRead(id string, r Read) {
	if l.Reads == nil {
		l.Reads = map[string][]Read{}
	}
	if len(l.Reads[id]) >= maxReads {
		return
	}
	l.Reads[id] = append(l.Reads[id], r)
	for len(l.Reads) > maxReadAgents {
		for k := range l.Reads {
			if k != id {
				delete(l.Reads, k)
				break
			}
		}
	}
}

// LeakageRun is one rodin:leakage-detector run: not evidence the gate needs,
// kept so that `rodin leakage` can give the skill its answer.
type LeakageRun struct {
	AgentID string `json:"agent_id,omitempty"`
	Answer  string `json:"answer"`
	TS      string `json:"ts"`
}

// Launch is a run that started in the background and has not stopped: what
// its prompt held, judged when it started (the plan it was given, not the
// plan as it stands when it ends).
type Launch struct {
	Agent     string        `json:"agent"`
	Critic    *CriticRun    `json:"critic,omitempty"`
	Validator *ValidatorRun `json:"validator,omitempty"`
	Leakage   *LeakageRun   `json:"leakage,omitempty"`
	TS        string        `json:"ts"`
}

// Log is a session's evidence: runs in the order they finished.
type Log struct {
	Launches   map[string]Launch `json:"launches,omitempty"`
	Critics    []CriticRun       `json:"critics,omitempty"`
	Validators []ValidatorRun    `json:"validators,omitempty"`
	Leakage    []LeakageRun      `json:"leakage,omitempty"`
	Overflowed string            `json:"overflowed,omitempty"` // a plan digest with more than MaxCritics critic runs, or an exact critic launch dropped
	// GapsOverflowed is a gaps digest with more than MaxValidators
	// validator runs, or an exact validator launch dropped.
	GapsOverflowed string `json:"gaps_overflowed,omitempty"`
	// Reads are the pages of rodin's input files each agent was shown, by
	// agent id, until its run is recorded (AddCritic takes them).
	Reads map[string][]Read `json:"reads,omitempty"`
	// Stopped are answers whose SubagentStop came before the launch's
	// PostToolUse (the two hooks race) and whose prompt the transcript did
	// not give yet: the launch completes them.
	Stopped map[string]Stop `json:"stopped,omitempty"`
	// Lost are the plans (their sight, planfile.Doc.PlanSight; "*" for any)
	// on which a run rodin observed could not be kept: the record was
	// damaged, locked or could not be written when it came (MarkLost).
	// None of them can pass in this session: a lost run may have been a
	// finding (attack 69).
	Lost []string `json:"lost,omitempty"`
}

// LostOn reports whether a run on the plan of this sight was lost.
func (l *Log) LostOn(sight string) bool {
	for _, s := range l.Lost {
		if s == "*" || s == sight {
			return true
		}
	}
	return false
}

// MarkLost notes, beside the session's evidence at path and without its
// lock, that a run on the plan of this sight ("*" when not known) could
// not be recorded: Load reads it into Log.Lost. Each mark is a file of its
// own, made whole or not at all.
func MarkLost(path, sight string) error {
	if path == "" {
		return errors.New("no evidence file for this session")
	}
	if sight == "" {
		sight = "*"
	}
	if err := os.MkdirAll(path+".lost", 0o700); err != nil {
		return err
	}
	var n [8]byte
	rand.Read(n[:])
	return safefile.CreateNew(filepath.Join(path+".lost", hex.EncodeToString(n[:])), []byte(sight+"\n"), 0o600)
}

// lostMarks are the sights MarkLost noted for the evidence at path, in a
// folder of the session's own (the evidence folder holds every session's
// record: reading it all at every gate cost 1.7 ms with 2,000 of them).
func lostMarks(path string) []string {
	es, err := os.ReadDir(path + ".lost")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range es {
		if strings.HasSuffix(e.Name(), ".tmp") || !e.Type().IsRegular() {
			continue
		}
		m := filepath.Join(path+".lost", e.Name())
		b, err := safefile.ReadFile(m, 4096)
		s := strings.TrimSpace(string(b))
		if err != nil || s == "" {
			s = "*"
		}
		out = append(out, s)
	}
	return out
}

// Stop is a subagent's answer waiting for its launch.
type Stop struct {
	Agent  string `json:"agent"`
	Answer string `json:"answer"`
	TS     string `json:"ts"`
}

// AddStop keeps an answer for a launch still to come, dropping the oldest
// past maxLaunches.
func (l *Log) AddStop(id string, s Stop) {
	if l.Stopped == nil {
		l.Stopped = map[string]Stop{}
	}
	l.Stopped[id] = s
	for len(l.Stopped) > maxLaunches {
		oldest := ""
		for k, v := range l.Stopped {
			if oldest == "" || v.TS < l.Stopped[oldest].TS {
				oldest = k
			}
		}
		delete(l.Stopped, oldest)
	}
}

// LastCritic is the critic run that finished last, if any.
func (l *Log) LastCritic() (CriticRun, bool) {
	if len(l.Critics) == 0 {
		return CriticRun{}, false
	}
	return l.Critics[len(l.Critics)-1], true
}

// LastValidator is the validator run that finished last, if any.
func (l *Log) LastValidator() (ValidatorRun, bool) {
	if len(l.Validators) == 0 {
		return ValidatorRun{}, false
	}
	return l.Validators[len(l.Validators)-1], true
}

// Finished reports whether a run of agent id has been recorded.
func (l *Log) Finished(id string) bool {
	if id == "" {
		return false
	}
	for _, r := range l.Critics {
		if r.AgentID == id {
			return true
		}
	}
	for _, r := range l.Validators {
		if r.AgentID == id {
			return true
		}
	}
	for _, r := range l.Leakage {
		if r.AgentID == id {
			return true
		}
	}
	return false
}

// SetModel marks the finished run of agent id as run with a model
// override, and reports whether it changed anything.
func (l *Log) SetModel(id, model string) bool {
	for i := range l.Critics {
		if l.Critics[i].AgentID == id && l.Critics[i].Model != model {
			l.Critics[i].Model = model
			return true
		}
	}
	for i := range l.Validators {
		if l.Validators[i].AgentID == id && l.Validators[i].Model != model {
			l.Validators[i].Model = model
			return true
		}
	}
	return false
}

// AddLeakage appends a finished leakage-detector run, keeping the newest
// maxRuns.
func (l *Log) AddLeakage(r LeakageRun) {
	delete(l.Launches, r.AgentID)
	l.Leakage = appendLast(l.Leakage, r)
}

// appendLast appends r and keeps the newest maxRuns.
func appendLast[T any](runs []T, r T) []T {
	runs = append(runs, r)
	if n := len(runs); n > maxRuns {
		runs = runs[n-maxRuns:]
	}
	return runs
}

// AddCritic appends a finished critic run. Past MaxCritics it drops the
// oldest run on another plan; when every run is on the same plan, it keeps
// them all and marks the log Overflowed for that plan instead.
func (l *Log) AddCritic(r CriticRun) {
	delete(l.Launches, r.AgentID)
	delete(l.Reads, r.AgentID)
	l.Critics = append(l.Critics, r)
	for len(l.Critics) > MaxCritics {
		i := 0
		for i < len(l.Critics) && l.Critics[i].Plan == r.Plan {
			i++
		}
		if i == len(l.Critics) {
			l.Overflowed = r.Plan
			l.Critics = l.Critics[1:]
			continue
		}
		l.Critics = append(l.Critics[:i], l.Critics[i+1:]...)
	}
}

// CriticsOn are the finished critic runs on plan digest plan, in the order
// they finished.
func (l *Log) CriticsOn(plan, sight string) []CriticRun {
	var out []CriticRun
	for _, r := range l.Critics {
		if OnPlan(r, plan, sight) {
			out = append(out, r)
		}
	}
	return out
}

// OnPlan reports whether an exact critic run was on the plan of digest plan,
// or on a version a reader sees the same (sight): a change of white space
// or of invisible characters is no new plan to judge again.
func OnPlan(r CriticRun, plan, sight string) bool {
	return r.Plan != "" && (r.Plan == plan || sight != "" && r.Sight == sight)
}

// AddValidator appends a finished validator run. Past MaxValidators it
// drops the oldest run on other gaps; when every run is on the same gaps,
// it marks the log GapsOverflowed for them instead.
func (l *Log) AddValidator(r ValidatorRun) {
	delete(l.Launches, r.AgentID)
	l.Validators = append(l.Validators, r)
	for len(l.Validators) > MaxValidators {
		i := 0
		for i < len(l.Validators) && l.Validators[i].Gaps == r.Gaps {
			i++
		}
		if i == len(l.Validators) {
			l.GapsOverflowed = r.Gaps
			l.Validators = l.Validators[1:]
			continue
		}
		l.Validators = append(l.Validators[:i], l.Validators[i+1:]...)
	}
}

// AddLaunch keeps a run that has started, dropping the oldest launches past
// maxLaunches (runs that never finish must not grow the file).
func (l *Log) AddLaunch(id string, launch Launch) {
	if l.Launches == nil {
		l.Launches = map[string]Launch{}
	}
	l.Launches[id] = launch
	if len(l.Launches) <= maxLaunches {
		return
	}
	ids := make([]string, 0, len(l.Launches))
	for k := range l.Launches {
		ids = append(ids, k)
	}
	// Runs that are no evidence go first, then the oldest. A run in flight
	// counts (a pass waits for it), so dropping an exact one marks its
	// plan or gaps as having runs rodin no longer knows.
	evidence := func(x Launch) bool {
		return x.Critic != nil && x.Critic.Plan != "" || x.Validator != nil && x.Validator.Gaps != ""
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := l.Launches[ids[i]], l.Launches[ids[j]]
		if evidence(a) != evidence(b) {
			return !evidence(a)
		}
		return a.TS < b.TS
	})
	for _, k := range ids[:len(ids)-maxLaunches] {
		x := l.Launches[k]
		switch {
		case x.Critic != nil && x.Critic.Plan != "":
			l.Overflowed = x.Critic.Plan
		case x.Validator != nil && x.Validator.Gaps != "":
			l.GapsOverflowed = x.Validator.Gaps
		}
		delete(l.Launches, k)
	}
}

// Dir is where evidence is kept: DataDir/evidence.
func Dir(getenv func(string) string) string {
	if d := DataDir(getenv); d != "" {
		return filepath.Join(d, "evidence")
	}
	return ""
}

// DataDir is the plugin's data directory: CLAUDE_PLUGIN_DATA. Claude Code
// sets it for hooks but not for the Bash tool, where the skill runs
// `rodin`; there it is the one the SessionStart hook last wrote to the
// pointer file (DataPointer).
func DataDir(getenv func(string) string) string {
	data := getenv("CLAUDE_PLUGIN_DATA")
	if data == "" {
		if p := DataPointer(getenv); p != "" {
			if b, err := os.ReadFile(p); err == nil {
				data = strings.TrimSpace(string(b))
			}
		}
	}
	if !filepath.IsAbs(data) {
		return ""
	}
	return data
}

// SealKey is the secret plan-file seals are keyed with (planfile.SetSealKey):
// 32 random bytes in DataDir/seal.key, private to the user, made on first
// use when create is set. nil when there is none.
func SealKey(getenv func(string) string, create bool) []byte {
	data := DataDir(getenv)
	if data == "" {
		return nil
	}
	path := filepath.Join(data, "seal.key")
	if b, err := safefile.ReadFile(path, 64); err == nil && len(b) == 32 {
		return b
	}
	if !create {
		return nil
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil
	}
	if os.MkdirAll(data, 0o700) != nil {
		return nil
	}
	if err := safefile.CreateNew(path, key, 0o600); err != nil {
		// Another hook made it first (or it is unreadable): use theirs.
		if b, err := safefile.ReadFile(path, 64); err == nil && len(b) == 32 {
			return b
		}
		return nil
	}
	return key
}

// DataPointer is the file that names the plugin's data directory for
// `rodin` outside hooks: in the user's cache directory, the launcher's own
// fallback data directory.
func DataPointer(getenv func(string) string) string {
	if d := getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "rodin", "plugin-data")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".cache", "rodin", "plugin-data")
	}
	return ""
}

// Path is the evidence file of session, or "" when the session id cannot
// name a file (Claude Code's ids are UUIDs).
func Path(getenv func(string) string, session string) string {
	dir := Dir(getenv)
	if dir == "" || session == "" || len(session) > 128 {
		return ""
	}
	for i := 0; i < len(session); i++ {
		c := session[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return ""
		}
	}
	return filepath.Join(dir, session+".json")
}

// Load reads a session's evidence. A missing file is an empty log.
func Load(path string) (Log, error) {
	var l Log
	if path == "" {
		return l, errors.New("no evidence file for this session")
	}
	b, err := safefile.ReadFile(path, MaxSize)
	if safefile.IsNotExist(err) {
		return l, nil
	}
	if err != nil {
		return l, err
	}
	if len(b) == 0 {
		// Being made by a hook of an older rodin (O_EXCL, then the write).
		l.Lost = lostMarks(path)
		return l, nil
	}
	if l, err = decode(b); err != nil {
		return Log{}, fmt.Errorf("%s is not readable: %v", path, err)
	}
	l.Lost = append(l.Lost, lostMarks(path)...)
	return l, nil
}

// Update changes a session's evidence under a lock, creating the file (and
// its directory, private to the user) when needed. change reports whether it
// changed anything; nothing is written when it did not.
func Update(path string, change func(*Log) bool) error {
	if path == "" {
		return errors.New("no evidence file for this session")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	// Made whole or not at all: a reader never sees it empty.
	if err := safefile.CreateNew(path, []byte("{}\n"), 0o600); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	_, err := safefile.Update(path, MaxSize, func(old []byte) ([]byte, error) {
		var l Log
		if len(old) > 0 {
			if err := json.Unmarshal(old, &l); err != nil {
				// Unreadable: start again rather than record nothing, but
				// the runs it held are lost, and no plan passes on what
				// is left of them in this session (attack 69's F5).
				l = Log{Lost: []string{"*"}}
			}
		}
		if !change(&l) {
			return nil, nil
		}
		b, err := json.Marshal(l)
		return append(b, '\n'), err
	})
	return err
}

// Prune removes evidence files not written for maxAge: sessions that ended.
func Prune(getenv func(string) string, maxAge time.Duration, now time.Time) {
	if dir := Dir(getenv); dir != "" {
		PruneDir(dir, maxAge, now)
	}
}

// PruneDir removes the regular files of dir not written for maxAge.
func PruneDir(dir string, maxAge time.Duration, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		switch {
		case err != nil || now.Sub(info.ModTime()) <= maxAge:
		case info.Mode().IsRegular():
			os.Remove(filepath.Join(dir, e.Name()))
		case info.IsDir() && strings.HasSuffix(e.Name(), ".lost"):
			os.RemoveAll(filepath.Join(dir, e.Name())) // a session's lost marks (MarkLost)
		}
	}
}
