package hookio

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

func fixture(t *testing.T, name string) Input {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "fixtures", "claude-code-2.1.197", name))
	if err != nil {
		t.Fatal(err)
	}
	in, err := Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// The accessors read the fields of real Claude Code 2.1.197 inputs.
func TestAccessorsOnRealInputs(t *testing.T) {
	type fields struct{ Session, Event, Tool, Mode, Cwd, Path string }
	get := func(in Input) fields {
		return fields{in.SessionID(), in.HookEventName(), in.ToolName(), in.PermissionMode(), in.Cwd(), in.FilePath()}
	}
	plans := "/home/dev/.claude/plans/plan-something-tidy-naur.md"
	for name, want := range map[string]fields{
		"PostToolUse-Write.json":       {"b89c8bbf-0567-4b71-9765-23162d176ca0", "PostToolUse", "Write", "plan", "/home/dev/project", plans},
		"PostToolUse-Edit.json":        {"b89c8bbf-0567-4b71-9765-23162d176ca0", "PostToolUse", "Edit", "plan", "/home/dev/project", plans},
		"PreToolUse-ExitPlanMode.json": {"b89c8bbf-0567-4b71-9765-23162d176ca0", "PreToolUse", "ExitPlanMode", "plan", "/home/dev/project", ""},
		"PostToolUse-Agent.json":       {"2c475e1d-e144-44bf-be54-810a61d5723e", "PostToolUse", "Agent", "plan", "/home/dev/project", ""},
	} {
		if diff := cmp.Diff(want, get(fixture(t, name))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	in := fixture(t, "PreToolUse-ExitPlanMode.json")
	if p, ok, err := in.Field("tool_input.planFilePath"); p != plans || !ok || err != nil {
		t.Errorf("planFilePath = %q, %v, %v", p, ok, err)
	}
	if p, ok, err := in.Field("tool_input.plan"); !strings.HasPrefix(p, "# Plan\n") || !ok || err != nil {
		t.Errorf("plan = %q, %v, %v", p, ok, err)
	}
	if _, ok, err := in.Field("tool_input.missing"); ok || err != nil {
		t.Errorf("missing field: ok=%v err=%v", ok, err)
	}
	if _, _, err := in.Field("tool_input"); err == nil || err.Error() != "tool_input is an object, not a string" {
		t.Errorf("object field: err=%v", err)
	}
}

func TestReadRejects(t *testing.T) {
	for in, want := range map[string]string{
		"":           "the hook input is empty",
		" \n":        "the hook input is empty",
		"{":          "the hook input is not valid JSON",
		"[]":         "the hook input is not a JSON object",
		`"x"`:        "the hook input is not a JSON object",
		"{} {}":      "the hook input is not valid JSON",
		"\xff\xfe{}": "the hook input is not valid JSON",
	} {
		if _, err := Read(strings.NewReader(in)); err == nil || err.Error() != want {
			t.Errorf("Read(%q) = %v, want %q", in, err, want)
		}
	}
	big := strings.NewReader(`{"a":"` + strings.Repeat("x", MaxInput) + `"}`)
	if _, err := Read(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized input: %v", err)
	}
}

func TestRunPrePanicDenies(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := RunPre(strings.NewReader(`{"tool_name":"ExitPlanMode"}`), &stdout, &stderr, 0, func(Input) PreOutcome { panic("boom") })
	if code != 2 {
		t.Errorf("exit code %d, want 2", code)
	}
	if !strings.Contains(stdout.String(), `"permissionDecision":"deny"`) || !strings.HasPrefix(stderr.String(), "[rodin] The gate failed (internal error: boom)") {
		t.Errorf("stdout %q stderr %q", stdout.String(), stderr.String())
	}
}

func TestRunPostNeverFails(t *testing.T) {
	var stdout bytes.Buffer
	if code := RunPost(strings.NewReader(`{}`), &stdout, func(Input) PostOutcome { panic("boom") }); code != 0 {
		t.Errorf("exit code %d after a panic, want 0", code)
	}
	if code := RunPost(strings.NewReader(`nope`), &stdout, func(Input) PostOutcome { t.Fatal("called on bad input"); return PostOutcome{} }); code != 0 {
		t.Errorf("exit code %d on bad input, want 0", code)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
	code := RunPost(strings.NewReader(`{}`), &stdout, func(Input) PostOutcome { return PostOutcome{Context: "c <x>", SystemMessage: "m"} })
	if want := `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"c <x>"},"systemMessage":"m"}` + "\n"; code != 0 || stdout.String() != want {
		t.Errorf("got %d %q, want %q", code, stdout.String(), want)
	}
}

// stringLiterals are JSON strings with every escape gjson decodes,
// including the surrogate cases it decodes its own way.
var stringLiterals = []string{
	`""`, `"plain"`, `"a\nb\tc\rd\be\ff\/g\\h\"i"`, `"\u003c!-- rodin:x --\u003e"`,
	`"\u00e9\u4e2d"`, `"\ud83d\ude00 smile"`, `"\ud83d alone"`, `"\ude00 low"`, `"\ud83d\u0041"`,
	`"\uD83D\uDE00"`, `"ends in \ud83d"`, `"é raw"`, "\"bad \xff utf8\"", `"x\\"`,
}

// TestStringFieldDecodesAsGjson: JSONString.Equals agrees with comparing gjson's
// decoded string, for equal texts and for texts one byte off.
func TestStringFieldDecodesAsGjson(t *testing.T) {
	for _, lit := range stringLiterals {
		checkStringField(t, lit)
	}
	if js, ok, err := NewInput([]byte(`{"a":{"b":1}}`)).StringField("a.b"); js.Equals(nil) || ok || err == nil {
		t.Errorf("a number: ok=%v err=%v, want a type error", ok, err)
	}
	if js, ok, err := NewInput([]byte(`{"a":null}`)).StringField("a"); js.Equals(nil) || ok || err != nil {
		t.Errorf("null: ok=%v err=%v, want absent", ok, err)
	}
}

func checkStringField(t *testing.T, lit string) {
	t.Helper()
	in := NewInput([]byte(`{"k":` + lit + `}`))
	want := gjson.Get(`{"k":`+lit+`}`, "k").String()
	for _, b := range []string{want, want + "x", "x" + want, strings.TrimSuffix(want, want[max(0, len(want)-1):])} {
		js, ok, err := in.StringField("k")
		if eq := js.Equals([]byte(b)); !ok || err != nil || eq != (b == want) {
			t.Errorf("StringField(%s, %q) = %v, %v, %v; want %v", lit, b, eq, ok, err, b == want)
		}
	}
}

func FuzzStringField(f *testing.F) {
	for _, lit := range stringLiterals {
		f.Add(lit)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		if !gjson.Valid(lit) || gjson.Parse(lit).Type != gjson.String || strings.TrimSpace(lit) != lit {
			return
		}
		checkStringField(t, lit)
	})
}

// lookupCases are objects where finding a member is easy to get wrong.
var lookupCases = []string{
	`{"a":"x","b":{"c":"y"}}`,
	` { "a" : [1,{"b":"}"},"]"] , "b" : { "c" : "\"}" } } `,
	`{"a\u0062":"escaped key","b":{"c":1}}`,
	`{"a":"one","a":"two","b":{"c":"first","c":"second"}}`,
	`{"a":null,"b":true,"c":false,"d":-1.5e3,"e":{}}`,
	`{"x":"\\","a":"\\\"","b":{"c":"\\\\"}}`,
	`{"b":{"x":{"c":"deep"},"c":"shallow"}}`,
	`[{"a":1}]`, `"a"`, `{}`,
}

// TestLookupAgreesWithGjson: for plain keys, lookup finds the value gjson
// finds. (FuzzLookup also feeds it invalid JSON, which must not panic.)
func TestLookupAgreesWithGjson(t *testing.T) {
	for _, j := range lookupCases {
		checkLookup(t, j)
	}
}

func checkLookup(t *testing.T, j string) {
	t.Helper()
	for _, path := range []string{"a", "b", "b.c", "ab", "e", "x", "a.b"} {
		want := gjson.Get(j, path)
		got := lookup(j, path)
		if want.Exists() && got != want.Raw || !want.Exists() && got != "" {
			t.Errorf("lookup(%s, %q) = %q, gjson finds %q", j, path, got, want.Raw)
		}
	}
	n := 0
	gjson.Parse(j).ForEach(func(k, _ gjson.Result) bool {
		if gjson.Parse(j).IsObject() && k.String() == "a" {
			n++
		}
		return true
	})
	if got := NewInput([]byte(j)).TopLevelCount("a"); got != n {
		t.Errorf("TopLevelCount(%s, a) = %d, gjson counts %d", j, got, n)
	}
}

func FuzzLookup(f *testing.F) {
	for _, j := range lookupCases {
		f.Add(j)
	}
	f.Fuzz(func(t *testing.T, j string) {
		if !gjson.Valid(j) {
			_ = lookup(j, "a.b") // meant for valid JSON, but must not panic
			return
		}
		checkLookup(t, j)
	})
}

// TestLookupSurvivesInvalidJSON: lookup is meant for validated input, but
// a truncated or broken text must not make it panic.
func TestLookupSurvivesInvalidJSON(t *testing.T) {
	for _, j := range []string{`{"a"`, `{"a":`, `{"a":"x`, `{"a":{"b":`, `{"a":[1,2`, `{"a" "b"}`, `{`, `{"`, `{"a":"x","b`} {
		for _, path := range []string{"a", "b", "a.b"} {
			_ = lookup(j, path)
		}
		_ = NewInput([]byte(j)).TopLevelCount("a")
	}
}

// An object's fields are found as through the whole input, and messages
// name their full path.
func TestObject(t *testing.T) {
	in := NewInput([]byte(`{"tool_name":"ExitPlanMode","tool_input":{"plan":"# P\n\"q\"","planFilePath":7},"x":[]}`))
	obj, ok, err := in.Object("tool_input")
	if !ok || err != nil {
		t.Fatalf("Object(tool_input) = %v, %v", ok, err)
	}
	whole, _, _ := in.Field("tool_input.plan")
	part, _, _ := obj.Field("plan")
	if part != whole || part != "# P\n\"q\"" {
		t.Errorf("plan through the object %q, through the input %q", part, whole)
	}
	if _, _, err := obj.Field("planFilePath"); err == nil || err.Error() != "tool_input.planFilePath is a number, not a string" {
		t.Errorf("error = %v", err)
	}
	if _, ok, err := in.Object("missing"); ok || err != nil {
		t.Errorf("Object(missing) = %v, %v", ok, err)
	}
	if _, _, err := in.Object("x"); err == nil || err.Error() != "x is not an object" {
		t.Errorf("Object(x) error = %v", err)
	}
}

// FuzzGetAsGjson: Get finds what gjson.Get finds, for every valid JSON
// document and plain path (other paths go to gjson itself): the value's
// type, raw text, string and number.
func FuzzGetAsGjson(f *testing.F) {
	for _, s := range []string{
		`{"tool_response":{"stdout":"a\"b\\","interrupted":true},"duration_ms":12}`,
		`{"a":{"b":1},"a":{"c":2}}`,
		`{"a":"x","a":{"b":[1,2]},"a-b":null}`,
		`{"a\u0062":{"c":"d"}, "ab" : { "c" : 7 } }`,
		`[{"a":1}]`,
		`{"a":[{"b":1}],"a":{"b":2}}`,
		`{"tool_input":{"command":"ls"},"tool_response":{"backgroundTaskId":"b1","timedOutAfterMs":null}}`,
	} {
		for _, p := range []string{"~ab", "~a.b", "a", "a.b", "a.c", "ab.c", "a-b", "tool_response.interrupted", "tool_response.stdout", "duration_ms", "tool_response.timedOutAfterMs", "tool_response.backgroundTaskId", "a.0", "a.b.c"} {
			f.Add(s, p)
		}
	}
	f.Fuzz(func(t *testing.T, js, path string) {
		if !gjson.Valid(js) {
			return
		}
		if len(path) > 0 && path[0] == '~' {
			// Spelled in a few letters, so that most paths are plain ones.
			b := []byte(path[1:])
			for i := range b {
				b[i] = "abc.1_-"[int(b[i])%7]
			}
			path = string(b)
		}
		got, want := NewInput([]byte(js)).Get(path), gjson.Get(js, path)
		if got.Type != want.Type || got.Raw != want.Raw || got.Str != want.Str || got.Exists() != want.Exists() ||
			got.Num != want.Num && !(got.Num != got.Num && want.Num != want.Num) {
			t.Fatalf("Get(%q) in %q = %#v, gjson.Get = %#v", path, js, got, want)
		}
	})
}
