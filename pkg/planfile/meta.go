package planfile

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Status values of a validation line.
const (
	StatusPending = "pending"
	StatusPass    = "pass"
	StatusFail    = "fail"
)

// Validation is the value of a `rodin:validation=` line.
type Validation struct {
	Status string
	Reason string
	TS     string
}

// ParseValidation reads a validation value. Unknown fields are accepted;
// status must be a string, reason and ts strings when present.
func ParseValidation(raw string) (Validation, error) {
	obj, err := object(raw)
	if err != nil {
		return Validation{}, err
	}
	var v Validation
	if v.Status, err = str(obj, "status", true); err != nil {
		return Validation{}, err
	}
	if v.Reason, err = str(obj, "reason", false); err != nil {
		return Validation{}, err
	}
	if v.TS, err = str(obj, "ts", false); err != nil {
		return Validation{}, err
	}
	return v, nil
}

// Verdict is the value of a `rodin:verdict:signal=` line: a request, written
// by the plan-gate skill, to record a verdict.
type Verdict struct {
	Status string
	Reason string
}

// ParseVerdict reads a verdict signal. Its status must be pass or fail.
func ParseVerdict(raw string) (Verdict, error) {
	obj, err := object(raw)
	if err != nil {
		return Verdict{}, err
	}
	var v Verdict
	if v.Status, err = str(obj, "status", true); err != nil {
		return Verdict{}, err
	}
	if v.Status != StatusPass && v.Status != StatusFail {
		return Verdict{}, fmt.Errorf("status is %q; it must be \"pass\" or \"fail\"", v.Status)
	}
	if v.Reason, err = str(obj, "reason", false); err != nil {
		return Verdict{}, err
	}
	return v, nil
}

// OwnKeysOnly reports whether a `rodin:validation` value holds only the
// keys rodin writes (status, reason, ts), each once: any other field is
// text no critic read that reaches the model in the approved plan.
func OwnKeysOnly(raw string) bool {
	obj, err := object(raw)
	if err != nil {
		return false
	}
	seen := map[string]bool{}
	ok := true
	obj.ForEach(func(k, _ gjson.Result) bool {
		key := k.String()
		if seen[key] || key != "status" && key != "reason" && key != "ts" {
			ok = false
		}
		seen[key] = true
		return ok
	})
	return ok
}

func object(raw string) (gjson.Result, error) {
	if !gjson.Valid(raw) {
		return gjson.Result{}, errors.New("it is not valid JSON")
	}
	r := gjson.Parse(raw)
	if !r.IsObject() {
		return gjson.Result{}, errors.New("it is not a JSON object")
	}
	return r, nil
}

func str(obj gjson.Result, field string, required bool) (string, error) {
	f := obj.Get(field)
	switch {
	case !f.Exists() && required:
		return "", fmt.Errorf("it has no %q field", field)
	case !f.Exists():
		return "", nil
	case f.Type != gjson.String:
		return "", fmt.Errorf("its %q field is not a string", field)
	}
	return f.String(), nil
}

// Encode returns v as compact JSON that cannot end the comment it sits in.
func (v Validation) Encode() string {
	b := []byte(`{"status":`)
	b = appendJSONString(b, v.Status)
	b = append(b, `,"reason":`...)
	b = appendJSONString(b, v.Reason)
	b = append(b, `,"ts":`...)
	b = appendJSONString(b, v.TS)
	return string(append(b, '}'))
}

// Encode returns v as compact JSON that cannot end the comment it sits in.
func (v Verdict) Encode() string {
	b := []byte(`{"status":`)
	b = appendJSONString(b, v.Status)
	b = append(b, `,"reason":`...)
	b = appendJSONString(b, v.Reason)
	return string(append(b, '}'))
}

