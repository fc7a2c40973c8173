package verifygate

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rodin-gate/rodin/pkg/freshness"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rodin-gate/rodin/pkg/safefile"
	"github.com/rodin-gate/rodin/pkg/tasks"
)

// A tick is judged once, when it is made (VERIFY-SPEC §2, §5): a box the
// agent ticks through a file tool is judged by the edit gate before the
// tool runs; one ticked by a Bash command right after the command; one
// ticked by a background task, or written by someone rodin did not see,
// when rodin first sees it (the next Bash command, edit or stop). What was
// decided is kept here, per session: the verification boxes checked as
// rodin last saw them, who ticked each and whether its checks had passed
// then. Later work never makes a justified tick wrong, and a box someone
// else ticked (the user in an editor, another session) is never unticked.

// Marks of a box.
const (
	markStart = 's' // checked when the session began
	markOK    = 'k' // ticked by this session's agent with its checks passed then (or waived)
	markBad   = 'b' // ticked by this session's agent without them
	markOther = 'o' // ticked by someone else
)

type boxKey struct{ file, key string }

// box is one verification task's box as rodin last saw it.
type box struct {
	mark  byte
	time  int64  // unix ns of the judgement
	agent string // agent_id of the agent that ticked it ("" the main thread)
	// words and runs are sums of the task's words without its place and
	// of its commands (placeOf): a step deleted or added above it changes
	// its key, not these, and the box moves with it.
	words, runs string
	// via is the git command that brought a box judged unjustified from
	// commits (a teammate's tick, perhaps), for the stop's message.
	via string
}

// unread is a task file the agent changed and rodin could not read: its
// boxes are unverified.
type unread struct {
	time  int64
	agent string
	why   string
}

// tickState is the session's record, kept in ticks().
type tickState struct {
	since  int64               // when the session began: a file never seen counts as seen then
	root   string              // the project root
	globs  []string            // the task-file globs the session began with
	files  map[string][2]int64 // rel → change time and size as last seen
	boxes  map[boxKey]box
	unread map[string]unread
	// accepted are tasks whose commands (or what else they ask) someone
	// else changed since the session began, by the sum of what they ask
	// now: the user's own edit stands at once, as an acceptance.
	accepted map[boxKey]string
	// added are the verification tasks someone else wrote during the
	// session (the user, in an editor), as they wrote them: what they ask
	// stands as a start's snapshot would, so that the agent cannot reword
	// them into less (attack 71, B3).
	added   map[boxKey]ledger.Snap
	cfg     configSeen // the configuration file as last seen (watchConfig)
	cfgUser string     // the configuration as someone else last left it, JSON ("" none)
	// client is the Claude Code process that ran the session's hooks when
	// a box was last marked bad ("PID START", clientID): a later session
	// that finds it gone, the box still bad, finishes the stop the session
	// never reached (FinishEnded).
	client string
	// past are the boxes this session's agent unticked, by file and the
	// task's words and runs: a command that brings the task file back
	// from commits (`git stash pop`, a revert of a revert) gives a box
	// the tick it had, judged once, when it was made (restore).
	past map[pastKey]box
}

// pastKey is a task of a file by its words and commands (placeOf).
type pastKey struct{ file, words, runs string }

// maxPast bounds the boxes kept in past: past it, the oldest go first.
const maxPast = 256

func ticksPath(data, session string) string {
	return filepath.Join(ledger.Dir(data), session+".ticks")
}

func newTickState() *tickState {
	return &tickState{files: map[string][2]int64{}, boxes: map[boxKey]box{}, unread: map[string]unread{}, accepted: map[boxKey]string{}, added: map[boxKey]ledger.Snap{}, past: map[pastKey]box{}}
}

