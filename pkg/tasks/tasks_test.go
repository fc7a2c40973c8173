package tasks

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The programs these tests take as installed, whatever this machine has.
func init() {
	LookPath = func(name string) (string, error) {
		switch name {
		case "pnpm", "npm", "npx", "go", "make", "grep", "sh", "uv", "ruff", "test", "true", "gh", "unit-tests", "ls", "cd":
			return "/usr/bin/" + name, nil
		}
		return "", exec.ErrNotFound
	}
}

// Each shape found in real task files (docs/verify-formats.md), in our own
// words, and what a careful reader says the task demands.
func TestCommandsByShape(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []Command // nil: no command of its own
		prose     string
	}{
		{"verify line, one span with &&", "- [ ] 1.5 [VERIFY] Quality checkpoint: full test suite\n  - **Do**: run it\n  - **Verify**: `pnpm lint && pnpm test`\n",
			[]Command{{"pnpm lint && pnpm test", FromVerifyLine}}, ""},
		{"verify line wins over prose", "- [ ] 3.3 [VERIFY] Quality checkpoint: test results\n  - **Verify**: `false`\n",
			[]Command{{"false", FromVerifyLine}}, ""},
		{"verify line, names aside", "- [ ] 2.1 [VERIFY] Docs\n  - **Verify**: `grep -q Usage README.md` and `README.md` mentions `VERIFICATION_PASS`\n",
			[]Command{{"grep -q Usage README.md", FromVerifyLine}}, ""},
		{"verify block, a line each", "- [ ] 1.3 [VERIFY] Files in place\n  - **Verify**: all must exit 0:\n    ```bash\n    # the agent file\n    test -f agents/qa.md\n    grep -q name agents/qa.md\n    ```\n",
			[]Command{{"test -f agents/qa.md", FromVerifyBlock}, {"grep -q name agents/qa.md", FromVerifyBlock}}, ""},
		{"verify block, one script", "- [ ] V5 [VERIFY] CI\n  - **Verify**:\n    ```bash\n    gh pr checks\n    STATUS=$?\n    if [ $STATUS -ne 0 ]; then exit 1; fi\n    ```\n",
			[]Command{{"gh pr checks\nSTATUS=$?\nif [ $STATUS -ne 0 ]; then exit 1; fi", FromVerifyBlock}}, ""},
		{"verify list of commands", "- [ ] V2 [VERIFY] Both\n  - **Verify**:\n    - `go vet ./...`\n    - `go test ./...`\n",
			[]Command{{"go vet ./...", FromVerifyBlock}, {"go test ./...", FromVerifyBlock}}, ""},
		{"done when names the command", "- [ ] Q1 [VERIFY] Quality check: index baseline\n  - **Do**: run the index check\n  - **Done when**: `npm run verify:index` exits 0.\n",
			[]Command{{"npm run verify:index", FromDoneWhen}}, ""},
		{"title code span", "- [ ] V1 [VERIFY] Lint passes: `make lint`\n",
			[]Command{{"make lint", FromTitleCode}}, ""},
		{"title text command line", "- [ ] 1.4 [VERIFY] Quality checkpoint: npm run lint && npx tsc --noEmit\n  - **Verify**: All commands exit 0\n",
			[]Command{{"npm run lint && npx tsc --noEmit", FromTitleText}}, ""},
		{"title prose", "- [ ] 2.3 [VERIFY] Quality checkpoint: full test suite\n", nil, "full test suite"},
		{"title prose, test is no check", "- [ ] 3.3 [VERIFY] Quality checkpoint: test results\n", nil, "test results"},
		{"title prose, a program then words", "- [ ] 1.9 [VERIFY] Quality checkpoint: ruff lint + format (Python files only)\n", nil, "ruff lint + format (Python files only)"},
		{"template placeholders", "- [ ] 1.4 [VERIFY] Quality checkpoint: {{lint cmd}} && {{test cmd}}\n", nil, "{{lint cmd}} && {{test cmd}}"},
		{"verify line refers to the steps", "- [ ] VF [VERIFY] Reproduce\n  - **Do**:\n    1. Run `uv run pytest -k login`\n    2. Compare\n  - **Verify**: both commands exit 0\n",
			[]Command{{"uv run pytest -k login", FromDoSteps}}, ""},
		{"verify line in prose, steps not referred to", "- [ ] 4.2 [VERIFY] Manual check\n  - **Do**: open `ls -la` output\n  - **Verify**: Confirm the calls appear together\n", nil, ""},
		{"a sub-task's Verify is its own", "- [ ] 5 [VERIFY] Group\n  - [ ] 5.1 Sub\n    - **Verify**: `go test ./sub`\n", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := Parse([]byte(tc.src))
			if len(ts) == 0 || !ts[0].Verify {
				t.Fatalf("no verification task in %q: %+v", tc.src, ts)
			}
			if d := cmp.Diff(tc.want, ts[0].Commands); d != "" {
				t.Errorf("commands (-want +got):\n%s", d)
			}
			if ts[0].Prose != tc.prose {
				t.Errorf("prose %q, want %q", ts[0].Prose, tc.prose)
			}
		})
	}
}

