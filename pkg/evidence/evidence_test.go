package evidence

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Hooks of one session run concurrently (an Agent PostToolUse and a
// SubagentStop): no update may be lost.
func TestConcurrentUpdatesLoseNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "evidence", "s.json")
	const n = 12 // within maxRuns, so that every run is kept
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if err := Update(path, func(l *Log) bool {
				l.AddCritic(CriticRun{AgentID: fmt.Sprint("a", i)})
				return true
			}); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	l, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if !l.Finished(fmt.Sprint("a", i)) {
			t.Errorf("run a%d was lost; have %d runs", i, len(l.Critics))
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the evidence file is %v (%v), want private to the user", fi.Mode(), err)
	}
}

// Runs that never finish do not grow the file without bound, and the
// oldest launches go first.
func TestLaunchesAreBounded(t *testing.T) {
	var l Log
	base := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for i := 0; i < maxLaunches+5; i++ {
		l.AddLaunch(fmt.Sprint("x", i), Launch{Agent: "rodin:critic", TS: base.Add(time.Duration(i) * time.Second).Format(time.RFC3339)})
	}
	if len(l.Launches) != maxLaunches {
		t.Fatalf("%d launches kept, want %d", len(l.Launches), maxLaunches)
	}
	if _, ok := l.Launches["x0"]; ok {
		t.Errorf("the oldest launch was kept")
	}
	if _, ok := l.Launches[fmt.Sprint("x", maxLaunches+4)]; !ok {
		t.Errorf("the newest launch was dropped")
	}
}

func TestPathRefusesSessionsThatNameNoFile(t *testing.T) {
	getenv := func(k string) string {
		if k == "CLAUDE_PLUGIN_DATA" {
			return "/data"
		}
		return ""
	}
	for _, s := range []string{"", "..", "../x", "a/b", "a.b", string(make([]byte, 129))} {
		if p := Path(getenv, s); p != "" {
			t.Errorf("Path(%q) = %q, want none", s, p)
		}
	}
	if p := Path(getenv, "602457db-9741-478b-98fc-6828639598fc"); p != "/data/evidence/602457db-9741-478b-98fc-6828639598fc.json" {
		t.Errorf("Path of a UUID = %q", p)
	}
}