// MarshalText writes the state as plain lines (read at every Bash command:
// no reflection): `t SINCE`, `r "ROOT"`, `g "GLOB"`, `f MOD SIZE "FILE"`,
// `b MARK TIME "AGENT" "FILE" "KEY" ["WORDS" "RUNS" ["VIA"]]`, `u TIME "AGENT" "FILE" "WHY"`,
// `a "FILE" "KEY" "RUNS"`, `c "SUM" MOD SIZE`, `C "CONFIG"`, `P "CLIENT"`,
// `p MARK TIME "AGENT" "FILE" "WORDS" "RUNS"`, `n "FILE" "KEY" "FLAGS" ["CMD" "SOURCE"]…`.
func (st *tickState) MarshalText() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "t %d\nr %s\n", st.since, strconv.Quote(st.root))
	for _, g := range st.globs {
		fmt.Fprintf(&b, "g %s\n", strconv.Quote(g))
	}
	files := make([]string, 0, len(st.files))
	for f := range st.files {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		fmt.Fprintf(&b, "f %d %d %s\n", st.files[f][0], st.files[f][1], strconv.Quote(f))
	}
	keys := make([]boxKey, 0, len(st.boxes))
	for k := range st.boxes {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b boxKey) int {
		if c := strings.Compare(a.file, b.file); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	for _, k := range keys {
		x := st.boxes[k]
		fmt.Fprintf(&b, "b %c %d %s %s %s", x.mark, x.time, strconv.Quote(x.agent), strconv.Quote(k.file), strconv.Quote(k.key))
		if x.words != "" || x.via != "" {
			fmt.Fprintf(&b, " %s %s", strconv.Quote(x.words), strconv.Quote(x.runs))
		}
		if x.via != "" {
			fmt.Fprintf(&b, " %s", strconv.Quote(x.via))
		}
		b.WriteByte('\n')
	}
	for _, f := range slices.Sorted(maps.Keys(st.unread)) {
		u := st.unread[f]
		fmt.Fprintf(&b, "u %d %s %s %s\n", u.time, strconv.Quote(u.agent), strconv.Quote(f), strconv.Quote(u.why))
	}
	accepted := slices.SortedFunc(maps.Keys(st.accepted), func(a, b boxKey) int {
		return strings.Compare(a.file+"\x00"+a.key, b.file+"\x00"+b.key)
	})
	if st.cfg != (configSeen{}) {
		fmt.Fprintf(&b, "c %s %d %d %s %d %d\n", strconv.Quote(st.cfg.sum), st.cfg.stat[0], st.cfg.stat[1], strconv.Quote(st.cfg.gi), st.cfg.gistat[0], st.cfg.gistat[1])
	}
	if st.cfgUser != "" {
		fmt.Fprintf(&b, "C %s\n", strconv.Quote(st.cfgUser))
	}
	if st.client != "" {
		fmt.Fprintf(&b, "P %s\n", strconv.Quote(st.client))
	}
	for _, k := range accepted {
		fmt.Fprintf(&b, "a %s %s %s\n", strconv.Quote(k.file), strconv.Quote(k.key), strconv.Quote(st.accepted[k]))
	}
	for _, k := range slices.SortedFunc(maps.Keys(st.added), func(a, b boxKey) int {
		return strings.Compare(a.file+"\x00"+a.key, b.file+"\x00"+b.key)
	}) {
		sn := st.added[k]
		flags := ""
		for i, on := range []bool{sn.Verify, sn.AC, sn.Manual} {
			if on {
				flags += string("vam"[i])
			}
		}
		fmt.Fprintf(&b, "n %s %s %s", strconv.Quote(k.file), strconv.Quote(k.key), strconv.Quote(flags))
		for i, c := range sn.Commands {
			src := ""
			if i < len(sn.Sources) {
				src = sn.Sources[i]
			}
			fmt.Fprintf(&b, " %s %s", strconv.Quote(c), strconv.Quote(src))
		}
		b.WriteByte('\n')
	}
	past := slices.SortedFunc(maps.Keys(st.past), func(a, b pastKey) int {
		return strings.Compare(a.file+"\x00"+a.words+"\x00"+a.runs, b.file+"\x00"+b.words+"\x00"+b.runs)
	})
	for _, k := range past {
		x := st.past[k]
		fmt.Fprintf(&b, "p %c %d %s %s %s %s\n", x.mark, x.time, strconv.Quote(x.agent), strconv.Quote(k.file), strconv.Quote(k.words), strconv.Quote(k.runs))
	}
	return b.Bytes()
}

var errDamagedTicks = errors.New("rodin's record of this session's task boxes is damaged")

