// Package transcript reads what rodin needs from a Claude Code JSONL
// transcript: the prompt a subagent was started with.
package transcript

import (
	"bufio"
	"fmt"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/pkg/safefile"
)

// maxTranscriptLine bounds the line read for a subagent's prompt.
const maxTranscriptLine = 64 << 20

// FirstPrompt is the prompt a subagent was started with: the text of the
// first "user" message in its JSONL transcript.
func FirstPrompt(path string) (string, error) {
	first, _, err := Prompts(path)
	return first, err
}

// Prompts reads a subagent's transcript: the prompt it was started with,
// and how many more messages with text it was given after it (a
// SendMessage, delivered while it worked or resuming it after it stopped).
// Tool results, which come back as user messages too, are not counted.
func Prompts(path string) (first string, more int, err error) {
	first, more, _, err = read(path)
	return first, more, err
}

// Started is when the subagent's transcript began: the time of its first
// line, which Claude Code writes at its launch; false when it cannot tell.
func Started(path string) (time.Time, bool) {
	_, _, t, err := read(path)
	return t, err == nil && !t.IsZero()
}

func read(path string) (first string, more int, started time.Time, err error) {
	if path == "" {
		return "", 0, started, fmt.Errorf("no agent_transcript_path")
	}
	f, err := safefile.Open(path)
	if err != nil {
		return "", 0, started, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", 0, started, fmt.Errorf("%s is not a regular file", path)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxTranscriptLine)
	found := false
	for sc.Scan() {
		line := sc.Bytes()
		if !gjson.ValidBytes(line) {
			continue
		}
		if started.IsZero() {
			started, _ = time.Parse(time.RFC3339Nano, gjson.GetBytes(line, "timestamp").String())
		}
		if gjson.GetBytes(line, "type").String() != "user" {
			continue
		}
		text, ok := userText(gjson.GetBytes(line, "message.content"))
		switch {
		case !ok:
		case !found:
			first, found = text, true
		default:
			more++
		}
	}
	if err := sc.Err(); err != nil {
		return "", 0, started, err
	}
	if !found {
		return "", 0, started, fmt.Errorf("%s has no user message", path)
	}
	return first, more, started, nil
}

// userText is a user message's text, false when it holds none (tool
// results only).
func userText(content gjson.Result) (string, bool) {
	if content.Type == gjson.String {
		return content.String(), true
	}
	var parts []string
	content.ForEach(func(_, part gjson.Result) bool {
		if part.Get("type").String() == "text" {
			parts = append(parts, part.Get("text").String())
		}
		return true
	})
	return strings.Join(parts, "\n"), len(parts) > 0
}
