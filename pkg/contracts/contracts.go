// Package contracts is the model of artifact contracts (CONTRACTS-SPEC.md):
// what the files agents hand each other must hold, read from a project's
// .rodin/contracts.json, and the checks of one artifact's content against
// its contract. The hooks that apply them when a file is written build on
// it; `rodin contracts check` applies the same rules when a file is read.
package contracts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// File is where a project keeps its contracts, relative to its root.
const File = ".rodin/contracts.json"

// MaxFile bounds the contracts file read: a contracts file is a page of
// rules, not data.
const MaxFile = 1 << 20

// Contracts is a project's .rodin/contracts.json.
type Contracts struct {
	Version    int                 `json:"version"`
	Roles      map[string][]string `json:"roles"`
	Unattended []string            `json:"unattended,omitempty"`
	Artifacts  []Artifact          `json:"artifacts"`

	paths []string // every artifact's path, when Artifacts holds only the one matched
	// Fold matches paths whatever their case: set when the project's file
	// system finds names so (FoldsCase).
	Fold bool
}

// Artifact is the contract of one kind of file.
type Artifact struct {
	Name     string           `json:"name"`
	Path     string           `json:"path"`
	Writers  []string         `json:"writers"`
	Once     string           `json:"once,omitempty"` // "", "first-writer", "per-agent"
	Fields   map[string]Field `json:"fields,omitempty"`
	Evidence *Evidence        `json:"evidence,omitempty"`

	segments []segment // Path, parsed
}

// Field is the closed set of rules one field of a JSON artifact obeys. A
// field that is absent passes every rule but Required.
type Field struct {
	Required  bool       `json:"required,omitempty"`
	Type      string     `json:"type,omitempty"`
	Const     any        `json:"const,omitempty"`
	Enum      []any      `json:"enum,omitempty"`
	Eq        string     `json:"eq,omitempty"`
	Pattern   string     `json:"pattern,omitempty"`
	Min       *float64   `json:"min,omitempty"`
	Max       *float64   `json:"max,omitempty"`
	OneOf     []string   `json:"oneOf,omitempty"`
	OneOfFrom *OneOfFrom `json:"oneOfFrom,omitempty"`

	pattern *regexp.Regexp
}

// OneOfFrom names the values a field may take that a project file holds:
// the first group of match on each of its lines.
type OneOfFrom struct {
	File  string `json:"file"`
	Match string `json:"match"`

	re *regexp.Regexp
}

// Evidence says which commands an artifact claims ran with success, and
// how strongly the verify gate's records must back them.
type Evidence struct {
	Level   string         `json:"level"`          // observed, fresh, independent
	Each    string         `json:"each"`           // the array of steps
	When    map[string]any `json:"when,omitempty"` // the fields a successful step has
	Command string         `json:"command"`        // the step's field holding the command
}

// The allowed keys at each level of the file: anything else is an error
// that names its path.
var (
	topKeys       = []string{"version", "roles", "unattended", "artifacts"}
	artifactKeys  = []string{"name", "path", "writers", "once", "fields", "evidence"}
	fieldKeys     = []string{"required", "type", "const", "enum", "eq", "pattern", "min", "max", "oneOf", "oneOfFrom"}
	oneOfFromKeys = []string{"file", "match"}
	evidenceKeys  = []string{"level", "each", "when", "command"}
	types         = []string{"string", "integer", "number", "boolean", "array", "object"}
	levels        = []string{"observed", "fresh", "independent"}
)

// Error is a problem with the contracts file, at a path in it
// (`artifacts[1].fields.slug.type`).
type Error struct {
	At, Msg string
}

func (e *Error) Error() string {
	if e.At == "" {
		return e.Msg
	}
	return "at " + e.At + ": " + e.Msg
}

// Load reads root's contracts file; (nil, nil) when there is none.
func Load(root string) (*Contracts, error) {
	b, err := os.ReadFile(filepath.Join(root, File))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFile {
		return nil, &Error{Msg: fmt.Sprintf("%s is larger than %d bytes", File, MaxFile)}
	}
	return Parse(b)
}

