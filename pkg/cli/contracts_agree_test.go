package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rodin-gate/rodin/pkg/contracts"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rogpeppe/go-internal/txtar"
)

// rodin contracts check agrees with the hooks on every fixture: the same
// verdict, and the same broken rules, for each rlp-desk handover file in
// testdata/fixtures/contracts (keeps/… and breaks/…), written by its
// rightful writer through the Write gate and checked on disk with
// --session.
func TestCheckAgreesWithHooks(t *testing.T) {
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", "fixtures", "contracts", "rlp-desk.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := contracts.Parse([]byte(contracts.RLPDesk))
	if err != nil {
		t.Fatal(err)
	}
	const session = "5f0c2a8e-3b1d-4c6e-9a7f-0d2e4b6c8a10"
	cases := 0
	for _, f := range ar.Files {
		verdict, rest, _ := strings.Cut(f.Name, "/")
		name, rel, _ := strings.Cut(rest, "/")
		if verdict != "keeps" && verdict != "breaks" {
			continue
		}
		cases++
		t.Run(verdict+"/"+name, func(t *testing.T) {
			top := t.TempDir()
			root, data := filepath.Join(top, "project"), filepath.Join(top, "data")
			for _, p := range ar.Files {
				if p2, ok := strings.CutPrefix(p.Name, "project/"); ok {
					writeFile(t, filepath.Join(root, p2), p.Data)
				}
			}
			writeFile(t, filepath.Join(root, contracts.File), []byte(contracts.RLPDesk))
			for _, r := range []ledger.Run{
				{Command: "go test ./...", Exit: 0},
				{Command: "sh check.sh", Exit: 0},
				{Command: "npm run lint", Exit: 1},
			} {
				r.Time, r.Kind, r.Cwd, r.Agent = time.Now().UnixNano(), ledger.KindBash, root, "w1"
				if err := ledger.Append(data, session, r); err != nil {
					t.Fatal(err)
				}
			}

			// The hooks: the Write gate, as the artifact's rightful writer.
			a, _ := c.Match(rel)
			if a == nil {
				t.Fatalf("no contract covers %s", rel)
			}
			in := map[string]any{"session_id": session, "cwd": root, "hook_event_name": "PreToolUse", "tool_name": "Write",
				"tool_input": map[string]any{"file_path": filepath.Join(root, rel), "content": string(f.Data)}}
			if writer := c.Roles[a.Writers[0]][0]; writer != "main" {
				in["agent_type"], in["agent_id"] = writer, "w1"
			}
			raw, _ := json.Marshal(in)
			getenv := func(k string) string {
				return map[string]string{"CLAUDE_PLUGIN_DATA": data, "CLAUDE_PROJECT_DIR": root}[k]
			}
			hook := contracts.PreWrite(hookio.NewInput(raw), getenv)

			// rodin contracts check, on the file as written.
			writeFile(t, filepath.Join(root, rel), f.Data)
			t.Setenv("CLAUDE_PLUGIN_DATA", data)
			out, errOut, code := run(t, "", "contracts", "check", "--json", "--session", session, filepath.Join(root, rel))
			var cli contractCheck
			if err := json.Unmarshal([]byte(out), &cli); err != nil {
				t.Fatalf("rodin contracts check --json: %v: %s %s", err, out, errOut)
			}
			var cliRules []string
			for _, v := range cli.Violations {
				cliRules = append(cliRules, v.String())
			}

			if want := verdict == "breaks"; hook.Deny != want || (code != 0) != want {
				t.Fatalf("want the file to %s its contract: the hook denied=%v (%s); rodin contracts check exit %d: %s", verdict, hook.Deny, hook.Reason, code, out)
			}
			if hookRules := deniedRules(hook.Reason); !slices.Equal(hookRules, cliRules) {
				t.Errorf("the hook and rodin contracts check name different rules:\nhook:  %q\ncheck: %q", hookRules, cliRules)
			}
			t.Logf("%d rules: %q", len(cliRules), cliRules)
			if a.Evidence != nil && cli.Evidence != "checked" {
				t.Errorf("rodin contracts check --session did not check the evidence rule: %s", out)
			}
		})
	}
	if cases < 10 {
		t.Fatalf("only %d fixtures", cases)
	}
}

// deniedRules are the broken rules a contracts deny names, in order.
func deniedRules(reason string) []string {
	_, rest, ok := strings.Cut(reason, "("+contracts.File+"): ")
	if !ok {
		return nil
	}
	rest, _, _ = strings.Cut(rest, ". To fix: ")
	return strings.Split(rest, "; ")
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
