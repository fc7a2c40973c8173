package verifygate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

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
	v1 := parse("- [x] V1 [VERIFY] checks: `unit-tests`\n")[0]
	for _, tc := range []struct {
		name  string
		boxes map[string]box
		now   string
		want  []byte // each checked task's mark now, 0 for none
	}{
		{
			"step above deleted",
			map[string]box{"Step#2": placed(box{mark: markOK}, tests)},
			"- [x] **Step 2: [VERIFY] tests**: `unit-tests`\n- [ ] **Step 3: [VERIFY] lint**: `sh lint.sh`\n",
			[]byte{markOK},
		},
		{
			"verified twin deleted above an unverified tick",
			map[string]box{"Step#2": placed(box{mark: markOK}, tests), "Step#3": placed(box{mark: markBad}, lint)},
			"- [x] **Step 1: Write it**\n- [x] **Step 3: [VERIFY] lint**: `sh lint.sh`\n",
			[]byte{0, markBad},
		},
		{
			"twin gone: Step#2 is Step",
			map[string]box{"Step#2": placed(box{mark: markOK}, tests)},
			"- [x] **Step 2: [VERIFY] tests**: `unit-tests`\n",
			[]byte{markOK},
		},
		{
			"reworded in place: a new tick",
			map[string]box{"Step#2": placed(box{mark: markOK}, tests)},
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
			"a new twin written above a box checked at the start: the box stays with its words",
			map[string]box{"V1": placed(box{mark: markStart}, v1)},
			"- [x] V1 [VERIFY] Lint: `sh lint.sh`\n- [x] V1 [VERIFY] checks: `unit-tests`\n",
			[]byte{0, markStart},
		},
		{
			"renamed into a checked id, with other commands: a new tick",
			map[string]box{"V1": placed(box{mark: markOK}, v1)},
			"- [x] V1 [VERIFY] Lint: `sh lint.sh`\n",
			[]byte{0},
		},
		{
			"an id's task reworded, its commands the same: the box stays",
			map[string]box{"V1": placed(box{mark: markStart}, v1)},
			"## Phase 1 (done)\n\n- [x] V1 [VERIFY] the checks pass: `unit-tests`\n",
			[]byte{markStart},
		},
		{
			"a step reworded in place: a new tick",
			map[string]box{"Step#2": placed(box{mark: markOK}, tests)},
			"- [x] **Step 1: Write it**\n- [x] **Step 2: [VERIFY] tests passing**: `unit-tests`\n",
			[]byte{0, 0},
		},
		{
			"twins: the worst mark first",
			map[string]box{"Step#1": placed(box{mark: markOK}, tests), "Step#4": placed(box{mark: markBad}, tests)},
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
		was, _ := pairBoxes(st, "tasks.md", now, true, nil, nil)
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

// TestSubjectNames: a TaskCompleted subject names a file's task by words
// before its title that name it (its id, its heading), or by its title's
// opening words; other words name nothing.
func TestSubjectNames(t *testing.T) {
	ts := tasks.Parse([]byte("## Phase 2: Foundational\n\n- [ ] T008 [VERIFY] Quality checkpoint: `unit-tests`\n- [ ] T009 [VERIFY] Run the unit tests for the parser: `sh p.sh`\n\n## Phase 12\n\n- [ ] T120 [VERIFY] Quality checkpoint: `unit-tests`\n"))
	t8, t9, t120 := ts[0], ts[1], ts[2]
	for _, tc := range []struct {
		subject string
		task    tasks.Task
		lead    bool
		starts  bool
	}{
		{"Run T008 [VERIFY] Quality checkpoint", t8, true, false},
		{"Phase 2 [VERIFY] Quality checkpoint", t8, true, false},
		{"phase 2: [VERIFY] Quality checkpoint", t8, true, false},
		{"Phase 3 [VERIFY] Quality checkpoint", t8, false, false},
		{"Phase 1 [VERIFY] Quality checkpoint", t120, false, false},
		{"Phase 12 [VERIFY] Quality checkpoint", t120, true, false},
		{"Run T007 [VERIFY] Quality checkpoint", t8, false, false},
		{"[VERIFY] Quality checkpoint", t8, false, false},
		{"[VERIFY] Run the unit tests", t9, false, true},
		{"[VERIFY] Run the", t9, false, false},
		{"[VERIFY] Run the unit", t9, false, true},
		{"[VERIFY] Run the unit te", t9, false, false},
	} {
		if got := leadNames(tc.subject, tc.task); got != tc.lead {
			t.Errorf("leadNames(%q, %s) = %v", tc.subject, tc.task.Ref, got)
		}
		if got := startsTitle(tc.subject, tc.task.Title); got != tc.starts {
			t.Errorf("startsTitle(%q, %s) = %v", tc.subject, tc.task.Ref, got)
		}
	}
}

// TestTicksRecordRoundTrip: the session's record reads back as written,
// every kind of line (the boxes the agent unticked among them), and a line
// of a kind it does not know is damage.
func TestTicksRecordRoundTrip(t *testing.T) {
	st := newTickState()
	st.since, st.root, st.globs = 7, "/p", []string{"**/tasks.md"}
	st.files["tasks.md"] = [2]int64{-9, 120}
	st.boxes[boxKey{"tasks.md", "V1"}] = box{mark: markOK, time: 8, agent: "a1", words: "w1", runs: "r1"}
	st.boxes[boxKey{"tasks.md", "V2"}] = box{mark: markBad, time: 9, words: "w2", runs: "r2", via: "git pull --rebase"}
	st.boxes[boxKey{"tasks.md", "V3"}] = box{mark: markBad, time: 9, via: "git merge main"}
	st.unread["big.md"] = unread{time: 9, why: "too \"large\""}
	st.accepted[boxKey{"tasks.md", "V2"}] = "r2"
	st.cfg = configSeen{sum: "s", stat: [2]int64{1, 2}}
	st.cfgUser = `{"verify":{}}`
	st.past[pastKey{"tasks.md", "w3", "r3"}] = box{mark: markBad, time: 10, agent: "", words: "w3", runs: "r3"}
	st.past[pastKey{"specs/a b.md", "w4", "r4"}] = box{mark: markOther, time: 11, words: "w4", runs: "r4"}
	got, err := parseTicks(st.MarshalText())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(st, got, cmp.AllowUnexported(tickState{}, box{}, unread{}, configSeen{}, boxKey{}, pastKey{})); diff != "" {
		t.Errorf("read back (-written +read):\n%s", diff)
	}
	if _, err := parseTicks(append(st.MarshalText(), "q 1\n"...)); err == nil {
		t.Error("a line of an unknown kind read as a record")
	}
	if _, err := parseTicks(append(st.MarshalText(), "p x 1 \"\" \"f\" \"w\" \"r\"\n"...)); err == nil {
		t.Error("a past box with an unknown mark read as a record")
	}
}

// TestOnlyFromCommits: a command gives boxes their earlier ticks back only
// when it is git alone, bringing files from commits.
func TestOnlyFromCommits(t *testing.T) {
	for cmd, want := range map[string]bool{
		"git stash pop":                                 true,
		"git stash":                                     true,
		"git checkout 001-albums":                       true,
		"git add -A && git stash pop":                   true,
		"git revert --no-edit HEAD":                     true,
		"git pull --rebase":                             true,
		"git stash list":                                false,
		"sed -i s/x/y/ tasks.md; git stash list":        false,
		"sed -i s/x/y/ tasks.md && git checkout main":   false,
		"./bin/git checkout main":                       false,
		"GIT_DIR=x git checkout main":                   false,
		"git -C sub checkout main":                      true,
		"git status":                                    false,
		"cd /p/project && git stash pop":                true,
		"cd /p/project && git stash pop 2>&1 | tail -5": true,
		"git -C /p/project --no-pager stash pop":        true,
		"cd $(sed -i s/x/y/ tasks.md) && git stash pop": false,
		"git stash pop; `sed -i s/x/y/ tasks.md`":       false,
		"git -c alias.x=!sh checkout main":              false,
		"git stash pop | sed -i s/x/y/ tasks.md":        false,
		"git stash pop; cat ticked.md > tasks.md":       false,
		"git stash pop >/dev/null 2>&1":                 true,
		"git checkout main < x":                         false,
		"cd a b && git stash pop":                       false,
		"echo git checkout":                             false,
		"":                                              false,
	} {
		if got := onlyFromCommits(cmd); got != want {
			t.Errorf("onlyFromCommits(%q) = %v, want %v", cmd, got, want)
		}
	}
}
