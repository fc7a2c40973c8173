package contracts

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rodin-gate/rodin/internal/realpath"
	"github.com/rodin-gate/rodin/pkg/edits"
	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/project"
	"github.com/rodin-gate/rodin/pkg/safefile"
)

// Off reports whether the contracts gate is off for this session.
func Off(getenv func(string) string) bool { return getenv("RODIN_CONTRACTS") == "off" }

func deny(format string, args ...any) hookio.PreOutcome {
	return hookio.Denial("[rodin] " + fmt.Sprintf(format, args...))
}

// snapshotPath is where the session's contracts are kept, as they were when
// it started: an edit mid-session changes nothing until the next one.
func snapshotPath(data, session string) string {
	return filepath.Join(data, "contracts", session+".json")
}

// noneMark is the snapshot of a session that started without contracts;
// brokenMark begins that of one whose contracts file was broken (said at
// session start), followed by the file.
const (
	noneMark   = "none\n"
	brokenMark = "broken\n"
)

// TakeSnapshot keeps root's contracts for the session (rodin setup, at
// session start). It returns a note for the user when the file is broken:
// the gate then denies artifact writes until it is fixed.
func TakeSnapshot(getenv func(string) string, session, root string) (note string, err error) {
	data := evidence.DataDir(getenv)
	if data == "" || !hookio.ValidSessionID(session) || root == "" {
		return "", nil
	}
	b, err := os.ReadFile(filepath.Join(root, File))
	switch {
	case safefile.IsNotExist(err):
		b = []byte(noneMark)
	case err != nil:
		return "", err
	}
	if string(b) != noneMark {
		if _, perr := Parse(b); perr != nil {
			// Kept so that it never decodes: the hooks then parse it,
			// fail, and deny.
			b = append([]byte(brokenMark), b...)
			note = fmt.Sprintf("%s is broken (%v): every write of a JSON or Markdown file in the project is denied until it is fixed and a new session starts, or RODIN_CONTRACTS=off", File, perr)
		}
	}
	p := snapshotPath(data, session)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return note, err
	}
	if err := safefile.WriteAtomic(p, b, 0o600); err != nil {
		return note, err
	}
	if c, err := Parse(b); err == nil {
		// What the artifacts are as the session starts, for the Bash check.
		return note, recordSeen(c, data, session, root)
	}
	return note, nil
}

// snapshot is the session's record of its contracts, read once per hook.
type snapshot struct {
	b    []byte // as kept at session start; nil when there is none
	none bool   // the session started without contracts
	err  error  // it could not be read
}

// readSnapshot reads the session's snapshot; none is a session from before
// rodin kept them (or whose SessionStart hook did not run).
func readSnapshot(getenv func(string) string, session string) snapshot {
	data := evidence.DataDir(getenv)
	if data == "" || !hookio.ValidSessionID(session) {
		return snapshot{}
	}
	b, err := safefile.ReadFile(snapshotPath(data, session), MaxFile)
	switch {
	case safefile.IsNotExist(err):
		return snapshot{}
	case err != nil:
		return snapshot{err: err}
	}
	return snapshot{b: b, none: string(b) == noneMark}
}

// artifact is the contract of the artifact at rel, from the contracts the
// session started with (nil when it started without, or none covers rel),
// or from the project's file as it is now when the session has no snapshot.
// exists reports whether the session has contracts at all. On a file system
// that finds names whatever their case, memos/A-CLAIM.json is
// memos/a-claim.json.
func (snap snapshot) artifact(root, rel string) (c *Contracts, a *Artifact, vars map[string]string, exists bool, err error) {
	c, a, vars, exists, err = snap.match(root, rel, false)
	if err == nil && exists && a == nil && FoldsCase(root) {
		return snap.match(root, rel, true)
	}
	return c, a, vars, exists, err
}

func (snap snapshot) match(root, rel string, fold bool) (c *Contracts, a *Artifact, vars map[string]string, exists bool, err error) {
	switch {
	case snap.err != nil:
		return nil, nil, nil, true, snap.err
	case snap.none:
		return nil, nil, nil, false, nil
	case snap.b != nil:
		// Accepted by Parse at session start (a broken file is kept so
		// that it does not decode: Parse then says why).
		if c, a, vars, err := matchTrusted(snap.b, rel, fold); err == nil {
			return c, a, vars, true, nil
		}
		_, err = Parse(snap.b)
		return nil, nil, nil, true, err
	}
	b, err := safefile.ReadFile(filepath.Join(root, File), MaxFile)
	if safefile.IsNotExist(err) {
		return nil, nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, nil, true, err
	}
	if c, err = Parse(b); err != nil {
		return nil, nil, nil, true, err
	}
	c.Fold = fold
	a, vars = c.Match(rel)
	return c, a, vars, true, nil
}

