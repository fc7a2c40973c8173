package plangate

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/pkg/edits"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/plansdir"
	"github.com/rodin-gate/rodin/pkg/safefile"
)

// Guard is the PreToolUse route for Write, Edit and MultiEdit: the lines
// rodin's hooks write at the end of a plan file (session, digests, verdict,
// seal) are theirs alone.
//
// An agent that wants to skip the assessment has one obvious move: write a
// pass onto the validation line itself, or copy the digests the hooks wrote
// into a forged record. So before the tool runs, the guard applies the
// proposed change to the file in memory and denies when any hook-owned line
// would appear, change or disappear. Adding a verdict signal is allowed:
// that is how the skill asks for a verdict, and the keeper checks it. So is
// dropping every hook-owned line at once (a Write of the plan without them):
// the file then reads as never assessed, which the keeper records, and
// which opens nothing.
//
// The keeper's fallback (a tool call that changed owned lines anyway, seen
// in tool_response.originalFile) covers what the guard cannot see. A file
// that is no plan file gets no decision: it may be a task file, the verify
// gate's business (a plan file in a plans directory may be both).
func Guard(in hookio.Input, getenv func(string) string) hookio.PreOutcome {
	if getenv("RODIN_GATE") == "off" {
		return hookio.NoDecision
	}
	if out, planFile := guard(in, getenv); planFile && out.Deny {
		return noteOff(out, getenv)
	}
	return hookio.NoDecision
}

// guard is the guard's decision; planFile reports whether the call writes
// a plan file.
func guard(in hookio.Input, getenv func(string) string) (out hookio.PreOutcome, planFile bool) {
	tool := in.ToolName()
	input := in.Get("tool_input")
	if !input.IsObject() {
		return deny("The %s input is malformed: tool_input is not an object. To fix: update rodin (`rodin doctor`).", tool), true
	}
	path := input.Get("file_path")
	if path.Type != gjson.String {
		return hookio.NoDecision, true // the tool itself refuses it
	}
	if !strings.HasSuffix(path.String(), ".md") {
		return hookio.NoDecision, false
	}
	dirs := plansdir.Dirs(plansdir.Env{Getenv: getenv, Cwd: in.Cwd()})
	var old []byte
	exists := true
	real, err := plansdir.Resolve(path.String(), dirs)
	switch {
	case err == nil:
		if old, err = safefile.ReadFile(real, planfile.MaxSize); err != nil {
			return deny("Cannot read %s to check this %s: %v. To fix: make the plan file readable, then try again.", path.String(), tool, err), true
		}
	case safefile.IsNotExist(lstat(path.String())) && filepath.IsAbs(path.String()) && plansdir.Within(filepath.Dir(path.String()), dirs):
		exists = false // a new plan file
	default:
		return hookio.NoDecision, false // not a plan file
	}
	if exists {
		if out, frozen := frozenDenial(in, getenv, real, path.String()); frozen {
			return out, true
		}
	}
	next, ok := edits.Apply(tool, input, string(old), exists)
	if !ok {
		return hookio.NoDecision, true // the tool will fail on its own (old_string not found)
	}
	before := planfile.Parse(old).OwnedLines()
	after := planfile.Parse([]byte(next)).OwnedLines()
	if len(after) == 0 {
		return hookio.NoDecision, true // unchanged (none before), or all dropped: never assessed
	}
	what, line := planfile.DiffOwned(before, after)
	if what == "" {
		return hookio.NoDecision, true
	}
	return deny("This %s would %s `%s` in %s: the lines rodin's hooks write at the end of a plan file record what was assessed, and no tool call may write them. To fix: leave those lines as they are and edit the plan above them; to record a verdict, run /rodin:plan-gate (it adds a `rodin:verdict:signal` line, which is allowed).",
		tool, what, shorten(line), path.String()), true
}

func shorten(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func lstat(path string) error {
	_, err := os.Lstat(path)
	return err
}
