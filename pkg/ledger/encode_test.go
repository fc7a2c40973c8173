package ledger

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestMarshalRunAsJSON: marshalRun writes what encoding/json writes, for
// every field set or not and any text, escapes and invalid UTF-8 included.
func TestMarshalRunAsJSON(t *testing.T) {
	for _, r := range []Run{
		{},
		{Time: 1795650000000000000, Kind: KindBash, Command: "true && echo <ok> 'a\"b' \\ \t\n\r\x01\x7f é \u2028 \u2029 \xff", Exit: -2, Cwd: "/p", Agent: "a1", Type: "w", Tool: "toolu_1", Dur: 5, Bg: "b1"},
		{Time: 2, Kind: KindQA, PromptSum: "abc", Pass: true, Tail: "VERIFICATION_PASS\n", Resumed: true, Oversize: true, Session: "s", Dur: -1},
		{Time: 3, Kind: KindClaim, Command: "tasks.md\x00V1", Cwd: "/p", Session: "s"},
	} {
		check(t, r)
	}
}

func check(t *testing.T, r Run) {
	t.Helper()
	want, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := marshalRun(r); !bytes.Equal(got, want) {
		t.Errorf("marshalRun:\n got %s\nwant %s", got, want)
	}
}

func FuzzMarshalRun(f *testing.F) {
	f.Add("true && echo ok", "/p", "a1", int64(5), -1, true)
	f.Fuzz(func(t *testing.T, cmd, cwd, agent string, dur int64, exit int, pass bool) {
		check(t, Run{Time: dur * 7, Kind: KindBash, Command: cmd, Cwd: cwd, Agent: agent, Dur: dur, Exit: exit, Pass: pass, Tail: cmd + agent})
	})
}
