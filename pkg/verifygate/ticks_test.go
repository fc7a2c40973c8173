package verifygate

import (
	"testing"

	"github.com/rodin-gate/rodin/pkg/tasks"
)

// TestPairBoxes: a box moves with its step when a step above it is added
// or deleted, and deleting a verified twin never hands its mark to another.
func TestPairBoxes(t *testing.T) {
	parse := func(src string) []tasks.Task {
		var out []tasks.Task
		for _, t := range tasks.Parse([]byte(src)) {
			if t.Checked {
				out = append(out, t)
			}
		}
		return out
	}
	three := parse("- [x] **Step 1: Write it**\n- [x] **Step 2: [VERIFY] tests**: `unit-tests`\n- [x] **Step 3: [VERIFY] lint**: `sh lint.sh`\n")
	tests, lint := three[1], three[2]
	for _, tc := range []struct {
		name  string
		boxes map[string]box
		now   string
		want  []byte // each checked task's mark now, 0 for none
	}{
		{
			"step above deleted",
			map[string]box{"Step#2": {mark: markOK, place: placeOf(tests)}},
			"- [x] **Step 2: [VERIFY] tests**: `unit-tests`\n- [ ] **Step 3: [VERIFY] lint**: `sh lint.sh`\n",
			[]byte{markOK},
		},
		{
			"verified twin deleted above an unverified tick",
			map[string]box{"Step#2": {mark: markOK, place: placeOf(tests)}, "Step#3": {mark: markBad, place: placeOf(lint)}},
			"- [x] **Step 1: Write it**\n- [x] **Step 3: [VERIFY] lint**: `sh lint.sh`\n",
			[]byte{0, markBad},
		},
		{
			"twin gone: Step#2 is Step",
			map[string]box{"Step#2": {mark: markOK, place: placeOf(tests)}},
			"- [x] **Step 2: [VERIFY] tests**: `unit-tests`\n",
			[]byte{markOK},
		},
		{
			"reworded in place: a new tick",
			map[string]box{"Step#2": {mark: markOK, place: placeOf(tests)}},
			"- [x] **Step 1: Write it**\n- [x] **Step 2: [VERIFY] e2e**: `e2e-tests`\n",
			[]byte{0, 0},
		},
		{
			"kept before places were: by key",
			map[string]box{"Step#2": {mark: markBad}},
			"- [x] **Step 1: Write it**\n- [x] **Step 2: [VERIFY] e2e**: `e2e-tests`\n",
			[]byte{0, markBad},
		},
		{
			"a box kept without words goes to its id's first task",
			map[string]box{"V1": {mark: markStart}},
			"- [x] V1 [VERIFY] new twin: `true`\n- [x] V1 [VERIFY] checks: `unit-tests`\n",
			[]byte{markStart, 0},
		},
		{
			"twins: the worst mark first",
			map[string]box{"Step#1": {mark: markOK, place: placeOf(tests)}, "Step#4": {mark: markBad, place: placeOf(tests)}},
			"- [x] **Step 0: Read it**\n- [x] **Step 2: [VERIFY] tests**: `unit-tests`\n",
			[]byte{0, markBad},
		},
	} {
		st := newTickState()
		for k, b := range tc.boxes {
			st.boxes[boxKey{"tasks.md", k}] = b
		}
		st.boxes[boxKey{"other.md", "Step#2"}] = box{mark: markOK}
		now := parse(tc.now)
		was := pairBoxes(st, "tasks.md", now)
		var got []byte
		for _, b := range was {
			if b == nil {
				got = append(got, 0)
			} else {
				got = append(got, b.mark)
			}
		}
		if string(got) != string(tc.want) {
			t.Errorf("%s: marks %q, want %q", tc.name, got, tc.want)
		}
		if len(st.boxes) != 1 {
			t.Errorf("%s: %d boxes left in the record, want only other.md's", tc.name, len(st.boxes))
		}
	}
}
