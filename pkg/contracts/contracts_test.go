package contracts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/pkg/ledger"
)

func TestTemplatesParse(t *testing.T) {
	for _, name := range TemplateNames {
		text, ok := Template(name)
		if !ok {
			t.Fatalf("template %s is listed but not there", name)
		}
		if _, err := Parse([]byte(text)); err != nil {
			t.Errorf("template %s: %v", name, err)
		}
	}
}

// Every problem in a contracts file is named, each at its place.
func TestParseErrorsNamePaths(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{`{"version":1,"roles":{},"artifacts":[{"name":"a","path":"x.json","writers":["*"]}],"extra":1}`,
			"at extra: unknown key (known here: version, roles, unattended, artifacts)"},
		{`{"version":2,"roles":{},"artifacts":[{"name":"a","path":"x.json","writers":["*"]}]}`, "at version: want 1, got 2"},
		{`{"version":1,"roles":{},"artifacts":[{"name":"a","path":"x.json","writers":["*"],"fields":{"slug":{"typ":"string"}}}]}`,
			"at artifacts[0].fields.slug.typ: unknown key"},
		{`{"version":1,"roles":{},"artifacts":[{"name":"a","path":"x.json","writers":["*"],"fields":{"n":{"type":"int"}}}]}`,
			"at artifacts[0].fields.n.type: want one of string, integer, number, boolean, array, object, got \"int\""},
		{`{"version":1,"roles":{"w":["x"]},"artifacts":[{"name":"a","path":"x.json","writers":["worker"]}]}`,
			`at artifacts[0].writers: no role "worker" (roles: w)`},
		{`{"version":1,"roles":{},"artifacts":[{"name":"a","path":"/etc/x.json","writers":["*"]}]}`,
			"at artifacts[0].path: want a path relative to the project root"},
		{`{"version":1,"roles":{},"artifacts":[{"name":"a","path":"m/x.json","writers":["*"],"fields":{"s":{"eq":"{slug}"}}}]}`,
			"at artifacts[0].fields.s.eq: {slug} is not bound by the path m/x.json"},
		{`{"version":1,"roles":{},"artifacts":[{"name":"a","path":"x.json","writers":["*"],"fields":{"s":{"pattern":"("}}}]}`,
			"at artifacts[0].fields.s.pattern: error parsing regexp"},
		{`{"version":1,"roles":{},"artifacts":[{"name":"a","path":"x.json","writers":["*"],"once":"first"}]}`,
			`at artifacts[0].once: want "first-writer" or "per-agent", got "first"`},
		{`{"version":1,"roles":{},"artifacts":[{"name":"a","path":"x.json","writers":["*"],"evidence":{"level":"seen","each":"s","command":"c"}}]}`,
			"at artifacts[0].evidence.level: want one of observed, fresh, independent"},
		{`not json`, "not valid JSON"},
	} {
		_, err := Parse([]byte(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%s):\n got %v\nwant %q", c.file, err, c.want)
		}
	}
	// Two problems: both named.
	_, err := Parse([]byte(`{"version":1,"roles":{},"artifacts":[{"name":"a","path":"x.json","writers":["*"],"fields":{"a":{"x":1},"b":{"y":2}}}]}`))
	if err == nil || !strings.Contains(err.Error(), "fields.a.x") || !strings.Contains(err.Error(), "fields.b.y") {
		t.Errorf("two unknown keys: %v", err)
	}
}

func TestMatch(t *testing.T) {
	c, err := Parse([]byte(RLPDesk))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ rel, name, slug string }{
		{".rlp-desk/memos/sum-fn-iter-signal.json", "iter-signal", "sum-fn"},
		{".rlp-desk/memos/a-done-claim.json", "done-claim", "a"},
		{".rlp-desk/memos/x-blocked.md", "blocked", "x"},
		{".rlp-desk/memos/-iter-signal.json", "", ""},
		{".rlp-desk/memos/sub/x-iter-signal.json", "", ""},
		{".rlp-desk/memos/x-iter-signal.json.bak", "", ""},
		{"src/main.go", "", ""},
	} {
		a, vars := c.Match(tc.rel)
		switch {
		case tc.name == "" && a != nil:
			t.Errorf("Match(%s) = %s, want none", tc.rel, a.Name)
		case tc.name != "" && (a == nil || a.Name != tc.name || vars["slug"] != tc.slug):
			t.Errorf("Match(%s) = %v %v, want %s slug %s", tc.rel, a, vars, tc.name, tc.slug)
		}
	}
}

