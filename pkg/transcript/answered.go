package transcript

import (
	"bytes"
	"errors"
	"io"

	"github.com/rodin-gate/rodin/pkg/safefile"
)

// Answered reports whether the transcript at path holds the result of the
// tool call id: a tool_result line for it (Claude Code writes one when the
// call ends, whatever the user answered). It reads the transcript's end
// backwards, a growing chunk at a time, until it finds the call's own line;
// ok is false when it cannot tell (no transcript, or neither line in the
// last maxTail bytes), and the caller then assumes the call still open.
func Answered(path, id string) (answered, ok bool) {
	if path == "" || id == "" {
		return false, false
	}
	f, err := safefile.Open(path)
	if err != nil {
		return false, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false, false
	}
	call := []byte(`"id":"` + id + `"`)
	result := []byte(`"tool_use_id":"` + id + `"`)
	for chunk := int64(64 << 10); ; chunk *= 4 {
		off := max(fi.Size()-min(chunk, maxTail), 0)
		buf := make([]byte, fi.Size()-off)
		if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
			return false, false
		}
		if hasResultLine(buf, result) {
			return true, true
		}
		// The call's own line, not a copy of it in a later record of a
		// request (2.1.332 writes api-request-blob lines that repeat earlier
		// messages): the result, if any, comes after it, so within buf.
		if hasCallLine(buf, call) {
			return false, true
		}
		if off == 0 || chunk >= maxTail {
			return false, false
		}
	}
}

// hasResultLine reports whether a line of buf holds both a tool_result and
// the result's id (a hook's progress lines name the id too, in other keys).
func hasResultLine(buf, result []byte) bool {
	return lineWith(buf, result, func(line []byte) bool { return bytes.Contains(line, []byte(`"type":"tool_result"`)) })
}

// hasCallLine reports whether a line of buf holds the call id and is a
// transcript message, not a record of a request to the model.
func hasCallLine(buf, call []byte) bool {
	return lineWith(buf, call, func(line []byte) bool { return !bytes.Contains(line, []byte(`"type":"api-request`)) })
}

// lineWith reports whether some line of buf holding needle satisfies ok.
func lineWith(buf, needle []byte, ok func(line []byte) bool) bool {
	for {
		i := bytes.Index(buf, needle)
		if i < 0 {
			return false
		}
		start := bytes.LastIndexByte(buf[:i], '\n') + 1
		end := bytes.IndexByte(buf[i:], '\n')
		if end < 0 {
			end = len(buf) - i
		}
		if ok(buf[start : i+end]) {
			return true
		}
		buf = buf[i+end:]
	}
}
