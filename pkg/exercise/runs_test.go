package exercise

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rodin-gate/rodin/pkg/headless"
)

func TestRates(t *testing.T) {
	run := func(verdicts ...string) Outcome {
		var o Outcome
		for i, v := range verdicts {
			o.Criteria = append(o.Criteria, Judged{ID: []string{"RUN-2", "AC1", "AC2"}[i], Verdict: v})
		}
		return o
	}
	runs := []Outcome{run(Pass, Pass, Pass), run(Pass, Pass, Fail), run(Pass, Pass, Pass)}
	baseline := []Outcome{run(Pass, Fail, Pass), run(Pass, Fail, Pass), run(Pass, Pass, Pass)}
	got := rates(runs, baseline, 1)
	summary := map[string]string{}
	for _, r := range got {
		summary[r.ID] = strings.TrimSpace(strings.Join([]string{
			itoa(r.Passed) + "/" + itoa(r.Runs), itoa(r.BaselinePassed) + "/" + itoa(r.BaselineRuns),
			map[bool]string{true: "met", false: "unmet"}[r.Met], map[bool]string{true: "evidence", false: "no-evidence"}[r.Evidence]}, " "))
	}
	want := map[string]string{
		"RUN-2": "3/3 3/3 met no-evidence", // the bare model ends its session too
		"AC1":   "3/3 1/3 met evidence",
		"AC2":   "2/3 3/3 unmet no-evidence",
	}
	if diff := cmp.Diff(want, summary); diff != "" {
		t.Errorf("rates (-want +got):\n%s", diff)
	}
	if got := rates(runs, nil, 2.0/3); !got[2].Met || got[2].BaselineRate != nil || !got[2].Evidence {
		t.Errorf("AC2 at a 2/3 threshold without a baseline: %+v", got[2])
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestBaselinePrompt(t *testing.T) {
	c := Component{Plugin: "p", Name: "greet", Kind: "skill"}
	for _, tc := range []struct {
		prompt, args, want string
	}{
		{"", "Greet the team.", "Greet the team."},
		{"/p:greet Greet Ada.", "", "Greet Ada."},
		{"/greet Greet Ada.", "", "Greet Ada."},
		{"Write a greeting file.", "", "Write a greeting file."},
		{"", "", ""},
		{"/p:greet", "", ""},
	} {
		got, note := BaselinePrompt(c, Options{Prompt: tc.prompt, Args: tc.args})
		if got != tc.want || (got == "") != (note != "") {
			t.Errorf("prompt %q args %q: %q (note %q), want %q", tc.prompt, tc.args, got, note, tc.want)
		}
	}
}

func TestUnknownNames(t *testing.T) {
	l := headless.Listing{
		Commands: []headless.ListedCommand{{Name: "p:fm", Aliases: []string{"fm", "p:dir"}}, {Name: "p:new"}, {Name: "q:x"}, {Name: "design"}},
		Agents:   []string{"p:a", "p:b", "Explore"},
	}
	comps := []Component{{Plugin: "p", Name: "dir", Kind: "skill"}, {Plugin: "p", Name: "a", Kind: "agent"}}
	if diff := cmp.Diff([]string{"p:new", "p:b"}, unknownNames(l, "p", comps)); diff != "" {
		t.Errorf("unknown (-want +got):\n%s", diff)
	}
}

// The copy that loads a marketplace entry (strict: false, its own skills)
// keeps only the entry's skills in skills/, moves a listed skill its
// frontmatter renames out of it, and lists commands and agents the entry
// adds beside the default folders.
func TestLoadCopy(t *testing.T) {
	root := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("skills/keep/SKILL.md", "---\ndescription: d\n---\n")
	write("skills/renamed/SKILL.md", "---\nname: other\ndescription: d\n---\n")
	write("skills/unlisted/SKILL.md", "---\ndescription: d\n---\n")
	write("commands/c.md", "c\n")
	write("extra/x.md", "x\n")
	write("agents/a.md", "a\n")
	write("more/b.md", "b\n")
	write(".claude-plugin/marketplace.json", `{"name": "m", "plugins": [{"name": "e", "source": "./", "strict": false, "category": "x",
		"skills": ["./skills/keep", "./skills/renamed"], "commands": ["./extra/x.md"], "agents": ["./more/b.md"]}]}`)
	plugins, err := Plugins(root)
	if err != nil || len(plugins) != 1 {
		t.Fatalf("plugins %v, %v", plugins, err)
	}
	var ids []string
	for _, c := range plugins[0].Components(root) {
		ids = append(ids, c.Kind+" "+c.ID())
	}
	if diff := cmp.Diff([]string{"skill e:keep", "skill e:other", "command e:c", "command e:x", "agent e:a", "agent e:b"}, ids); diff != "" {
		t.Errorf("components (-want +got):\n%s", diff)
	}
	dir, err := loadCopy(plugins[0], filepath.Join(t.TempDir(), "e"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, ".claude-plugin", "plugin.json"))
	json.Unmarshal(data, &m)
	want := map[string]any{
		"name":     "e",
		"skills":   []any{"./skills/keep", "./.rodin-skills/renamed"},
		"commands": []any{"./commands", "./extra/x.md"},
		"agents":   []any{"./agents/a.md", "./more/b.md"},
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("the copy's plugin.json (-want +got):\n%s", diff)
	}
	for rel, want := range map[string]bool{"skills/keep/SKILL.md": true, ".rodin-skills/renamed/SKILL.md": true, "skills/unlisted": false, "skills/renamed": false, ".claude-plugin/marketplace.json": false} {
		if _, err := os.Stat(filepath.Join(dir, rel)); (err == nil) != want {
			t.Errorf("%s in the copy: %v, want %v", rel, err == nil, want)
		}
	}
}

// A SKILL.md that two marketplace entries list is the first entry's: the
// CLI lists it once. A command they share is each entry's.
func TestSharedSkillFirstEntry(t *testing.T) {
	root := t.TempDir()
	for rel, data := range map[string]string{
		"skills/pdf/SKILL.md": "---\ndescription: d\n---\n",
		"commands/c.md":       "c\n",
		".claude-plugin/marketplace.json": `{"name": "m", "plugins": [
			{"name": "first", "source": "./", "strict": false, "skills": ["./skills/pdf"]},
			{"name": "second", "source": "./", "strict": false, "skills": ["./skills/pdf"]}]}`,
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(data), 0o644)
	}
	plugins, _ := Plugins(root)
	var ids []string
	for _, c := range Inventory(root, plugins) {
		ids = append(ids, c.Kind+" "+c.ID())
	}
	if diff := cmp.Diff([]string{"skill first:pdf", "command first:c", "command second:c"}, ids); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// With several runs and a baseline, the report leads with the pass rates,
// then each run under its own heading.
func TestReportRuns(t *testing.T) {
	c := Component{Plugin: "p", Name: "greet", Kind: "skill", File: "skills/greet/SKILL.md"}
	run := func(arm string, n int, ac string) Outcome {
		return Outcome{Component: c, Arm: arm, Run: n, Status: map[string]string{Pass: Passed, Fail: Failed}[ac], Method: "control", Interactive: true,
			CostUSD: 0.01, Usage: headless.Usage{InputTokens: 1000, OutputTokens: 200}, DurationMS: 1500, Turns: 3,
			Criteria: []Judged{{ID: "AC1", Title: "Greets", Verdict: ac, Evidence: "e", By: "checks"}}}
	}
	x := Exercised{Component: c, Status: Passed, Prompt: "/p:greet Greet.", BaselinePrompt: "Greet.",
		Runs: []Outcome{run(ArmPlugin, 1, Pass), run(ArmPlugin, 2, Pass)}, Baseline: []Outcome{run(ArmBaseline, 1, Fail), run(ArmBaseline, 2, Pass)}}
	x.Criteria = rates(x.Runs, x.Baseline, 1)
	x.CostUSD, x.Tokens, x.DurationMS = 0.04, 4800, 6000
	r := Report{Status: Passed, Claude: "2.1.332", Runs: 2, Baseline: true, Threshold: 1, Exercised: []Exercised{x}}
	r.Summarize()
	md := r.Markdown()
	for _, want := range []string{
		"1 of 1 exercised component passed (claude 2.1.332); $0.0400, 4,800 tokens, 6s.",
		"| **Runs** | 2 with the plugin, 2 without it (baseline prompt: `Greet.`) |",
		"| AC | Description | With the plugin | Without | Note |",
		"| AC1 | Greets | 2/2 | 1/2 |  |",
		"#### Run 1 with the plugin: PASSED",
		"#### Run 2 without the plugin (baseline): PASSED",
		"##### AC Evaluation",
		"| **Spent** | $0.0100, 1,200 tokens, 1.5s (3 turns) |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}

// claude plugin validate --json as 2.1.332 prints it (2.1.295 has no
// provides): its manifest errors and its components' errors are quoted; a
// pass, warnings alone, or output that is no JSON, say nothing.
func TestValidateErrors(t *testing.T) {
	failed := `{"success": false, "strict": false, "target": "/p/.claude-plugin/plugin.json",
		"manifest": {"file": "/p/.claude-plugin/plugin.json", "type": "plugin",
			"errors": [{"path": "agents.0", "message": "Invalid string: must end with \".md\"", "code": null}], "warnings": []},
		"contents": [{"file": "/p/agents/a.md", "type": "agent", "errors": [{"path": "frontmatter", "message": "YAML frontmatter failed to parse"}], "warnings": []}],
		"provides": null, "directory": {"findings": [{"code": "README_MISSING", "severity": "error"}]}}`
	want := "  agents.0: Invalid string: must end with \".md\"\n  /p/agents/a.md: frontmatter: YAML frontmatter failed to parse"
	if got := validateErrors([]byte(failed)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, ok := range []string{`{"success": true, "manifest": {"errors": [], "warnings": [{"path": "version", "message": "No version"}]}}`, `Validating plugin manifest…`, ``} {
		if got := validateErrors([]byte(ok)); got != "" {
			t.Errorf("%q: %q, want nothing", ok, got)
		}
	}
}
