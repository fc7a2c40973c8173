package hookio

import (
	"strings"

	"github.com/tidwall/gjson"
)

// The hook input is validated once (gjson.Valid); finding a field in it is
// then a walk over members that skips what it does not need. gjson.Get
// walks byte by byte and decodes the string it returns, which for a plan
// of megabytes is most of what the gate does before it parses the plan:
// lookup jumps over strings with IndexByte and decodes nothing.

// lookup returns the raw JSON value at a dotted path of object keys in a
// validated JSON text, or "" when there is none. It finds what gjson.Get
// finds: the first member with the key through which the rest of the path
// resolves.
func lookup(json, path string) string {
	key, rest, more := strings.Cut(path, ".")
	found := ""
	members(strings.TrimSpace(json), func(k, value string) bool {
		if !keyIs(k, key) {
			return true
		}
		if !more {
			found = value
		} else {
			found = lookup(value, rest)
		}
		return found == ""
	})
	return found
}

// members calls fn with the raw key (quoted) and raw value of each member
// of obj, a valid JSON value, in order, until fn returns false. It does
// nothing when obj is not an object.
func members(obj string, fn func(key, value string) bool) {
	if obj == "" || obj[0] != '{' {
		return
	}
	i := skipSpace(obj, 1)
	for i < len(obj) && obj[i] == '"' {
		end := skipString(obj, i)
		key := obj[i:end]
		i = skipSpace(obj, skipSpace(obj, end)+1) // past ':'
		if i >= len(obj) {
			return // not valid JSON: nothing more to find
		}
		end = skipValue(obj, i)
		if !fn(key, obj[i:end]) {
			return
		}
		i = skipSpace(obj, end)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
}

// keyIs reports whether the quoted key decodes to name.
func keyIs(quoted, name string) bool {
	if strings.IndexByte(quoted, '\\') < 0 {
		return quoted[1:len(quoted)-1] == name
	}
	return gjson.Parse(quoted).String() == name
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string literal that starts at i:
// the first quote not escaped by an odd run of backslashes.
func skipString(s string, i int) int {
	for j := i + 1; ; {
		q := strings.IndexByte(s[j:], '"')
		if q < 0 {
			return len(s)
		}
		j += q
		n := 0
		for k := j - 1; k > i && s[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// skipValue returns the index after the value that starts at i.
func skipValue(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				j = skipString(s, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(s)
	}
	j := i
	for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ']' && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '\r' {
		j++
	}
	return j
}
