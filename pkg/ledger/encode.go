package ledger

import (
	"strconv"
	"unicode/utf8"
)

// marshalRun writes a record as encoding/json writes a Run (the same
// fields, order, omissions and escapes: TestMarshalRunAsJSON), without it:
// the first use of encoding/json's encoder in a process costs about a
// tenth of a millisecond, and every Bash command's hook appends a record.
func marshalRun(r Run) []byte {
	b := make([]byte, 0, 128+len(r.Command)+len(r.Tail))
	b = append(b, `{"t":`...)
	b = strconv.AppendInt(b, r.Time, 10)
	b = append(b, `,"k":`...)
	b = appendString(b, r.Kind)
	str := func(key, v string) {
		if v != "" {
			b = append(b, `,"`+key+`":`...)
			b = appendString(b, v)
		}
	}
	str("cmd", r.Command)
	b = append(b, `,"exit":`...)
	b = strconv.AppendInt(b, int64(r.Exit), 10)
	str("cwd", r.Cwd)
	str("agent", r.Agent)
	str("at", r.Type)
	str("tu", r.Tool)
	if r.Dur != 0 {
		b = append(b, `,"dur":`...)
		b = strconv.AppendInt(b, r.Dur, 10)
	}
	str("bg", r.Bg)
	str("sid", r.Session)
	str("psum", r.PromptSum)
	if r.Pass {
		b = append(b, `,"pass":true`...)
	}
	str("tail", r.Tail)
	if r.Resumed {
		b = append(b, `,"resumed":true`...)
	}
	if r.Oversize {
		b = append(b, `,"big":true`...)
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaped as encoding/json does:
// quotes, backslashes and control characters; <, > and & as \u003c,
// \u003e, \u0026; U+2028 and U+2029; invalid UTF-8 as \ufffd.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= ' ' && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