// Writer is who makes a tool call: the subagent's type (or the session's,
// for `claude --agent NAME`), else "main"; with the subagent's run id. An
// agent-team teammate's agent_type is the name its lead gave it, whatever
// agent it runs (a lead can name a general-purpose teammate "worker"): it
// is "teammate:NAME", a writer of its own that roles must list.
func Writer(in hookio.Input) (name, id string) {
	agent, _, _ := in.Field("agent_type")
	id, _, _ = in.Field("agent_id")
	switch {
	case agent == "":
		agent = "main"
	case IsTeammateID(id):
		agent = "teammate:" + agent
	}
	return agent, id
}

// IsTeammateID reports whether an agent_id is an agent-team teammate's:
// "a" + its name + "-" + 16 hex digits (a subagent's is "a" + 17 hex
// digits, no dash), as 2.1.295 and 2.1.330 write them
// (testdata/fixtures/claude-code-*/writers-teammate).
func IsTeammateID(id string) bool {
	i := strings.LastIndexByte(id, '-')
	if i < 2 || id[0] != 'a' || len(id)-i-1 != 16 {
		return false
	}
	for _, c := range id[i+1:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// PreWrite is the PreToolUse route for Write, Edit and MultiEdit: a write
// of an artifact is checked against its contract before the tool runs:
// who writes it, once, and its fields as the change would leave it. Every
// broken rule is named. hooks.json starts it for JSON and Markdown files
// only.
func PreWrite(in hookio.Input, getenv func(string) string) hookio.PreOutcome {
	if Off(getenv) {
		return hookio.NoDecision
	}
	path := in.FilePath()
	if lower := strings.ToLower(path); !strings.HasSuffix(lower, ".json") && !strings.HasSuffix(lower, ".md") {
		return hookio.NoDecision // hooks.json's filters match whatever the case
	}
	root := project.Root(getenv, in.Cwd())
	if root == "" {
		return hookio.NoDecision
	}
	tool := in.ToolName()
	// Most sessions have no contracts: one read says so, before any path
	// is resolved (a write into .rodin/ is still looked at).
	snap := readSnapshot(getenv, in.SessionID())
	if snap.none && !strings.Contains(filepath.ToSlash(path), "/.rodin/") {
		return hookio.NoDecision
	}
	realRoot, real, rel := resolve(root, path)
	// The path as the call names it: an artifact's path that is a link (or
	// runs through one) would let the file a reader opens be written
	// unchecked, or be another file than the one judged.
	if literal := literalRel(root, realRoot, path); literal != "" && literal != rel {
		_, la, _, _, err := snap.artifact(realRoot, literal)
		if err != nil {
			return cannotRead(tool, literal, err)
		}
		if la != nil {
			if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				return deny("This %s of %s breaks the %s contract (%s): at (the file): expected a regular file at the artifact's path, got a link (to %s). To fix: remove the link (`rm %s`), then write the file itself.", tool, literal, la.Name, File, real, literal)
			}
			// A directory on the way is a link: the file is judged at the
			// path its readers open.
			rel = literal
		}
	}
	if rel == "" {
		return hookio.NoDecision // outside the project
	}
	c, a, vars, has, err := snap.artifact(realRoot, rel)
	if err != nil {
		return cannotRead(tool, rel, err)
	}
	if strings.HasPrefix(rel, ".rodin/") {
		if _, err := os.Stat(filepath.Join(realRoot, File)); has || err == nil {
			name, _ := Writer(in)
			return deny("%s is rodin's configuration, which no agent writes while the project has artifact contracts (this %s is %s's). To fix: ask the user to change it.", rel, tool, name)
		}
	}
	if a == nil {
		return hookio.NoDecision
	}

	var broken []string
	unbacked := false // an evidence rule broken
	name, id := Writer(in)
	if v := a.writerProblem(c, name); v != "" {
		broken = append(broken, v)
	}
	old, err := safefile.ReadFile(real, MaxArtifact)
	exists := err == nil
	if err != nil && !safefile.IsNotExist(err) {
		return deny("Cannot read %s to check this %s against the %s contract: %v. To fix: make the file readable, then try again.", rel, tool, a.Name, err)
	}
	if a.Once == "first-writer" && exists {
		broken = append(broken, onceKept)
	}
	next, ok := edits.Apply(tool, in.Get("tool_input"), string(old), exists)
	if !ok {
		if len(broken) == 0 {
			return hookio.NoDecision // the tool fails on its own
		}
	} else {
		for _, v := range a.CheckContent([]byte(next), vars, realRoot) {
			broken = append(broken, v.String())
		}
		if a.Evidence != nil {
			w := c.witness(getenv, in.SessionID(), realRoot, id)
			for _, v := range a.CheckEvidence([]byte(next), w) {
				broken = append(broken, v.String())
				unbacked = true
			}
		}
	}
	if len(broken) == 0 {
		// Claimed last: a write refused for another rule does not keep
		// the file from the next writer.
		if v := a.claim(getenv, real, exists, in.SessionID(), id); v != "" {
			broken = append(broken, v)
		}
	}
	if len(broken) == 0 {
		return hookio.NoDecision
	}
	return deny("This %s of %s breaks the %s contract (%s): %s. To fix: %s", tool, rel, a.Name, File, rules(broken), fixFor(a, unbacked))
}

// resolve is the project root and the written path with their links
// resolved (a path through a link writes the link's target: that is what
// counts), and the path relative to the root ("" outside it).
func resolve(root, path string) (realRoot, real, rel string) {
	real = path
	// A link whose target does not exist yet writes its target too: follow
	// it by hand (EvalSymlinks fails on it), a bounded number of hops.
	for hops := 0; hops < 40; hops++ {
		if r, err := realpath.Eval(filepath.Dir(real)); err == nil {
			real = filepath.Join(r, filepath.Base(real))
		}
		fi, err := os.Lstat(real)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			break
		}
		target, err := os.Readlink(real)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(real), target)
		}
		real = filepath.Clean(target)
	}
	realRoot = root
	if r, err := realpath.Eval(root); err == nil {
		realRoot = r
	}
	return realRoot, real, project.Rel(realRoot, real)
}

