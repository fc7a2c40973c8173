package contracts

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/pkg/safefile"
)

// MaxArtifact bounds an artifact checked: handover files are small, and a
// larger one is refused rather than read.
const MaxArtifact = 4 << 20

// Violation is one broken rule: `at <field>: expected <x>, got <y>`.
type Violation struct {
	Field    string `json:"field"` // "" for the file as a whole
	Rule     string `json:"rule"`
	Expected string `json:"expected"`
	Got      string `json:"got"`
}

func (v Violation) String() string {
	at := v.Field
	if at == "" {
		at = "(the file)"
	}
	return fmt.Sprintf("at %s: expected %s, got %s", at, v.Expected, v.Got)
}

// IsJSON reports whether the artifact is a JSON document (its path ends in
// .json, or it has field rules).
func (a *Artifact) IsJSON() bool {
	return len(a.Fields) > 0 || strings.HasSuffix(a.Path, ".json")
}

// CheckContent checks an artifact's content against its field rules, with
// the values its path bound (vars) and the project root (for oneOfFrom),
// and returns every broken rule, in field order.
func (a *Artifact) CheckContent(content []byte, vars map[string]string, root string) []Violation {
	if !a.IsJSON() {
		return nil
	}
	if len(content) > MaxArtifact {
		return []Violation{{Rule: "size", Expected: fmt.Sprintf("at most %d bytes", MaxArtifact), Got: fmt.Sprintf("%d bytes", len(content))}}
	}
	if !gjson.ValidBytes(content) {
		return []Violation{{Rule: "json", Expected: "a JSON object", Got: "text that is not valid JSON"}}
	}
	doc := gjson.ParseBytes(content)
	if !doc.IsObject() {
		return []Violation{{Rule: "json", Expected: "a JSON object", Got: describe(doc)}}
	}
	// Each key once, at every depth: parsers disagree on which of two wins
	// (rodin would judge one value, the reader use the other).
	// The top level is read once for both: its keys counted, its values
	// kept, the nested ones walked.
	seen := map[string]int{}
	values := map[string]gjson.Result{}
	var order []string
	var nested []gjson.Result // keys and values, in pairs
	var out []Violation
	doc.ForEach(func(k, v gjson.Result) bool {
		name := k.String()
		if seen[name] == 0 {
			order = append(order, name)
		}
		seen[name]++
		values[name] = v
		if v.IsObject() || v.IsArray() {
			nested = append(nested, k, v)
		}
		return true
	})
	for _, k := range order {
		if seen[k] > 1 {
			out = append(out, Violation{Field: k, Rule: "duplicate", Expected: "the key once", Got: fmt.Sprintf("%d times", seen[k])})
		}
	}
	for i := 0; i < len(nested); i += 2 {
		out = duplicateKeys(nested[i+1], nested[i].String(), 1, out)
	}
	names := make([]string, 0, len(a.Fields))
	for name := range a.Fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f := a.Fields[name]
		v, present := values[name]
		bad := func(rule, expected string) {
			out = append(out, Violation{Field: name, Rule: rule, Expected: expected, Got: describe(v)})
		}
		if seen[name] > 1 {
			continue // named by duplicateKeys
		}
		if !present || v.Type == gjson.Null {
			// null reads as absent, as rlp-desk's validator reads it.
			if f.Required {
				out = append(out, Violation{Field: name, Rule: "required", Expected: "a value (required)", Got: describe(v)})
			}
			continue
		}
		typeBroken := f.Type != "" && !hasType(v, f.Type)
		if typeBroken {
			bad("type", "a value of type "+f.Type)
		}
		if f.Const != nil && !sameJSON(v, f.Const) {
			bad("const", jsonText(f.Const))
		}
		if len(f.Enum) > 0 && !slicesContainsJSON(f.Enum, v) {
			bad("enum", "one of "+jsonList(f.Enum))
		}
		if f.Eq != "" {
			want := expand(f.Eq, vars)
			if v.Type != gjson.String || v.String() != want {
				bad("eq", want)
			}
		}
		if f.Pattern != "" {
			re := f.pattern
			if re == nil { // a snapshot is decoded without compiling what it does not use
				re, _ = regexp.Compile(f.Pattern)
			}
			if re == nil || v.Type != gjson.String || !re.MatchString(v.String()) {
				bad("pattern", "a string matching "+f.Pattern)
			}
		}
		if f.Min != nil || f.Max != nil {
			switch {
			case v.Type != gjson.Number:
				if !typeBroken { // said once is enough
					bad("min/max", "a number")
				}
			case f.Min != nil && v.Num < *f.Min:
				bad("min", fmt.Sprintf(">= %v", *f.Min))
			case f.Max != nil && v.Num > *f.Max:
				bad("max", fmt.Sprintf("<= %v", *f.Max))
			}
		}
		if len(f.OneOf) > 0 || f.OneOfFrom != nil {
			allowed, err := f.allowed(vars, root)
			switch {
			case err != nil:
				bad("oneOfFrom", "one of the values in "+expand(f.OneOfFrom.File, vars)+", which cannot be read ("+err.Error()+")")
			case v.Type != gjson.String || !containsString(allowed, v.String()):
				bad("oneOf", "one of ["+strings.Join(allowed, ", ")+"]")
			}
		}
	}
	return out
}