// parseTicks reads what MarshalText wrote; any other line is damage.
func parseTicks(src []byte) (*tickState, error) {
	st := newTickState()
	for len(src) > 0 {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			return nil, errDamagedTicks
		}
		line := string(src[:i])
		src = src[i+1:]
		if len(line) < 3 || line[1] != ' ' {
			return nil, errDamagedTicks
		}
		f, ok := fields(line[2:])
		if !ok {
			return nil, errDamagedTicks
		}
		num := func(s string) int64 {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				ok = false
			}
			return n
		}
		switch {
		case line[0] == 't' && len(f) == 1:
			st.since = num(f[0])
		case line[0] == 'r' && len(f) == 1:
			st.root = f[0]
		case line[0] == 'g' && len(f) == 1:
			st.globs = append(st.globs, f[0])
		case line[0] == 'f' && len(f) == 3:
			st.files[f[2]] = [2]int64{num(f[0]), num(f[1])}
		case line[0] == 'b' && len(f) >= 5 && len(f) <= 8 && len(f[0]) == 1 && strings.Contains("skbo", f[0]):
			// (Six fields: a development build's, its sixth not read.)
			x := box{mark: f[0][0], time: num(f[1]), agent: f[2]}
			if len(f) >= 7 {
				x.words, x.runs = f[5], f[6]
			}
			if len(f) == 8 {
				x.via = f[7]
			}
			st.boxes[boxKey{f[3], f[4]}] = x
		case line[0] == 'u' && len(f) == 4:
			st.unread[f[2]] = unread{time: num(f[0]), agent: f[1], why: f[3]}
		case line[0] == 'a' && len(f) == 3:
			st.accepted[boxKey{f[0], f[1]}] = f[2]
		case line[0] == 'c' && (len(f) == 3 || len(f) == 6):
			st.cfg = configSeen{sum: f[0], stat: [2]int64{num(f[1]), num(f[2])}}
			if len(f) == 6 {
				st.cfg.gi, st.cfg.gistat = f[3], [2]int64{num(f[4]), num(f[5])}
			}
		case line[0] == 'C' && len(f) == 1:
			st.cfgUser = f[0]
		case line[0] == 'P' && len(f) == 1:
			st.client = f[0]
		case line[0] == 'n' && len(f) >= 3 && len(f)%2 == 1:
			sn := ledger.Snap{Key: f[1], Verify: strings.Contains(f[2], "v"), AC: strings.Contains(f[2], "a"), Manual: strings.Contains(f[2], "m")}
			for i := 3; i+1 < len(f); i += 2 {
				sn.Commands, sn.Sources = append(sn.Commands, f[i]), append(sn.Sources, f[i+1])
			}
			st.added[boxKey{f[0], f[1]}] = sn
		case line[0] == 'p' && len(f) == 6 && len(f[0]) == 1 && strings.Contains("skbo", f[0]):
			st.past[pastKey{f[3], f[4], f[5]}] = box{mark: f[0][0], time: num(f[1]), agent: f[2], words: f[4], runs: f[5]}
		default:
			ok = false
		}
		if !ok {
			return nil, errDamagedTicks
		}
	}
	if st.root == "" {
		return nil, errDamagedTicks
	}
	return st, nil
}

// fields splits a line of words and quoted strings.
func fields(s string) ([]string, bool) {
	var out []string
	for s != "" {
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, false
			}
			u, _ := strconv.Unquote(q)
			out = append(out, u)
			s = s[len(q):]
		} else {
			w, rest, _ := strings.Cut(s, " ")
			out = append(out, w)
			s = " " + rest
			if rest == "" {
				s = ""
			}
		}
		if s != "" {
			if s[0] != ' ' {
				return nil, false
			}
			s = s[1:]
		}
	}
	return out, true
}

// loadTicks reads the session's record; nil (and no error) when it has
// none.
func loadTicks(data, session string) (*tickState, error) {
	b, err := safefile.ReadFile(ticksPath(data, session), 16<<20)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseTicks(b)
}

// updateTicks changes the session's record under its lock. A record that
// does not exist is not created (the session began without one); a
// damaged one is an error.
func updateTicks(data, session string, edit func(st *tickState) error) error {
	_, err := safefile.Update(ticksPath(data, session), 16<<20, func(old []byte) ([]byte, error) {
		if len(old) == 0 {
			return nil, os.ErrNotExist
		}
		st, err := parseTicks(old)
		if err != nil {
			return nil, err
		}
		if err := edit(st); err != nil {
			return nil, err
		}
		return st.MarshalText(), nil
	})
	return err
}

// seenAs is a file's change time and size, as the state keeps them. A
// time too recent to trust is kept as 0, so that the next look reads the
// file again: a same-size change (a box ticked) in the same tick of the
// clock files are stamped with would carry the same time.
func seenAs(fi os.FileInfo) [2]int64 {
	mod := freshness.ChangeTime(fi)
	if freshness.Now().Sub(mod) < recent {
		// Negative: looked at again, but known for the state a look saw
		// (sameAsSeen).
		return [2]int64{-mod.UnixNano(), fi.Size()}
	}
	return [2]int64{mod.UnixNano(), fi.Size()}
}

// sameAsSeen reports whether a file is as a look last saw it, seen too
// recently to trust its time: looked at again, it holds no change that
// look did not see (the agent's own write, seen by PostToolUse right
// after it, is not someone else's edit when the next hook looks again).
func sameAsSeen(was [2]int64, fi os.FileInfo) bool {
	return was[0] < 0 && was == [2]int64{-freshness.ChangeTime(fi).UnixNano(), fi.Size()}
}

// recent is how old a change time must be to be trusted by seenAs: far
// more than a tick of the coarse clock (4 or 10 ms).
const recent = 100 * time.Millisecond

// fileSeen is what the state last saw of rel; false when it never saw it
// (or there is no state).
func (st *tickState) fileSeen(rel string) ([2]int64, bool) {
	if st == nil {
		return [2]int64{}, false
	}
	v, ok := st.files[rel]
	return v, ok
}