// Every rule, broken and kept; every broken rule is named.
func TestCheckContent(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".rlp-desk", "plans"), 0o755)
	os.WriteFile(filepath.Join(root, ".rlp-desk", "plans", "prd-sum-fn.md"), []byte("# PRD\n\n## US-001: Sum\n\n### US-002: Docs\n\nnot ## US-009\n#### US-010: too deep\n"), 0o644)
	c, err := Parse([]byte(RLPDesk))
	if err != nil {
		t.Fatal(err)
	}
	a, vars := c.Match(".rlp-desk/memos/sum-fn-iter-signal.json")
	check := func(doc string) []string {
		var out []string
		for _, v := range a.CheckContent([]byte(doc), vars, root) {
			out = append(out, v.String())
		}
		return out
	}
	if got := check(`{"slug":"sum-fn","signal_type":"signal","iteration":1,"us_id":"US-002","status":"verify","summary":"done"}`); got != nil {
		t.Errorf("a valid signal: %v", got)
	}
	if got := check(`{"status":"continue","us_id":null}`); got != nil {
		t.Errorf("absent optional fields pass (rlp-desk's backward compatibility): %v", got)
	}
	got := check(`{"slug":"wrong-campaign","signal_type":"verdict","iteration":0,"us_id":"US-999","status":"done"}`)
	want := []string{
		"at iteration: expected >= 1, got 0",
		"at signal_type: expected \"signal\", got \"verdict\"",
		"at slug: expected sum-fn, got \"wrong-campaign\"",
		"at status: expected one of [continue, verify, verify_partial, blocked], got \"done\"",
		"at us_id: expected one of [US-001, US-002, ALL], got \"US-999\"",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("every broken rule (-want +got):\n%s", d)
	}
	for doc, want := range map[string]string{
		`{"slug":"sum-fn"}`:                      "at status: expected a value (required), got nothing",
		`{"status":null}`:                        "at status: expected a value (required), got null",
		`{"status":"verify","iteration":1.5}`:    "at iteration: expected a value of type integer, got 1.5",
		`{"status":"verify","iteration":"1"}`:    "at iteration: expected a value of type integer, got \"1\"",
		`[1,2]`:                                  "at (the file): expected a JSON object, got [1,2]",
		`{"status":`:                             "at (the file): expected a JSON object, got text that is not valid JSON",
		`{"status":"verify","status":"blocked"}`: "at status: expected the key once, got 2 times",
	} {
		if got := check(doc); len(got) == 0 || got[0] != want {
			t.Errorf("%s: got %v, want %q first", doc, got, want)
		}
	}
	// oneOfFrom's file missing: the rule fails, saying why.
	os.Remove(filepath.Join(root, ".rlp-desk", "plans", "prd-sum-fn.md"))
	if got := check(`{"status":"verify","us_id":"ALL"}`); len(got) != 1 || !strings.Contains(got[0], "which cannot be read") {
		t.Errorf("missing PRD: %v", got)
	}
	// A Markdown artifact has no field rules.
	b, bvars := c.Match(".rlp-desk/memos/sum-fn-blocked.md")
	if v := b.CheckContent([]byte("anything"), bvars, root); v != nil {
		t.Errorf("blocked.md: %v", v)
	}
}

// FuzzParse: any contracts file parses or is refused with an error; a
// parsed one matches and checks any path and content without panicking.
func FuzzParse(f *testing.F) {
	f.Add([]byte(RLPDesk), ".rlp-desk/memos/a-iter-signal.json", []byte(`{"status":"x"}`))
	f.Add([]byte(`{"version":1,"roles":{},"artifacts":[{"name":"a","path":"{a}{b}.json","writers":["*"],"fields":{"n":{"min":1,"max":0}}}]}`), "xy.json", []byte(`{"n":2}`))
	f.Fuzz(func(t *testing.T, file []byte, rel string, content []byte) {
		c, err := Parse(file)
		if err != nil {
			if c != nil {
				t.Fatal("contracts and an error")
			}
			return
		}
		if a, vars := c.Match(rel); a != nil {
			for _, v := range a.CheckContent(content, vars, t.TempDir()) {
				if v.Expected == "" || v.Got == "" {
					t.Fatalf("a violation without its expected or got: %+v", v)
				}
			}
		}
	})
}

// On a file system that finds names whatever their case, an artifact's
// path matches whatever the case of its literal text; its {names} bind the
// text as written.
func TestMatchFold(t *testing.T) {
	c, err := Parse([]byte(RLPDesk))
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{".RLP-DESK/memos/Demo-iter-signal.json", ".rlp-desk/MEMOS/Demo-ITER-SIGNAL.JSON"} {
		if a, _ := c.Match(rel); a != nil {
			t.Errorf("%s matched %s without folding", rel, a.Name)
		}
		c.Fold = true
		a, vars := c.Match(rel)
		c.Fold = false
		if a == nil || a.Name != "iter-signal" || vars["slug"] != "Demo" {
			t.Errorf("%s folded: %v %v", rel, a, vars)
		}
	}
}

