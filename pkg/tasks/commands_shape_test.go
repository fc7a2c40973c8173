package tasks

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCommandsIssue33: the shapes of issue 33 (2, 3, 4, 11), in our own
// words: a plain Verification list item, a Verify line that names the
// program the Do steps run, a Verify line about the steps' outcome, a
// check that cannot fail, a template's placeholder (`{{lint cmd}}`, and
// corpus four's `cd <project-root> && …`).
func TestCommandsIssue33(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []Command
	}{
		{"plain Verification item", "- [ ] 3.4 [VERIFY] Parser\n  - Implement the parser\n  - Verification: `node --test test/parser.test.js`\n",
			[]Command{{"node --test test/parser.test.js", FromVerifyLine}}},
		{"plain Verify item", "- [ ] V2 [VERIFY] Lint\n  - Verify: `ruff check src`\n",
			[]Command{{"ruff check src", FromVerifyLine}}},
		{"bold Verification", "- [ ] V3 [VERIFY] Types\n  - **Verification**: `mypy src`\n",
			[]Command{{"mypy src", FromVerifyLine}}},
		{"program named alone, Do steps run it", "- [ ] V4 [VERIFY] Build and test\n  - **Do**:\n    1. `scripts/dotnet build App.sln`\n    2. `scripts/dotnet test App.sln`\n  - **Verify**: Both via `scripts/dotnet`\n",
			[]Command{{"scripts/dotnet build App.sln", FromDoSteps}, {"scripts/dotnet test App.sln", FromDoSteps}}},
		{"outcome of the Do steps", "- [ ] V5 [VERIFY] Sensor tests\n  - **Do**: run `pytest tests/sensors -q`\n  - **Verify**: No sensor-related test failures\n",
			[]Command{{"pytest tests/sensors -q", FromDoSteps}}},
		{"all N checks pass", "- [ ] V6 [VERIFY] Gate\n  - **Do**: `make lint` then `make test`\n  - **Verify**: All 2 checks pass\n",
			[]Command{{"make lint", FromDoSteps}, {"make test", FromDoSteps}}},
		{"a check that cannot fail", "- [ ] VE1 [VERIFY] E2E\n  - **Verify**: Script asserting all conditions → `echo VE1_PASS`\n", nil},
		{"a template's placeholder", "- [ ] T1 [VERIFY] Lint\n  - **Verify**: `{{lint cmd}}`\n", nil},
		{"a tool whose output a person reads", "- [ ] V39 [VERIFY] Clean state\n  - **Verify**: `git status` shows no uncommitted changes\n", nil},
		{"a tool that streams", "- [ ] V38 [VERIFY] Memory\n  - **Verify**: `docker stats` during the run\n", nil},
		{"Do steps that are the action", "- [ ] V41 [VERIFY] Open the PR\n  - **Do**: `git push -u origin feat` then `gh pr create --fill`\n  - **Verify**: All CI checks pass\n", nil},
		{"a manual check after Do steps that start the thing watched", "- [ ] V20 [VERIFY] Manual e2e test\n  - **Do**: run `python -m watcher`\n  - **Verify**: Manual observation of logs; all errors handled\n", nil},
		{"prose after the colon that starts with grep", "- [ ] 5.2 [VERIFY] Final validation: grep confirms all bugs fixed\n", nil},
		{"a template's root placeholder", "- [ ] 1.5 [VERIFY] Build\n  - **Verify**: `cd <project-root> && swift build 2>&1 | tail -5`\n",
			[]Command{{"swift build 2>&1 | tail -5", FromVerifyLine}}},
		{"a template's other placeholder", "- [ ] 1.6 [VERIFY] Package tests\n  - **Verify**: `cd <package-dir> && npm test`\n", nil},
		{"a placeholder argument", "- [ ] 1.7 [VERIFY] One test\n  - **Verify**: `pytest <test file>`\n", nil},
		{"angle brackets in quotes", "- [ ] 1.8 [VERIFY] Markup\n  - **Verify**: `grep -q \"<main>\" site/index.html`\n",
			[]Command{{`grep -q "<main>" site/index.html`, FromVerifyLine}}},
		{"redirects", "- [ ] 1.9 [VERIFY] Golden\n  - **Verify**: `go run ./cmd/fmt <testdata/in.txt 2>&1 | diff - testdata/want.txt`\n",
			[]Command{{"go run ./cmd/fmt <testdata/in.txt 2>&1 | diff - testdata/want.txt", FromVerifyLine}}},
		{"git diff as a check", "- [ ] V40 [VERIFY] Generated code current\n  - **Verify**: `git diff --exit-code`\n",
			[]Command{{"git diff --exit-code", FromVerifyLine}}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkCommands(t, tc.src, tc.want) })
	}
}

