// Package edits applies a Write, Edit or MultiEdit to a file's text in
// memory, as the tool would: the guards judge the file the tool would
// leave, before it runs.
package edits

import (
	"strings"

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
	if !strings.Contains(text, from) {
		return "", false
	}
	if e.Get("replace_all").Bool() {
		return strings.ReplaceAll(text, from, to), true
	}
	return strings.Replace(text, from, to, 1), true
}
