package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/internal/claudecli"
)

// TestCapture records the hook inputs of a real session (the honest skill
// run, then ExitPlanMode) on each release tested, into
// $RODIN_CAPTURE/claude-code-<version>/: numbered in the order Claude Code
// sent them, with the session's temporary directories replaced by
// /home/user, plus the critic's subagent transcript. The replay test in the
// root package feeds them to the hooks again. Run by `just capture`:
//
//	RODIN_CAPTURE=$PWD/testdata/fixtures go test ./e2e -run TestCapture
func TestCapture(t *testing.T) {
	eachCapture(t, func(t *testing.T, rel claudecli.Release, out string) {
		raw := t.TempDir()
		srv := newServer(t)
		srv.agents = map[string][]string{"leakage-detector": {noLeakage}, "critic": {criticFinding}, "validator": {validatorPass}}
		srv.main = append(append([]turn{writePlan, say("The plan is written.")}, skill()...), exitPlanMode)
		s := startSession(t, rel.Path, srv, options{})
		s.wrapHooks(raw)
		s.prompt("Plan the CSV export.")
		s.runSkill(1)
		s.waitPane("the plan approval dialog", 60*time.Second, func(p string) bool { return strings.Contains(p, "Would you like to proceed") })
		dir := filepath.Join(out, "claude-code-"+rel.Version)
		if err := writeCapture(raw, dir, filepath.Dir(s.home)); err != nil {
			t.Fatal(err)
		}
		t.Logf("captured into %s", dir)
	})
}

// eachCapture runs a capture on each release tested, when RODIN_CAPTURE
// names the directory to write into (`just capture`).
func eachCapture(t *testing.T, capture func(t *testing.T, rel claudecli.Release, out string)) {
	out := os.Getenv("RODIN_CAPTURE")
	if out == "" {
		t.Skip("set RODIN_CAPTURE to a directory to capture hook inputs (just capture)")
	}
	eachRelease(t, func(t *testing.T, rel claudecli.Release) {
		if rel.Version == "" {
			t.Skip("RODIN_CLAUDE has no pinned version to name the fixtures by")
		}
		capture(t, rel, out)
	})
}

// wrapHooks puts a script in front of each hook executable SessionStart
// linked, which saves every input into dir before running the hook.
func (s *session) wrapHooks(dir string) {
	s.t.Helper()
	var links []string
	for _, n := range []string{"pretooluse", "posttooluse", "stop"} {
		links = append(links, s.hookLinks(n)...)
	}
	for _, link := range links {
		real, err := filepath.EvalSymlinks(link)
		if err != nil {
			s.t.Fatal(err)
		}
		os.Remove(link)
		writeFile(s.t, link, fmt.Sprintf("#!/bin/sh\nf='%s'/$(date +%%s%%N)-$$.json\ncat > \"$f\"\nexec '%s' \"$@\" < \"$f\"\n", dir, real))
		os.Chmod(link, 0o755)
	}
}

// writeCapture names the saved inputs by order, event and tool (or agent),
// replaces top (the session's temporary directory) with /home/user, and
// copies the transcript of the first rodin:critic SubagentStop.
func writeCapture(raw, dir, top string) error {
	files, _ := filepath.Glob(filepath.Join(raw, "*.json"))
	sort.Strings(files) // nanosecond names: the order Claude Code sent them
	// Only this capture's own files: the writers' and the background
	// captures keep theirs in subdirectories, and may run at the same time.
	old, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range old {
		os.Remove(f)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	home := "/home/user"
	dashed := strings.ReplaceAll(top, "/", "-") // Claude Code's name for a project directory
	fix := strings.NewReplacer(top+"/home", home, top+"/project", home+"/project", top, home,
		dashed+"-project", strings.ReplaceAll(home, "/", "-")+"-project")
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		what := gjson.GetBytes(b, "tool_name").String()
		if what == "" {
			what = strings.ReplaceAll(gjson.GetBytes(b, "agent_type").String(), ":", "-")
		}
		if t := gjson.GetBytes(b, "agent_transcript_path").String(); t != "" && strings.HasSuffix(what, "critic") {
			if tr, err := os.ReadFile(t); err == nil {
				os.WriteFile(filepath.Join(dir, "critic-transcript.jsonl"), []byte(fix.Replace(string(tr))), 0o644)
			}
		}
		var v any
		if err := json.Unmarshal([]byte(fix.Replace(string(b))), &v); err != nil {
			return fmt.Errorf("%s: %v", f, err)
		}
		pretty, _ := json.MarshalIndent(v, "", " ")
		name := fmt.Sprintf("%02d-%s-%s.json", i+1, gjson.GetBytes(b, "hook_event_name").String(), what)
		if err := os.WriteFile(filepath.Join(dir, name), append(pretty, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}
