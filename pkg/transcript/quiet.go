package transcript

import (
	"bytes"
	"time"

	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/pkg/safefile"
)

// Between a check and a tick, the verify gate must know that no source
// file changed. A walk of the tree proves it at a cost that grows with the
// project (tens of milliseconds at 10,000 files); the session's own
// transcript proves it for free when the agent did nothing between them
// that writes: every tool call the model made is a line of it, in order.

// ReadOnly reports whether a tool writes no project file. (A switch, not a
// map: a hook does no work at package init.)
func ReadOnly(tool string) bool {
	switch tool {
	case "Read", "Grep", "Glob", "LS", "NotebookRead", "TodoWrite", "WebFetch", "WebSearch", "ToolSearch",
		"TaskList", "TaskGet", "TaskOutput", "BashOutput":
		return true
	}
	return false
}

// Editor reports whether a tool is a file tool whose writes the caller may
// excuse by path (a task file is no source).
func Editor(tool string) bool { return tool == "Write" || tool == "Edit" || tool == "MultiEdit" }

// maxTail bounds how much of a transcript's end QuietBetween reads.
const maxTail = 8 << 20

// QuietBetween reports whether, in the transcript at path, the calls the
// model made after the tool call from (a Bash run) and before the tool call
// to (the one being judged) all wrote nothing: each a ReadOnly tool, or an
// Editor whose file_path excused says needs no look. A person's message in
// between (they may have changed files meanwhile), a call of any other
// tool, a transcript that does not hold both calls in its last maxTail
// bytes, or one that cannot be read, is not quiet: the caller looks at the
// files instead. Claude Code writes a call's line a little after its
// PreToolUse hook starts (tens of milliseconds, 2.1.295 to 2.1.332), so it
// waits up to wait for the line of to.
func QuietBetween(path, from, to string, excused func(path string) bool, wait time.Duration) bool {
	if path == "" || from == "" || to == "" {
		return false
	}
	deadline := time.Now().Add(wait)
	for {
		quiet, found := quietBetween(path, from, to, excused)
		if found || time.Now().After(deadline) {
			return quiet && found
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// quietBetween reads the transcript's tail once: found is whether the line
// of to was there.
func quietBetween(path, from, to string, excused func(string) bool) (quiet, found bool) {
	// The run is recent: the tail is read backwards from the end, 4 KiB
	// first (a tick right after its check: the lines between are short),
	// then three times as much before it at each step, nothing read twice,
	// until it holds the run's line (a long session's transcript runs to
	// megabytes; 16 KiB read at once cost a tick 0.017 ms more than 4).
	// Both ids are found as text first: most lines are never parsed. A
	// transcript that cannot be read is not quiet, and there is nothing to
	// wait for.
	needle := []byte(`"id":"` + from + `"`)
	buf, off, err := safefile.ReadTail(path, 4<<10)
	if err != nil {
		return false, true
	}
	start := bytes.LastIndex(buf, needle)
	for start < 0 {
		if off == 0 || len(buf) >= maxTail {
			return false, true
		}
		head, err := safefile.ReadBefore(path, off, min(3*int64(len(buf)), maxTail-int64(len(buf))))
		if err != nil || len(head) == 0 {
			return false, true // unreadable, or cut short since: not quiet
		}
		buf, off = append(head, buf...), off-int64(len(head))
		start = bytes.LastIndex(buf, needle)
	}
	if i := bytes.LastIndexByte(buf[:start], '\n'); i >= 0 {
		start = i + 1
	} else if off > 0 {
		return false, true
	} else {
		start = 0
	}
	quiet = true
	seenFrom := false
	for _, line := range bytes.Split(buf[start:], []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if !gjson.ValidBytes(line) {
			return false, false // a line being written: read again
		}
		l := gjson.ParseBytes(line)
		switch l.Get("type").String() {
		case "assistant":
			for _, b := range l.Get("message.content").Array() {
				if b.Get("type").String() != "tool_use" {
					continue
				}
				id := b.Get("id").String()
				switch {
				case id == from:
					seenFrom = true
				case id == to:
					return quiet && seenFrom, true
				case !seenFrom:
				case ReadOnly(b.Get("name").String()):
				case Editor(b.Get("name").String()) && excused != nil && excused(b.Get("input.file_path").String()):
				default:
					quiet = false
				}
			}
		case "user":
			if !seenFrom {
				continue
			}
			content := l.Get("message.content")
			if content.Type == gjson.String {
				quiet = false // a person's message
				continue
			}
			for _, b := range content.Array() {
				if t := b.Get("type").String(); t != "tool_result" {
					quiet = false
				}
			}
		}
	}
	return false, false
}
