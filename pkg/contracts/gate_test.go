package contracts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/ledger"
)

// TestFirstWriterRace: 20 writers race for one first-writer file, each in
// its own hook (goroutines here; the claim is an O_EXCL create, which the
// file system arbitrates the same across processes): exactly one is let
// through.
func TestFirstWriterRace(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, ".rodin"), 0o755)
	os.WriteFile(filepath.Join(root, File), []byte(RLPDesk), 0o644)
	getenv := func(k string) string {
		switch k {
		case "CLAUDE_PLUGIN_DATA":
			return data
		case "CLAUDE_PROJECT_DIR":
			return root
		}
		return ""
	}
	const session = "b89c8bbf-0567-4b71-9765-23162d176ca0"
	if _, err := TakeSnapshot(getenv, session, root); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	passed, denied := 0, 0
	start := make(chan struct{})
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := hookio.NewInput(fmt.Appendf(nil, `{"session_id":%q,"cwd":%q,"agent_id":"w%d","agent_type":"worker","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":%q,"content":"BLOCKED: ALL\n"}}`,
				session, root, i, filepath.Join(root, ".rlp-desk", "memos", "race-blocked.md")))
			<-start
			out := PreWrite(in, getenv)
			mu.Lock()
			defer mu.Unlock()
			if out.Deny {
				denied++
			} else {
				passed++
			}
		}()
	}
	close(start)
	wg.Wait()
	if passed != 1 || denied != 19 {
		t.Fatalf("%d let through, %d denied; want exactly one through", passed, denied)
	}
}

// BenchmarkPreWrite: the in-process cost of checking a worker's 10 KB
// iteration signal against the session's contracts (the whole-process
// figure is bench's "hooks.json (k1)").
func BenchmarkPreWrite(b *testing.B) {
	root, data := b.TempDir(), b.TempDir()
	os.MkdirAll(filepath.Join(root, ".rodin"), 0o755)
	os.MkdirAll(filepath.Join(root, ".rlp-desk", "plans"), 0o755)
	os.WriteFile(filepath.Join(root, File), []byte(RLPDesk), 0o644)
	os.WriteFile(filepath.Join(root, ".rlp-desk", "plans", "prd-bench.md"), []byte("# PRD\n\n## US-001: One\n\n## US-002: Two\n"), 0o644)
	getenv := func(k string) string {
		if k == "CLAUDE_PLUGIN_DATA" {
			return data
		}
		return ""
	}
	const session = "c0ffee00-0567-4b71-9765-23162d176ca0"
	if _, err := TakeSnapshot(getenv, session, root); err != nil {
		b.Fatal(err)
	}
	sig := fmt.Sprintf(`{"slug":"bench","iteration":3,"signal_type":"signal","us_id":"US-002","status":"verify","summary":%q}`, strings.Repeat("tests pass; ", 850))
	in := hookio.NewInput(fmt.Appendf(nil, `{"session_id":%q,"cwd":%q,"agent_type":"worker","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":%q,"content":%q}}`,
		session, root, filepath.Join(root, ".rlp-desk", "memos", "bench-iter-signal.json"), sig))
	for b.Loop() {
		if out := PreWrite(in, getenv); out.Deny {
			b.Fatal(out.Reason)
		}
	}
}

// An evidence rule's cost and message are bounded: more than maxSteps
// steps is one broken rule, each step one look-up in the runs indexed by
// command, and a message lists maxRules rules and counts the rest.
func TestEvidenceBounds(t *testing.T) {
	a := &Artifact{Name: "claim", Path: "memos/{slug}-claim.json", Evidence: &Evidence{Level: "observed", Each: "steps", When: map[string]any{"exit_code": 0.0}, Command: "command"}}
	claim := func(n int) []byte {
		var b strings.Builder
		b.WriteString(`{"steps":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"command":"check-%d","exit_code":0}`, i)
		}
		b.WriteString(`]}`)
		return []byte(b.String())
	}
	w := Witness{Root: "/p"}
	for i := range 5000 {
		w.Runs = append(w.Runs, ledger.Run{Kind: ledger.KindBash, Command: fmt.Sprintf("true #%s%d", strings.Repeat("a", 4000), i), Cwd: "/p"})
	}
	w.Runs = append(w.Runs, ledger.Run{Kind: ledger.KindBash, Command: "check-7", Cwd: "/p"})

	got := a.CheckEvidence(claim(maxSteps+1), w)
	if len(got) != 1 || got[0].String() != fmt.Sprintf("at steps: expected at most %d steps, got %d", maxSteps, maxSteps+1) {
		t.Fatalf("%d steps: %v", maxSteps+1, got)
	}
	start := time.Now()
	got = a.CheckEvidence(claim(maxSteps), w)
	took := time.Since(start)
	if len(got) != maxSteps-1 {
		t.Fatalf("%d steps, one backed: %d broken rules", maxSteps, len(got))
	}
	t.Logf("%d steps against %d runs of 4 KB commands: %v", maxSteps, len(w.Runs), took)
	var broken []string
	for _, v := range got {
		broken = append(broken, v.String())
	}
	msg := rules(broken)
	if n := strings.Count(msg, "at steps["); n != maxRules || !strings.HasSuffix(msg, fmt.Sprintf("; and %d more (`rodin contracts check FILE` lists every one)", maxSteps-1-maxRules)) {
		t.Fatalf("the message lists %d rules: ...%s", n, msg[len(msg)-120:])
	}
}
