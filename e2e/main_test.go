package e2e

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rodin-gate/rodin/internal/claudecli"
	"github.com/rodin-gate/rodin/internal/every"
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
	// The tier's own bound, a minute inside go test's -timeout (10m by
	// default; a cold run takes about 5): it names the scenarios still
	// running, instead of Go's dump of every goroutine.
	if f := flag.Lookup("test.timeout"); f != nil {
		if d, err := time.ParseDuration(f.Value.String()); err == nil && d > 2*time.Minute {
			start := time.Now()
			time.AfterFunc(d-time.Minute, func() {
				claudecli.Tell("rodin e2e: %s in, a minute before go test's -timeout %s; still running: %s\n",
					time.Since(start).Round(time.Second), d, strings.Join(runningScenarios(), ", "))
				// The sessions' tmux servers (and their claude) go too.
				exec.Command("pkill", "-f", fmt.Sprintf("rodin-e2e-%d-", os.Getpid())).Run()
				os.Exit(1)
			})
		}
	}
	stop := progress()
	code := m.Run()
	stop()
	os.Exit(code)
}

// progress writes a line every 10 s on the terminal (which go test does not
// capture: without -v it shows a passing package's output only at its end):
// how many scenarios are done and which run. No terminal, no lines.
func progress() (stop func()) {
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return func() {}
	}
	stopTicks := every.Start(10*time.Second, func(el time.Duration) {
		scenariosMu.Lock()
		n, running := finished, len(scenarios)
		scenariosMu.Unlock()
		fmt.Fprintf(tty, "rodin e2e: %s in, %d scenarios done, %d running\n", el.Round(time.Second), n, running)
	})
	return func() { stopTicks(); tty.Close() }
}

var (
	scenariosMu sync.Mutex
	scenarios   = map[string]time.Time{}
	finished    int
)

// runningScenarios are the scenarios under way, with how long each has run.
func runningScenarios() []string {
	scenariosMu.Lock()
	defer scenariosMu.Unlock()
	var out []string
	for name, since := range scenarios {
		out = append(out, fmt.Sprintf("%s (%s)", name, time.Since(since).Round(time.Second)))
	}
	sort.Strings(out)
	return out
}

// scenarioRuns records t as under way until it ends.
func scenarioRuns(t *testing.T) {
	scenariosMu.Lock()
	scenarios[t.Name()] = time.Now()
	scenariosMu.Unlock()
	t.Cleanup(func() {
		scenariosMu.Lock()
		delete(scenarios, t.Name())
		finished++
		scenariosMu.Unlock()
	})
}
