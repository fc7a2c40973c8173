package ledger

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// The hooks read their records with gjson, not encoding/json: the first
// decode of a type in a process costs a tenth of a millisecond or more,
// and a tick reads the run log and the baseline (TestDecodeAsJSON holds
// both readings equal; a record that is not what rodin writes is damage).

// decodeRun reads one line of a run log; false when it is not a record
// rodin writes: not JSON, a field of the wrong type, or a key twice.
func decodeRun(line []byte) (Run, bool) {
	if !gjson.ValidBytes(line) || !utf8.Valid(line) {
		return Run{}, false
	}
	var r Run
	ok := true
	seen := map[string]bool{}
	gjson.ParseBytes(line).ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		if seen[key] {
			ok = false
			return false
		}
		seen[key] = true
		switch key {
		case "t":
			r.Time, ok = intOf(v)
		case "exit":
			var n int64
			n, ok = intOf(v)
			r.Exit = int(n)
		case "dur":
			r.Dur, ok = intOf(v)
		case "k":
			r.Kind, ok = strOf(v)
		case "cmd":
			r.Command, ok = strOf(v)
		case "cwd":
			r.Cwd, ok = strOf(v)
		case "agent":
			r.Agent, ok = strOf(v)
		case "at":
			r.Type, ok = strOf(v)
		case "tu":
			r.Tool, ok = strOf(v)
		case "bg":
			r.Bg, ok = strOf(v)
		case "sid":
			r.Session, ok = strOf(v)
		case "psum":
			r.PromptSum, ok = strOf(v)
		case "tail":
			r.Tail, ok = strOf(v)
		case "pass":
			r.Pass, ok = boolOf(v)
		case "resumed":
			r.Resumed, ok = boolOf(v)
		case "big":
			r.Oversize, ok = boolOf(v)
		default:
			// encoding/json would take "Cmd" for "cmd": rodin writes no
			// such key, so a record with one is damage.
			ok = !foldsToRunKey(key)
		}
		return ok
	})
	top := gjson.ParseBytes(line)
	return r, ok && (top.IsObject() || top.Type == gjson.Null) // null is an empty record, as encoding/json reads it
}

var runKeys = []string{"t", "k", "cmd", "exit", "cwd", "agent", "at", "tu", "dur", "bg", "sid", "psum", "pass", "tail", "resumed", "big"}

