package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func use(id, name, file string) string {
	in := `{"command":"x"}`
	if file != "" {
		in = `{"file_path":"` + file + `"}`
	}
	return `{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":` + in + `}]}}`
}

func result(id string) string {
	return `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"ok"}]}}`
}

// TestQuietBetween: only read-only calls, or edits the caller excuses,
// between the run and the call judged are quiet; anything else, a person's
// message, or a transcript without both calls, is not.
func TestQuietBetween(t *testing.T) {
	excused := func(p string) bool { return strings.HasSuffix(p, "tasks.md") }
	cases := []struct {
		name  string
		lines []string
		want  bool
	}{
		{"nothing between", []string{use("run", "Bash", ""), result("run"), use("tick", "Edit", "/p/tasks.md")}, true},
		{"reads between", []string{use("run", "Bash", ""), result("run"), use("r1", "Read", "/p/main.go"), result("r1"), use("g1", "Grep", ""), result("g1"), use("tick", "Edit", "/p/tasks.md")}, true},
		{"a task-file edit between", []string{use("run", "Bash", ""), result("run"), use("e0", "Edit", "/p/tasks.md"), result("e0"), use("tick", "Edit", "/p/tasks.md")}, true},
		{"a source edit between", []string{use("run", "Bash", ""), result("run"), use("e1", "Edit", "/p/main.go"), result("e1"), use("tick", "Edit", "/p/tasks.md")}, false},
		{"a Bash command between", []string{use("run", "Bash", ""), result("run"), use("b2", "Bash", ""), result("b2"), use("tick", "Edit", "/p/tasks.md")}, false},
		{"a subagent between", []string{use("run", "Bash", ""), result("run"), use("a1", "Agent", ""), result("a1"), use("tick", "Edit", "/p/tasks.md")}, false},
		{"a person's message between", []string{use("run", "Bash", ""), result("run"), `{"type":"user","message":{"role":"user","content":"I fixed main.go for you"}}`, use("tick", "Edit", "/p/tasks.md")}, false},
		{"a source edit in the run's own message", []string{use("run", "Bash", ""), use("e1", "Write", "/p/main.go"), result("run"), result("e1"), use("tick", "Edit", "/p/tasks.md")}, false},
		{"the run is not there", []string{use("other", "Bash", ""), use("tick", "Edit", "/p/tasks.md")}, false},
		{"the call judged is not there", []string{use("run", "Bash", ""), result("run")}, false},
		{"the call before the run", []string{use("tick", "Edit", "/p/tasks.md"), use("run", "Bash", "")}, false},
	}
	for _, c := range cases {
		p := filepath.Join(t.TempDir(), "t.jsonl")
		os.WriteFile(p, []byte(strings.Join(c.lines, "\n")+"\n"), 0o600)
		if got := QuietBetween(p, "run", "tick", excused, 10*time.Millisecond); got != c.want {
			t.Errorf("%s: QuietBetween = %v, want %v", c.name, got, c.want)
		}
	}
	if QuietBetween(filepath.Join(t.TempDir(), "none.jsonl"), "run", "tick", excused, 10*time.Millisecond) {
		t.Error("a missing transcript is quiet")
	}
}

// TestQuietBetweenWaits: the line of the call judged is written a little
// after its PreToolUse hook starts; QuietBetween waits for it.
func TestQuietBetweenWaits(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(p, []byte(use("run", "Bash", "")+"\n"+result("run")+"\n"), 0o600)
	go func() {
		time.Sleep(30 * time.Millisecond)
		f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(use("tick", "Edit", "/p/tasks.md") + "\n")
		f.Close()
	}()
	if !QuietBetween(p, "run", "tick", nil, 2*time.Second) {
		t.Fatal("the call's line came 30 ms late and was not waited for")
	}
}

// TestQuietBetweenFarBack: the run's line lies further back than the
// first chunk read (a long stretch of reads after it): still found.
func TestQuietBetweenFarBack(t *testing.T) {
	lines := []string{use("run", "Bash", ""), result("run")}
	for i := 0; len(strings.Join(lines, "\n")) < 300<<10; i++ {
		id := "r" + strings.Repeat("x", 3) + string(rune('a'+i%26)) + strings.Repeat("0", i%7)
		lines = append(lines, use(id, "Read", "/p/main.go"), `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+id+`","content":"`+strings.Repeat("package p ", 100)+`"}]}}`)
	}
	lines = append(lines, use("tick", "Edit", "/p/tasks.md"))
	p := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	if !QuietBetween(p, "run", "tick", nil, 10*time.Millisecond) {
		t.Fatal("a run 300 KB back, only reads since, is not quiet")
	}
}

// TestQuietBetweenAcrossReads: the tail is read back a piece at a time
// (4 KiB, then three times as much before it); a run whose line, or whose
// id, straddles where one piece ends and the next begins is found, and a
// source write after it is seen, wherever it falls.
func TestQuietBetweenAcrossReads(t *testing.T) {
	dir := t.TempDir()
	for _, back := range []int{4096, 16384, 65536} {
		for d := -120; d <= 120; d += 7 {
			pad := back + d
			for _, write := range []bool{false, true} {
				between := []string{result("run")}
				if write {
					between = append(between, use("w", "Write", "/p/main.go"), result("w"))
				}
				tail := strings.Join(append(between, use("tick", "Edit", "/p/tasks.md")), "\n") + "\n"
				filler := `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"old","content":"` + strings.Repeat("p", max(pad-len(tail), 0)) + `"}]}}`
				text := strings.Join([]string{use("old", "Read", "/p/a.go"), use("run", "Bash", ""), filler}, "\n") + "\n" + tail
				p := filepath.Join(dir, "t.jsonl")
				if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
				if got := QuietBetween(p, "run", "tick", nil, 0); got == write {
					t.Errorf("run line %d bytes from the end, a source write between: %v; quiet = %v", len(text)-strings.Index(text, `"id":"run"`), write, got)
				}
			}
		}
	}
}