// maxDepth bounds the nesting of an artifact's JSON that rodin walks.
const maxDepth = 64

// duplicateKeys names every key that appears more than once in an object,
// at any depth, in document order; nesting deeper than maxDepth is
// refused rather than walked.
func duplicateKeys(v gjson.Result, at string, depth int, out []Violation) []Violation {
	if depth > maxDepth {
		return append(out, Violation{Field: at, Rule: "depth", Expected: fmt.Sprintf("at most %d levels of nesting", maxDepth), Got: "more"})
	}
	join := func(k string) string {
		if at == "" {
			return k
		}
		return at + "." + k
	}
	switch {
	case v.IsObject():
		count := map[string]int{}
		var order []string
		v.ForEach(func(k, _ gjson.Result) bool {
			if count[k.String()] == 0 {
				order = append(order, k.String())
			}
			count[k.String()]++
			return true
		})
		for _, k := range order {
			if count[k] > 1 {
				out = append(out, Violation{Field: join(k), Rule: "duplicate", Expected: "the key once", Got: fmt.Sprintf("%d times", count[k])})
			}
		}
		v.ForEach(func(k, c gjson.Result) bool {
			if c.IsObject() || c.IsArray() {
				out = duplicateKeys(c, join(k.String()), depth+1, out)
			}
			return true
		})
	case v.IsArray():
		i := 0
		v.ForEach(func(_, c gjson.Result) bool {
			if c.IsObject() || c.IsArray() {
				out = duplicateKeys(c, fmt.Sprintf("%s[%d]", at, i), depth+1, out)
			}
			i++
			return true
		})
	}
	return out
}

// allowed is oneOfFrom's values, then oneOf's.
func (f Field) allowed(vars map[string]string, root string) ([]string, error) {
	var out []string
	if f.OneOfFrom != nil {
		rel := expand(f.OneOfFrom.File, vars)
		if filepath.IsAbs(rel) || strings.HasPrefix(filepath.Clean(rel), "..") {
			return nil, fmt.Errorf("%s is outside the project", rel)
		}
		// Never blocks: a FIFO or a device in the file's place is refused.
		b, err := safefile.ReadFile(filepath.Join(root, rel), MaxArtifact)
		if err != nil {
			return nil, err
		}
		re := f.OneOfFrom.re
		if re == nil {
			if re, err = regexp.Compile("(?m)" + f.OneOfFrom.Match); err != nil {
				return nil, err
			}
		}
		if re.NumSubexp() < 1 {
			return nil, fmt.Errorf("its match has no group")
		}
		for _, m := range re.FindAllSubmatch(b, -1) {
			if s := string(m[1]); !containsString(out, s) {
				out = append(out, s)
			}
		}
	}
	for _, s := range f.OneOf {
		if !containsString(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

func hasType(v gjson.Result, t string) bool {
	switch t {
	case "string":
		return v.Type == gjson.String
	case "number":
		return v.Type == gjson.Number
	case "integer":
		return v.Type == gjson.Number && v.Num == math.Trunc(v.Num) && !strings.ContainsAny(v.Raw, ".eE") && math.Abs(v.Num) <= 1<<53
	case "boolean":
		return v.Type == gjson.True || v.Type == gjson.False
	case "array":
		return v.IsArray()
	case "object":
		return v.IsObject()
	}
	return false
}

// describe is a value as a violation quotes it: short, one line.
func describe(v gjson.Result) string {
	if !v.Exists() {
		return "nothing"
	}
	s := strings.Join(strings.Fields(v.Raw), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "..."
	}
	return s
}

func sameJSON(v gjson.Result, want any) bool {
	switch w := want.(type) { // the common consts, without a decode
	case string:
		return v.Type == gjson.String && v.String() == w
	case bool:
		return (v.Type == gjson.True || v.Type == gjson.False) && v.Bool() == w
	case float64:
		return v.Type == gjson.Number && v.Num == w
	}
	var got any
	if json.Unmarshal([]byte(v.Raw), &got) != nil {
		return false
	}
	return reflect.DeepEqual(got, normalize(want))
}

// normalize makes a value decoded from the contracts file compare with
// one decoded from an artifact (both through encoding/json: numbers are
// float64).
func normalize(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

func slicesContainsJSON(list []any, v gjson.Result) bool {
	for _, want := range list {
		if sameJSON(v, want) {
			return true
		}
	}
	return false
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func jsonList(list []any) string {
	parts := make([]string, len(list))
	for i, v := range list {
		if s, ok := v.(string); ok {
			parts[i] = s
		} else {
			parts[i] = jsonText(v)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