// FoldsCase tells a directory from another whose name differs in case only.
func TestFoldsCase(t *testing.T) {
	top := t.TempDir()
	lower := filepath.Join(top, "memos")
	if err := os.Mkdir(lower, 0o755); err != nil {
		t.Fatal(err)
	}
	upper := filepath.Join(top, "Memos")
	if err := os.Mkdir(upper, 0o755); err == nil {
		// A file system that tells case apart: two directories.
		if FoldsCase(lower) || FoldsCase(upper) {
			t.Fatal("two directories whose names differ in case taken for one")
		}
		return
	}
	if !FoldsCase(lower) {
		t.Fatal("Memos could not be made beside memos, yet the file system is said to tell case apart")
	}
}

// FuzzCheckArtifact: whatever a handover file holds, the field and
// evidence rules answer (no panic, no endless walk), every violation says
// what was expected and what was found, and a file that keeps its rules
// has no key twice.
func FuzzCheckArtifact(f *testing.F) {
	f.Add([]byte(`{"slug":"demo","signal_type":"done_claim","execution_steps":[{"command":"go test ./...","exit_code":0},{"command":null,"exit_code":null}]}`))
	f.Add([]byte(`{"slug":"demo","execution_steps":[{"command":"a","exit_code":1,"exit_code":0}]}`))
	f.Add([]byte(`{"execution_steps":[[[[[[{"a":{"b":[{"c":1,"c":2}]}}]]]]]]}`))
	f.Add([]byte(`{"slug":"demo","execution_steps":[{"command":"go test ./...\u00a0","exit_code":0e0}]}`))
	c, err := Parse([]byte(RLPDesk))
	if err != nil {
		f.Fatal(err)
	}
	a, vars := c.Match(".rlp-desk/memos/demo-done-claim.json")
	w := Witness{Root: "/p", Runs: []ledger.Run{{Kind: ledger.KindBash, Command: "go test ./...", Cwd: "/p"}}}
	f.Fuzz(func(t *testing.T, content []byte) {
		vs := a.CheckContent(content, vars, t.TempDir())
		vs = append(vs, a.CheckEvidence(content, w)...)
		dup := false
		for _, v := range vs {
			if v.Expected == "" || v.Got == "" {
				t.Fatalf("a violation without its expected or got: %+v", v)
			}
			dup = dup || v.Rule == "duplicate" || v.Rule == "depth"
		}
		if !dup && gjson.ValidBytes(content) && hasDuplicateKey(gjson.ParseBytes(content), 0) {
			t.Fatalf("a key twice, not named: %s", content)
		}
	})
}

// hasDuplicateKey is the fuzz test's own, plain reading of "a key twice".
func hasDuplicateKey(v gjson.Result, depth int) bool {
	if depth > 64 {
		return false
	}
	found := false
	if v.IsObject() {
		seen := map[string]bool{}
		v.ForEach(func(k, c gjson.Result) bool {
			found = found || seen[k.String()] || hasDuplicateKey(c, depth+1)
			seen[k.String()] = true
			return !found
		})
	} else if v.IsArray() {
		v.ForEach(func(_, c gjson.Result) bool {
			found = found || hasDuplicateKey(c, depth+1)
			return !found
		})
	}
	return found
}

// The hooks read a session's artifact with gjson (decodeArtifact), the
// CLI's Parse with encoding/json: both read the same contract.
func TestDecodeArtifactAsJSON(t *testing.T) {
	files := []string{RLPDesk, `{"version":1,"roles":{"a":["main"]},"artifacts":[
		{"name":"x","path":"m/{k}.json","writers":["a"],"once":"per-agent",
		 "fields":{"n":{"type":"integer","min":-1.5,"max":1e3,"const":7},"s":{"enum":["a",1,true,null,{"o":[1]}],"pattern":"^a","eq":"{k}","required":true},
		           "u":{"oneOf":["A"],"oneOfFrom":{"file":"p/{k}.md","match":"^# (\\w+)"}}},
		 "evidence":{"level":"fresh","each":"steps","when":{"exit_code":0,"ok":true},"command":"cmd"}}]}`}
	for _, f := range files {
		c, err := Parse([]byte(f))
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.Artifacts {
			want := c.Artifacts[i]
			got := decodeArtifact(gjson.Get(f, fmt.Sprintf("artifacts.%d", i)))
			if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Artifact{}, Field{}, OneOfFrom{})); d != "" {
				t.Errorf("artifact %s (-Parse +decodeArtifact):\n%s", want.Name, d)
			}
		}
	}
}

// The snapshot read whole (decodeTrusted, every Bash command) is the file
// Parse read at session start.
func TestDecodeTrustedAsParse(t *testing.T) {
	want, err := Parse([]byte(RLPDesk))
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeTrusted([]byte(RLPDesk))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Contracts{}, Artifact{}, Field{}, OneOfFrom{})); d != "" {
		t.Errorf("(-Parse +decodeTrusted):\n%s", d)
	}
	if _, err := decodeTrusted([]byte("broken\n{}")); err == nil {
		t.Error("a snapshot kept broken decoded")
	}
}
