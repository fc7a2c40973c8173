package edits

import (
	"testing"

	"github.com/tidwall/gjson"
)

// TestLooseMatch: an Edit whose old_string matches only as Claude Code
// matches (straight quotes against curly ones, \n against \r\n) is
// replayed on the original text.
func TestLooseMatch(t *testing.T) {
	for _, tc := range []struct {
		name, text, input, want string
	}{
		{"exact", "- [ ] V1 a\n", `{"old_string":"- [ ] V1","new_string":"- [x] V1"}`, "- [x] V1 a\n"},
		{"curly in file", "- [ ] V1 “quoted” ‘x’\n", `{"old_string":"- [ ] V1 \"quoted\" 'x'","new_string":"- [x] V1 \"quoted\" 'x'"}`, "- [x] V1 \"quoted\" 'x'\n"},
		{"crlf", "# T\r\n- [ ] V1 a\r\n  - b\r\n", `{"old_string":"- [ ] V1 a\n  - b","new_string":"- [x] V1 a\n  - b"}`, "# T\r\n- [x] V1 a\r\n  - b\r\n"},
		{"crlf replace_all", "- [ ] A\r\n- [ ] A\r\n", `{"old_string":"[ ] A\n","new_string":"[x] A\n","replace_all":true}`, "- [x] A\r\n- [x] A\r\n"},
		{"after multibyte", "é “q” - [ ] V1\n", `{"old_string":"\"q\" - [ ] V1","new_string":"\"q\" - [x] V1"}`, "é \"q\" - [x] V1\n"},
	} {
		got, ok := Apply("Edit", gjson.Parse(tc.input), tc.text, true)
		if !ok || got != tc.want {
			t.Errorf("%s: Apply = %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
	if _, ok := Apply("Edit", gjson.Parse(`{"old_string":"- [ ] V2","new_string":"- [x] V2"}`), "- [ ] V1\n", true); ok {
		t.Error("an old_string in no form in the file was replayed")
	}
}
