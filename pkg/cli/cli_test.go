package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rodin-gate/rodin/internal/release"
	"github.com/rodin-gate/rodin/pkg/planfile"
)

func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Main(args, strings.NewReader(stdin), &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

// rodin extract and rodin gaps print exactly the text the hooks hash, and
// --next-id the id the model computes: one implementation, on every fixture.
func TestCommandsAgreeWithTheModel(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "plans", "*.md"))
	if len(files) == 0 {
		t.Fatal("no plan fixtures")
	}
	sum := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return hex.EncodeToString(h[:])
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d := planfile.Parse(data)
		plan, _, code := run(t, "", "extract", f)
		if code != 0 || sum(plan) != d.PlanDigest() {
			t.Errorf("%s: sha256(rodin extract) = %s, plan digest %s (exit %d)", f, sum(plan), d.PlanDigest(), code)
		}
		gaps, _, _ := run(t, "", "gaps", f)
		if gaps == "" {
			gaps = "\n" // the empty gaps content hashes as one newline
		}
		if sum(gaps) != d.GapsDigest() {
			t.Errorf("%s: sha256(rodin gaps) = %s, gaps digest %s", f, sum(gaps), d.GapsDigest())
		}
		next, _, _ := run(t, "", "gaps", "--next-id", f)
		if want := "GAP-" + strconv.Itoa(d.NextID("GAP", true)) + "\n"; next != want {
			t.Errorf("%s: next id %q, want %q", f, next, want)
		}
	}
}

// TestEveryCommandHasHelp: `rodin help COMMAND` says more than the usage
// line for every command.
func TestEveryCommandHasHelp(t *testing.T) {
	for name := range commands {
		if len(strings.TrimSpace(commandHelp[name])) < 80 {
			t.Errorf("rodin help %s: no help beyond the usage line", name)
		}
	}
	for name := range commandHelp {
		if _, ok := commands[name]; !ok {
			t.Errorf("help for %q, which is no command", name)
		}
	}
}

// rodin help build says how many executables it builds (issue 35: it said
// four when five were built).
func TestHelpBuildCount(t *testing.T) {
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight"}
	n := len(release.Executables)
	if n >= len(words) || !strings.Contains(commandHelp["build"], "builds the "+words[n]+" executables") {
		t.Errorf("rodin help build does not say %d executables:\n%s", n, commandHelp["build"])
	}
}