// cannotRead is the Write gate's deny when the contracts cannot be read.
func cannotRead(tool, rel string, err error) hookio.PreOutcome {
	return deny("The artifact contracts cannot be read, so this %s of %s is denied: %v. To fix: the user fixes %s (then starts a new session), or sets RODIN_CONTRACTS=off.", tool, rel, err, File)
}

// literalRel is the path a call names relative to the project root, its
// links not followed ("" outside the project).
func literalRel(root, realRoot, path string) string {
	path = filepath.Clean(path)
	if rel := project.Rel(root, path); rel != "" {
		return rel
	}
	return project.Rel(realRoot, path)
}

// writerProblem is the broken writers rule for a writer ("main", an agent
// type), "" when one of its roles may write the artifact.
func (a *Artifact) writerProblem(c *Contracts, name string) string {
	roles := c.RoleOf(name)
	if slices.Contains(a.Writers, "*") || slices.ContainsFunc(roles, func(r string) bool { return slices.Contains(a.Writers, r) }) {
		return ""
	}
	return fmt.Sprintf("at (writer): expected %s, got %s (role %s)", strings.Join(a.Writers, " or "), name, strings.Join(roles, ", "))
}

// onceKept is the broken once rule of a second write of a first-writer file.
const onceKept = "at (once): expected the first writer's file to stay, got a second write"

// fixFor is what to do about a broken contract; unbacked when a claimed
// run was not one rodin observed.
func fixFor(a *Artifact, unbacked bool) string {
	fix := "write the file again with the fields corrected, as the agent the contract names."
	if a.Once == "first-writer" {
		fix = "a first-writer file is never written again; if the writer or a field is wrong, correct the call; otherwise leave the file as it is."
	}
	if unbacked {
		fix = "run each command the file says succeeded, as a Bash call of its own from the project root (at level " + a.Evidence.Level + ": " + levelNeeds(a.Evidence.Level) + "), cite it exactly as it ran, claim only what passed, then write the file."
	}
	return fix
}

// claim applies `once` to a Write: a first-writer file that exists is
// denied to everyone; one that does not is claimed (claimFile), and the
// claim lets only the same writer (session and run) try again. A per-agent
// file is claimed per writer. It returns the broken rule, "" when kept.
func (a *Artifact) claim(getenv func(string) string, real string, exists bool, session, agentID string) string {
	if a.Once == "" {
		return ""
	}
	if a.Once == "first-writer" && exists {
		return onceKept
	}
	holder, problem := a.claimFile(getenv, real, session, agentID)
	switch {
	case problem != "":
		return problem
	case holder != "":
		return "at (once): expected the first writer's file to stay, got a write after another writer claimed it"
	}
	return ""
}