// checkCommands parses src, a verification task, and holds its commands
// to want.
func checkCommands(t *testing.T, src string, want []Command) {
	t.Helper()
	ts := Parse([]byte(src))
	if len(ts) == 0 || !ts[0].Verify {
		t.Fatalf("no verification task: %+v", ts)
	}
	if d := cmp.Diff(want, ts[0].Commands); d != "" {
		t.Errorf("commands (-want +got):\n%s", d)
	}
}

// TestVerifyLabelUnbracketed: "VERIFY:" in capitals, bare or in bold, at the
// title's start or after its id, is the tag; the word in prose is not.
func TestVerifyLabelUnbracketed(t *testing.T) {
	for src, want := range map[string]bool{
		"- [ ] **VERIFY: All projects compile** `dotnet build x.slnf`\n": true,
		"- [ ] 1.4.3 VERIFY: Settings integration test passes\n":         true,
		"- [ ] 2.1 Write the VERIFY: section of the docs\n":              false,
		"- [ ] Verify: the docs build\n":                                 false,
	} {
		ts := Parse([]byte(src))
		if len(ts) != 1 || ts[0].Verify != want {
			t.Errorf("%q: %+v, want a verification task: %v", src, ts, want)
		}
	}
	ts := Parse([]byte("- [ ] **VERIFY: All projects compile** `dotnet build x.slnf`\n"))
	if len(ts) == 1 && (ts[0].ID != "" || len(ts[0].Commands) != 1) {
		t.Errorf("the unbracketed tag's task: id %q, commands %+v", ts[0].ID, ts[0].Commands)
	}
}

// TestCommandsCorpusFive: the shapes a fifth corpus of real task files
// showed read wrong, in our own words: a fragment of a sentence, a
// diagnosis to run on failure, a line opening with an assignment, a slash
// command, a file named in the title, a label inside a paragraph or a
// quoted block, a label above the one that names the command, a shell
// given no script.
func TestCommandsCorpusFive(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []Command
	}{
		{"a wrapper lifted from a sentence, a step for failures", "- [ ] VE2 [VERIFY] E2E\n  - **Do**:\n    1. Run: `cd web && timeout 300 npx playwright test`\n    2. The outer `timeout 300` is the final guard\n    3. On failure: dump the log: `tail -50 /tmp/e2e.log`\n  - **Verify**: Playwright exit code 0 → `SUITE_PASS`\n",
			[]Command{{"cd web && timeout 300 npx playwright test", FromDoSteps}}},
		{"a line opening with an assignment", "- [ ] VE3 [VERIFY] Fixture round trip\n  - **Verify**: `d=$(mktemp -d); sh check.sh \"$d\"; rm -rf \"$d\"`\n",
			[]Command{{`d=$(mktemp -d); sh check.sh "$d"; rm -rf "$d"`, FromVerifyLine}}},
		{"a slash command in the title", "- [ ] T37 [VERIFY] The loop skill: run `/loop \"say done\"` and see it stop\n", nil},
		{"a file named in the title", "- [ ] T7 [VERIFY] Verify `watchers/mail_watcher.py` writes a note per mail\n", nil},
		{"a script named in the title", "- [ ] T8 [VERIFY] Smoke: `scripts/smoke.sh`\n",
			[]Command{{"scripts/smoke.sh", FromTitleCode}}},
		{"a Verify label inside the paragraph", "- [ ] 4.6 [VERIFY] Audit checkpoint\n  **Do**: look at the fixes\n  **Verify**: `sh check.sh` && `bash -n hooks/gate.sh`\n",
			[]Command{{"sh check.sh", FromVerifyLine}, {"bash -n hooks/gate.sh", FromVerifyLine}}},
		{"a quoted block's Test line", "- [ ] T001 [VERIFY] Dependencies installed\n  > **Inputs**: `requirements.txt` | **Deps**: none\n  > **Test**: `python -c \"import yaml\"`\n",
			[]Command{{`python -c "import yaml"`, FromVerifyLine}}},
		{"a Verification list above the Verify line", "- [ ] 5.3 [VERIFY] Bugs fixed\n  - **Verification**:\n    - `tests/test_sensor.py`\n  - **Verify**: `pytest tests/test_sensor.py -q`\n",
			[]Command{{"pytest tests/test_sensor.py -q", FromVerifyLine}}},
		{"a Verify line about the steps' assertions, a step's own fence", "- [ ] 3.19 [VERIFY] References gone\n  - **Do**:\n    1. Run the comprehensive grep:\n       ```bash\n       ! grep -rn old-name src\n       ```\n  - **Verify**: All grep assertions exit successfully\n",
			[]Command{{"! grep -rn old-name src", FromDoSteps}}},
		{"a program that cannot fail, by its path", "- [ ] 1.H [VERIFY] Gate\n  - **Verify**: `/bin/true`\n", nil},
		{"a shell given no script", "- [ ] 1.G [VERIFY] Phase gate\n  - **Verify**: all phase tasks ticked; `bash -n` passes on both scripts\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) { checkCommands(t, tc.src, tc.want) })
	}
}