func foldsToRunKey(key string) bool {
	for _, k := range runKeys {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}

// decodeBaseline reads a session's baseline; false when it is not one.
func decodeBaseline(js []byte) (Baseline, bool) {
	var b Baseline
	if !gjson.ValidBytes(js) || !utf8.Valid(js) {
		return b, false
	}
	top := gjson.ParseBytes(js)
	if !top.IsObject() || hasDuplicateKey(top) || hasFoldedKey(top, "t", "root", "config", "files", "quality", "dirs", "unread") {
		return b, false
	}
	ok := true
	var t, root, cfg, files, quality, dirs = top.Get("t"), top.Get("root"), top.Get("config"), top.Get("files"), top.Get("quality"), top.Get("dirs")
	unread := top.Get("unread")
	if t.Exists() {
		b.Time, ok = intOf(t)
	}
	if ok && root.Exists() {
		b.Root, ok = strOf(root)
	}
	if ok && cfg.Exists() && cfg.Type != gjson.Null {
		b.Config = []byte(cfg.Raw)
	}
	if ok && files.Exists() && files.Type != gjson.Null {
		if !files.IsObject() {
			return b, false
		}
		b.Files = map[string][]Snap{}
		files.ForEach(func(k, v gjson.Result) bool {
			var snaps []Snap
			if v.Type != gjson.Null {
				if !v.IsArray() {
					ok = false
					return false
				}
				snaps = []Snap{}
				for _, s := range v.Array() {
					sn, good := decodeSnap(s)
					if !good {
						ok = false
						return false
					}
					snaps = append(snaps, sn)
				}
			}
			b.Files[k.String()] = snaps
			return true
		})
	}
	if ok && quality.Exists() && quality.Type != gjson.Null {
		if !quality.IsObject() {
			return b, false
		}
		b.Quality = map[string][]string{}
		quality.ForEach(func(k, v gjson.Result) bool {
			var cs []string
			cs, ok = strsOf(v)
			b.Quality[k.String()] = cs
			return ok
		})
	}
	if ok && dirs.Exists() && dirs.Type != gjson.Null {
		if !dirs.IsObject() {
			return b, false
		}
		b.Dirs = map[string]map[string]string{}
		dirs.ForEach(func(k, v gjson.Result) bool {
			var byCmd map[string]string
			switch {
			case v.Type == gjson.Null:
			case !v.IsObject():
				ok = false
			default:
				byCmd = map[string]string{}
				v.ForEach(func(c, d gjson.Result) bool {
					byCmd[c.String()], ok = strOf(d)
					return ok
				})
			}
			b.Dirs[k.String()] = byCmd
			return ok
		})
	}
	if ok && unread.Exists() && unread.Type != gjson.Null {
		if !unread.IsObject() {
			return b, false
		}
		b.Unread = map[string]string{}
		unread.ForEach(func(k, v gjson.Result) bool {
			b.Unread[k.String()], ok = strOf(v)
			return ok
		})
	}
	return b, ok
}

// snapKeys are the keys rodin writes of a Snap, in decodeSnap's bit order.
var snapKeys = [...]string{"key", "checked", "verify", "ac", "manual", "commands", "sources", "title", "carried", "gone", "placeless"}

// decodeSnap reads one snap in one pass over its keys (a baseline holds
// one per task, hundreds for a long task file): a key twice, or one of
// ours in another case (which encoding/json would take), is damage.
func decodeSnap(v gjson.Result) (Snap, bool) {
	var s Snap
	if !v.IsObject() {
		return s, false
	}
	ok := true
	var seen uint16
	var others []string
	v.ForEach(func(k, f gjson.Result) bool {
		name := k.String()
		bit := uint16(0)
		switch name {
		case "key":
			bit = 1 << 0
			s.Key, ok = strOf(f)
		case "checked":
			bit = 1 << 1
			s.Checked, ok = boolOf(f)
		case "verify":
			bit = 1 << 2
			s.Verify, ok = boolOf(f)
		case "ac":
			bit = 1 << 3
			s.AC, ok = boolOf(f)
		case "manual":
			bit = 1 << 4
			s.Manual, ok = boolOf(f)
		case "commands":
			bit = 1 << 5
			s.Commands, ok = strsOf(f)
		case "sources":
			bit = 1 << 6
			s.Sources, ok = strsOf(f)
		case "title":
			bit = 1 << 7
			s.Title, ok = strOf(f)
		case "carried":
			bit = 1 << 8
			s.Carried, ok = boolOf(f)
		case "gone":
			bit = 1 << 9
			s.Gone, ok = boolOf(f)
		case "placeless":
			bit = 1 << 10
			s.Placeless, ok = boolOf(f)
		default:
			for _, want := range snapKeys {
				if strings.EqualFold(name, want) {
					ok = false
				}
			}
			for _, o := range others {
				if o == name {
					ok = false
				}
			}
			others = append(others, name)
		}
		if seen&bit != 0 {
			ok = false
		}
		seen |= bit
		return ok
	})
	return s, ok
}

// hasFoldedKey reports whether v has a key that is one of keys in another
// case (encoding/json would take it; rodin writes none).
func hasFoldedKey(v gjson.Result, keys ...string) bool {
	folded := false
	v.ForEach(func(k, _ gjson.Result) bool {
		for _, want := range keys {
			if k.String() != want && strings.EqualFold(k.String(), want) {
				folded = true
			}
		}
		return !folded
	})
	return folded
}

func hasDuplicateKey(v gjson.Result) bool {
	seen := map[string]bool{}
	dup := false
	v.ForEach(func(k, _ gjson.Result) bool {
		dup = seen[k.String()]
		seen[k.String()] = true
		return !dup
	})
	return dup
}

// intOf, strOf, boolOf and strsOf read a value as encoding/json would
// into the field's type (null leaves it zero); false when it would fail.
func intOf(v gjson.Result) (int64, bool) {
	switch v.Type {
	case gjson.Null:
		return 0, true
	case gjson.Number:
		n, err := strconv.ParseInt(v.Raw, 10, 64)
		return n, err == nil
	}
	return 0, false
}

func strOf(v gjson.Result) (string, bool) {
	switch v.Type {
	case gjson.Null:
		return "", true
	case gjson.String:
		return v.String(), true
	}
	return "", false
}

func boolOf(v gjson.Result) (bool, bool) {
	switch v.Type {
	case gjson.Null:
		return false, true
	case gjson.True:
		return true, true
	case gjson.False:
		return false, true
	}
	return false, false
}

func strsOf(v gjson.Result) ([]string, bool) {
	if v.Type == gjson.Null {
		return nil, true
	}
	if !v.IsArray() {
		return nil, false
	}
	out := []string{}
	ok := true
	v.ForEach(func(_, e gjson.Result) bool {
		var s string
		s, ok = strOf(e)
		out = append(out, s)
		return ok
	})
	return out, ok
}
