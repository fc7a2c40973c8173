package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rodin-gate/rodin/internal/claudecli"
)

// The native eval suite of the plugin (plugin/evals/), run by the installed
// CLI's own `claude plugin eval` against the scripted server, which plays
// the model of each case. The cases must load and their graders must be
// passable with the tools the run grants: the CLI only warns about either
// on stderr (a bad case file leaves the exit status 0), so the test reads
// stderr and the JSON result. Graders are free ones (regex, tool_used,
// tool_order): no judge model is asked.

// needPluginEval skips the test unless the CLI has `claude plugin eval`
// (older releases print the plugin command's general help instead) and
// the sandbox it needs to run a case that may use Bash (bubblewrap and
// socat on Linux; .ci/run installs them).
func needPluginEval(t *testing.T, rel claudecli.Release) {
	t.Helper()
	out, err := exec.Command(rel.Path, "plugin", "eval", "--help").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "Usage: claude plugin eval") {
		t.Skipf("claude %s has no `plugin eval`", rel.Version)
	}
	for _, bin := range []string{"bwrap", "socat"} {
		if _, err := exec.LookPath(bin); err != nil && runtime.GOOS == "linux" {
			t.Skipf("%s is not on PATH: claude plugin eval refuses to run without its sandbox (.ci/run installs it)", bin)
		}
	}
}

// evalTools are the gated tools granted, as the README says to run the
// suite: with Bash granted, "runs no rodin step" means something.
var evalTools = []string{"Bash"}

type evalResult struct {
	Cases []struct {
		Name string
		Arms struct {
			With []struct {
				Passed  bool
				Error   *string
				Graders []struct {
					Name        string
					Passed      bool
					Explanation string
				}
			}
		}
	}
}

func TestPluginEval(t *testing.T) { eachRelease(t, testPluginEval) }

func testPluginEval(t *testing.T, rel claudecli.Release) {
	needPluginEval(t, rel)
	dirs, _ := filepath.Glob(filepath.Join("..", "plugin", "evals", "*", "prompt.md"))
	var cases []string
	for _, d := range dirs {
		cases = append(cases, filepath.Base(filepath.Dir(d)))
	}
	scripts := map[string]func(srv *server){
		"outside-plan-mode": func(srv *server) { srv.main = []turn{say("Must be invoked in plan mode.")} },
		"chosen-by-description": func(srv *server) {
			invoke := func(*server, int) []block { return []block{tool("Skill", map[string]any{"skill": "rodin:plan-gate"})} }
			srv.main = []turn{invoke, say("Must be invoked in plan mode.")}
		},
	}
	for _, name := range cases {
		if scripts[name] == nil {
			t.Errorf("plugin/evals/%s has no scripted model in this test", name)
		}
	}
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			srv := newServer(t)
			scripts[name](srv)
			res, stderr := runPluginEval(t, rel, srv, name, "")
			if loadProblem(stderr) {
				t.Errorf("the case does not load cleanly:\n%s", stderr)
			}
			if len(res.Cases) != 1 || res.Cases[0].Name != name || len(res.Cases[0].Arms.With) != 1 {
				t.Fatalf("no run of %s in the result: %+v\n%s", name, res, stderr)
			}
			run := res.Cases[0].Arms.With[0]
			if run.Error != nil {
				t.Errorf("the run failed: %s", *run.Error)
			}
			for _, g := range run.Graders {
				t.Logf("grader %s: passed=%v (%s)", g.Name, g.Passed, g.Explanation)
				if !g.Passed {
					t.Errorf("grader %s failed: %s\n%s", g.Name, g.Explanation, srv.summary())
				}
			}
			if !run.Passed || len(run.Graders) == 0 {
				t.Errorf("the case did not pass (%d graders)", len(run.Graders))
			}
			// The plugin was loaded: the model read the skill itself.
			if !bytes.Contains(srv.body, []byte("rodin denies ExitPlanMode until a passing verdict")) {
				t.Errorf("the skill's instructions never reached the model\n%s", srv.summary())
			}
		})
	}
}

// loadProblem reports whether the CLI said a case did not load or has a
// grader that cannot pass ("✗", "⚠"; 2.1.330 sums up "Couldn't load N
// case file", 2.1.295 "N case file(s) failed to load").
func loadProblem(stderr string) bool {
	for _, s := range []string{"✗ ", "⚠ ", "Couldn't load", "failed to load"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}

// A case file the CLI cannot load is caught by the checks above: the
// CLI's way of saying so has not changed.
func TestPluginEvalBadCase(t *testing.T) { eachRelease(t, testPluginEvalBadCase) }

func testPluginEvalBadCase(t *testing.T, rel claudecli.Release) {
	needPluginEval(t, rel)
	srv := newServer(t)
	_, stderr := runPluginEval(t, rel, srv, "broken", "---\nschema_version: \"1.0\"\nmax_turn: 3\n---\nHello.\n")
	if !loadProblem(stderr) || !strings.Contains(stderr, `unknown frontmatter key "max_turn"`) {
		t.Errorf("a bad case file went unreported:\n%s", stderr)
	}
}

// runPluginEval runs one case of a copy of the plugin (with the hooks'
// executables) through `claude plugin eval`, once, with the plugin only.
// extra, when set, is the prompt.md of one more case, evals/<name>.
func runPluginEval(t *testing.T, rel claudecli.Release, srv *server, name, extra string) (evalResult, string) {
	t.Helper()
	x := newExerciseEnv(t, rel, srv)
	plugin := filepath.Join(x.top, "plugin")
	copyRodinPlugin(t, plugin)
	if extra != "" {
		os.MkdirAll(filepath.Join(plugin, "evals", name), 0o755)
		writeFile(t, filepath.Join(plugin, "evals", name, "prompt.md"), extra)
	}
	out := filepath.Join(x.top, "eval.json")
	args := append([]string{"plugin", "eval", plugin, "--trust-plugin", "--no-publish", "--runs", "1", "--ablation", "none",
		"--case", name, "--json", out, "--output-dir", filepath.Join(x.top, "results"), "--allow-tools"}, evalTools...)
	cmd := exec.Command(rel.Path, args...)
	cmd.Dir = x.top
	cmd.Env = x.env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	t.Logf("claude %s: %v\nstderr:\n%s", strings.Join(args, " "), err, e.String())
	var res evalResult
	if extra != "" {
		return res, e.String()
	}
	data, rerr := os.ReadFile(out)
	if rerr != nil {
		t.Fatalf("no JSON result: %v\n%s", rerr, srv.summary())
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	// Exit 1 is a case below the threshold: the graders say which.
	if err != nil && cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("claude plugin eval: %v", err)
	}
	return res, e.String()
}
