package messages

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestTold: a message to the run's id, or to a name while it ran, tells
// it; one to another id, to main, or by name outside its run does not; a
// damaged log says it may have.
func TestTold(t *testing.T) {
	data := t.TempDir()
	t0 := time.Unix(1000, 0)
	Record(data, "s", "a1111111111111111", t0)
	Record(data, "s", "main", t0)
	Record(data, "s", "qa-helper", t0.Add(10*time.Second))
	for _, tc := range []struct {
		agent       string
		start, stop time.Time
		want        bool
	}{
		{"a1111111111111111", t0.Add(-time.Hour), t0.Add(time.Hour), true},
		{"a2222222222222222", t0.Add(-time.Hour), t0.Add(5 * time.Second), false},
		{"a2222222222222222", t0.Add(5 * time.Second), t0.Add(20 * time.Second), true},
		{"a2222222222222222", t0.Add(15 * time.Second), t0.Add(20 * time.Second), false},
	} {
		if got := Told(data, "s", tc.agent, tc.start, tc.stop); got != tc.want {
			t.Errorf("Told(%s, %v..%v) = %v, want %v", tc.agent, tc.start.Unix(), tc.stop.Unix(), got, tc.want)
		}
	}
	if Told(data, "other", "a1111111111111111", t0, t0) {
		t.Error("a session with no messages told a run")
	}
	os.WriteFile(filepath.Join(data, "messages", "bad.jsonl"), []byte("{not json\n"), 0o600)
	if !Told(data, "bad", "a3333333333333333", t0, t0) {
		t.Error("a damaged log did not count as told")
	}
}
