package contracts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// part is a piece of a template: literal text, or a {name}.
type part struct {
	lit, name string
}

// splitTemplate cuts a template into its literal texts and {names}; a
// brace that does not open a valid name is literal. Written out rather than
// a package-level regexp: hooks do no work at package init.
func splitTemplate(t string) []part {
	var out []part
	lit := 0
	for i := 0; i < len(t); i++ {
		if t[i] != '{' {
			continue
		}
		j := i + 1
		for j < len(t) && (t[j] == '_' || t[j] >= 'a' && t[j] <= 'z' || t[j] >= 'A' && t[j] <= 'Z' || j > i+1 && t[j] >= '0' && t[j] <= '9') {
			j++
		}
		if j == i+1 || j >= len(t) || t[j] != '}' {
			continue
		}
		if lit < i {
			out = append(out, part{lit: t[lit:i]})
		}
		out = append(out, part{name: t[i+1 : j]})
		lit, i = j+1, j
	}
	if lit < len(t) {
		out = append(out, part{lit: t[lit:]})
	}
	return out
}

// templateVars are the {names} in a template, in order.
func templateVars(t string) []string {
	var out []string
	for _, p := range splitTemplate(t) {
		if p.name != "" {
			out = append(out, p.name)
		}
	}
	return out
}

// expand fills a template's {names} from vars.
func expand(t string, vars map[string]string) string {
	var b strings.Builder
	for _, p := range splitTemplate(t) {
		if p.name != "" {
			b.WriteString(vars[p.name])
		} else {
			b.WriteString(p.lit)
		}
	}
	return b.String()
}

// segment is one slash-separated part of a path template.
type segment []part

// parsePath reads a path template: relative, slash-separated, no `.` or
// `..` segments; `{name}` matches text within one segment.
func parsePath(p string) ([]segment, error) {
	if p == "" || strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("want a path relative to the project root, got %q", p)
	}
	var segs []segment
	for _, text := range strings.Split(p, "/") {
		if text == "" || text == "." || text == ".." {
			return nil, fmt.Errorf("%q has an empty, . or .. segment", p)
		}
		seg := segment(splitTemplate(text))
		for i, pt := range seg {
			if strings.ContainsAny(pt.lit, "{}*?[]") {
				return nil, fmt.Errorf("segment %q: only {name} is special in a path", text)
			}
			if pt.name != "" && i > 0 && seg[i-1].name != "" {
				return nil, fmt.Errorf("segment %q: two {names} need text between them", text)
			}
		}
		segs = append(segs, seg)
	}
	return segs, nil
}

// bind matches text against the segment's parts, each {name} taking the
// shortest text that lets the rest match (at least one byte); it records
// the names in vars and reports whether it matched. A name bound twice
// must bind the same text.
func (s segment) bind(text string, vars map[string]string, fold bool) bool {
	if len(s) == 0 {
		return text == ""
	}
	p := s[0]
	if p.name == "" {
		if fold {
			return len(text) >= len(p.lit) && strings.EqualFold(text[:len(p.lit)], p.lit) && s[1:].bind(text[len(p.lit):], vars, fold)
		}
		rest, ok := strings.CutPrefix(text, p.lit)
		return ok && s[1:].bind(rest, vars, fold)
	}
	for n := 1; n <= len(text); n++ {
		val := text[:n]
		if prev, ok := vars[p.name]; ok && prev != val {
			continue
		}
		_, had := vars[p.name]
		vars[p.name] = val
		if s[1:].bind(text[n:], vars, fold) {
			return true
		}
		if !had {
			delete(vars, p.name)
		}
	}
	return false
}

// match reports whether rel fits the artifact's path, and what it binds;
// with fold, its literal text whatever its case (a file system that finds
// names whatever their case opens the artifact under any of them).
func (a *Artifact) match(rel string, fold bool) (map[string]string, bool) {
	texts := strings.Split(rel, "/")
	if len(texts) != len(a.segments) {
		return nil, false
	}
	vars := map[string]string{}
	for i, s := range a.segments {
		if !s.bind(texts[i], vars, fold) {
			return nil, false
		}
	}
	return vars, true
}

// FoldsCase reports whether the file system holding dir finds a name
// whatever its case (macOS's and Windows' default): dir is asked for with
// the case of one letter of its name (or of a parent's) turned.
func FoldsCase(dir string) bool {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		base := filepath.Base(d)
		for i := 0; i < len(base); i++ {
			c := base[i]
			var turned byte
			switch {
			case c >= 'a' && c <= 'z':
				turned = c - 'a' + 'A'
			case c >= 'A' && c <= 'Z':
				turned = c - 'A' + 'a'
			default:
				continue
			}
			other := filepath.Join(filepath.Dir(d), base[:i]+string(turned)+base[i+1:])
			a, err1 := os.Lstat(d)
			b, err2 := os.Lstat(other)
			return err1 == nil && err2 == nil && os.SameFile(a, b)
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}
