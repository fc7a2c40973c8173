package sandbox

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func settings(path, js string) Settings { return Settings{Path: path, JSON: gjson.Parse(js)} }

func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name        string
		found       []Settings
		mode        string
		unsandboxed bool
		why         string
	}{
		{"default mode, no rule", nil, "default", false, ""},
		{"bypass, no sandbox", nil, "bypassPermissions", true, "the permission mode bypassPermissions"},
		{"all Bash allowed", []Settings{settings("u", `{"permissions":{"allow":["Read","Bash"]}}`)}, "acceptEdits", true, `the allow rule "Bash" in u`},
		{"Bash(*) allowed", []Settings{settings("u", `{"permissions":{"allow":["Bash(*)"]}}`)}, "default", true, `"Bash(*)"`},
		{"a narrow rule", []Settings{settings("u", `{"permissions":{"allow":["Bash(npm test:*)"]}}`)}, "default", false, ""},
		{"sandboxed, escapable", []Settings{settings("u", `{"sandbox":{"enabled":true}}`)}, "bypassPermissions", true, "may leave the sandbox"},
		{"sandboxed, no way out", []Settings{settings("u", `{"sandbox":{"enabled":true,"allowUnsandboxedCommands":false}}`)}, "bypassPermissions", false, ""},
		{"project turns it off over the user", []Settings{settings("p", `{"sandbox":{"enabled":false}}`), settings("u", `{"sandbox":{"enabled":true,"allowUnsandboxedCommands":false}}`)}, "bypassPermissions", true, "sandbox is off"},
		{"managed wins", []Settings{settings("m", `{"sandbox":{"enabled":true,"allowUnsandboxedCommands":false}}`), settings("l", `{"sandbox":{"enabled":false}}`)}, "bypassPermissions", false, ""},
	} {
		st := decide(tc.found, nil, tc.mode)
		if st.Unsandboxed != tc.unsandboxed || !strings.Contains(st.Why, tc.why) {
			t.Errorf("%s: Unsandboxed=%v Why=%q; want %v and %q", tc.name, st.Unsandboxed, st.Why, tc.unsandboxed, tc.why)
		}
		if st.Unsandboxed != (st.Message() != "") || (st.Unsandboxed && !strings.Contains(st.Message(), FixSetting)) {
			t.Errorf("%s: message %q", tc.name, st.Message())
		}
	}
}

func TestModeFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"/usr/bin/claude", "--permission-mode", "bypassPermissions", "--plugin-dir", "x"}, "bypassPermissions"},
		{[]string{"node", "/opt/claude-code/cli.js", "--permission-mode=acceptEdits"}, "acceptEdits"},
		{[]string{"claude", "--dangerously-skip-permissions"}, "bypassPermissions"},
		{[]string{"claude", "-p", "hi"}, ""},
		{[]string{"/tmp/go-build1/rodin.test", "--permission-mode", "bypassPermissions"}, ""},
	} {
		if got := modeFlag(tc.args); got != tc.want {
			t.Errorf("modeFlag(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