// TestManualCorpusFive: checks a person makes, by their kind tag or their
// words, when the task names no command.
func TestManualCorpusFive(t *testing.T) {
	for src, want := range map[string]bool{
		"- [ ] T012 [P] [US1] [VERIFY:BROWSER] Register the panel\n":         true,
		"- [ ] T017 [VERIFY:API] The trip endpoint answers\n":                true,
		"- [ ] T018 [VERIFY:TEST] The trip model\n":                          false,
		"- [ ] 4.2 [VERIFY] Manual integration test\n":                       true,
		"- [ ] 64. [VERIFY] Manual device/emulator testing:\n":               true,
		"- [ ] T038 [VERIFY] Final visual regression check\n":                true,
		"- [ ] T036 [VERIFY] Performance validation using Chrome DevTools\n": true,
		"- [ ] T9 [VERIFY] Unit tests\n  - **Verify**: `go test ./...`\n":    false,
		"- [ ] T10 [VERIFY] Update the manual\n":                             false, // the document, not a person's check
		"- [ ] T11 [VERIFY] Run a manual QA pass\n":                          true,
	} {
		ts := Parse([]byte(src))
		if len(ts) != 1 || ts[0].Manual != want {
			t.Errorf("%q: manual %v, want %v", src, len(ts) == 1 && ts[0].Manual, want)
		}
	}
}

// TestCommandsCorpusSix: a sixth corpus's shapes, in our own words: SQL
// and URL paths in a title's code spans, a viewer whose output a person
// reads, a formatter that rewrites instead of checking.
func TestCommandsCorpusSix(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []Command
	}{
		{"SQL in the title", "- [ ] 3.7 [VERIFY] Inserts with `branch_id = NULL` and `role IN ('admin')` are rejected\n", nil},
		{"a URL's path", "- [ ] T13 [VERIFY] POST to `/api/public/playlists` answers 200\n", nil},
		{"a viewer a person reads", "- [ ] P1 [VERIFY] Merged\n  - **Verify**: `gh pr view 646` shows MERGED\n", nil},
		{"a viewer with an exit status", "- [ ] P2 [VERIFY] Checks green\n  - **Verify**: `gh run view 99 --exit-status`\n",
			[]Command{{"gh run view 99 --exit-status", FromVerifyLine}}},
		{"a formatter that rewrites", "- [ ] 1.1.4 [VERIFY] Formatted\n  - **Verify**: `cargo fmt`\n", nil},
		{"a formatter that checks", "- [ ] 1.1.5 [VERIFY] Formatted\n  - **Verify**: `cargo fmt -- --check`\n",
			[]Command{{"cargo fmt -- --check", FromVerifyLine}}},
		{"a program by its absolute path", "- [ ] 1.2 [VERIFY] Env\n  - **Verify**: `/usr/bin/env go version`\n",
			[]Command{{"/usr/bin/env go version", FromVerifyLine}}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkCommands(t, tc.src, tc.want) })
	}
}

// TestManualLegendAndLanguages: a file whose legend says [VERIFY] is a
// person's check makes its tasks without a command a person's; "manual" in
// the file's language counts; a legend that names an automated half too
// does not.
func TestManualLegendAndLanguages(t *testing.T) {
	for name, tc := range map[string]struct {
		src  string
		want bool
	}{
		"legend":              {"**Legend**:\n- **[VERIFY]** = ручная проверка (без автотестов)\n\n- [ ] T1 [VERIFY] Read the controller and compare it with the plan\n", true},
		"legend, command too": {"- **[VERIFY]** = manual check\n\n- [ ] T2 [VERIFY] Build\n  - **Verify**: `make build`\n", false},
		"mixed legend":        {"- **[VERIFY]**: Coverage + manual validation\n\n- [ ] T3 [VERIFY] Run the regression tests\n", false},
		"Spanish":             {"- [ ] T1.3 [VERIFY] Verificar manualmente que el diff coincide con el plan\n", true},
		"no legend":           {"- [ ] T4 [VERIFY] Read the controller and compare it with the plan\n", false},
	} {
		ts := Parse([]byte(tc.src))
		var got *Task
		for i := range ts {
			if ts[i].Verify {
				got = &ts[i]
			}
		}
		if got == nil || got.Manual != tc.want {
			t.Errorf("%s: manual %v, want %v (%+v)", name, got != nil && got.Manual, tc.want, ts)
		}
	}
}

