package verifygate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/rodin-gate/rodin/internal/realpath"
	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/freshness"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rodin-gate/rodin/pkg/project"
	"github.com/rodin-gate/rodin/pkg/safefile"
)

// The verify gate's configuration (.rodin/config.json: which files are
// task files, which changes make a check stale, how long a check may run)
// is the user's. Within a session the one it began with is in force; an
// agent's change of it through Bash (its file tools are denied it) is
// carried like a task's changed commands: the next sessions keep the
// configuration in force before it while the file is as the agent left
// it, until the user accepts the change (`rodin waive --config`). The
// user's own edit takes effect at the next session, and drops the carry.

// configSeen is the configuration file as a session saw it: the SHA-256 of
// its bytes ("" when there is none) and its change time and size.
type configSeen struct {
	sum  string
	stat [2]int64
	// gi and gistat are the root .gitignore's: it decides which changes
	// make a check stale, and is carried the same way.
	gi     string
	gistat [2]int64
}

// seeConfig reads the project's configuration file and root .gitignore
// as they are now.
func seeConfig(root string) configSeen {
	// Each stat before its read: a change between them is seen by the
	// next look (the stat has moved), never hidden behind an old sum.
	c := configSeen{stat: configStat(root)}
	c.sum = fileSum(filepath.Join(root, filepath.FromSlash(project.ConfigFile)))
	c.gi, c.gistat = seeGitignore(root)
	return c
}

// seeGitignore is the root .gitignore's SHA-256 ("" when there is none)
// and its change time and size.
func seeGitignore(root string) (string, [2]int64) {
	stat := gitignoreStat(root)
	return fileSum(filepath.Join(root, ".gitignore")), stat
}

// fileSum is the SHA-256 of a file's bytes: "" when there is none,
// "unreadable" when it cannot be read.
func fileSum(path string) string {
	b, err := safefile.ReadFile(path, 1<<20)
	switch {
	case os.IsNotExist(err):
		return ""
	case err != nil:
		return "unreadable"
	}
	return sumOf(b)
}

func sumOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// linkStat is a file's change time and size, the newer of its own and, for
// a link, its target's (whose time may be older); false when there is none.
func linkStat(path string) ([2]int64, bool) {
	li, err := os.Lstat(path)
	if err != nil {
		return [2]int64{}, false
	}
	t, size := freshness.ChangeTime(li).UnixNano(), li.Size()
	if li.Mode()&os.ModeSymlink != 0 {
		if fi, err := os.Stat(path); err == nil {
			t, size = max(t, freshness.ChangeTime(fi).UnixNano()), fi.Size()
		}
	}
	return [2]int64{t, size}, true
}

// gitignoreStat is the root .gitignore's change time and size (a link's
// too), or the root's when there is none (a deletion changes it).
func gitignoreStat(root string) [2]int64 {
	if st, ok := linkStat(filepath.Join(root, ".gitignore")); ok {
		return st
	}
	if fi, err := os.Stat(root); err == nil {
		return [2]int64{freshness.ChangeTime(fi).UnixNano(), -1}
	}
	return [2]int64{}
}

// configStat is the configuration's change time and size: the newer of
// the file's own (a link's too, whose target may be older) and, when there
// is none, its directory's or the root's (a deletion changes them).
func configStat(root string) [2]int64 {
	path := filepath.Join(root, filepath.FromSlash(project.ConfigFile))
	if st, ok := linkStat(path); ok {
		// Its folder renamed into place, or a link to another: the
		// folder's own change time is the change's.
		if di, err := os.Lstat(filepath.Dir(path)); err == nil {
			st[0] = max(st[0], freshness.ChangeTime(di).UnixNano())
		}
		return st
	}
	for _, dir := range []string{filepath.Dir(path), root} {
		if fi, err := os.Stat(dir); err == nil {
			return [2]int64{freshness.ChangeTime(fi).UnixNano(), -1}
		}
	}
	return [2]int64{}
}

// configMoved reports, by a stat or two, whether the configuration file
// may have changed since the session's record last saw it.
func configMoved(root string, st *tickState) bool {
	return configStat(root) != st.cfg.stat || gitignoreStat(root) != st.cfg.gistat
}