// claimTTL is how long a first-writer claim whose file never came (the
// write failed or was refused by the user) or was removed since holds
// the file: long past any permission dialog, short of the next campaign.
const claimTTL = 10 * time.Minute

// claimFile takes the claim of real for this writer with an O_EXCL create
// in rodin's data directory, so that of writers racing across hook
// processes and sessions exactly one holds it. holder is "" when this
// writer holds it (taken now, or before by the same session and run),
// else who does; problem names a claim that could not be kept, or a
// per-agent file's second write. A first-writer claim older than claimTTL
// is taken over, one taker at a time, with the copy kept for it.
func (a *Artifact) claimFile(getenv func(string) string, real, session, agentID string) (holder, problem string) {
	data := evidence.DataDir(getenv)
	if data == "" {
		return "", "at (once): expected a place to keep who wrote first, got no data directory"
	}
	me := session + "/" + agentID
	p := a.claimPath(data, real, me)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", "at (once): expected a place to keep who wrote first, got " + err.Error()
	}
	for attempt := 0; attempt < 2; attempt++ {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			fmt.Fprintln(f, me)
			f.Close()
			return "", ""
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", "at (once): expected a place to keep who wrote first, got " + err.Error()
		}
		if a.Once == "per-agent" {
			return "", "at (once): expected one write by each agent, got a second write by this one"
		}
		b, _ := os.ReadFile(p)
		holder = strings.TrimSpace(string(b))
		switch holder {
		case me:
			return "", ""
		case "":
			holder = "another writer" // one whose claim is being written
		}
		if attempt > 0 || !takeOver(p, copyPath(data, real)) {
			return holder, ""
		}
	}
	return holder, ""
}

// takeOver lets go of a first-writer claim older than claimTTL, and of
// the copy kept for it, so that the caller can claim the file anew; one
// taker at a time (an O_EXCL lock, itself let go after a minute if its
// taker died).
func takeOver(claim, copy string) bool {
	if fi, err := os.Stat(claim); err != nil || time.Since(fi.ModTime()) < claimTTL {
		return false
	}
	lock := claim + ".takeover"
	if fi, err := os.Stat(lock); err == nil && time.Since(fi.ModTime()) > time.Minute {
		os.Remove(lock)
	}
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false
	}
	f.Close()
	defer os.Remove(lock)
	if fi, err := os.Stat(claim); err != nil || time.Since(fi.ModTime()) < claimTTL {
		return false // taken over by another meanwhile
	}
	os.Remove(copy)
	return os.Remove(claim) == nil
}

// unclaim lets go of a first-writer claim this writer took for a file
// that did not keep its contract.
func (a *Artifact) unclaim(getenv func(string) string, real string) {
	if data := evidence.DataDir(getenv); data != "" {
		os.Remove(a.claimPath(data, real, ""))
	}
}

// claimPath is where the claim of real is kept: one per file, or per file
// and writer for a per-agent file.
func (a *Artifact) claimPath(data, real, me string) string {
	key := real
	if a.Once == "per-agent" {
		key += "\x00" + me
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(data, "contracts", "claims", hex.EncodeToString(sum[:]))
}

// lazyWitness reads what rodin observed in the session when an evidence
// rule first asks, and once for all the artifacts a hook checks.
func (c *Contracts) lazyWitness(getenv func(string) string, session, root, agentID string) func() Witness {
	var w *Witness
	return func() Witness {
		if w == nil {
			x := c.witness(getenv, session, root, agentID)
			w = &x
		}
		return *w
	}
}

// witness is what rodin observed in the session, for an evidence rule.
func (c *Contracts) witness(getenv func(string) string, session, root, agentID string) Witness {
	data := evidence.DataDir(getenv)
	if data == "" || !hookio.ValidSessionID(session) {
		return Witness{Root: root, Err: errors.New("rodin has no data directory to keep runs in")}
	}
	return c.Witnessed(data, session, root, agentID)
}

// levelNeeds says what an evidence level asks of a run, for messages.
func levelNeeds(level string) string {
	switch level {
	case "fresh":
		return "after the last change of a project file"
	case "independent":
		return "after the last change of a project file, by the agent that writes the file itself"
	}
	return "in this session"
}

// maxRules bounds the broken rules a message lists: an agent reads the
// first ones, fixes them, and is told the rest on its next try.
const maxRules = 25

// rules joins broken rules for a message, at most maxRules of them.
func rules(broken []string) string {
	if len(broken) <= maxRules {
		return strings.Join(broken, "; ")
	}
	return strings.Join(broken[:maxRules], "; ") + fmt.Sprintf("; and %d more (`rodin contracts check FILE` lists every one)", len(broken)-maxRules)
}
