package cli

// commandHelp is what `rodin help COMMAND` (or `rodin COMMAND --help`)
// prints after the usage line: what the command does, its flags, its exit
// status, and an example. TestEveryCommandHasHelp keeps it complete.
var commandHelp = map[string]string{
	"check": `
Checks a plan file the way the gate reads it: a ## Goals section, one gaps
block (<!-- rodin:gaps:start --> ... <!-- rodin:gaps:end -->) with nothing
but gap entries in it, and each ### GAP-N entry with its Severity and
Description. Lines that address the critic or validator are named.

Exit status: 0 the plan is ready for assessment, 1 it is not (each problem
on its own line, with the fix).

Example:
  rodin check ~/.claude/plans/migrate-sessions.md
`,
	"extract": `
Prints the plan content the critic sees: the plan file without its gaps
block and without rodin's own lines. The /rodin:plan-gate skill uses it.

Example:
  rodin extract ~/.claude/plans/migrate-sessions.md
`,
	"gaps": `
Prints the gaps block's content (what the validator sees), or with
--next-id the next free GAP id, or with --json the entries parsed.

Flags:
  --next-id   print the next free id (GAP-3)
  --json      print the entries as JSON (id, title, severity, description, line)

Exit status: 0, or 1 when the plan has no gaps block (the message says how
to add one).
`,
	"parse": `
Parses a critic's or validator's answer, read on stdin, into JSON: the
findings (### FINDING-N) or the verdict (### VERDICT: PASS|FAIL with its
reason). For orchestrations other than rodin's own skill.

Example:
  rodin parse validator < answer.md
`,
	"signal": `
With a PLAN: prints the verdict signal line for the latest validator verdict
rodin recorded for that plan, to be inserted at the plan's end with Edit
(the gate reads it, and checks it against the recorded runs).

With pass|fail: prints a bare signal line, for orchestrations that run with
RODIN_PROVENANCE=off.

Flags:
  --reason TEXT   the reason a fail line carries
`,
	"leakage": `
Prints the latest rodin:leakage-detector answer rodin recorded for the plan's
session: whether the plan content the critic will see gives its gaps away.
`,
	"prompt": `
Prints a subagent's exact prompt, which the skill passes on unchanged (rodin
records the run only when the prompt is the one it printed):
  critic PLAN      one line naming the file the critic reads the plan from
                   (rodin writes it: the plan content, never the gaps, between
                   two lines carrying its digest), whatever the plan's size
  critic --inline PLAN   the plan content in the prompt itself (small plans,
                   other orchestrations)
  leakage PLAN     the leakage detector's prompt: the same file
  validator PLAN   the gaps block and the critic's recorded answers
  qa TASK [FILE]   the rodin:qa-engineer's prompt for a [VERIFY] task

Example:
  rodin prompt critic ~/.claude/plans/migrate-sessions.md
`,
	"findings": `
Prints the latest critic answer rodin recorded for the plan's session,
parsed (JSON): the findings the validator checks the gaps against. Exit
status 1, saying which run to launch, when none is recorded or it cannot be
parsed.
`,
	"verdict": `
Prints the latest validator verdict rodin recorded for the plan's session,
parsed (JSON): PASS or FAIL with its reason. Exit status 1, saying which run
to launch, when none is recorded.

With --record: waits for every critic and validator run in flight, judges
them all (every run on the plan as it stands counts), and records that
verdict, with the validator's reason, at the end of the plan file.
`,
	"status": `
Says where a plan stands: its session, the status line, the recorded and
current digests of the plan and its gaps, the seal, the critic and validator
runs rodin observed, and what the gate would decide for ExitPlanMode now.
Without PLAN, the newest plan file in the plans directories.

Flags:
  --json   the same as JSON (errors too)

Example:
  rodin status ~/.claude/plans/migrate-sessions.md
`,
	"doctor": `
Checks the installation: the plugin directory and its executables, hooks.json,
the copy rodin install made, the hook executables the last session start
linked (and the stand-in, when it could not), the plans directories, the
sandbox, and, through ` + "`claude plugin list --json`" + `, whether Claude Code has
rodin@rodin installed, enabled and loading.

Flags:
  --json   the checks as JSON

Exit status: 0 all is well, 1 when a check FAILs (each says what to do).
`,
	"version": `
Prints rodin's version, the commit it was built from, the platform and the
Go release (--json: as one JSON object). Also rodin --version.
`,
	"build": `
In a source checkout: builds the five executables the way releases are
built (static, trimmed) into plugin/libexec.

Flags:
  --all       every release platform (linux, darwin, windows; amd64, arm64)
  --out DIR   where the executables go
`,
	"install": `
In a source checkout: builds rodin for this machine (or, without Go, takes
the release the launcher downloaded: sh plugin/bin/rodin install), copies
the plugin with its executables to ~/.local/share/rodin ($XDG_DATA_HOME/rodin),
links rodin into ~/.local/bin ($XDG_BIN_HOME), and registers the copy with
Claude Code (claude plugin marketplace add, claude plugin install
rodin@rodin). The checkout may then move or go. Ends with rodin doctor.

Running it again, from any checkout, replaces the copy.
`,
	"uninstall": `
Unregisters rodin@rodin from Claude Code and removes what rodin put on the
machine: the link on PATH, the copy in ~/.local/share/rodin, the data
directories (evidence, run logs, waivers, seal key), ~/.cache/rodin, the test
suite's Claude Code releases (~/.cache/rodin-test), and executables built into
a checkout. Lists each with its size. Plan files keep their rodin lines; the
checkout is yours to delete.

Flags:
  --dry-run   list what would be removed; remove nothing
`,
	"release": `
In a source checkout, cuts a release in one command: builds every platform,
packs each platform's executables into dist/rodin_<version>_<os>_<arch>.tar.gz,
writes dist/SHA256SUMS and plugin/release/SHA256SUMS, and lays out
dist/marketplace: the marketplace a Claude Code user without Go adds, whose
plugin carries those checksums (committed and tagged v<version>). It prints
how to publish both: the archives to the GitHub release, the marketplace to
its repository. The plugin installed from it downloads its executables and
checks them against the checksums it carries.

Flags:
  --out DIR          where the archives go (default dist/)
  --platform LIST    only these platforms, os/arch comma-separated (default: all)
`,
	"setup": `
Run by the SessionStart hook (through the launcher): links the hook
executables into the plugin's data directory, records the task boxes as the
session begins, prunes old evidence, and tells the user, once, what would
otherwise be silent (an unsupported release, an opt-out, the sandbox off).
`,
	"checks": `
Lists the project's quality commands as rodin finds them (package.json
scripts, Makefile, justfile, go.mod, Cargo.toml, ...): Type, Command, Source.

Flags:
  --json   the same as JSON
`,
	"verify": `
Runs a [VERIFY] task's commands from the project root, one after another, and
prints each outcome, ending VERIFICATION_PASS or VERIFICATION_FAIL. Run
through Claude Code's Bash tool, the outcome is the verify gate's evidence:
the box may be ticked after a pass, for the code as it stands. Run in a
terminal it checks the commands but records nothing (the gate trusts only
what Claude Code reports).

Flags:
  --timeout D   per command (default 9m30s, under the Bash tool's 10-minute
                most; or "timeout" under "verify" in .rodin/config.json)

Exit status: 0 pass, 1 fail. Example:
  rodin verify V4 specs/auth/tasks.md
`,
	"tasks": `
Lists every task of the task files (or FILE), and for [VERIFY] tasks what
they demand (commands, acceptance criteria), the evidence recorded this
session, and what the gate would decide for a tick now.

Flags:
  --json   the same as JSON
`,
	"waive": `
At a terminal: lets a [VERIFY] task's box be ticked without passing checks,
recording who waived it and why. From Claude Code (or with no terminal) it
only files a request: the user confirms it by typing
/rodin:waive TASK FILE REASON in Claude Code.

Flags:
  --reason TEXT   why the task cannot pass here (required)
  --commands      accept the task's commands as they stand (no reason; they
                  must pass)
  --config        accept .rodin/config.json and the root .gitignore as
                  they stand, after an agent changed them (no task; from
                  the next session)
`,
	"sandbox": `
Says what the Claude Code settings let Bash do (sandbox on or off, a way out,
the permission mode) and what rodin's gates can promise then.

Flags:
  --enable   turn the sandbox on in ~/.claude/settings.json (keeping the rest),
             with no way out, and deny reads of rodin's seal key
  --json     the same as JSON
`,
	"contracts": `
Artifact contracts: what the files agents hand each other must hold, as a
project's .rodin/contracts.json says (docs/contracts.md).

  check FILE   checks FILE's content against the contract whose path fits
               it (the field rules, and the evidence rule with --session;
               who wrote it and first-writer are checked by the hooks when
               it is written) and names every broken rule:
               at <field>: expected <x>, got <y>
  init NAME    writes .rodin/contracts.json from a template: rlp-desk

Flags (check):
  --json         the result as JSON: file, artifact, ok, violations, evidence
  --session ID   check the commands an evidence rule cites against the runs
                 rodin observed in that Claude Code session
  --agent ID     with --session: the writer's agent_id, for the level
                 independent (none: the session's main thread)

Exit status: 0 the file keeps its contract, 1 it does not, or no contract
covers it. Example:
  rodin contracts check .rlp-desk/memos/sum-fn-iter-signal.json
`,
	"events": `
Prints what rodin recorded for unattended loops, oldest first: the
permission dialogs it denied for a role the contracts call unattended
(which agent, which tool, on what), and the notifications Claude Code sent
(a permission prompt, an idle session). A leader reads them within its turn
instead of scraping panes.

Flags:
  --follow       keep printing new events, for at most --timeout
  --timeout D    how long --follow waits (default 1m)
  --session ID   one session's events (default: the Claude Code session
                 rodin runs in, else every session's)
  --json         one JSON object per line
`,
	"exercise": exerciseHelp,
}