// TestStatusMarkBeforeID: a status mark before the tags and the id (corpus
// six's "✅ [VERIFY] P0.") is no id: the id is P0.
func TestStatusMarkBeforeID(t *testing.T) {
	ts := Parse([]byte("- [x] ✅ [VERIFY] P0. **SMOKE-1**\n  - **Verify**: `sh smoke.sh`\n- [ ] ❌ DEFERRED [VERIFY] 2.1 Later\n"))
	if len(ts) != 2 || ts[0].ID != "P0" || !ts[0].Verify || ts[1].ID != "DEFERRED" || !ts[1].Verify {
		t.Fatalf("ids: %+v", ts)
	}
}

// TestCommandsCorpusSeven: a seventh corpus's shapes, in our own words:
// the directory a command is said to run in, a search that must find
// nothing, and a command written without backticks after "Run".
func TestCommandsCorpusSeven(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []Command
	}{
		{"a directory after the command", "- [ ] V1 [VERIFY] Run `cargo build` in daemon/ - must succeed\n",
			[]Command{{"cd daemon && cargo build", FromTitleCode}}},
		{"a directory in backticks", "- [ ] V2 [VERIFY] Tests\n  - **Verify**: `npm test` in `packages/api`\n",
			[]Command{{"cd packages/api && npm test", FromVerifyLine}}},
		{"from a directory, in parentheses", "- [ ] V3 [VERIFY] Build\n  - **Verify**: `make` (from web/app/)\n",
			[]Command{{"cd web/app && make", FromVerifyLine}}},
		{"in two directories, which one cd cannot say", "- [ ] V14 [VERIFY] Run `npm test` in api/ and web/\n",
			[]Command{{"npm test", FromTitleCode}}},
		{"in a list of directories", "- [ ] V15 [VERIFY] Run `npm test` in api/, web/\n",
			[]Command{{"npm test", FromTitleCode}}},
		{"in words that name no directory", "- [ ] V4 [VERIFY] Run `go test ./...` in CI and in parallel\n",
			[]Command{{"go test ./...", FromTitleCode}}},
		{"a file in backticks is no directory", "- [ ] V5 [VERIFY] Run `make test` in `tests/test_api.py`\n",
			[]Command{{"make test", FromTitleCode}}},
		{"outside the project", "- [ ] V6 [VERIFY] Run `make` in ../other/ and in /tmp/\n",
			[]Command{{"make", FromTitleCode}}},
		{"a search that must find nothing", "- [ ] V7 [VERIFY] Run `grep -rn \"TODO\" src/` - must return empty\n",
			[]Command{{`grep -rn "TODO" src/; test $? -eq 1`, FromTitleCode}}},
		{"zero matches, on the Verify line", "- [ ] V8 [VERIFY] Old colours gone\n  - **Verify**: `rg \"bg-white\" src/app/` MUST return zero matches\n",
			[]Command{{`rg "bg-white" src/app/; test $? -eq 1`, FromVerifyLine}}},
		{"exits 1", "- [ ] V9 [VERIFY] No client directive\n  - **Verify**: `grep \"use client\" app/page.tsx` exits 1\n",
			[]Command{{`grep "use client" app/page.tsx; test $? -eq 1`, FromVerifyLine}}},
		{"a search that must find", "- [ ] V10 [VERIFY] Exported\n  - **Verify**: `grep \"export default\" app/page.tsx` exits 0\n",
			[]Command{{`grep "export default" app/page.tsx`, FromVerifyLine}}},
		{"not a search", "- [ ] V11 [VERIFY] Vet\n  - **Verify**: `go vet ./...` prints nothing\n",
			[]Command{{"go vet ./...", FromVerifyLine}}},
		{"a search piped through searches finds nothing at its last", "- [ ] V12 [VERIFY] Scan\n  - **Verify**: `grep -rn x src/ | grep -v y` should return nothing\n",
			[]Command{{"grep -a -rn x src/ | grep -v y; test ${PIPESTATUS[0]} -le 1 -a ${PIPESTATUS[1]} -eq 1", FromVerifyLine}}},
		{"a search piped elsewhere is left as written", "- [ ] V12 [VERIFY] Scan\n  - **Verify**: `grep -rn x src/ | head -3` should return nothing\n",
			[]Command{{"grep -rn x src/ | head -3", FromVerifyLine}}},
		{"both: directory and nothing found", "- [ ] V13 [VERIFY] Run `grep -rn FIXME src/` in daemon/ - no matches\n",
			[]Command{{"cd daemon && { grep -rn FIXME src/; test $? -eq 1; }", FromTitleCode}}},
		{"a search that must not find nothing", "- [ ] V16 [VERIFY] Licensed\n  - **Verify**: `grep -n \"MIT\" LICENSE` must not return empty\n",
			[]Command{{`grep -n "MIT" LICENSE`, FromVerifyLine}}},
		{"how the search fails, not what it must find", "- [ ] V17 [VERIFY] Bumped\n  - **Verify**: `grep -q '\"version\": \"2.0\"' package.json` — fails with exit 1 if the bump is missing\n",
			[]Command{{`grep -q '"version": "2.0"' package.json`, FromVerifyLine}}},
		{"what no match would mean", "- [ ] V18 [VERIFY] Patched\n  - **Verify**: `grep -c \"retry\" client.go` shows 3 matches; no matches means the patch was lost\n",
			[]Command{{`grep -c "retry" client.go`, FromVerifyLine}}},
		{"before, not now", "- [ ] V19 [VERIFY] Wired\n  - **Verify**: `grep -rn \"register\" src/` (was 0 matches before)\n",
			[]Command{{`grep -rn "register" src/`, FromVerifyLine}}},
		{"a directory the command names itself", "- [ ] V20 [VERIFY] Store\n  - **Verify**: `go test ./internal/store/...` in internal/store/ passes\n",
			[]Command{{"go test ./internal/store/...", FromVerifyLine}}},
		{"in two directories joined by +", "- [ ] V21 [VERIFY] Run `grep -rn TODO src/` in daemon/ + web/ - must return empty\n",
			[]Command{{"grep -rn TODO src/; test $? -eq 1", FromTitleCode}}},
		{"the root of the repository", "- [ ] V22 [VERIFY] Run `make check` in the root/ of the repo\n",
			[]Command{{"make check", FromTitleCode}}},
		{"a migration's labels and an index's predicate", "- [ ] 5.1 [VERIFY] Migrations clean: `13/u`, `14/u` then `14/d`; index `outbox_idx WHERE drained_at IS NULL` present\n", nil},
		{"a part of the command again, in a result note", "- [x] 5.10.1 [VERIFY] `cd backend && go vet ./... && go test ./...` green. — build ok, `go vet ./...` clean\n",
			[]Command{{"cd backend && go vet ./... && go test ./...", FromTitleCode}}},
		{"a part of a line that may fail is read", "- [ ] 5.10.2 [VERIFY] `make lint || true` then `make lint`\n",
			[]Command{{"make lint || true", FromTitleCode}, {"make lint", FromTitleCode}}},
		{"a shell fence in a task with no Verify label", "- [x] **[VERIFY]** Run the check script (required)\n\n  ```bash\n  cd web\n  make check\n  ```\n",
			[]Command{{"cd web\nmake check", FromTaskBlock}}},
		{"a fence of output is no check", "- [ ] V40 [VERIFY] Output looks right\n\n  ```text\n  make check\n  ```\n", nil},
		{"git diff --check fails on whitespace errors", "- [ ] V41 [VERIFY] Clean\n  - **Verify**: `git diff --check`\n",
			[]Command{{"git diff --check", FromVerifyLine}}},
		{"a command after Run, without backticks", "- [ ] T5 [VERIFY] [P] Run npx prisma generate to confirm the client reflects the schema\n",
			[]Command{{"npx prisma generate", FromTitleText}}},
		{"prose after Run", "- [ ] T6 [VERIFY] Run the full suite to confirm nothing broke\n", nil},
		{"two things after Run", "- [ ] T7 [VERIFY] Run go vet and the unit tests\n", nil},
		{"two commands after Run", "- [ ] T8 [VERIFY] Run make lint then make test\n", nil},
		{"a program on PATH, in prose", "- [ ] T9 [VERIFY] Run ls checks to see the files are there\n", nil},
		{"a program with a path after Run", "- [ ] T10 [VERIFY] Run sh scripts/check.sh to confirm\n",
			[]Command{{"sh scripts/check.sh", FromTitleText}}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkCommands(t, tc.src, tc.want) })
	}
}