// changed reports whether rel differs from what the state last saw of it.
func (st *tickState) changed(rel string, fi os.FileInfo) bool {
	was, ok := st.files[rel]
	// A file never seen, or seen too recently to trust its time, is
	// looked at.
	return !ok || was[0] <= 0 || was != [2]int64{freshness.ChangeTime(fi).UnixNano(), fi.Size()}

}

// changedFiles are the task files rodin knows that changed since it last
// looked, or that it cannot stat now, sorted.
func (st *tickState) changedFiles() []string {
	var changed []string
	for rel := range st.files {
		fi, err := os.Stat(filepath.Join(st.root, filepath.FromSlash(rel)))
		if err != nil || st.changed(rel, fi) {
			changed = append(changed, rel)
		}
	}
	sort.Strings(changed)
	return changed
}

// outstanding reports whether a box the agent ticked without its checks,
// or a task file it made unreadable, is left.
func (st *tickState) outstanding() bool {
	for _, b := range st.boxes {
		if b.mark == markBad {
			return true
		}
	}
	return len(st.unread) > 0
}

// owner says whose a change is: this session's agent's (Agent, and Tool
// for a file tool call) or someone else's.
type owner struct {
	mine  bool
	agent string
	tool  string
	// restores: the change is a Bash command's that brings files from
	// commits (onlyFromCommits), which gives a box the agent unticked the
	// tick it had (tickState.past); command is that command.
	restores bool
	command  string
}

