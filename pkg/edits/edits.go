// Package edits applies a Write, Edit or MultiEdit to a file's text in
// memory, as the tool would: the guards judge the file the tool would
// leave, before it runs.
package edits

import (
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Apply is the file as the tool would leave it; ok is false when the tool
// would fail (an old_string not found), so there is nothing to judge.
func Apply(tool string, input gjson.Result, old string, exists bool) (string, bool) {
	switch tool {
	case "Write":
		return input.Get("content").String(), true
	case "Edit":
		return edit(old, input)
	}
	text := old
	for _, e := range input.Get("edits").Array() {
		var ok bool
		if text, ok = edit(text, e); !ok {
			return "", false
		}
	}
	return text, exists || text != ""
}

func edit(text string, e gjson.Result) (string, bool) {
	from, to := e.Get("old_string").String(), e.Get("new_string").String()
	if from == "" {
		return to + text, true // an empty old_string creates the file
	}
	all := e.Get("replace_all").Bool()
	if strings.Contains(text, from) {
		if all {
			return strings.ReplaceAll(text, from, to), true
		}
		return strings.Replace(text, from, to, 1), true
	}
	return looseEdit(text, from, to, all)
}

// looseEdit matches as Claude Code's Edit tool does when old_string is not
// in the file as written: straight quotes match curly ones, and a line
// break matches a CRLF file's \r\n. The match is found in the normalised
// text and replaced in the original; in a CRLF file new_string's line
// breaks are written as \r\n.
func looseEdit(text, from, to string, all bool) (string, bool) {
	norm, at := normalize(text)
	key, _ := normalize(from)
	if key == "" || !strings.Contains(norm, key) {
		return "", false
	}
	if strings.Contains(text, "\r\n") && !strings.Contains(to, "\r\n") {
		to = strings.ReplaceAll(to, "\n", "\r\n")
	}
	var b strings.Builder
	done := 0 // bytes of text written
	for i := 0; ; {
		j := strings.Index(norm[i:], key)
		if j < 0 {
			break
		}
		start, end := at[i+j], at[i+j+len(key)]
		b.WriteString(text[done:start])
		b.WriteString(to)
		done = end
		i += j + len(key)
		if !all {
			break
		}
	}
	b.WriteString(text[done:])
	return b.String(), true
}

// normalize is s with curly quotes made straight and \r\n made \n, and
// for each byte offset of the result (and its end) the offset in s.
func normalize(s string) (string, []int) {
	var b strings.Builder
	at := make([]int, 0, len(s)+1)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			b.WriteByte('\n')
			at = append(at, i)
			size = 2
		case r == '\u2018' || r == '\u2019':
			b.WriteByte('\'')
			at = append(at, i)
		case r == '\u201c' || r == '\u201d':
			b.WriteByte('"')
			at = append(at, i)
		default:
			b.WriteString(s[i : i+size])
			for k := 0; k < size; k++ {
				at = append(at, i+k)
			}
		}
		i += size
	}
	return b.String(), append(at, len(s))
}
