package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rodin-gate/rodin/internal/claudecli"
	"github.com/rodin-gate/rodin/internal/release"
)

var (
	releaseOnce sync.Once
	releaseDir  string
	releaseErr  error
	releaseLog  []byte
)

// cutRelease runs the one command that cuts a release, `rodin release`, in
// a copy of this checkout (for this machine's platform only), once per test
// binary: the archives, their SHA256SUMS, and dist/marketplace, the
// marketplace a user without Go adds.
func cutRelease(t *testing.T) string {
	t.Helper()
	releaseOnce.Do(func() {
		top, err := os.MkdirTemp("", "rodin-e2e-release-")
		if err != nil {
			releaseErr = err
			return
		}
		checkout := filepath.Join(top, "checkout")
		if releaseErr = release.CopyTree("..", checkout, ".git", "dist", "testdata", filepath.Join("plugin", "libexec")); releaseErr != nil {
			return
		}
		releaseDir = filepath.Join(top, "dist")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "run", "./hooks/rodin", "release", "--platform", runtime.GOOS+"/"+runtime.GOARCH, "--out", releaseDir)
		cmd.Dir = checkout
		releaseLog, releaseErr = cmd.CombinedOutput()
	})
	if releaseErr != nil {
		t.Fatalf("rodin release: %v\n%s", releaseErr, releaseLog)
	}
	return releaseDir
}

// 10. A Claude Code user without Go installs rodin the way plugins are
// installed: `claude plugin marketplace add` of the marketplace a release
// publishes (a local git repository laid out by `rodin release`) and
// `claude plugin install rodin@rodin`. The first session's start downloads
// the executables (served on 127.0.0.1 here) and checks them against the
// checksums the installed plugin carries; ExitPlanMode is denied by the
// real gate ("Assessment pending", not the stand-in that cannot run), and an
// honest assessment opens it.
func TestNoGoMarketplaceInstall(t *testing.T) { eachRelease(t, testNoGoMarketplaceInstall) }

func testNoGoMarketplaceInstall(t *testing.T, rel claudecli.Release) {
	dist := cutRelease(t)
	var mu sync.Mutex
	var served []string
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served = append(served, r.URL.Path)
		mu.Unlock()
		http.FileServer(http.Dir(dist)).ServeHTTP(w, r)
	}))
	t.Cleanup(files.Close)

	srv := newServer(t)
	srv.agents = map[string][]string{"leakage-detector": {noLeakage}, "critic": {criticFinding}, "validator": {validatorPass}}
	srv.main = append(append([]turn{writePlan, exitPlanMode, say("ExitPlanMode was denied; I will assess the plan.")}, skill()...), exitPlanMode)
	tools := toolsWithoutGo(t)
	for _, name := range []string{"curl", "wget", "tar", "gzip", "sha256sum", "shasum", "date", "timeout", "dirname", "basename", "readlink", "mktemp", "id", "sleep", "kill", "sort", "awk", "cut", "wc", "touch", "find", "xargs", "stat", "realpath", "printf", "test", "true", "false", "expr"} {
		if p, err := exec.LookPath(name); err == nil {
			os.Symlink(p, filepath.Join(tools, name))
		}
	}
	if _, err := os.Stat(filepath.Join(tools, "go")); err == nil {
		t.Fatal("go is on the session's PATH")
	}
	opt := options{installed: true, noBinaries: true, env: []string{"PATH=" + tools, "RODIN_RELEASE_URL=" + files.URL},
		setup: func(s *session, env []string) {
			env = append(append([]string{}, env...), "PATH="+tools)
			os.Symlink(rel.Path, filepath.Join(tools, "claude"))
			for _, args := range [][]string{
				{"plugin", "marketplace", "add", filepath.Join(dist, "marketplace")},
				{"plugin", "install", "rodin@rodin"},
			} {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				cmd := exec.CommandContext(ctx, filepath.Join(tools, "claude"), args...)
				cmd.Dir, cmd.Env = s.home, env
				out, err := cmd.CombinedOutput()
				cancel()
				t.Logf("claude %s:\n%s", strings.Join(args, " "), out)
				if err != nil {
					t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
				}
			}
		}}
	s := startSession(t, rel.Path, srv, opt)
	s.prompt("Plan the CSV export.")

	exit := s.waitResult("ExitPlanMode", 0)
	if !exit.IsError || !strings.Contains(exit.Text, "Assessment pending") || strings.Contains(exit.Text, "cannot run") {
		t.Fatalf("the first ExitPlanMode of an install without Go: is_error=%v %s\nwant the gate's deny, Assessment pending", exit.IsError, exit.Text)
	}
	mu.Lock()
	got := strings.Join(served, " ")
	mu.Unlock()
	if archive := "/" + release.ArchiveName("0.1.0", runtime.GOOS, runtime.GOARCH); !strings.Contains(got, archive) {
		t.Errorf("the release archive was not downloaded from 127.0.0.1 (served: %s)", got)
	}
	s.runSkill(2)
	record := s.waitResult("Bash", 6)
	if record.IsError || !strings.Contains(record.Text, "recorded: pass: ") {
		t.Fatalf("rodin verdict --record: %+v", record)
	}
	s.waitPane("the plan approval dialog", 60*time.Second, func(p string) bool { return strings.Contains(p, "Would you like to proceed") })
}