// look compares a task file as it is now with what the state last saw of
// it, records what changed, and judges the ticks made since: the owner's
// (when mine) against the evidence as of now, someone else's not at all.
// It returns the verdicts of the owner's ticks that were not justified,
// and why the file could not be read when it could not.
//
// known, when not nil, is the file's tasks as the caller just read them.
func (s *Session) look(st *tickState, rel string, who func(mod int64) owner, known []tasks.Task) (bad []Verdict, unreadable string) {
	path := filepath.Join(s.Root, filepath.FromSlash(rel))
	// A task file that is a link changed when the link did too: a ticked
	// copy written earlier and linked over the file is this change, not
	// the copy's old one.
	fi, err := os.Lstat(path)
	var linked int64
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		linked = freshness.ChangeTime(fi).UnixNano()
		fi, err = os.Stat(path)
	}
	if err != nil {
		if os.IsNotExist(err) {
			delete(st.files, rel)
			delete(st.unread, rel)
			for k, b := range st.boxes {
				// A box known by its words stays for a moved file's look
				// to pair (pairBoxes): its task under another path.
				if k.file == rel && b.words == "" {
					delete(st.boxes, k)
				}
			}
			return nil, ""
		}
	}
	var src []byte
	if err == nil && known == nil {
		src, err = safefile.ReadFile(path, tasks.MaxRead)
	}
	// Claims another session made since rodin last saw this file (less
	// the slack of a window) explain a tick in it.
	since := st.since
	if prev, ok := st.files[rel]; ok && prev[0] > since {
		since = prev[0]
	}
	since -= int64(ledger.Slack)
	mod := time.Now().UnixNano()
	seenBefore := false
	if fi != nil {
		mod = max(freshness.ChangeTime(fi).UnixNano(), linked)
		seenBefore = sameAsSeen(st.files[rel], fi)
		st.files[rel] = seenAs(fi)
	}
	o := who(mod)
	if !o.mine && fi != nil && (linked != 0 || links(fi) > 1) {
		// A change no window explains, of a task file that is a link or
		// has another name: a file tool's write through that other name
		// (`.tasks.txt`, which no hook's filter sees) is the agent's,
		// as a change of the configuration through one is (attack 74).
		o = owner{mine: true}
	}
	parsed := known
	var quality []tasks.Command
	if err == nil && known == nil {
		f, ok := s.parseKeptFile(rel, src)
		parsed, quality = f.Tasks, f.Quality
		if !ok {
			err = fmt.Errorf("it did not parse within %s", parseBudget)
		}
	}
	if err != nil {
		why := fmt.Sprintf("%s cannot be read (%v)", rel, err)
		if errors.Is(err, safefile.ErrTooLarge) {
			why = fmt.Sprintf("%s is larger than %d MiB, more than rodin reads", rel, tasks.MaxRead>>20)
		}
		if o.mine {
			st.unread[rel] = unread{time: time.Now().UnixNano(), agent: o.agent, why: why}
		}
		return nil, why
	}
	delete(st.unread, rel)
	if o.mine && known == nil && s.Baseline != nil {
		// A box of the session's start the agent turned into text that is
		// no box (a look-alike, the box taken away): the file is not what
		// the gate can judge, as if unreadable, until the box is back
		// (attack 68).
		here := make(map[string]int, len(parsed)) // by key, the task's index
		boxed := make(map[int]bool, len(parsed))
		for i := range parsed {
			here[parsed[i].Key()] = i
			boxed[parsed[i].Line] = boxed[parsed[i].Line] || parsed[i].Boxed()
		}
		var lookalikes []int // lines that look ticked and have no box, found once
		scanned := false
		for _, sn := range s.Baseline.Files[rel] {
			parts := strings.Split(sn.Title, "\x00")
			if !sn.Verify || sn.Checked || len(parts) < 2 {
				continue
			}
			line := 0
			if i, ok := here[sn.Key]; ok {
				t := &parsed[i]
				switch {
				case !t.Boxed() && tasks.LooksTicked(lineAt(src, t.Line)):
					// Still a task, its box taken away (a heading now):
					// `#### [x] V1 …` looks done.
					line = t.Line
				case tasks.LooksTicked(t.Title):
					// Its box given to a line below, a look-alike in its
					// words: `#### [x] V1 …` over `- [ ] more work`.
					line = t.Line
				}
			} else if line = tasks.Unboxed(src, parsed, parts[0], parts[1]); line == 0 && parts[0] != "" {
				// Reworded as well: its id on a line that looks ticked
				// and has no box (the file read once, for the first).
				if !scanned {
					lookalikes, scanned = tasks.LookalikeLines(src, func(n int) bool { return boxed[n] }), true
				}
				for _, n := range lookalikes {
					if tasks.NamesID(lineAt(src, n), parts[0]) {
						line = n
						break
					}
				}
			}
			if line > 0 {
				why := fmt.Sprintf("the box of %s on line %d of %s was turned into text rodin does not read as a box (it may look ticked, and no gate judges it); put its `- [ ]` back", sn.Key, line, rel)
				st.unread[rel] = unread{time: time.Now().UnixNano(), agent: o.agent, why: why}
				// What its change did to the file's tasks is kept past the
				// session all the same (attack 72, R7: the next session
				// starts from the file as it is).
				s.SetPresent(rel, parsed)
				s.carryChanges(rel, parsed, quality, known == nil)
				return nil, why
			}
		}
	}
	s.SetPresent(rel, parsed)
	if s.accepted == nil {
		s.accepted, s.added = maps.Clone(st.accepted), maps.Clone(st.added)
	}
	if o.mine {
		s.carryChanges(rel, parsed, quality, known == nil)
	} else if !seenBefore {
		s.acceptEdits(st, rel, parsed)
	}
	now := time.Now().UnixNano()
	var checked []tasks.Task
	for _, t := range parsed {
		if t.Checked && (s.IsVerification(rel, t) || s.standsFor(rel, t)) {
			checked = append(checked, t)
		}
	}
	// A box kept without words (an older rodin's record), checked when the
	// session began, is known by the commands it had then.
	if s.Baseline != nil {
		for _, sn := range s.Baseline.Files[rel] {
			if b, ok := st.boxes[boxKey{rel, sn.Key}]; ok && b.mark == markStart && b.words == "" && b.runs == "" && !sn.Carried {
				_, b.runs = placeSums("", sn.Commands, sn.Manual, sn.AC)
				st.boxes[boxKey{rel, sn.Key}] = b
			}
		}
	}
	// A task of an id of its own reworded keeps its box when it needs what
	// it needed, unless an open verification task of the file is gone
	// since the session began (a checked task reworded into it).
	goneFile := map[string]bool{}
	gone := func(file string) bool {
		if s.Baseline != nil && s.Baseline.Files[rel] != nil {
			return false // a file of the session's start is no moved one: it takes no box of another
		}
		g, ok := goneFile[file]
		if !ok {
			_, err := os.Lstat(filepath.Join(s.Root, filepath.FromSlash(file)))
			g = os.IsNotExist(err)
			goneFile[file] = g
		}
		return g
	}
	was, left := pairBoxes(st, rel, checked, len(s.vanished(rel)) == 0, gone, s.renumbered(rel).byNew)
	st.keepPast(rel, left, o.mine)
	if !o.mine {
		// Someone else took these boxes back (the user in an editor): an
		// earlier session's claim of them speaks for no later tick.
		for k, b := range left {
			if b.mark != markBad {
				ledger.AppendUnclaim(s.Data, ledger.Claim{Session: s.ID, Root: s.Root, File: rel, Key: k})
			}
		}
	}
	var judge []Item
	for i, t := range checked {
		k := boxKey{rel, t.Key()}
		switch {
		case was[i] != nil:
			// ticked as last seen (perhaps at another place): judged then
			b := *was[i]
			b.words, b.runs = placeOf(t)
			st.boxes[k] = b
		case !o.mine:
			st.boxes[k] = placed(box{mark: markOther, time: now}, t)
		case o.restores && st.restore(rel, k, t):
			// Back from commits as the agent's own command took it away:
			// the tick it had, judged when it was made.
		case o.restores && s.newSince(rel) && ledger.Claimed(s.Data, ledger.Claim{Session: s.ID, Root: s.Root, File: rel, Key: t.Key(), Runs: runsOf(t)}, 0, true):
			// A task file new to the session, back from commits (a spec's
			// branch checked out again): an earlier session's agent ticked
			// it with its checks passed, judged then (the task's words and
			// commands as they were). A file the session began with is
			// not taken so: whoever unticked its box then meant it.
			st.boxes[k] = placed(box{mark: markOther, time: now}, t)
		case o.tool != "" && ledger.Claimed(s.Data, ledger.Claim{Session: s.ID, Root: s.Root, File: rel, Key: t.Key(), Call: o.tool, Runs: runsOf(t)}, st.since, false):
			// The edit gate let this call tick it, its checks passed.
			st.boxes[k] = placed(box{mark: markOK, time: now, agent: o.agent}, t)
		case ledger.Claimed(s.Data, ledger.Claim{Session: s.ID, Root: s.Root, File: rel, Key: t.Key(), Runs: runsOf(t)}, since, true):
			// Another session's agent ticked it, its checks passed, while
			// one of this session's calls ran: not this session's tick.
			st.boxes[k] = placed(box{mark: markOther, time: now}, t)
		default:
			judge = append(judge, Item{File: rel, Task: t})
		}
	}
	if len(judge) == 0 {
		return nil, ""
	}
	vs, err := s.Judge(judge)
	if err != nil {
		vs = nil
		for _, it := range judge {
			vs = append(vs, Verdict{File: it.File, Task: it.Task, Unreadable: err.Error()})
		}
	}
	clientRead := false // the Claude Code process is looked up once a look
	for _, v := range vs {
		m := byte(markOK)
		if !v.OK() || s.Strict {
			m = markBad
			bad = append(bad, v)
		} else {
			ledger.AppendClaim(s.Data, ledger.Claim{Session: s.ID, Root: s.Root, File: rel, Key: v.Task.Key(), Agent: o.agent, Runs: runsOf(v.Task)})
		}
		x := placed(box{mark: m, time: now, agent: o.agent}, v.Task)
		if m == markBad && o.restores {
			x.via = hookio.Clip(o.command, 80)
		}
		if m == markBad && !clientRead {
			st.client, clientRead = clientID(), true
		}
		st.boxes[boxKey{rel, v.Task.Key()}] = x
	}
	return bad, ""
}