// decodeTrusted reads a whole contracts file Parse accepted before (the
// session's snapshot), with gjson as matchTrusted does (no encoding/json
// on the path of every Bash command); patterns are compiled when a check
// uses them.
func decodeTrusted(b []byte) (*Contracts, error) {
	if !gjson.ValidBytes(b) {
		return nil, &Error{Msg: "not valid JSON"}
	}
	doc := gjson.ParseBytes(b)
	c := &Contracts{Version: int(doc.Get("version").Int()), Roles: map[string][]string{}, Unattended: stringsOf(doc.Get("unattended"))}
	doc.Get("roles").ForEach(func(k, v gjson.Result) bool {
		c.Roles[k.String()] = stringsOf(v)
		return true
	})
	var err error
	doc.Get("artifacts").ForEach(func(_, r gjson.Result) bool {
		a := decodeArtifact(r)
		if a.segments, err = parsePath(a.Path); err != nil {
			return false
		}
		c.Artifacts = append(c.Artifacts, a)
		return true
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// matchTrusted finds the artifact whose path fits rel in a contracts file
// Parse accepted before (the session's snapshot), decoding that artifact and
// the roles only: a hook pays for the contract it applies, not the file.
func matchTrusted(b []byte, rel string, fold bool) (*Contracts, *Artifact, map[string]string, error) {
	if !gjson.ValidBytes(b) {
		return nil, nil, nil, &Error{Msg: "not valid JSON"}
	}
	var found gjson.Result
	var segs []segment
	var vars map[string]string
	var paths []string
	gjson.GetBytes(b, "artifacts").ForEach(func(_, a gjson.Result) bool {
		paths = append(paths, a.Get("path").String())
		if found.Exists() {
			return true
		}
		s, err := parsePath(a.Get("path").String())
		if err != nil {
			return true
		}
		if v, ok := (&Artifact{segments: s}).match(rel, fold); ok {
			found, segs, vars = a, s, v
		}
		return true
	})
	if !found.Exists() {
		return nil, nil, nil, nil
	}
	// Read with gjson, not encoding/json: a hook is a fresh process, and
	// encoding/json's first decode of a type costs more than the check.
	a := decodeArtifact(found)
	a.segments = segs
	c := &Contracts{Version: 1, paths: paths, Fold: fold, Roles: map[string][]string{}}
	gjson.GetBytes(b, "roles").ForEach(func(k, v gjson.Result) bool {
		c.Roles[k.String()] = stringsOf(v)
		return true
	})
	return c, &a, vars, nil
}

// decodeArtifact reads one artifact of a contracts file Parse accepted.
func decodeArtifact(r gjson.Result) Artifact {
	a := Artifact{Name: r.Get("name").String(), Path: r.Get("path").String(), Writers: stringsOf(r.Get("writers")), Once: r.Get("once").String()}
	if fs := r.Get("fields"); fs.IsObject() {
		a.Fields = map[string]Field{}
		fs.ForEach(func(k, f gjson.Result) bool {
			fd := Field{Required: f.Get("required").Bool(), Type: f.Get("type").String(), Eq: f.Get("eq").String(), Pattern: f.Get("pattern").String(), OneOf: stringsOf(f.Get("oneOf"))}
			if v := f.Get("const"); v.Exists() && v.Type != gjson.Null {
				fd.Const = v.Value()
			}
			f.Get("enum").ForEach(func(_, v gjson.Result) bool {
				fd.Enum = append(fd.Enum, v.Value())
				return true
			})
			if v := f.Get("min"); v.Type == gjson.Number {
				fd.Min = &v.Num
			}
			if v := f.Get("max"); v.Type == gjson.Number {
				fd.Max = &v.Num
			}
			if o := f.Get("oneOfFrom"); o.IsObject() {
				fd.OneOfFrom = &OneOfFrom{File: o.Get("file").String(), Match: o.Get("match").String()}
			}
			a.Fields[k.String()] = fd
			return true
		})
	}
	if e := r.Get("evidence"); e.IsObject() {
		a.Evidence = &Evidence{Level: e.Get("level").String(), Each: e.Get("each").String(), Command: e.Get("command").String()}
		if w := e.Get("when"); w.IsObject() {
			a.Evidence.When = map[string]any{}
			w.ForEach(func(k, v gjson.Result) bool {
				a.Evidence.When[k.String()] = v.Value()
				return true
			})
		}
	}
	return a
}

// stringsOf is a JSON list of strings.
func stringsOf(v gjson.Result) []string {
	var out []string
	v.ForEach(func(_, s gjson.Result) bool {
		out = append(out, s.String())
		return true
	})
	return out
}

// Parse reads a contracts file, and reports every problem in it, each at
// its path.
func Parse(b []byte) (*Contracts, error) {
	if !gjson.ValidBytes(b) {
		return nil, &Error{Msg: "not valid JSON"}
	}
	doc := gjson.ParseBytes(b)
	var errs []error
	bad := func(at, format string, args ...any) { errs = append(errs, &Error{at, fmt.Sprintf(format, args...)}) }
	keys(doc, "", topKeys, bad)
	if v := doc.Get("version"); v.Type != gjson.Number || v.Num != 1 {
		bad("version", "want 1, got %s", show(v))
	}
	roles := doc.Get("roles")
	if !roles.IsObject() {
		bad("roles", "want an object of role names to lists of writers, got %s", show(roles))
	}
	roles.ForEach(func(k, v gjson.Result) bool {
		strings1(v, "roles."+k.String(), bad)
		return true
	})
	strings1(doc.Get("unattended"), "unattended", bad)
	arts := doc.Get("artifacts")
	if !arts.IsArray() || len(arts.Array()) == 0 {
		bad("artifacts", "want a list of artifacts, got %s", show(arts))
	}
	for i, a := range arts.Array() {
		at := fmt.Sprintf("artifacts[%d]", i)
		keys(a, at, artifactKeys, bad)
		for _, k := range []string{"name", "path"} {
			if a.Get(k).Type != gjson.String || a.Get(k).String() == "" {
				bad(at+"."+k, "want a string, got %s", show(a.Get(k)))
			}
		}
		strings1(a.Get("writers"), at+".writers", bad)
		if o := a.Get("once"); o.Exists() && o.String() != "first-writer" && o.String() != "per-agent" {
			bad(at+".once", "want \"first-writer\" or \"per-agent\", got %s", show(o))
		}
		a.Get("fields").ForEach(func(k, f gjson.Result) bool {
			fat := at + ".fields." + k.String()
			keys(f, fat, fieldKeys, bad)
			if t := f.Get("type"); t.Exists() && !slices.Contains(types, t.String()) {
				bad(fat+".type", "want one of %s, got %s", strings.Join(types, ", "), show(t))
			}
			if of := f.Get("oneOfFrom"); of.Exists() {
				keys(of, fat+".oneOfFrom", oneOfFromKeys, bad)
			}
			return true
		})
		if ev := a.Get("evidence"); ev.Exists() {
			keys(ev, at+".evidence", evidenceKeys, bad)
			if l := ev.Get("level"); !slices.Contains(levels, l.String()) {
				bad(at+".evidence.level", "want one of %s, got %s", strings.Join(levels, ", "), show(l))
			}
		}
	}
	if len(errs) > 0 {
		return nil, joinErrors(errs)
	}

	var c Contracts
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&c); err != nil {
		return nil, &Error{Msg: err.Error()}
	}
	roleNames := map[string]bool{"*": true, "unknown": true}
	for r := range c.Roles {
		roleNames[r] = true
	}
	for _, r := range c.Unattended {
		if !roleNames[r] {
			bad("unattended", "no role %q", r)
		}
	}
	names := map[string]bool{}
	for i := range c.Artifacts {
		a := &c.Artifacts[i]
		at := fmt.Sprintf("artifacts[%d]", i)
		if names[a.Name] {
			bad(at+".name", "a second artifact named %q", a.Name)
		}
		names[a.Name] = true
		for _, w := range a.Writers {
			if !roleNames[w] {
				bad(at+".writers", "no role %q (roles: %s)", w, strings.Join(sortedKeys(c.Roles), ", "))
			}
		}
		segs, err := parsePath(a.Path)
		if err != nil {
			bad(at+".path", "%v", err)
		}
		a.segments = segs
		vars := map[string]bool{}
		for _, seg := range segs {
			for _, pt := range seg {
				if pt.name != "" {
					vars[pt.name] = true
				}
			}
		}
		for k, f := range a.Fields {
			fat := at + ".fields." + k
			if f.Pattern != "" {
				re, err := regexp.Compile(f.Pattern)
				if err != nil {
					bad(fat+".pattern", "%v", err)
				}
				f.pattern = re
			}
			if f.Eq != "" {
				for _, v := range templateVars(f.Eq) {
					if !vars[v] {
						bad(fat+".eq", "{%s} is not bound by the path %s", v, a.Path)
					}
				}
			}
			if f.OneOfFrom != nil {
				re, err := regexp.Compile("(?m)" + f.OneOfFrom.Match)
				switch {
				case err != nil:
					bad(fat+".oneOfFrom.match", "%v", err)
				case re.NumSubexp() < 1:
					bad(fat+".oneOfFrom.match", "has no group to take the value from")
				}
				f.OneOfFrom.re = re
				for _, v := range templateVars(f.OneOfFrom.File) {
					if !vars[v] {
						bad(fat+".oneOfFrom.file", "{%s} is not bound by the path %s", v, a.Path)
					}
				}
			}
			if f.Min != nil && f.Max != nil && *f.Min > *f.Max {
				bad(fat, "min %v is above max %v", *f.Min, *f.Max)
			}
			a.Fields[k] = f
		}
		if a.Evidence != nil && a.Evidence.Each == "" {
			bad(at+".evidence.each", "want the name of the array of steps")
		}
		if a.Evidence != nil && a.Evidence.Command == "" {
			bad(at+".evidence.command", "want the name of the field holding each step's command")
		}
	}
	if len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	return &c, nil
}

// keys reports the keys of obj that are not in allowed.
func keys(obj gjson.Result, at string, allowed []string, bad func(string, string, ...any)) {
	if !obj.IsObject() {
		if obj.Exists() {
			bad(at, "want an object, got %s", show(obj))
		}
		return
	}
	obj.ForEach(func(k, _ gjson.Result) bool {
		if !slices.Contains(allowed, k.String()) {
			p := k.String()
			if at != "" {
				p = at + "." + p
			}
			bad(p, "unknown key (known here: %s)", strings.Join(allowed, ", "))
		}
		return true
	})
}

// strings1 reports a value that is not a list of strings (absent is fine).
func strings1(v gjson.Result, at string, bad func(string, string, ...any)) {
	if !v.Exists() {
		return
	}
	if !v.IsArray() {
		bad(at, "want a list of strings, got %s", show(v))
		return
	}
	for i, s := range v.Array() {
		if s.Type != gjson.String {
			bad(fmt.Sprintf("%s[%d]", at, i), "want a string, got %s", show(s))
		}
	}
}

// show is a value as a message quotes it.
func show(v gjson.Result) string {
	if !v.Exists() {
		return "nothing"
	}
	s := v.Raw
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Errors is every problem found, in the order found.
type Errors []error

func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

func joinErrors(errs []error) error { return Errors(errs) }

// RoleOf is the role of a writer ("main", or an agent type), "unknown"
// when no role lists it.
func (c *Contracts) RoleOf(writer string) []string {
	var out []string
	for _, r := range sortedKeys(c.Roles) {
		if slices.Contains(c.Roles[r], writer) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		out = []string{"unknown"}
	}
	return out
}

// Match finds the artifact whose path template rel (slash-separated,
// relative to the project root) fits, and the values its {names} bind.
func (c *Contracts) Match(rel string) (*Artifact, map[string]string) {
	rel = filepath.ToSlash(filepath.Clean(rel))
	for i := range c.Artifacts {
		if vars, ok := c.Artifacts[i].match(rel, c.Fold); ok {
			return &c.Artifacts[i], vars
		}
	}
	return nil, nil
}
