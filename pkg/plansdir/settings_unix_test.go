//go:build unix

package plansdir

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSettingsFIFO: a FIFO put in place of a settings file is read as no
// setting at once (every hook reads the settings: a blocking open would
// hold each one until its deadline), and the next file's setting counts.
func TestSettingsFIFO(t *testing.T) {
	project, config := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(project, ".claude", "settings.local.json"), 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if err := os.WriteFile(filepath.Join(project, ".claude", "settings.json"), []byte(`{"plansDirectory":"docs/plans"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := Env{Getenv: func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return config
		}
		return ""
	}, Cwd: project}
	done := make(chan []string, 1)
	go func() { done <- Dirs(env) }()
	select {
	case dirs := <-done:
		want := []string{filepath.Join(project, "docs/plans"), filepath.Join(config, "plans")}
		if len(dirs) != 2 || dirs[0] != want[0] || dirs[1] != want[1] {
			t.Errorf("Dirs = %q, want %q", dirs, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Dirs still waiting on the FIFO after 5s")
	}
}
