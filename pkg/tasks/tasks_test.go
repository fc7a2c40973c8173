package tasks

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sample = "# Tasks\n\n" +
	"- [x] 1.1 Add parser\n" +
	"- [ ] V1 [VERIFY] Quality check: `pnpm lint` && pnpm test\n" +
	"  - **Do**: run them\n" +
	"  - **Verify**: All commands exit 0\n" +
	"- [ ] V5 [VERIFY] CI pipeline passes\n" +
	"  - **Verify**: `gh pr checks` shows all checks passing\n" +
	"- [X] V6 [VERIFY] AC checklist\n" +
	"  - **Do**: Read requirements.md\n" +
	"\n```markdown\n- [ ] V9 [VERIFY] in a fence: never-run\n```\n" +
	"\n    - [ ] V8 [VERIFY] indented code: never-run\n" +
	"\n* [ ] 2.1 Star bullet\n" +
	"1. [ ] 3.1 Ordered item\n" +
	"- [] not a box\n"

func TestParse(t *testing.T) {
	type row struct {
		ID, Title       string
		Checked, Verify bool
		AC              bool
		Line            int
		Commands        []string
	}
	var got []row
	for _, t := range Parse([]byte(sample)) {
		got = append(got, row{t.ID, t.Title, t.Checked, t.Verify, t.AC, t.Line, t.Commands})
	}
	want := []row{
		{"1.1", "Add parser", true, false, false, 3, nil},
		{"V1", "[VERIFY] Quality check: `pnpm lint` && pnpm test", false, true, false, 4, []string{"pnpm lint", "pnpm test"}},
		{"V5", "[VERIFY] CI pipeline passes", false, true, false, 7, []string{"gh pr checks"}},
		{"V6", "[VERIFY] AC checklist", true, true, true, 9, nil},
		{"2.1", "Star bullet", false, false, false, 18, nil},
		{"3.1", "Ordered item", false, false, false, 19, nil},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("Parse (-want +got):\n%s", d)
	}
}

func TestTicked(t *testing.T) {
	prev := Parse([]byte("- [ ] V1 a\n- [x] V2 b\n- [ ] V3 c\n- [ ] V3 c again\n"))
	next := Parse([]byte("- [x] V1 a\n- [x] V2 b\n- [ ] V3 c\n- [x] V3 c again\n- [x] V4 new\n"))
	var ids []string
	for _, t := range Ticked(prev, next) {
		ids = append(ids, t.ID+":"+t.Title)
	}
	if d := cmp.Diff([]string{"V1:a", "V3:c again", "V4:new"}, ids); d != "" {
		t.Fatalf("Ticked (-want +got):\n%s", d)
	}
}

// FuzzParse: any input parses without panicking, and a task's line is a
// line of the input holding its box.
func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("- [x]\n"))
	f.Add([]byte("> - [ ] V1 [VERIFY]: \n>   - **Verify**: ``"))
	f.Fuzz(func(t *testing.T, src []byte) {
		lines := len(lineStarts(src))
		for _, task := range Parse(src) {
			if task.Line < 1 || task.Line > lines {
				t.Fatalf("task %q on line %d of %d", task.ID, task.Line, lines)
			}
		}
	})
}
