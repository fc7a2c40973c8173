package planfile

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"
)

// referenceDir is RODIN_SHARED_DIR/reference, or else ../shared/reference
// beside the repository, reached through the symbolic link
// testdata/shared -> ../../shared. The link keeps the path inside the
// module, where go test's cache looks: a skip recorded while ../shared was
// missing is not replayed from the cache once it appears.
func referenceDir() string {
	if d := os.Getenv("RODIN_SHARED_DIR"); d != "" {
		return filepath.Join(d, "reference")
	}
	return filepath.Join("..", "..", "testdata", "shared", "reference")
}

// fixturePlans returns the plan fixtures and the plan texts carried by the
// captured Claude Code hook inputs.
func fixturePlans(t *testing.T) map[string][]byte {
	plans := readPlans(t)
	inputs, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "fixtures", "*", "*.json"))
	for _, f := range inputs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"tool_input.content", "tool_input.plan", "tool_response.originalFile"} {
			if v := gjson.GetBytes(b, path); v.Type == gjson.String {
				plans[filepath.Base(f)+":"+path] = []byte(v.String())
			}
		}
	}
	return plans
}

// TestReferenceDigests runs the original shell hook (shared/reference/
// post_tool_use.sh, unchanged) on every fixture in a throwaway HOME and
// checks that the digests it records equal rodin's. Fixtures with a marker
// that rodin reads as text (inside code, or inline) are where the designs
// differ on purpose, and are skipped by name.
func TestReferenceDigests(t *testing.T) {
	script := filepath.Join(referenceDir(), "post_tool_use.sh")
	if _, err := os.Stat(script); err != nil {
		t.Skipf("skipping: the reference shell hooks are not at %s (set RODIN_SHARED_DIR)", referenceDir())
	}
	for _, tool := range []string{"bash", "jq", "python3", "shasum", "sed"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipping: the reference shell hook needs %s, which is not on PATH", tool)
		}
	}
	compared := 0
	for name, plan := range fixturePlans(t) {
		t.Run(name, func(t *testing.T) {
			d := Parse(plan)
			if n := bytes.Count(plan, []byte(markerOpen)); n != d.metaLineCount() {
				t.Skipf("%d lines hold a rodin marker, %d are metadata: a marker in code or inline, where rodin differs from the shell design on purpose", n, d.metaLineCount())
			}
			home := t.TempDir()
			plans := filepath.Join(home, ".claude", "plans")
			if err := os.MkdirAll(plans, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(plans, "fixture.md")
			if err := os.WriteFile(path, plan, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("bash", script)
			cmd.Env = append(os.Environ(), "HOME="+home)
			cmd.Stdin = bytes.NewReader([]byte(`{"session_id":"s-1","permission_mode":"plan","tool_input":{"file_path":"` + path + `"}}`))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("reference hook: %v\n%s", err, out)
			}
			written, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			shell := Parse(written).Trailer()
			if shell.PlanHash != d.PlanDigest() || shell.GapsHash != d.GapsDigest() {
				t.Errorf("digests differ:\nshell plan %s gaps %s\nrodin plan %s gaps %s\n--- fixture:\n%s",
					shell.PlanHash, shell.GapsHash, d.PlanDigest(), d.GapsDigest(), plan)
			}
			compared++
		})
	}
	if compared < 8 {
		t.Errorf("only %d fixtures compared with the shell design; the skip rule is too wide", compared)
	}
}

func (d *Doc) metaLineCount() int {
	n := 0
	for _, l := range d.lines {
		if l.isMetaLine {
			n++
		}
	}
	// Unknown keys inside the gaps block are gaps text for rodin and
	// for the shell alike.
	for _, l := range d.lines {
		if l.inGapsBlock && bytes.HasPrefix(bytes.TrimLeft(d.norm[l.start:l.end], " \t"), []byte(markerOpen)) {
			n++
		}
	}
	return n
}