// appendJSONString appends s as a JSON string. Besides what JSON requires it
// escapes <, > and & (so no value can close or open an HTML comment) and the
// line separators U+2028 and U+2029; invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// Render returns the file with its trailer replaced by t: every line that is
// not managed metadata is copied byte for byte, trailing empty lines are
// dropped, then one blank line and the trailer lines follow, in the file's
// own line ending. Verdict signals are consumed. When t records the current
// digests, a seal ends the trailer (seal.go).
//
// Render re-parses its result and returns an error instead of bytes that
// would not read back as written or would change the plan or gaps content,
// for instance when the file ends inside an open code fence. A sealed body
// under the same digests is read back the sealed way.
func (d *Doc) Render(t Trailer) ([]byte, error) {
	if d.Malformed() {
		return nil, errors.New("the markers are malformed")
	}
	nl := "\n"
	if d.crlf {
		nl = "\r\n"
	}
	out := make([]byte, 0, len(d.src)+512)
	var body []byte // set when the body is the sealed one
	if d.lazy {
		// Sealed: the body holds no managed line and ends with a line of
		// content (seal.go), which is what renderBody would keep.
		body = d.src[:d.lines[d.trailerStart()].rawStart]
		out = append(out, body...)
		if len(body) > d.bomLen {
			out = append(out, separator(out, nl)...)
		}
	} else {
		out = d.renderBody(out, nl)
	}
	for _, m := range []struct{ key, value string }{
		{"session", t.Session},
		{"plan:hash", t.PlanHash},
		{"gaps:hash", t.GapsHash},
		{"validation", t.Validation},
	} {
		if m.value != "" {
			out = append(out, markerOpen+m.key+"="+m.value+markerClose+nl...)
		}
	}

	if body != nil && t.PlanHash == d.PlanDigest() && t.GapsHash == d.GapsDigest() {
		// The sealed body under a new trailer with the same digests: seal
		// it again and read it back as a sealed file is read, which a
		// parse of the whole file agrees with (seal.go), without that parse.
		out = append(out, sealLine(sealOf(body, t.PlanHash, t.GapsHash), nl)...)
		if back := Parse(out); !back.lazy || back.Malformed() || back.meta != t || len(back.signals) > 0 {
			return nil, errors.New("the metadata would not read back as written")
		}
		return out, nil
	}
	back := parseFull(out)
	switch {
	case back.Malformed():
		return nil, fmt.Errorf("the rewritten file would be malformed (%s)", strings.Join(back.Problems(), "; "))
	case back.meta != t || len(back.signals) > 0:
		return nil, errors.New("the metadata would not read back as written: the end of the plan is inside an open code block or HTML block; close it")
	case back.PlanDigest() != d.PlanDigest() || back.GapsDigest() != d.GapsDigest():
		return nil, errors.New("the rewrite would change the plan or gaps content")
	}
	if seal, ok := back.sealFor(t); ok {
		out = append(out, sealLine(seal, nl)...)
	}
	return out, nil
}

// renderBody appends every line but the managed metadata, up to the last
// line with content, and the blank line that separates the trailer.
func (d *Doc) renderBody(out []byte, nl string) []byte {
	out = append(out, d.src[:d.bomLen]...)
	last := -1 // last kept line with content
	for i, l := range d.lines {
		if l.isMetaLine && l.kind.managed() {
			continue
		}
		if l.end > l.start {
			last = i
		}
	}
	for i := 0; i <= last; i++ {
		l := d.lines[i]
		if l.isMetaLine && l.kind.managed() {
			continue
		}
		out = append(out, d.src[l.rawStart:l.rawNext]...)
	}
	if last >= 0 {
		if d.lines[last].rawNext == d.lines[last].rawStart+(d.lines[last].end-d.lines[last].start) {
			out = append(out, nl...) // the last line had no terminator
		}
		out = append(out, separator(out, nl)...)
	}
	return out
}

// separator is the empty line between the body and the trailer: nl, unless
// the body ends in a lone CR and nl is LF, which would join the two into one
// CRLF and lose the empty line; then a lone CR like the body's.
func separator(body []byte, nl string) string {
	if len(body) > 0 && body[len(body)-1] == '\r' && nl[0] == '\n' {
		return "\r"
	}
	return nl
}
