package ledger

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rodin-gate/rodin/pkg/hookio"
)

// TestBackgroundReplay replays the background tasks of real sessions
// (testdata/fixtures/claude-code-<v>/background: a background `sleep`, a
// background subagent, the stops while they ran and the one after):
// each launch is a background window, open while a stop lists it and
// closed by the first stop that no longer does.
func TestBackgroundReplay(t *testing.T) {
	for _, v := range []string{"2.1.295", "2.1.330", "2.1.332"} {
		t.Run(v, func(t *testing.T) {
			dir := filepath.Join("..", "..", "testdata", "fixtures", "claude-code-"+v, "background")
			files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
			if len(files) == 0 {
				t.Fatalf("no fixtures in %s", dir)
			}
			data := t.TempDir()
			var session string
			var listedOnce bool
			for _, f := range files {
				raw, _ := os.ReadFile(f)
				in, err := hookio.Read(bytes.NewReader(raw))
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				session = in.SessionID()
				switch in.HookEventName() {
				case "PostToolUse":
					if in.ToolName() == "Agent" {
						AppendAgentLaunch(in, data)
					} else {
						AppendBash(in, data)
					}
				default:
					listed := RunningTasks(in)
					if listed == nil {
						t.Fatalf("%s: no background_tasks", f)
					}
					listedOnce = listedOnce || len(listed) > 0
					NoteStop(in, data)
				}
			}
			if !listedOnce {
				t.Fatal("no stop listed a running task")
			}
			runs, _, err := Runs(data, session)
			if err != nil {
				t.Fatal(err)
			}
			var bg []Window
			for _, w := range Windows(runs) {
				if w.Background != "" {
					bg = append(bg, w)
				}
			}
			// The captures launched two background sleeps and a subagent.
			if len(bg) < 2 {
				t.Fatalf("background windows: %+v", bg)
			}
			sawAgent := false
			for _, w := range bg {
				if w.End == math.MaxInt64 {
					t.Errorf("%s is still open after the last stop listed nothing", w.Background)
				}
				sawAgent = sawAgent || w.Background[0] == 'a'
				if got, ok := Attribute(bg, w.Start+1); !ok || got.Background == "" {
					t.Errorf("a change just after %s's launch is not the session's", w.Background)
				}
			}
			if !sawAgent {
				t.Errorf("the background subagent is no window: %+v", bg)
			}
			last := runs[len(runs)-1]
			if _, ok := Attribute(bg, last.Time+int64(Slack)); ok {
				t.Error("a change after every task ended is taken for the session's")
			}
		})
	}
}

// TestAttribute: a foreground call's window (its duration and the slack
// around it) explains a change; outside every window nothing does; the
// latest foreground call is preferred to a background task.
func TestAttribute(t *testing.T) {
	const s = int64(1e9)
	runs := []Run{
		{Time: 100 * s, Kind: KindBash, Dur: 10000, Agent: "", Command: "make"},
		{Time: 200 * s, Kind: KindBash, Exit: ExitBackground, Bg: "b1", Agent: "a1", Type: "worker"},
		{Time: 300 * s, Kind: KindBash, Dur: 0, Agent: "a2", Type: "verifier"},
		{Time: 400 * s, Kind: KindBgDone, Bg: "b1"},
	}
	ws := Windows(runs)
	for _, c := range []struct {
		at    int64
		agent string
		ok    bool
	}{
		{95 * s, "", true},      // during make
		{87 * s, "", false},     // before make began, less the slack
		{150 * s, "", false},    // between calls, nothing running
		{250 * s, "a1", true},   // the background task runs
		{299 * s, "a2", true},   // a2's call, over the background task
		{450 * s, "", false},    // after the background task ended
		{100*s + s/4, "", true}, // just after the record: the end slack
	} {
		w, ok := Attribute(ws, c.at)
		if ok != c.ok || ok && w.Agent != c.agent {
			t.Errorf("at %ds: got %+v %v, want agent %q %v", c.at/s, w, ok, c.agent, c.ok)
		}
	}
}