func TestTagsIDsAndBoxes(t *testing.T) {
	src := "# Tasks\n\n" +
		"- [ ] 1.2 Add [VERIFY] task delegation\n" + // the tag in prose
		"- [ ] 1.3 Document `[VERIFY]` tags\n" + // in backticks
		"- [ ] T012 [P] [US1] [VERIFY] Contract tests: `go test ./api`\n" + // spec-kit's leading tags
		"- [ ] 4.1 [VERIFY:TEST] Unit tests\n  - **Verify**: `go test ./...`\n" +
		"- [ ] 4.2 [VERIFY:AC] Criteria\n" +
		"- [ ] V6 [VERIFY] AC checklist\n" +
		"- [ ] V7 [VERIFY] Search docs\n  - **Verify**: `grep -q 'AC checklist' README.md`\n" +
		"- [ ] 5.3 [VERIFY] Final validation: zero regressions, all ACs met\n" + // corpus four
		"- [ ] 5.4 [VERIFY] Count TRACs: `make tracs`\n" + // the word inside another
		"- [-] 2. Build the UI\n" + // Kiro: in progress
		"  - [ ]* 2.3 Write unit tests\n" + // Kiro: optional
		"- [x] 1. Set up\n" +
		"- [X] **3.1** Bold id\n" +
		"\n```\n- [ ] 9.9 [VERIFY] in a fence\n```\n" +
		"- [] not a box\n"
	type row struct {
		ID, Ref                  string
		Checked, InProgress, Opt bool
		Verify                   bool
		Kind                     string
		AC                       bool
	}
	var got []row
	for _, t := range Parse([]byte(src)) {
		got = append(got, row{t.ID, t.Ref, t.Checked, t.InProgress, t.Optional, t.Verify, t.Kind, t.AC})
	}
	want := []row{
		{"1.2", "1.2", false, false, false, false, "", false},
		{"1.3", "1.3", false, false, false, false, "", false},
		{"T012", "T012", false, false, false, true, "", false},
		{"4.1", "4.1", false, false, false, true, "TEST", false},
		{"4.2", "4.2", false, false, false, true, "AC", true},
		{"V6", "V6", false, false, false, true, "", true},
		{"V7", "V7", false, false, false, true, "", false},
		{"5.3", "5.3", false, false, false, true, "", true},
		{"5.4", "5.4", false, false, false, true, "", false},
		{"2", "2", false, true, false, false, "", false},
		{"2.3", "2.3", false, false, true, false, "", false},
		{"1", "1", true, false, false, false, "", false},
		{"3.1", "3.1", true, false, false, false, "", false},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("Parse (-want +got):\n%s", d)
	}
}

