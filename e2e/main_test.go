package e2e

import (
	"flag"
	"os"
	"os/exec"
	"testing"

	"github.com/rodin-gate/rodin/internal/claudecli"
)

// TestMain lets four scenarios run at once unless -parallel says
// otherwise: the tier mostly waits (on sessions, timeouts, the scripted
// server), and sessionSlots keeps the interactive sessions to two.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", "4")
	}
	if !testing.Short() {
		// Every release the tier uses, downloaded side by side when they
		// are not there yet (a cold run), before the first test waits on one.
		want := claudecli.Versions()
		if os.Getenv("RODIN_CLAUDE_VERSION") == "" {
			want = append(want, claudecli.Unsupported)
		}
		if _, err := exec.LookPath("tmux"); err == nil {
			claudecli.Prepare(want...)
		}
	}
	os.Exit(m.Run())
}