// TestManualCorpusSeven: a decision (GO/NO-GO) and an editor's command
// (`:LofiCancel` watched in Neovim) are a person's checks.
func TestManualCorpusSeven(t *testing.T) {
	for src, want := range map[string]bool{
		"- [ ] V13 [VERIFY] **GO/NO-GO DECISION**: PASS - proceed to phase 4\n":           true,
		"- [ ] V28 [VERIFY] `:LofiCancel` stops the generation at once\n":                 true,
		"- [ ] V29 [VERIFY] `:checkhealth lofi` reports no errors\n":                      true,
		"- [ ] V30 [VERIFY] `make check` passes\n":                                        false,
		"- [ ] V34 [VERIFY] :white_check_mark: all unit tests green\n":                    false,
		"- [ ] V35 [VERIFY] `:memory:` SQLite store passes its tests\n":                   false,
		"- [ ] V36 [VERIFY] Tests pass before the go-no-go for phase 2\n":                 false,
		"- [ ] V31 [VERIFY] The `:` builtin is never used\n  - **Verify**: `make lint`\n": false,
	} {
		ts := Parse([]byte(src))
		if len(ts) != 1 || ts[0].Manual != want {
			t.Errorf("%q: manual = %v, want %v", src, len(ts) == 1 && ts[0].Manual, want)
		}
	}
}