// configInForce is the configuration a session begins with: the file's,
// or, while the file is as an agent of an earlier session left it, the
// one in force before that agent changed it (carried is then true). A
// carry the file no longer matches (someone changed it since) is dropped.
func configInForce(data, root string, file project.Config, seen configSeen) (cfg project.Config, carried bool, err error) {
	cs, err := ledger.ConfigCarries(data)
	if err != nil {
		// What was in force before an agent's change is lost: said at
		// the session's start, the file's configuration meanwhile.
		return file, false, err
	}
	for _, c := range cs {
		if c.Root != root {
			continue
		}
		var before project.Config
		if c.After == seen.sum && json.Unmarshal(c.Before, &before) == nil {
			return before, true, nil
		}
		ledger.SetConfigCarry(data, root, nil)
	}
	return file, false, nil
}

// watchConfig looks, at a stop, at whether the configuration file changed
// since the session's record last saw it, and carries the configuration
// in force when the agent changed it (a change in one of its calls).
// It reports whether it carried one. Before is the configuration last
// seen as someone else left it (the user's edit during the session), else
// the session's.
func (s *Session) watchConfig(st *tickState) (carried []string) {
	if s.Baseline == nil {
		return nil
	}
	// The stats once, each before its read (seeConfig).
	now := configSeen{stat: configStat(s.Root), gistat: gitignoreStat(s.Root)}
	if now.stat == st.cfg.stat && now.gistat == st.cfg.gistat {
		return nil
	}
	now.sum = fileSum(filepath.Join(s.Root, filepath.FromSlash(project.ConfigFile)))
	now.gi = fileSum(filepath.Join(s.Root, ".gitignore"))
	if now.gi != st.cfg.gi {
		// A change through another name of the file (a hard link the
		// agent made, written with a file tool no hook sees) is the agent's.
		if s.byTime(now.gistat[0]).mine || hardLinked(filepath.Join(s.Root, ".gitignore")) {
			if s.carryGitignore(now.gi) {
				carried = append(carried, ".gitignore")
			}
		} else if b, err := safefile.ReadFile(filepath.Join(s.Root, ".gitignore"), 1<<20); err == nil || os.IsNotExist(err) {
			// Someone else's (the user's editor): an agent's change after
			// it is measured from it.
			safefile.WriteAtomic(ledger.UserGitignorePath(s.Data, s.ID), b, 0o600)
		}
	}
	if now.sum != st.cfg.sum {
		if s.byTime(now.stat[0]).mine || hardLinked(filepath.Join(s.Root, filepath.FromSlash(project.ConfigFile))) {
			before := s.Baseline.Config
			if st.cfgUser != "" {
				before = json.RawMessage(st.cfgUser)
			}
			ledger.SetConfigCarry(s.Data, s.Root, &ledger.ConfigCarry{Root: s.Root, Before: before, After: now.sum, Time: time.Now().UnixNano()})
			carried = append([]string{project.ConfigFile}, carried...)
		} else if cfg, err := project.LoadConfig(s.Root); err == nil {
			if js, err := json.Marshal(cfg); err == nil {
				st.cfgUser = string(js) // the user's: what an agent's change after it is measured from
			}
		}
	}
	st.cfg = now
	return carried
}

// ConfigCarried says, for SessionStart, that the configuration in force is
// one an agent changed in an earlier session, and how the user accepts it.
const ConfigCarried = "an agent changed .rodin/config.json in an earlier session, so the verify gate keeps the configuration it had before (an agent alone may not change which files are task files or what makes a check stale); when the change is right, the user accepts it by running `rodin waive --config` at a terminal of their own, or by typing `" + WaiveCommand + " " + AcceptConfig + "` in Claude Code"

// AcceptConfig, as `/rodin:waive --config`, accepts the configuration file
// as it stands.
const AcceptConfig = "--config"

// AcceptConfigFile drops root's carried configuration: the file as it
// stands is in force from the next session.
func AcceptConfigFile(data, root string) error {
	if err := ledger.SetGitignoreCarry(data, root, nil); err != nil {
		return err
	}
	return ledger.SetConfigCarry(data, root, nil)
}

