// Package transcript reads what rodin needs from a Claude Code JSONL
// transcript: the prompt a subagent was started with.
package transcript

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/tidwall/gjson"
)

// maxTranscriptLine bounds the line read for a subagent's prompt.
const maxTranscriptLine = 64 << 20

// FirstPrompt is the prompt a subagent was started with: the text of the
// first "user" message in its JSONL transcript.
func FirstPrompt(path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("no agent_transcript_path")
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxTranscriptLine)
	for sc.Scan() {
		line := sc.Bytes()
		if !gjson.ValidBytes(line) || gjson.GetBytes(line, "type").String() != "user" {
			continue
		}
		content := gjson.GetBytes(line, "message.content")
		if content.Type == gjson.String {
			return content.String(), nil
		}
		var parts []string
		content.ForEach(func(_, part gjson.Result) bool {
			if part.Get("type").String() == "text" {
				parts = append(parts, part.Get("text").String())
			}
			return true
		})
		return strings.Join(parts, "\n"), nil
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s has no user message", path)
}