// TestInDir: a command that opens by changing to a directory of the
// project splits into the directory and the rest; any other does not.
func TestInDir(t *testing.T) {
	for _, tc := range []struct {
		c, dir, rest string
		ok           bool
	}{
		{"cd daemon && cargo build", "daemon", "cargo build", true},
		{"cd packages/api/ && npm test && npm run lint", "packages/api", "npm test && npm run lint", true},
		{"cd /tmp && make", "", "", false},
		{"cd ../other && make", "", "", false},
		{"cd daemon; cargo build", "", "", false},
		{"cd daemon && ", "", "", false},
		{"cargo build", "", "", false},
		{`cd "my dir" && make`, "", "", false},
	} {
		dir, rest, ok := InDir(tc.c)
		if dir != tc.dir || rest != tc.rest || ok != tc.ok {
			t.Errorf("InDir(%q) = %q, %q, %v; want %q, %q, %v", tc.c, dir, rest, ok, tc.dir, tc.rest, tc.ok)
		}
	}
}

// TestCommandsCorpusNine: a search that must find nothing, said in more
// ways (an aside after it, "must be empty", "returns no … matches"), and
// one whose pattern escapes a quote inside double quotes.
func TestCommandsCorpusNine(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []Command
	}{
		{"an aside after the clause", "- [ ] V1 [verify] Isolated: `grep -rn \"from ../media\" src/shop/` MUST return no matches (the shop MUST NOT import media).\n",
			[]Command{{`grep -rn "from ../media" src/shop/; test $? -eq 1`, FromTitleCode}}},
		{"the aside is the clause", "- [ ] V2 [verify] Run `grep -i \"log4j\" deps.txt` (expect empty)\n",
			[]Command{{`grep -i "log4j" deps.txt; test $? -eq 1`, FromTitleCode}}},
		{"must be empty", "- [ ] V3 [Verify] Run `grep -rn old-chart web/` — must be empty (no wrapper left)\n",
			[]Command{{`grep -rn old-chart web/; test $? -eq 1`, FromTitleCode}}},
		{"returns no … matches", "- [ ] V4 [verify] `rg -nF 'oldName' core/ cli/` returns no source-tree matches\n",
			[]Command{{`rg -nF 'oldName' core/ cli/; test $? -eq 1`, FromTitleCode}}},
		{"an escaped quote in double quotes", "- [ ] V5 [verify] `grep -rE \"from ['\\\"]\\\\.\\\\./media\" src/` must return no matches\n",
			[]Command{{`grep -rE "from ['\"]\\.\\./media" src/; test $? -eq 1`, FromTitleCode}}},
		{"a list of files in braces is no command, and ls and git status alone cannot fail", "- [ ] V7 [verify] Confirm `specs/010/{spec.md,plan.md,contracts/}` all exist (use `git status` and `ls`)\n",
			nil},
		{"ls of a path can fail", "- [ ] V7b [verify] The bundle is built: `ls dist/index.js`\n",
			[]Command{{"ls dist/index.js", FromTitleCode}}},
		{"success said outright: returns no error", "- [ ] V8 [verify] `grep -q \"package\" src/a.go` returns no error\n",
			[]Command{{`grep -q "package" src/a.go`, FromTitleCode}}},
		{"success said outright: exits 0 with no match errors", "- [ ] V9 [verify] `grep -q \"func Export\" x.go` exits 0 with no match errors\n",
			[]Command{{`grep -q "func Export" x.go`, FromTitleCode}}},
		{"no matches expected", "- [ ] V10 [verify] `grep -rn TODO src/` — no matches expected\n",
			[]Command{{"grep -rn TODO src/; test $? -eq 1", FromTitleCode}}},
		{"(no results expected)", "- [ ] V11 [verify] `rg secret src/` (no results expected)\n",
			[]Command{{"rg secret src/; test $? -eq 1", FromTitleCode}}},
		{"'finds no missing' means it finds them: left as written", "- [ ] V12 [verify] `grep -q \"/api/export\" src/routes.ts` finds no missing route\n",
			[]Command{{`grep -q "/api/export" src/routes.ts`, FromTitleCode}}},
		{"'outputs nothing' of a quiet grep says nothing of a match: left as written", "- [ ] V13 [verify] `grep -q TODO src/a.go` outputs nothing\n",
			[]Command{{"grep -q TODO src/a.go", FromTitleCode}}},
		{"an aside that denies is still aside", "- [ ] V6 [verify] `grep -n MIT LICENSE` (must not be empty)\n",
			[]Command{{"grep -n MIT LICENSE", FromTitleCode}}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkCommands(t, tc.src, tc.want) })
	}
}