// runsOf is the sum of what a task asks (placeOf's runs): a claim of a
// tick speaks for the task it was made for.
func runsOf(t tasks.Task) string {
	_, runs := placeOf(t)
	return runs
}

// placeOf is what follows a task when a step above it is added or
// deleted (Step#3 becomes Step#2, or Step when its twin goes): sums of its
// words without its place and of its commands (tasks.Ticked pairs them
// the same way).
func placeOf(t tasks.Task) (words, runs string) {
	return placeSums(t.PlaceFree(), t.Runs(), t.Manual, t.AC)
}

// placeSums are placeOf's sums; what a task asks of a person or a
// qa-engineer is in its commands' sum (a task that names no command and
// one a person checks do not need the same).
func placeSums(placeFree string, runs []string, manual, ac bool) (string, string) {
	need := strings.Join(runs, "\x00")
	if manual {
		need += "\x00manual"
	}
	if ac {
		need += "\x00ac"
	}
	return ledger.SumPrompt(placeFree)[:16], ledger.SumPrompt(need)[:16]
}

func placed(b box, t tasks.Task) box {
	b.words, b.runs = placeOf(t)
	return b
}

// pairBoxes takes the file's boxes out of the record and pairs each with
// the checked task it belongs to now, as tasks.Ticked pairs an edit's: by
// key where the task's words and commands are the box's; else by them
// (the box moved with its step; of twins, the worst mark first, so that
// deleting a verified twin launders nothing); else, for a task with an id
// of its own, by key where its commands are the box's (its words, or the
// headings above it, reworded). A checked task with no box was ticked
// since rodin last looked: a task renamed into another's id with other
// commands, or a step reworded, too. A box kept without words (by an
// older rodin) is paired by key alone.
func pairBoxes(st *tickState, rel string, checked []tasks.Task, reworded bool, gone func(file string) bool, renumbered map[string]*ledger.Snap) (was []*box, left map[string]box) {
	old := map[string]box{}
	moved := map[boxKey]box{} // boxes of task files gone since: paired by words alone
	for k, b := range st.boxes {
		switch {
		case k.file == rel:
			old[k.key] = b
			delete(st.boxes, k)
		case b.words != "" && gone != nil && gone(k.file):
			moved[k] = b
		}
	}
	was = make([]*box, len(checked))
	if len(old) == 0 && len(moved) == 0 {
		return was, old
	}
	type sums struct{ words, runs string }
	places := make([]sums, len(checked))
	take := func(i int, k string) {
		b := old[k]
		was[i] = &b
		delete(old, k)
	}
	for i, t := range checked {
		places[i].words, places[i].runs = placeOf(t)
		if b, ok := old[t.Key()]; ok && (b.words == "" && (b.runs == "" || b.runs == places[i].runs) || b.words == places[i].words && b.runs == places[i].runs) {
			take(i, t.Key())
		}
	}
	// A task renumbered (its id moved, its words, headings and commands
	// kept): the box of its old key, of the same commands.
	for i, t := range checked {
		if sn, ok := renumbered[t.Key()]; ok && was[i] == nil {
			if b, ok := old[sn.Key]; ok && b.runs == places[i].runs {
				take(i, sn.Key)
			}
		}
	}
	var keys []string
	for i := range checked {
		if was[i] != nil {
			continue
		}
		if keys == nil {
			keys = slices.Sorted(maps.Keys(old))
		}
		best := ""
		for _, k := range keys {
			b, ok := old[k]
			if ok && b.words == places[i].words && b.runs == places[i].runs && (best == "" || markRank(b.mark) < markRank(old[best].mark)) {
				best = k
			}
		}
		if best != "" {
			take(i, best)
		}
	}
	for i, t := range checked {
		if b, ok := old[t.Key()]; ok && reworded && was[i] == nil && !tasks.Positional(t.Ref) && b.runs == places[i].runs {
			take(i, t.Key())
		}
	}
	// A task of a task file moved here (its old path gone): its box by its
	// words and commands, the worst first.
	var movedKeys []boxKey
	for i := range checked {
		if was[i] != nil || len(moved) == 0 {
			continue
		}
		if movedKeys == nil {
			movedKeys = slices.SortedFunc(maps.Keys(moved), func(a, b boxKey) int {
				return strings.Compare(a.file+"\x00"+a.key, b.file+"\x00"+b.key)
			})
		}
		var best *boxKey
		for j, k := range movedKeys {
			b, ok := moved[k]
			if ok && b.words == places[i].words && b.runs == places[i].runs && (best == nil || markRank(b.mark) < markRank(moved[*best].mark)) {
				best = &movedKeys[j]
			}
		}
		if best != nil {
			b := moved[*best]
			was[i] = &b
			delete(moved, *best)
			delete(st.boxes, *best)
		}
	}
	return was, old
}

