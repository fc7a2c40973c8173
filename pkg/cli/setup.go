package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/rodin-gate/rodin/internal/release"
	"github.com/rodin-gate/rodin/pkg/claudecode"
	"github.com/rodin-gate/rodin/pkg/contracts"
	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/project"
	"github.com/rodin-gate/rodin/pkg/provenance"
	"github.com/rodin-gate/rodin/pkg/sandbox"
	"github.com/rodin-gate/rodin/pkg/verifygate"
)

// hookExecutables are the programs hooks.json starts directly (exec form),
// as ${CLAUDE_PLUGIN_DATA}/bin/<name>.
var hookExecutables = []string{"pretooluse", "posttooluse", "stop", "artifacts"}

// evidenceMaxAge is how long a session's evidence is kept after its last
// write: long enough to resume a session, short enough not to pile up.
const evidenceMaxAge = 14 * 24 * time.Hour

// runSetup is the SessionStart hook (through the launcher, which has built
// the executables if they were missing). Before any tool call it links the
// hook executables for this machine where hooks.json starts them, so that
// no tool-call hook ever builds or searches; it prunes old evidence, and it
// tells the user what would otherwise be silent: a release rodin does not
// support, an opt-out in force, executables it could not prepare.
//
// It always exits 0 and speaks only through systemMessage: a SessionStart
// hook cannot block anything, and the gate itself fails closed when the
// executables are missing (onFailure "block").
func runSetup(e *env, args []string) error {
	if len(args) > 0 {
		return usageError{"setup takes no arguments"}
	}
	var notes []string
	if err := linkHookExecutables(e.getenv); err != nil {
		notes = append(notes, fmt.Sprintf("could not prepare the hook executables: %v; ExitPlanMode will be denied until it can (run `rodin doctor`)", err))
	}
	if v := claudecode.Version(e.getenv); !claudecode.Supported(v) {
		notes = append(notes, fmt.Sprintf("this Claude Code (%s) is older than %s, the oldest release rodin supports, so the plan gate denies every ExitPlanMode; update Claude Code (`claude update`)", v, claudecode.MinVersion))
	}
	if e.getenv("RODIN_GATE") == "off" {
		notes = append(notes, "the plan gate is OFF for this session (RODIN_GATE=off): ExitPlanMode is not checked")
	}
	if provenance.Off(e.getenv) {
		notes = append(notes, "provenance checks are OFF for this session (RODIN_PROVENANCE=off): a verdict the agent writes itself counts, with no critic or validator run behind it")
	}
	evidence.Prune(e.getenv, evidenceMaxAge, time.Now())
	if data := evidence.DataDir(e.getenv); data != "" {
		evidence.PruneDir(ledger.Dir(data), evidenceMaxAge, time.Now())
		evidence.PruneDir(filepath.Join(data, "messages"), evidenceMaxAge, time.Now())
	}
	in := readSessionStart(e)
	notes = append(notes, verifyBaseline(e, in)...)
	notes = append(notes, contractsSnapshot(e, in)...)
	mode := in.Get("permission_mode").String()
	if mode == "" && in.Get("session_id").Exists() {
		mode = sandbox.ModeFromProcess() // SessionStart carries no permission_mode
	}
	if st := sandbox.Detect(e.getenv, project.Root(e.getenv, in.Get("cwd").String()), mode); st.Unsandboxed {
		notes = append(notes, st.Message())
	}
	evidence.SealKey(e.getenv, true)
	if err := writeDataPointer(e.getenv); err != nil {
		notes = append(notes, fmt.Sprintf("could not record where its data lives (%v), so `rodin` in the Bash tool cannot read the recorded runs", err))
	}
	if len(notes) == 0 {
		return nil
	}
	b, _ := sjson.SetBytes([]byte(`{}`), "systemMessage", "[rodin] "+strings.Join(notes, ". ")+".")
	_, err := e.stdout.Write(append(b, '\n'))
	return err
}

// readSessionStart reads the SessionStart input on stdin; an empty result
// when run by hand.
func readSessionStart(e *env) gjson.Result {
	b, err := io.ReadAll(io.LimitReader(e.stdin, 1<<20))
	if err != nil || !gjson.ValidBytes(b) {
		return gjson.Result{}
	}
	return gjson.ParseBytes(b)
}