// TestManualCorpusNine: a section whose heading says its checks are a
// person's makes its verification tasks a person's (a command they name is
// what the person runs to look);
// a browser, a physical device and a human reviewer are a person's too.
func TestManualCorpusNine(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []bool
	}{
		{"## Manual Verification Tasks\n\n- [ ] [impl] [verify] Click the button and see the modal open\n- [ ] [verify] Run `make check` and look at the page\n\n## Later\n\n- [ ] [verify] Check the logs are clean\n",
			[]bool{true, true, false}},
		{"- [ ] T5 [verify] The product owner signs off on the copy\n", []bool{true}},
		{"# Plan\n\n## Human checkpoints\n\n- [ ] [verify] Pair the watch and confirm the timer shows\n\n### Notes\n\n- [ ] [verify] The sync recovers\n",
			[]bool{true, true}},
		{"## Update the manual\n\n- [ ] [verify] The install page is correct\n## Human resources API\n\n- [ ] [verify] Endpoints answer\n",
			[]bool{false, false}},
		{"- [ ] T1 [Verify] 启动后端，用浏览器验证页面\n- [ ] T2 [verify] Repeat on a physical device before release\n- [ ] T3 [verify] Deferred to human reviewer\n- [ ] T4 [verify] Open the page in the browser and check the form\n",
			[]bool{true, true, true, true}},
	} {
		ts := Parse([]byte(tc.src))
		var got []bool
		for _, x := range ts {
			got = append(got, x.Manual)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: manual %v, want %v", tc.src, got, tc.want)
		}
	}
}

// TestInspectionNeedsQA: a task that asks for what is read in a command's
// output (inspect it, compare it, confirm only …) needs a qa-engineer run
// beside its commands, which pass whatever they print; a person's check
// stays a person's, and a command checked by its exit status needs none.
func TestInspectionNeedsQA(t *testing.T) {
	for _, tc := range []struct {
		src        string
		qa, manual bool
		cmds       []string
	}{
		{"- [ ] V1 [verify] Inspect the dependency tree: `mill show core.tree` — confirm only circe\n", true, false, []string{"mill show core.tree"}},
		{"- [ ] V2 [verify] Logging audit. Run `grep -n logger src/` and inspect every match.\n", true, false, []string{"grep -n logger src/; test $? -le 1"}},
		{"- [ ] V3 [verify] Exports: list every symbol and compare against the baseline (`git show main:src/index.ts`)\n", true, false, []string{"git show main:src/index.ts"}},
		{"- [ ] V4 [Verify] Inspect the rendered page in the browser: the chart is drawn\n", false, true, nil},
		{"- [ ] V5 [verify] Run `make check` and confirm it passes\n", false, false, []string{"make check"}},
		{"- [ ] V6 [verify] Run `go test ./...` to confirm the inspector package works\n", false, false, []string{"go test ./..."}},
		{"- [ ] V7 [VERIFY] Dependency audit\n  - **Verify**: `sh deps.sh` — confirm only the standard library\n", true, false, []string{"sh deps.sh"}},
		{"- [ ] V8 [verify] Run `grep -rn \"TODO\" src/` and inspect every match\n", true, false, []string{`grep -rn "TODO" src/; test $? -le 1`}},
		{"- [ ] V9 [VERIFY] Containers\n  - **Verify**: `docker inspect web` exits 0\n", false, false, []string{"docker inspect web"}},
		{"- [ ] V10 [verify] Run the new test file and confirm it fails for the expected reasons (red).\n", true, false, nil},
		{"- [ ] V11 [verify] Run `grep -rn \"eval(\" src/` and review every match\n", true, false, []string{`grep -rn "eval(" src/; test $? -le 1`}},
	} {
		ts := Parse([]byte(tc.src))
		if len(ts) != 1 {
			t.Fatalf("%q: %d tasks", tc.src, len(ts))
		}
		if ts[0].AC != tc.qa || ts[0].Manual != tc.manual || !slices.Equal(ts[0].Runs(), tc.cmds) {
			t.Errorf("%q: qa %v manual %v commands %q; want %v %v %q", tc.src, ts[0].AC, ts[0].Manual, ts[0].Runs(), tc.qa, tc.manual, tc.cmds)
		}
	}
}