// TestSkillShellWindow: a skill's inline shell command (2.1.332's
// PreSkillShellCommand) is the agent's from its start until the session's
// next run, two minutes at most; its window is among the ones a later
// sweep (the contracts', the verify gate's) attributes changes by.
func TestSkillShellWindow(t *testing.T) {
	s := int64(time.Second)
	t0 := int64(1_000_000) * s
	runs := []Run{
		{Time: t0, Kind: KindSkillShell, Exit: ExitUnknown, Tool: "toolu_1_Skill:preamble-0", Dur: -1},
		{Time: t0 + 3*s, Kind: KindClaim},
		{Time: t0 + 5*s, Kind: KindBash, Dur: 10},
	}
	bg := windowsWhere(Windows(runs), func(w Window) bool { return w.Background != "" })
	if len(bg) != 1 || bg[0].Background != "skill:toolu_1_Skill:preamble-0" {
		t.Fatalf("background windows: %+v", bg)
	}
	for _, c := range []struct {
		at   int64
		want bool
	}{{t0 - 3*s, false}, {t0 + s, true}, {t0 + 4*s, true}, {t0 + 7*s, false}} {
		if _, ok := Attribute(bg, c.at); ok != c.want {
			t.Errorf("a change %v after the command: the agent's = %v, want %v", time.Duration(c.at-t0), ok, c.want)
		}
	}
	// The Skill tool's call (releases before 2.1.332): its duration.
	call := Windows([]Run{{Time: t0, Kind: KindSkillShell, Exit: ExitUnknown, Dur: 3000}})[0]
	if call.Start != t0-3*s-int64(Slack) || call.End != t0+int64(EndSlack) {
		t.Errorf("the Skill call's window: %v to %v", time.Duration(call.Start-t0), time.Duration(call.End-t0))
	}
	// Nothing after it: two minutes at most.
	w := Windows(runs[:1])[0]
	if w.End != t0+int64(SkillShellMax)+int64(EndSlack) {
		t.Errorf("a lone skill command's window ends %v after it", time.Duration(w.End-t0))
	}
}

func windowsWhere(ws []Window, keep func(Window) bool) []Window {
	var out []Window
	for _, w := range ws {
		if keep(w) {
			out = append(out, w)
		}
	}
	return out
}

// TestLogMark: the stop's mark of how much of the run log it looked at
// reads back as written; a missing, torn or damaged mark reads as none
// (the stop then looks at every directory again), never as a size.
func TestLogMark(t *testing.T) {
	data := t.TempDir()
	os.MkdirAll(Dir(data), 0o700)
	if _, ok := LoadLogMark(data, "s1"); ok {
		t.Fatal("a missing mark read as a size")
	}
	for _, size := range []int64{0, 12345, 1 << 40} {
		if err := SaveLogMark(data, "s1", size); err != nil {
			t.Fatal(err)
		}
		if got, ok := LoadLogMark(data, "s1"); !ok || got != size {
			t.Fatalf("mark %d read as %d %v", size, got, ok)
		}
	}
	SaveLogMark(data, "s1", 99)
	for name, b := range map[string]string{
		"torn":      "00000000000000000099 00000000000000012345\n",
		"short":     "00000000000000000099 000000000000000\n",
		"damaged":   "0000000000000000009x 0000000000000000009x\n",
		"negative":  "-0000000000000000099 -0000000000000000099\n",
		"too long":  "00000000000000000099 00000000000000000099\nmore",
		"no breaks": "0000000000000000009900000000000000000099\n\n",
	} {
		os.WriteFile(logMarkPath(data, "s1"), []byte(b), 0o600)
		if got, ok := LoadLogMark(data, "s1"); ok {
			t.Errorf("%s mark %q read as %d", name, b, got)
		}
	}
}

// TestLogGrowth: the run log's size, and whether what was appended after
// an offset ran in the background; a log that shrank, or an offset it
// cannot be read from, is the cautious answer (background).
func TestLogGrowth(t *testing.T) {
	data := t.TempDir()
	os.MkdirAll(Dir(data), 0o700)
	if size, bg := LogGrowth(data, "s1", 0); size != 0 || bg {
		t.Fatalf("no log: %d %v", size, bg)
	}
	Append(data, "s1", Run{Time: 1, Kind: KindBash, Command: "go test", Cwd: "/p", Exit: 0})
	fi, _ := os.Stat(logPath(data, "s1"))
	first := fi.Size()
	Append(data, "s1", Run{Time: 2, Kind: KindBash, Command: "make", Cwd: "/p", Exit: ExitBackground})
	fi, _ = os.Stat(logPath(data, "s1"))
	all := fi.Size()
	for _, tc := range []struct {
		offset int64
		bg     bool
	}{{0, true}, {first, true}, {all, false}, {all + 10, true}, {-1, true}} {
		if size, bg := LogGrowth(data, "s1", tc.offset); size != all || bg != tc.bg {
			t.Errorf("LogGrowth from %d = %d %v, want %d %v", tc.offset, size, bg, all, tc.bg)
		}
	}
	Append(data, "s2", Run{Time: 1, Kind: KindBash, Command: "ls", Cwd: "/p", Exit: 0})
	if _, bg := LogGrowth(data, "s2", 0); bg {
		t.Error("a foreground run read as one in the background")
	}
}
