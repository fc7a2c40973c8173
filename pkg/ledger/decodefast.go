package ledger

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeRunFast reads a line written exactly as marshalRun writes it (its
// keys, in its order, each once; integers in decimal; strings escaped as
// appendString escapes them) in one pass, without gjson: a tick reads the
// whole run log, and an unattended session's log holds thousands of runs.
// It reports false for any other line, which decodeRun then reads (and
// may refuse): it never accepts a line decodeRun would refuse, and reads
// every line it accepts as decodeRun does (FuzzDecodeRunFast).
func decodeRunFast(line []byte) (Run, bool) {
	var r Run
	if !utf8.Valid(line) {
		return r, false
	}
	d := fastDecoder{b: line}
	if !d.lit(`{"t":`) {
		return r, false
	}
	var ok bool
	if r.Time, ok = d.int(); !ok || !d.lit(`,"k":`) {
		return r, false
	}
	if r.Kind, ok = d.str(); !ok {
		return r, false
	}
	if d.lit(`,"cmd":`) {
		if r.Command, ok = d.str(); !ok {
			return r, false
		}
	}
	if !d.lit(`,"exit":`) {
		return r, false
	}
	exit, ok := d.int()
	if !ok || int64(int(exit)) != exit {
		return r, false
	}
	r.Exit = int(exit)
	for _, f := range []struct {
		key string
		dst *string
	}{{`,"cwd":`, &r.Cwd}, {`,"agent":`, &r.Agent}, {`,"at":`, &r.Type}, {`,"tu":`, &r.Tool}} {
		if d.lit(f.key) {
			if *f.dst, ok = d.str(); !ok {
				return r, false
			}
		}
	}
	if d.lit(`,"dur":`) {
		if r.Dur, ok = d.int(); !ok {
			return r, false
		}
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{`,"bg":`, &r.Bg}, {`,"sid":`, &r.Session}, {`,"psum":`, &r.PromptSum}} {
		if d.lit(f.key) {
			if *f.dst, ok = d.str(); !ok {
				return r, false
			}
		}
	}
	r.Pass = d.lit(`,"pass":true`)
	if d.lit(`,"tail":`) {
		if r.Tail, ok = d.str(); !ok {
			return r, false
		}
	}
	r.Resumed = d.lit(`,"resumed":true`)
	r.Oversize = d.lit(`,"big":true`)
	return r, d.lit(`}`) && d.i == len(d.b)
}

type fastDecoder struct {
	b []byte
	i int
}

// lit consumes s when the input continues with it.
func (d *fastDecoder) lit(s string) bool {
	if len(d.b)-d.i < len(s) || string(d.b[d.i:d.i+len(s)]) != s {
		return false
	}
	d.i += len(s)
	return true
}

// int reads a JSON integer that fits an int64 (no fraction, no exponent).
func (d *fastDecoder) int() (int64, bool) {
	start := d.i
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	digits := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	if d.i == digits || d.b[digits] == '0' && d.i-digits > 1 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(d.b[start:d.i]), 10, 64)
	return n, err == nil
}

// str reads a JSON string with the escapes appendString writes (and the
// other short ones); a surrogate escape, which appendString never writes,
// is left to gjson.
func (d *fastDecoder) str() (string, bool) {
	if !d.lit(`"`) {
		return "", false
	}
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := string(d.b[start:d.i])
			d.i++
			return s, true
		case c == '\\':
			return d.escaped(start)
		case c < ' ':
			return "", false
		}
		d.i++
	}
	return "", false
}

// escaped reads the rest of a string holding an escape, from start.
func (d *fastDecoder) escaped(start int) (string, bool) {
	out := append([]byte(nil), d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), true
		case c < ' ':
			return "", false
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			return "", false
		}
		e := d.b[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if d.i+4 > len(d.b) {
				return "", false
			}
			n, err := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 16)
			if err != nil || utf16.IsSurrogate(rune(n)) {
				return "", false
			}
			out = utf8.AppendRune(out, rune(n))
			d.i += 4
		default:
			return "", false
		}
	}
	return "", false
}
