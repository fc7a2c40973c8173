package route

import (
	"testing"
	"time"
)

// The deadline setting can only shorten the deadline: a longer one, or one
// that does not parse, leaves the default.
func TestDeadline(t *testing.T) {
	for v, want := range map[string]time.Duration{
		"": DefaultDeadline, "2s": 2 * time.Second, "1h": DefaultDeadline, "-1s": DefaultDeadline, "soon": DefaultDeadline,
	} {
		got := Deadline(func(string) string { return v })
		if got != want {
			t.Errorf("Deadline(RODIN_GATE_DEADLINE=%q) = %v, want %v", v, got, want)
		}
	}
}