// verifyBaseline records the task boxes as the session begins, from the
// SessionStart input on stdin (session_id, cwd): the verify gate judges the
// boxes ticked after it.
func verifyBaseline(e *env, in gjson.Result) []string {
	if verifygate.Off(e.getenv) {
		return []string{"the verify gate is OFF for this session (RODIN_VERIFY=off): task boxes are not checked"}
	}
	session := in.Get("session_id").String()
	if !planfile.ValidSessionID(session) {
		return nil
	}
	// An earlier session whose Claude Code ended without its stop (a
	// loop's timeout) has its stop finished first: the boxes it leaves
	// ticked without checks are unticked before this session's start is
	// recorded, not taken for ticks made before it.
	var notes []string
	if ended := verifygate.FinishEnded(e.getenv, session, in.Get("cwd").String()); ended != "" {
		notes = append(notes, ended)
	}
	_, note, err := verifygate.TakeBaseline(e.getenv, session, in.Get("cwd").String())
	if err != nil {
		return append(notes, fmt.Sprintf("the verify gate could not record the task boxes at session start (%v)", err))
	}
	if note != "" {
		notes = append(notes, note)
	}
	return notes
}

// linkHookExecutables points CLAUDE_PLUGIN_DATA/bin/<name> at the
// executables beside this one (the launcher runs rodin from where it found
// it: the plugin's libexec, or the data directory it built into). A link,
// replaced atomically, is cheap at every session start and always names the
// plugin version that started the session.
func linkHookExecutables(getenv func(string) string) error {
	data := getenv("CLAUDE_PLUGIN_DATA")
	if data == "" {
		return errors.New("CLAUDE_PLUGIN_DATA is not set (Claude Code sets it for plugins)")
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	dir := filepath.Dir(self)
	bin := filepath.Join(data, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	for _, name := range hookExecutables {
		src := filepath.Join(dir, release.BinaryName(name, runtime.GOOS, runtime.GOARCH))
		src, err := executable(src, filepath.Join(data, "libexec"))
		if err != nil {
			return err
		}
		dst := filepath.Join(bin, name)
		if cur, err := os.Readlink(dst); err == nil && cur == src {
			continue
		}
		tmp := fmt.Sprintf("%s.%d.tmp", dst, os.Getpid())
		os.Remove(tmp)
		if err := os.Symlink(src, tmp); err != nil {
			return err
		}
		if err := os.Rename(tmp, dst); err != nil {
			os.Remove(tmp)
			return err
		}
	}
	// The launcher's stand-in, from a session start that could not prepare
	// the executables, is no longer linked.
	os.Remove(filepath.Join(bin, "unavailable"))
	os.Remove(filepath.Join(bin, "unavailable.why"))
	return nil
}

// executable returns path when it is an executable file; a file that lost
// its execute bits (an unzip, a copy) gets them back, or, where it cannot,
// is copied into dir with them.
func executable(path, dir string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is missing", path)
	}
	if fi.Mode().Perm()&0o111 != 0 || os.Chmod(path, fi.Mode().Perm()|0o111) == nil {
		return path, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	copied := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(copied, b, 0o755); err != nil {
		return "", fmt.Errorf("%s is not executable, and a copy could not be made: %v", path, err)
	}
	return copied, os.Chmod(copied, 0o755)
}

// writeDataPointer records CLAUDE_PLUGIN_DATA where `rodin` run from the
// Bash tool (which does not get the variable) looks for it.
func writeDataPointer(getenv func(string) string) error {
	data, ptr := getenv("CLAUDE_PLUGIN_DATA"), evidence.DataPointer(getenv)
	if data == "" || ptr == "" {
		return nil
	}
	if b, err := os.ReadFile(ptr); err == nil && strings.TrimSpace(string(b)) == data {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(ptr), 0o755); err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.%d.tmp", ptr, os.Getpid())
	if err := os.WriteFile(tmp, []byte(data+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, ptr)
}

// contractsSnapshot keeps the project's artifact contracts for the session
// (an edit mid-session changes nothing until the next one), and says when
// they are off or broken.
func contractsSnapshot(e *env, in gjson.Result) []string {
	if contracts.Off(e.getenv) {
		return []string{"artifact contracts are OFF for this session (RODIN_CONTRACTS=off): handover files are not checked"}
	}
	note, err := contracts.TakeSnapshot(e.getenv, in.Get("session_id").String(), project.Root(e.getenv, in.Get("cwd").String()))
	switch {
	case err != nil:
		return []string{fmt.Sprintf("could not keep the artifact contracts for this session (%v): the project's file as it is is used instead", err)}
	case note != "":
		return []string{note}
	}
	return nil
}
