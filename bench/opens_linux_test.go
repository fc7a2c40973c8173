package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/rodin-gate/rodin/internal/release"
	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/planfile"
)

// With planFilePath present, the gate opens that plan and no other file in
// the plans directory: inotify reports every open in the directory.
//
// It builds only what it needs (the gate, built as releases are, and 2,000
// plan files): go test ./... runs it in every CI pass, and the benchmark's
// whole fixture (every executable, plans up to 10 MB, the installed plugin)
// cost a cold run about a minute more.
func TestPlanFilePathOpensOnlyThatPlan(t *testing.T) {
	root := t.TempDir()
	data, many, project := filepath.Join(root, "data"), filepath.Join(root, "many"), filepath.Join(root, "project")
	dir := filepath.Join(many, ".claude", "plans") // 2,000 plan files
	for _, d := range []string{data, dir, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dataDir = data // where passing() records the runs behind each plan; build() sets its own
	planfile.SetSealKey(evidence.SealKey(func(k string) string {
		if k == "CLAUDE_PLUGIN_DATA" {
			return data
		}
		return ""
	}, true))
	modRoot, _ := filepath.Abs("..")
	if err := release.Build(modRoot, filepath.Join(root, "bin"), []string{"./hooks/pretooluse"}, [][2]string{{runtime.GOOS, runtime.GOARCH}}, io.Discard); err != nil {
		t.Fatal(err)
	}
	gate := filepath.Join(root, "bin", release.BinaryName("pretooluse", runtime.GOOS, runtime.GOARCH))
	for i := 0; i < 2000; i++ {
		sess := fmt.Sprintf("00000000-0000-0000-0000-%012d", i)
		if i == 0 {
			sess = session
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("plan-%04d.md", i)), []byte(passing(makePlan(4<<10), sess)), 0o644)
	}
	target := filepath.Join(dir, "plan-0000.md")

	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	defer syscall.Close(fd)
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_OPEN); err != nil {
		t.Fatal(err)
	}
	opened := func() []string {
		var names []string
		buf := make([]byte, 1<<16)
		for {
			n, err := syscall.Read(fd, buf)
			if n <= 0 || err != nil {
				return names
			}
			for off := 0; off < n; {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := string(bytes.TrimRight(buf[off+syscall.SizeofInotifyEvent:off+syscall.SizeofInotifyEvent+int(ev.Len)], "\x00"))
				if name == "" {
					name = "(the directory itself)"
				}
				names = append(names, name)
				off += syscall.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}

	run := func(withPath bool) []string {
		opened() // drain
		input := `{}`
		if withPath {
			plan, _ := os.ReadFile(target)
			input = `{"plan":` + jsonString(string(plan)) + `,"planFilePath":` + jsonString(target) + `}`
		}
		cmd := exec.Command(gate)
		cmd.Dir = project
		cmd.Env = []string{"HOME=" + many, "PATH=" + os.Getenv("PATH"), "RODIN_NOW=2026-11-21T12:00:00Z", "CLAUDE_PLUGIN_DATA=" + data}
		cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":%q,"transcript_path":"/tmp/t.jsonl","cwd":%q,"permission_mode":"plan","hook_event_name":"PreToolUse","tool_name":"ExitPlanMode","tool_input":%s,"tool_use_id":"toolu_3"}`, session, project, input))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pretooluse: %v\n%s", err, out)
		}
		time.Sleep(50 * time.Millisecond)
		return opened()
	}
	// Control: without planFilePath the search opens the directory and
	// every plan file, so the watch does see opens.
	if got := run(false); len(got) < 2000 {
		t.Fatalf("control: the session search opened %d files; the watch is not working", len(got))
	}
	got := run(true)
	if len(got) != 1 || got[0] != "plan-0000.md" {
		t.Errorf("with planFilePath the gate opened %d files (%.200v), want only plan-0000.md", len(got), got)
	}
}
