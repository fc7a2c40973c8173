package e2e

import (
	"flag"
	"os"
	"testing"
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
	os.Exit(m.Run())
}