// TestOutputNamed: a command whose task says what it must print passes
// whatever it prints: a qa-engineer reads it (its command still runs). Its
// success in any words is its exit.
func TestOutputNamed(t *testing.T) {
	for _, tc := range []struct {
		src     string
		inspect bool
	}{
		{"- [ ] V1 [VERIFY] Version bumped\n  - **Verify**: `jq -r .version package.json` returns `1.4.0`\n", true},
		{"- [ ] V2 [VERIFY] Health\n  - **Verify**: `curl -si localhost:8080/health` → 200\n", true},
		{"- [ ] V3 [VERIFY] CLI\n  - **Verify**: `./bin/tool --version` should print the new version\n", true},
		{"- [ ] V4 [VERIFY] Build\n  - **Verify**: `cargo build --release` shows no warnings\n", true},
		{"- [ ] V5 [VERIFY] Tests\n  - **Verify**: `npm test` passes\n", false},
		{"- [ ] V6 [VERIFY] Build\n  - **Verify**: `go build ./...` shows no errors\n", false},
		{"- [ ] V7 [VERIFY] Clean\n  - **Verify**: `grep -rn TODO src/` returns empty\n", false},
		{"- [ ] V8 [VERIFY] Lint\n  - **Verify**: `ruff check .` returns 0\n", false},
		{"- [ ] V9 [VERIFY] Suite\n  - **Verify**: `pytest -q` → all green\n", false},
		{"- [ ] V10 [VERIFY] Suite\n  - **Verify**: `make check` (runs lint and tests)\n", false},
		{"- [ ] V11 [VERIFY] Types\n  - **Verify**: `pnpm typecheck` and `pnpm test` exit 0\n", false},
		{"- [ ] V12 [VERIFY] Bundle\n  - **Verify**: `npm run build` outputs to dist/\n", false},
		{"- [ ] V13 [VERIFY] Flag off\n  - **Verify**: `jq .beta config.json` returns `false`\n", true},
		{"- [ ] V14 [VERIFY] Migrated\n  - **Verify**: `sqlite3 t.db \"SELECT COUNT(*) FROM s WHERE status='proven'\"` -- returns 0\n", true},
		{"- [ ] V15 [VERIFY] Lint\n  - **Verify**: `ruff check .` -- returns 0\n", false},
	} {
		ts := Parse([]byte(tc.src))
		if len(ts) != 1 || len(ts[0].Commands) == 0 {
			t.Fatalf("%q: read as %+v", tc.src, ts)
		}
		if ts[0].Inspect != tc.inspect {
			t.Errorf("%q: Inspect = %v, want %v", tc.src, ts[0].Inspect, tc.inspect)
		}
		for _, c := range ts[0].Commands {
			if c.Run == "false" || c.Run == "1.4.0" {
				t.Errorf("%q: demands %q, a value (no command)", tc.src, c.Run)
			}
		}
	}
}

// TestReadAfter: words right after a command that ask for a look at what
// it made are a qa-engineer's reading, and the names in them are no
// commands; success in any words is the command's exit.
func TestReadAfter(t *testing.T) {
	for _, tc := range []struct {
		src     string
		inspect bool
		runs    []string
	}{
		{"- [ ] T38 [verify] Run `pnpm build` and verify `dist/a/index.js`, `dist/a/index.cjs` and `dist/a/index.d.ts` all exist. No commit.\n", true, []string{"pnpm build"}},
		{"- [ ] T39 [verify] Run `pnpm pack --dry-run` and confirm `./flows` subpath is listed in the exports.\n", true, []string{"pnpm pack --dry-run"}},
		{"- [ ] T23 [verify] Run `go test -coverprofile=cov.out ./internal/...` — verify ≥80% line coverage\n", true, []string{"go test -coverprofile=cov.out ./internal/..."}},
		{"- [ ] T40 [verify] Run `npm test` and confirm all tests pass\n", false, []string{"npm test"}},
		{"- [ ] T41 [verify] Run `make check` and verify it succeeds; then `make lint`\n", false, []string{"make check", "make lint"}},
	} {
		ts := Parse([]byte(tc.src))
		if len(ts) != 1 {
			t.Fatalf("%q: read as %+v", tc.src, ts)
		}
		var runs []string
		for _, c := range ts[0].Commands {
			runs = append(runs, c.Run)
		}
		if ts[0].Inspect != tc.inspect || !slices.Equal(runs, tc.runs) {
			t.Errorf("%q: Inspect %v, commands %q; want %v, %q", tc.src, ts[0].Inspect, runs, tc.inspect, tc.runs)
		}
	}
}

// TestAboutChecks: whole words of the project's checks, not parts of
// others ("navigate" holds "gate"; attack 62).
func TestAboutChecks(t *testing.T) {
	for w, want := range map[string]bool{
		"phase gate":                             true,
		"quality checkpoint: lint and tests":     true,
		"confirm nothing broke":                  true,
		"all tests still pass, zero regressions": true,
		"navigate to settings and back":          false,
		"aggregate totals match the ledger":      false,
		"prototypes render":                      false,
		"filter combinations behave the same":    false,
	} {
		if got := aboutChecks(w); got != want {
			t.Errorf("aboutChecks(%q) = %v, want %v", w, got, want)
		}
	}
}