// keepPast keeps the boxes of rel no checked task took (left by
// pairBoxes): those the agent's change took away, for a command that
// brings the file back from commits (restore); someone else's change
// (the user unticking a box) leaves nothing to restore.
func (st *tickState) keepPast(rel string, left map[string]box, mine bool) {
	for _, b := range left {
		if b.words == "" && b.runs == "" {
			continue // an older rodin's box: not known by its task
		}
		k := pastKey{rel, b.words, b.runs}
		if !mine {
			delete(st.past, k)
			continue
		}
		st.past[k] = b
	}
	for len(st.past) > maxPast {
		var oldest pastKey
		first := true
		for k, b := range st.past {
			if first || b.time < st.past[oldest].time || b.time == st.past[oldest].time && k.words+k.runs < oldest.words+oldest.runs {
				oldest, first = k, false
			}
		}
		delete(st.past, oldest)
	}
}

// restore gives the checked task t of rel, at key k, the box the agent's
// command took away (keepPast), when its words and commands are what they
// were: the tick it had stands as it was judged (VERIFY-SPEC §2: once,
// when made), an unjustified one stays unjustified.
func (st *tickState) restore(rel string, k boxKey, t tasks.Task) bool {
	words, runs := placeOf(t)
	pk := pastKey{rel, words, runs}
	b, ok := st.past[pk]
	if !ok {
		return false
	}
	delete(st.past, pk)
	st.boxes[k] = b
	return true
}

// newSince reports whether the task file rel was not there when the
// session began (no record of its start holds it).
func (s *Session) newSince(rel string) bool {
	if s.Baseline == nil {
		return false
	}
	_, known := s.Baseline.Files[rel]
	return !known
}

// markRank orders marks worst first: a box that moved takes the worst of
// its twins' marks.
func markRank(m byte) int {
	return strings.IndexByte("bsok", m)
}

// parseBudget bounds how long a task file's parse may take in a hook: a
// file shaped to be slow is unverified, not a hook past its timeout.
var parseBudget = 10 * time.Second

// parseWithin parses src, giving up after d (the parse goes on, and ends
// with the process).
func parseWithin(src []byte, d time.Duration) (tasks.File, bool) {
	done := make(chan tasks.File, 1)
	go func() { done <- tasks.ParseFile(src) }()
	select {
	case f := <-done:
		return f, true
	case <-time.After(d):
		return tasks.File{}, false
	}
}

