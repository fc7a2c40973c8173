package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnswered: the result of a call is found however far back it is, and
// a later copy of the call in a record of a request to the model (as
// 2.1.332 writes them) is not taken for the call itself.
func TestAnswered(t *testing.T) {
	call := `{"message":{"content":[{"id":"toolu_x","name":"ExitPlanMode","type":"tool_use"}]},"type":"assistant"}`
	result := `{"type":"user","message":{"content":[{"type":"tool_result","content":"The user doesn't want to proceed","tool_use_id":"toolu_x","is_error":true}]}}`
	blob := `{"type":"api-request-blob","message":{"role":"assistant","content":[{"id":"toolu_x","input":{},"name":"ExitPlanMode","type":"tool_use"}]}}`
	pad := `{"type":"progress","data":"` + strings.Repeat("x", 1000) + `"}`
	for name, c := range map[string]struct {
		lines          []string
		answered, sure bool
	}{
		"open":                     {[]string{pad, call}, false, true},
		"answered":                 {[]string{call, result, pad}, true, true},
		"answered, blobs after":    {append([]string{call, result}, append(repeat(pad, 200), blob)...), true, true},
		"open, blob after":         {[]string{call, blob}, false, true},
		"no such call":             {[]string{pad}, false, false},
		"a progress line names it": {[]string{call, `{"type":"progress","toolUseID":"toolu_x","tool_use_id":"toolu_x"}`}, false, true},
	} {
		path := filepath.Join(t.TempDir(), "t.jsonl")
		os.WriteFile(path, []byte(strings.Join(c.lines, "\n")+"\n"), 0o600)
		answered, sure := Answered(path, "toolu_x")
		if answered != c.answered || sure != c.sure {
			t.Errorf("%s: answered %v, sure %v; want %v, %v", name, answered, sure, c.answered, c.sure)
		}
	}
	if answered, sure := Answered(filepath.Join(t.TempDir(), "none.jsonl"), "toolu_x"); answered || sure {
		t.Errorf("no transcript: answered %v, sure %v", answered, sure)
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