// carryGitignore carries the .gitignore as someone else last left it
// (ledger.UserGitignorePath), else the one the session judges with
// (Session.tree: the file's at its start, or a carry's in force then),
// past an agent's change that left the file with the SHA-256 now; a change
// back to it carries nothing. It reports whether it carried one.
func (s *Session) carryGitignore(now string) bool {
	before, err := safefile.ReadFile(ledger.UserGitignorePath(s.Data, s.ID), 1<<20)
	if os.IsNotExist(err) {
		before, err = safefile.ReadFile(ledger.GitignorePath(s.Data, s.ID), 1<<20)
	}
	switch {
	case err != nil && !os.IsNotExist(err):
		return false
	case sumOf(before) == now || len(before) == 0 && now == "":
		ledger.SetGitignoreCarry(s.Data, s.Root, nil)
		return false
	}
	ledger.SetGitignoreCarry(s.Data, s.Root, &ledger.GitignoreCarry{Root: s.Root, Before: string(before), After: now, Time: time.Now().UnixNano()})
	return true
}

// gitignoreWritten is PostEdit for the root .gitignore, written by a file
// tool of the agent's (hooks.json starts it for `**/.gitignore`): the
// change is carried as a Bash command's is (watchConfig), and said.
func gitignoreWritten(in hookio.Input, getenv func(string) string, path string) hookio.PostOutcome {
	data := evidence.DataDir(getenv)
	st, err := loadTicks(data, in.SessionID())
	if data == "" || st == nil || err != nil {
		return hookio.PostOutcome{}
	}
	root := filepath.Join(st.root, ".gitignore")
	if path != root {
		if target, err := realpath.Eval(path); err != nil || target != root {
			return hookio.PostOutcome{}
		}
	}
	s, err := Open(getenv, in.SessionID(), in.Cwd())
	if err != nil {
		return hookio.PostOutcome{}
	}
	carried := false
	updateTicks(data, s.ID, func(st *tickState) error {
		gi, stat := seeGitignore(s.Root)
		if gi != st.cfg.gi {
			carried = s.carryGitignore(gi)
		}
		st.cfg.gi, st.cfg.gistat = gi, stat
		return nil
	})
	if !carried {
		return hookio.PostOutcome{}
	}
	return hookio.PostOutcome{Context: "[rodin] This " + in.ToolName() + " changed .gitignore, which the verify gate reads for what makes a check stale, and which is the user's: the change is not in force in this session, nor in the next ones until the user accepts it (`rodin waive --config` at a terminal of their own, or `" + WaiveCommand + " " + AcceptConfig + "` in Claude Code). If the user asked for it, tell them so."}
}

// CarriedRoot is the project, dir or the nearest folder above it, whose
// configuration or root .gitignore an agent changed and rodin carries
// (`rodin waive --config` is run from anywhere in the project); false when
// none is.
func CarriedRoot(data, dir string) (string, bool) {
	cs, _ := ledger.ConfigCarries(data)
	gs, _ := ledger.GitignoreCarries(data)
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		for _, c := range cs {
			if c.Root == d {
				return d, true
			}
		}
		for _, g := range gs {
			if g.Root == d {
				return d, true
			}
		}
		if d == filepath.Dir(d) {
			return "", false
		}
	}
}

// GitignoreCarried says, for SessionStart, that the root .gitignore a
// check's freshness is judged with is the one before an agent's change.
const GitignoreCarried = "an agent changed .gitignore in an earlier session, so the verify gate judges which changes make a check stale by the .gitignore it had before (an agent alone may not hide code from the checks); when the change is right, the user accepts it by running `rodin waive --config` at a terminal of their own, or by typing `" + WaiveCommand + " " + AcceptConfig + "` in Claude Code"

// gitignoreInForce is the root .gitignore a session begins with: the
// file's bytes, or, while the file is as an agent of an earlier session
// left it, the ones before that agent changed it (carried). A carry the
// file no longer matches (someone changed it since) is dropped.
func gitignoreInForce(data, root string, file []byte, sum string) (gi []byte, carried bool) {
	cs, err := ledger.GitignoreCarries(data)
	if err != nil {
		return file, false
	}
	for _, c := range cs {
		if c.Root != root {
			continue
		}
		if c.After == sum {
			return []byte(c.Before), true
		}
		ledger.SetGitignoreCarry(data, root, nil)
	}
	return file, false
}

// hardLinked reports whether the file at path has another name (a hard
// link): a write through that name, with a file tool no hook of rodin's
// sees, is a change no window explains, and not someone else's for that.
func hardLinked(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && links(fi) > 1
}
