package contracts

import (
	"fmt"
	"regexp"
	"strings"
)

// segment is one slash-separated part of a path template: literal text,
// or a pattern binding {names}.
type segment struct {
	literal string
	re      *regexp.Regexp // nil for a literal segment
	vars    []string
}

var templateVar = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// templateVars are the {names} in a template, in order.
func templateVars(t string) []string {
	var out []string
	for _, m := range templateVar.FindAllStringSubmatch(t, -1) {
		out = append(out, m[1])
	}
	return out
}

// parsePath reads a path template: relative, slash-separated, no `.` or
// `..` segments; `{name}` matches text within one segment.
func parsePath(p string) ([]segment, error) {
	if p == "" || strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("want a path relative to the project root, got %q", p)
	}
	var segs []segment
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." {
			return nil, fmt.Errorf("%q has an empty, . or .. segment", p)
		}
		if strings.ContainsAny(templateVar.ReplaceAllString(part, ""), "{}*?[]") {
			return nil, fmt.Errorf("segment %q: only {name} is special in a path", part)
		}
		vars := templateVars(part)
		if len(vars) == 0 {
			segs = append(segs, segment{literal: part})
			continue
		}
		var expr strings.Builder
		expr.WriteString("^")
		last := 0
		for _, loc := range templateVar.FindAllStringIndex(part, -1) {
			expr.WriteString(regexp.QuoteMeta(part[last:loc[0]]))
			expr.WriteString("([^/]+?)")
			last = loc[1]
		}
		expr.WriteString(regexp.QuoteMeta(part[last:]) + "$")
		segs = append(segs, segment{re: regexp.MustCompile(expr.String()), vars: vars})
	}
	return segs, nil
}

// match reports whether rel fits the artifact's path, and what it binds.
// A name bound twice must bind the same text.
func (a *Artifact) match(rel string) (map[string]string, bool) {
	parts := strings.Split(rel, "/")
	if len(parts) != len(a.segments) {
		return nil, false
	}
	vars := map[string]string{}
	for i, s := range a.segments {
		if s.re == nil {
			if parts[i] != s.literal {
				return nil, false
			}
			continue
		}
		m := s.re.FindStringSubmatch(parts[i])
		if m == nil {
			return nil, false
		}
		for j, name := range s.vars {
			if prev, ok := vars[name]; ok && prev != m[j+1] {
				return nil, false
			}
			vars[name] = m[j+1]
		}
	}
	return vars, true
}

// expand fills a template's {names} from vars.
func expand(t string, vars map[string]string) string {
	return templateVar.ReplaceAllStringFunc(t, func(m string) string {
		return vars[m[1:len(m)-1]]
	})
}