func TestRepeatedIDs(t *testing.T) {
	ts := Parse([]byte("- [ ] 1.24a [VERIFY] One\n  - **Verify**: `go vet ./...`\n- [ ] 1.24a [VERIFY] Two\n  - **Verify**: `go test ./...`\n- [ ] 2 Other\n"))
	var refs []string
	for _, t := range ts {
		refs = append(refs, t.Ref)
	}
	if d := cmp.Diff([]string{"1.24a#1", "1.24a#2", "2"}, refs); d != "" {
		t.Fatalf("refs (-want +got):\n%s", d)
	}
}

func TestQualityCommandsSection(t *testing.T) {
	f := ParseFile([]byte("# Tasks\n\n## Quality Commands\n\n- **Build**: N/A\n- **Lint**: `ruff check .`\n- **Test**: `uv run pytest`\n\n## Phase 1\n\n- [ ] 1.1 [VERIFY] Checkpoint\n  - **Verify**: `make -n`\n"))
	want := []Command{{"ruff check .", FromQualityList}, {"uv run pytest", FromQualityList}}
	if d := cmp.Diff(want, f.Quality); d != "" {
		t.Fatalf("quality (-want +got):\n%s", d)
	}
}

func TestCommandLine(t *testing.T) {
	for s, want := range map[string]bool{
		"pnpm lint && pnpm test":       true,
		"go test ./...":                true,
		"true && test -f tasks.md":     true,
		"sh -c 'seq 1 80; exit 3'":     true,
		"cd web && pnpm test":          true,
		"full test suite":              false,
		"test results":                 false,
		"true story":                   false,
		"ruff + structural check":      false,
		"echo all green":               false,
		"parity harness baseline":      false,
		"launch dev server and verify": false,
		"npm run lint, then npm test":  false,
		"sh -c 'unclosed":              false,
		"pnpm lint &&":                 false,
	} {
		if got := CommandLine(s); got != want {
			t.Errorf("CommandLine(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestTicked(t *testing.T) {
	prev := Parse([]byte("- [ ] V1 a\n- [x] V2 b\n- [ ] V3 c\n- [ ] V3 c again\n"))
	next := Parse([]byte("- [x] V1 a\n- [x] V2 b\n- [ ] V3 c\n- [x] V3 c again\n- [x] V4 new\n"))
	var ids []string
	for _, t := range Ticked(prev, next) {
		ids = append(ids, t.Ref+":"+t.Title)
	}
	if d := cmp.Diff([]string{"V1:a", "V3#2:c again", "V4:new"}, ids); d != "" {
		t.Fatalf("Ticked (-want +got):\n%s", d)
	}
}

// FuzzParse: any input parses without panicking, a task's line is a line
// of the input holding its box, and refs are unique within the file.
func FuzzParse(f *testing.F) {
	f.Add([]byte("- [ ] V1 [VERIFY] Quality check: `pnpm lint` && pnpm test\n  - **Verify**: `go test`\n"))
	f.Add([]byte("- [x]\n"))
	f.Add([]byte("> - [ ] V1 [VERIFY]: \n>   - **Verify**: ``"))
	f.Add([]byte("- [ ]* 2.3 x\n- [-] 1. y\n- [ ] 1.2 [VERIFY:AC] z\n  - **Verify**:\n    ```\n    a \\\n    ```\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		// A lone carriage return ends a line, as CommonMark reads it.
		lines := len(lineStarts(LineEnds(bytesTrimBOM(src))))
		seen := map[string]bool{}
		for _, task := range Parse(src) {
			if task.Line < 1 || task.Line > lines {
				t.Fatalf("task %q on line %d of %d", task.ID, task.Line, lines)
			}
			if seen[task.Ref] {
				t.Fatalf("ref %q twice", task.Ref)
			}
			seen[task.Ref] = true
			for _, c := range task.Commands {
				if strings.TrimSpace(c.Run) == "" || c.Source == "" {
					t.Fatalf("empty command or source: %+v", c)
				}
			}
		}
	})
}

// Seen in real files: a byte-order mark before the first task, Windows line
// ends, boxes inside an HTML comment and in a fenced test plan.
func TestFileOddities(t *testing.T) {
	src := "\xEF\xBB\xBF- [ ] 1.1 [VERIFY] First\r\n  - **Verify**: `go vet ./...`\r\n" +
		"<!--\n- [ ] 9.1 [VERIFY] commented out\n-->\n" +
		"- [ ] 1.2 Open a PR\n  ```\n  gh pr create --body '- [ ] tested by hand'\n  ```\n"
	var got []string
	for _, task := range Parse([]byte(src)) {
		got = append(got, task.Ref)
		if task.Ref == "1.1" && (len(task.Commands) != 1 || task.Commands[0].Run != "go vet ./...") {
			t.Errorf("1.1 commands %+v", task.Commands)
		}
	}
	if d := cmp.Diff([]string{"1.1", "1.2"}, got); d != "" {
		t.Fatalf("tasks (-want +got):\n%s", d)
	}
}

// TestBracketNoteAmongTags: a bracketed note of words among the leading
// tags, on one line or wrapped onto the next, does not hide the [VERIFY]
// after it (corpus six: a verification task read as an ordinary one, its
// tick ungated).
func TestBracketNoteAmongTags(t *testing.T) {
	for _, tc := range []struct {
		src, id string
		verify  bool
		cmds    []string
	}{
		{"- [ ] T002 [VM: a long note the author\n  wrapped] [VERIFY] Run `go test ./...`\n", "T002", true, []string{"go test ./..."}},
		{"- [x] ✅ DEFERRED-BLOCKED [VM-RUNNING: backfill @ host — operator to verify once complete] [VERIFY] P0. rows\n", "DEFERRED-BLOCKED", true, nil},
		{"- [x] ✅ DEFERRED-BLOCKED [VM-RUNNING: backfill @ host — operator to\n      verify once complete] [VERIFY] P0. rows\n", "DEFERRED-BLOCKED", true, nil},
		{"- [x] [CHANGE REQUEST] Stop and ask before changing final logic\n", "", false, nil},
		{"- [ ] 1.2 Fix [array\n  indexing in [VERIFY] the parser\n", "1.2", false, nil},
		{"- [ ] 1.3 [blocked: waits on\n  infra] Deploy\n", "1.3", false, nil},
		{"- [ ] 1.4 [a note with `code` in it] [VERIFY] x\n", "1.4", false, nil},
	} {
		ts := Parse([]byte(tc.src))
		if len(ts) != 1 {
			t.Fatalf("%q: %d tasks", tc.src, len(ts))
		}
		var cmds []string
		for _, c := range ts[0].Commands {
			cmds = append(cmds, c.Run)
		}
		if ts[0].ID != tc.id || ts[0].Verify != tc.verify || !slices.Equal(cmds, tc.cmds) {
			t.Errorf("%q: id %q verify %v commands %q; want %q %v %q", tc.src, ts[0].ID, ts[0].Verify, cmds, tc.id, tc.verify, tc.cmds)
		}
	}
}

// TestStepLabelBeforeTag: a [VERIFY] tag right after a step's label
// ("Step 1.5:", "**Task 4: … **") makes a verification task; the tag
// further on, or after a label that numbers nothing, does not. The title
// loses the emphasis the label opened; the name ends at the colon after
// the step's number, not at it.
func TestStepLabelBeforeTag(t *testing.T) {
	for _, tc := range []struct {
		src, title, name string
		verify           bool
	}{
		{"- [ ] **Step 1.5: [VERIFY] manual smoke check in prod**\n", "1.5: [VERIFY] manual smoke check in prod", "Step 1.5: [VERIFY] manual smoke check in prod", true},
		{"- [ ] **Step 2: [VERIFY] tests pass**: `go test ./...`\n", "2: [VERIFY] tests pass: `go test ./...`", "Step 2: [VERIFY] tests pass", true},
		{"- [ ] Task 4: [VERIFY] lint — `golangci-lint run`\n", "4: [VERIFY] lint — `golangci-lint run`", "Task 4: [VERIFY] lint — `golangci-lint run`", true},
		{"- [ ] step 2b: [VERIFY] `make check`\n", "2b: [VERIFY] `make check`", "step 2b: [VERIFY] `make check`", true},
		{"- [ ] **Step 1: Write the failing test**\n", "1: Write the failing test", "Step 1: Write the failing test", false},
		{"- [ ] Step 3: run the suite [VERIFY] later\n", "3: run the suite [VERIFY] later", "Step 3: run the suite [VERIFY] later", false},
		{"- [ ] Step one: [VERIFY] `make check`\n", "one: [VERIFY] `make check`", "Step one: [VERIFY] `make check`", false},
		{"- [ ] Phase 2 checkpoint [VERIFY]: `make check`\n", "2 checkpoint [VERIFY]: `make check`", "Phase 2 checkpoint [VERIFY]: `make check`", false},
	} {
		ts := Parse([]byte(tc.src))
		if len(ts) != 1 {
			t.Fatalf("%q: %d tasks", tc.src, len(ts))
		}
		if ts[0].Verify != tc.verify || ts[0].Title != tc.title || ts[0].Name() != tc.name {
			t.Errorf("%q: verify %v, title %q, name %q; want %v, %q, %q", tc.src, ts[0].Verify, ts[0].Title, ts[0].Name(), tc.verify, tc.title, tc.name)
		}
	}
}

// TestTagInAnyCase: the tag in other cases, and its variants, are the tag
// among the leading tags; MentionsTag finds every form of it, and nothing
// else.
func TestTagInAnyCase(t *testing.T) {
	for _, tc := range []struct {
		src    string
		verify bool
		kind   string
	}{
		{"- [ ] T032 [P] [Verify] 运行 `cd backend && go test ./...`\n", true, ""},
		{"- [ ] [verify] Run unit tests: `./iw test unit`\n", true, ""},
		{"- [ ] **T026** [Verify] fixture tests\n", true, ""},
		{"- [ ] T1 [Verify:manual] look at the page\n", true, "manual"},
		{"- [ ] T2 [VERIFIED] done before\n", false, ""},
		{"- [ ] T3 Add [Verify] button\n", false, ""},
		{"- [ ] T4 [VERIFY]: `go vet ./...`\n", true, ""},
		{"- [ ] T5 [P][VERIFY] `go vet ./...`\n", true, ""},
		{"- [ ] T6 [VERIFY][P] `go vet ./...`\n", true, ""},
		{"- [ ] T7 [Verify: TEST] `go vet ./...`\n", true, "TEST"},
		{"- [ ] T8 [P] add the [VERIFY] flag\n", false, ""},
		{"- [ ] T9 \\[VERIFY\\] `go vet ./...`\n", true, ""},
		{"- [ ] T10 [VERIFY ] `go vet ./...`\n", true, ""},
	} {
		ts := Parse([]byte(tc.src))
		if len(ts) != 1 || ts[0].Verify != tc.verify || ts[0].Kind != tc.kind {
			t.Errorf("%q: %+v; want verify %v kind %q", tc.src, ts, tc.verify, tc.kind)
		}
	}
	for s, want := range map[string]bool{
		"[VERIFY] T1 x": true, "T1 [Verify] x": true, "[verify:e2e] x": true, "a [b] [VERIFY:AC]": true,
		"[VERIFIED] x": false, "[VERIFY x": false, "VERIFY] x": false, "1.4.3 VERIFY: lint": true, "[[verify]": true, "": false, "[": false, "[VERIFY": false,
	} {
		if got := MentionsTag(s); got != want {
			t.Errorf("MentionsTag(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestTickedPositional: a step added above checked steps, or a task with no
// id moved down a line, is no tick of the steps it moves; a step ticked
// is, and so is one whose words were swapped with a checked one's.
func TestTickedPositional(t *testing.T) {
	for _, tc := range []struct {
		prev, next string
		want       []string
	}{
		{"- [x] **Step 1: [VERIFY] build**: `make`\n- [ ] **Step 2: [VERIFY] test**: `make test`\n",
			"- [ ] **Step 0: write it**\n- [x] **Step 1: [VERIFY] build**: `make`\n- [ ] **Step 2: [VERIFY] test**: `make test`\n", nil},
		{"- [x] [verify] build: `make`\n- [ ] [verify] test: `make test`\n",
			"- [ ] [verify] lint: `make lint`\n- [x] [verify] build: `make`\n- [ ] [verify] test: `make test`\n", nil},
		{"- [x] **Step 1: [VERIFY] build**: `make`\n- [ ] **Step 2: [VERIFY] test**: `make test`\n",
			"- [x] **Step 1: [VERIFY] build**: `make`\n- [x] **Step 2: [VERIFY] test**: `make test`\n", []string{"Step#2"}},
		{"- [x] **Step 1: [VERIFY] build**: `make`\n- [ ] **Step 2: [VERIFY] test**: `make test`\n",
			"- [x] **Step 1: [VERIFY] lint**: `make lint`\n- [x] **Step 2: [VERIFY] build**: `make test`\n", []string{"Step#1", "Step#2"}},
		{"- [x] **Step 1: [VERIFY] build**: `make`\n",
			"- [x] **Step 1: [VERIFY] build**: `make`\n- [ ] **Step 2: [VERIFY] test**: `make test`\n", nil},
		// A step added and the rest renumbered: the checked one is no tick.
		{"- [x] **Step 1: write**\n- [x] **Step 2: [VERIFY] unit tests pass**: `make test`\n",
			"- [x] **Step 1: write**\n- [ ] **Step 2: wire the flag**\n- [x] **Step 3: [VERIFY] unit tests pass**: `make test`\n", nil},
		// The same checkpoint in three phases: one checked deleted, another
		// ticked, is a tick.
		{"## Phase 1\n\n- [x] VC [VERIFY] checkpoint: `make test`\n\n## Phase 2\n\n- [x] VC [VERIFY] checkpoint: `make test`\n\n## Phase 3\n\n- [ ] VC [VERIFY] checkpoint: `make test`\n",
			"## Phase 1\n\n## Phase 2\n\n- [x] VC [VERIFY] checkpoint: `make test`\n\n## Phase 3\n\n- [x] VC [VERIFY] checkpoint: `make test`\n", []string{"VC#2"}},
		// The same sub-heading under each phase: the path tells them apart.
		{"## Phase 1\n\n### Checkpoint\n\n- [x] [VERIFY] suite: `make test`\n\n## Phase 2\n\n### Checkpoint\n\n- [ ] [VERIFY] suite: `make test`\n",
			"## Phase 2\n\n### Checkpoint\n\n- [x] [VERIFY] suite: `make test`\n", []string{"@line5"}},
	} {
		var got []string
		for _, x := range Ticked(Parse([]byte(tc.prev)), Parse([]byte(tc.next))) {
			got = append(got, x.Ref)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q -> %q: ticked %q, want %q", tc.prev, tc.next, got, tc.want)
		}
	}
}

// A spec-kit file written again with a task inserted: every id below it
// moves, and a checked checkpoint under a new id is the same task, no tick.
// Its words, headings or commands changed, or a copy of it left beside it,
// it is a tick.
func TestTickedRenumbered(t *testing.T) {
	prev := Parse([]byte("## Phase 1\n\n- [x] T001 Setup\n- [x] T002 [VERIFY] Quality checkpoint: `unit-tests`\n\n## Phase 2\n\n- [ ] T003 Endpoint\n- [ ] T004 [VERIFY] Quality checkpoint: `unit-tests && lint-it`\n"))
	for _, c := range []struct {
		name, next string
		want       []string
	}{
		{"renumbered", "## Phase 1\n\n- [x] T001 Setup\n- [ ] T002 Migration\n- [x] T003 [VERIFY] Quality checkpoint: `unit-tests`\n\n## Phase 2\n\n- [ ] T004 Endpoint\n- [ ] T005 [VERIFY] Quality checkpoint: `unit-tests && lint-it`\n", nil},
		{"moved under another heading", "## Phase 1\n\n- [x] T001 Setup\n- [ ] T002 Migration\n\n## Phase 2\n\n- [x] T003 [VERIFY] Quality checkpoint: `unit-tests`\n- [ ] T004 Endpoint\n", []string{"T003"}},
		{"its command changed", "## Phase 1\n\n- [x] T001 Setup\n- [ ] T002 Migration\n- [x] T003 [VERIFY] Quality checkpoint: `go-vet-ok`\n", []string{"T003"}},
		{"a copy beside it", "## Phase 1\n\n- [x] T001 Setup\n- [x] T002 [VERIFY] Quality checkpoint: `unit-tests`\n- [x] T003 [VERIFY] Quality checkpoint: `unit-tests`\n", []string{"T003"}},
	} {
		var got []string
		for _, x := range Ticked(prev, Parse([]byte(c.next))) {
			got = append(got, x.Ref)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: ticked %v, want %v", c.name, got, c.want)
		}
	}
}

func TestMaskIDs(t *testing.T) {
	for in, want := range map[string]string{
		"Checkpoint after T002-T003":  "Checkpoint after #-#",
		"US12 checkpoint (T9)":        "# checkpoint (T9)",
		"Run HTTP2 tests and ABCD123": "Run HTTP2 tests and ABCD123",
		"see T0042, then T00421":      "see #, then T00421",
	} {
		if got := maskIDs(in); got != want {
			t.Errorf("maskIDs(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNameAside: a colon inside an aside's parentheses ends no name (the
// deny named "V2 [VERIFY] Full suite (slow"); the colon after it does.
func TestNameAside(t *testing.T) {
	for src, want := range map[string]string{
		"- [ ] V2 [VERIFY] Full suite (slow: about 8 minutes on CI)\n":         "V2 [VERIFY] Full suite (slow: about 8 minutes on CI)",
		"- [ ] V3 [VERIFY] Full suite (slow: 8 minutes): `unit-tests --all`\n": "V3 [VERIFY] Full suite (slow: 8 minutes)",
		"- [ ] V4 [VERIFY] Quality check: unit-tests\n":                        "V4 [VERIFY] Quality check",
	} {
		if got := Parse([]byte(src))[0].Name(); got != want {
			t.Errorf("%q: name %q, want %q", src, got, want)
		}
	}
}

// Look-alike boxes, the lines of fenced examples, and ids as words.
func TestLookalikes(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"-\u00a0[x] V1 [VERIFY] x", true}, {"- [x\u200b] V1", true}, {"#### [x] V1", true}, {"| [x] | V1 |", true},
		{"- ［x］ V1", true}, {"- [✓] V1", true}, {"~~- [x] V1~~", true},
		{"- [1] see the footnote", false}, {"- [a] label", false}, {"Legend: `[x]` done", false}, {"- `[x]` done (verified)", false},
		{"plain prose", false}, {"- [ ] V1", false},
	} {
		if got := LooksTicked(c.line); got != c.want {
			t.Errorf("LooksTicked(%q) = %v, want %v", c.line, got, c.want)
		}
	}
	src := "- [ ] V1 x\n```md\n- [x] V9 example\n```\n-\u00a0[x] V1 y\n~~~~\n- [✓] V2\n~~~~ not closed\n~~~~\n| [x] | V3 |\n"
	got := LookalikeLines([]byte(src), func(n int) bool { return n == 1 })
	if want := []int{5, 10}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("LookalikeLines = %v, want %v (fenced examples and boxed lines aside)", got, want)
	}
	for _, c := range []struct {
		line, id string
		want     bool
	}{
		{"- [x] V1 [VERIFY]", "V1", true}, {"- [x] V10 [VERIFY]", "V1", false}, {"1.23 done", "1.2", false}, {"1.2. done", "1.2", true}, {"(V1)", "V1", true},
	} {
		if got := NamesID(c.line, c.id); got != c.want {
			t.Errorf("NamesID(%q, %q) = %v, want %v", c.line, c.id, got, c.want)
		}
	}
}