// byTime is the owner of a change at mod by the session's windows (its
// Bash calls, read once): a foreground call's agent, else a background
// task's, else someone else. A run log rodin cannot read explains
// nothing, so the change is taken for the agent's (judged, not waved
// through).
func (s *Session) byTime(mod int64) owner {
	ws, err := s.sessionWindows()
	if err != nil {
		return owner{mine: true}
	}
	if w, ok := ledger.Attribute(ws, mod); ok {
		if w.Background == "" && onlyFromCommits(w.Command) {
			return owner{mine: true, agent: w.Agent, restores: true, command: w.Command}
		}
		return owner{mine: true, agent: w.Agent}
	}
	if s.Damaged > 0 {
		// The damage may have taken the window that explains it.
		return owner{mine: true}
	}
	return owner{}
}

// sessionWindows are the windows of the session's calls
// (ledger.Windows), read once.
func (s *Session) sessionWindows() ([]ledger.Window, error) {
	if !s.windowsRead {
		runs, err := s.Runs()
		s.windows, s.windowsErr, s.windowsRead = ledger.Windows(runs), err, true
	}
	return s.windows, s.windowsErr
}

// startTicks writes the session's record as it begins: each task file's
// time and size and its verification boxes already checked. asIs holds
// the words and runs of the checked tasks whose snaps carry an earlier
// session's need (the snap's commands are not the task's).
func startTicks(data, session string, b *ledger.Baseline, globs []string, cfg configSeen, asIs map[boxKey][2]string, stat func(rel string) (os.FileInfo, error)) error {
	st := newTickState()
	st.since, st.root, st.globs, st.cfg = b.Time, b.Root, globs, cfg
	for rel, snaps := range b.Files {
		if fi, err := stat(rel); err == nil {
			st.files[rel] = seenAs(fi)
		}
		for _, sn := range snaps {
			if sn.Verify && sn.Checked {
				x := box{mark: markStart, time: b.Time}
				if w, ok := asIs[boxKey{rel, sn.Key}]; ok && sn.Carried {
					x.words, x.runs = w[0], w[1]
				} else if sn.Title != "" && !sn.Carried {
					x.words, x.runs = placeSums(sn.Title, sn.Commands, sn.Manual, sn.AC)
				}
				st.boxes[boxKey{rel, sn.Key}] = x
			}
		}
	}
	p := ticksPath(data, session)
	if _, err := os.Lstat(p); err == nil {
		return nil // a resumed session keeps its record
	}
	return safefile.WriteAtomic(p, st.MarshalText(), 0o600)
}

// TickStands reports whether a checked verification box's tick stands as
// this session's record has it: justified when made, someone else's, or
// there before the session (never judged again); false for the agent's
// tick without its checks, a box the record does not know, or no record.
func (s *Session) TickStands(file, key string) bool {
	if !s.ticksRead {
		s.ticks, _ = loadTicks(s.Data, s.ID)
		s.ticksRead = true
	}
	if s.ticks == nil {
		return false
	}
	switch s.ticks.boxes[boxKey{file, key}].mark {
	case markOK, markOther, markStart:
		return true
	}
	return false
}

// TickedBy says who ticked a verification box, as this session's record
// has it (for `rodin tasks`): "this session's agent, its checks passed",
// "this session's agent, without its checks", "someone else" (the user's
// editor, another session, a process rodin never saw start), "before the
// session", or that no call of the session made it (a checked box the
// record does not know); "" without a record.
func (s *Session) TickedBy(file, key string) string {
	if !s.ticksRead {
		s.ticks, _ = loadTicks(s.Data, s.ID)
		s.ticksRead = true
	}
	if s.ticks == nil {
		return ""
	}
	switch s.ticks.boxes[boxKey{file, key}].mark {
	case markOK:
		return "this session's agent, its checks passed then"
	case markBad:
		return "this session's agent, without its checks"
	case markOther:
		return "someone else (not this session's agent): never unticked"
	case markStart:
		if s.claims == nil {
			s.claims = ledger.StandingClaims(s.Data, s.Root) // once, for every box `rodin tasks` shows
		}
		if s.claims[file+"\x00"+key] {
			return "an earlier session's agent, its checks passed then (judged then, not now)"
		}
		return "someone before this session began (judged then, not now)"
	}
	// Checked, and unknown to the record: ticked after the session's
	// hooks last looked at the file.
	return "no call of this session made it (ticked after rodin last looked: someone else, or a process left behind)"
}

// lineAt is line n (1-based) of src, without its line ending.
func lineAt(src []byte, n int) string {
	for ; n > 1; n-- {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			return ""
		}
		src = src[i+1:]
	}
	if i := bytes.IndexByte(src, '\n'); i >= 0 {
		src = src[:i]
	}
	return string(src)
}
