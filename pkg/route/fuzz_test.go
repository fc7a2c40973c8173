package route_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/route"
)

// addInputSeeds seeds with the captured Claude Code inputs and a few broken
// ones.
func addInputSeeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "fixtures", "*", "*.json"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{"", "{", "[]", "null", `{"tool_name":42}`, `{"tool_name":"ExitPlanMode","tool_input":{"planFilePath":"/etc/passwd"}}`,
		`{"tool_name":"ExitPlanMode","session_id":"x\n-->","tool_input":{"plan":"<!-- rodin:gaps:start -->"}}`,
		`{"permission_mode":"plan","tool_name":"Write","session_id":"s","tool_input":{"file_path":"/tmp/../etc/x.md"}}`} {
		f.Add([]byte(s))
	}
}

// fuzzEnv is a HOME with an empty plans directory, so that decisions touch
// only what the test made.
func fuzzEnv(f *testing.F) func(string) string {
	home := f.TempDir()
	os.MkdirAll(filepath.Join(home, ".claude", "plans"), 0o755)
	return func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
}

// FuzzPreToolUse: whatever the input, the gate ends in no decision (exit 0,
// nothing or a systemMessage) or a deny (exit 2, the JSON deny, a reason
// that starts with [rodin] and says how to fix it); it never says allow.
func FuzzPreToolUse(f *testing.F) {
	addInputSeeds(f)
	getenv := fuzzEnv(f)
	f.Fuzz(func(t *testing.T, input []byte) {
		var stdout, stderr bytes.Buffer
		code := hookio.RunPre(bytes.NewReader(input), &stdout, &stderr, 0, func(in hookio.Input) hookio.PreOutcome {
			return route.Pre(in, getenv)
		})
		out := stdout.String()
		if strings.Contains(out, "allow") && !strings.Contains(out, `"deny"`) {
			t.Fatalf("allow in %q", out)
		}
		switch code {
		case 0:
			if out != "" && !gjson.Get(out, "systemMessage").Exists() {
				t.Fatalf("no decision printed %q", out)
			}
		case 2:
			reason := gjson.Get(out, "hookSpecificOutput.permissionDecisionReason").String()
			if !gjson.Valid(out) || gjson.Get(out, "hookSpecificOutput.permissionDecision").String() != "deny" ||
				!strings.HasPrefix(reason, "[rodin] ") || !strings.Contains(reason, "To fix:") || stderr.String() != reason+"\n" {
				t.Fatalf("bad deny: stdout %q stderr %q", out, stderr.String())
			}
		default:
			t.Fatalf("exit code %d", code)
		}
	})
}

// FuzzPostToolUse: whatever the input, PostToolUse exits 0 and prints
// nothing or one valid JSON object.
func FuzzPostToolUse(f *testing.F) {
	addInputSeeds(f)
	getenv := fuzzEnv(f)
	f.Fuzz(func(t *testing.T, input []byte) {
		var stdout bytes.Buffer
		code := hookio.RunPost(bytes.NewReader(input), &stdout, func(in hookio.Input) hookio.PostOutcome {
			return route.Post(in, getenv)
		})
		if code != 0 || (stdout.Len() > 0 && !gjson.Valid(stdout.String())) {
			t.Fatalf("exit %d, stdout %q", code, stdout.String())
		}
	})
}
