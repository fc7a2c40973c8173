package plangate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/provenance"
	"github.com/rodin-gate/rodin/pkg/safefile"
)

// The critic reads the plan from a file rodin writes (provenance/input.go).
// These routes see only Reads in that directory (hooks.json's `if`).

// inputFile is the name of the critic input file path names, "" when path
// names none: a file directly in InputDir called critic-<16 hex>.md.
func inputFile(path string, getenv func(string) string) string {
	dir := provenance.InputDir(getenv)
	if dir == "" || !filepath.IsAbs(path) || filepath.Dir(filepath.Clean(path)) != dir {
		return ""
	}
	name := filepath.Base(path)
	t, prefixed := strings.CutPrefix(name, "critic-")
	t, suffixed := strings.CutSuffix(t, ".md")
	if !prefixed || !suffixed || len(t) != 16 || strings.Trim(t, "0123456789abcdef") != "" {
		return ""
	}
	return name
}

// readers are the agents that read rodin's input files.
func reader(agent string) bool {
	return agent == provenance.CriticAgent || agent == provenance.LeakageAgent
}

// WriteCriticInput writes the critic's input file for the plan d into
// dir (provenance.InputDir) unless it already holds exactly that, and
// returns its path.
func WriteCriticInput(dir string, d *planfile.Doc) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("rodin cannot tell Claude Code's configuration directory (HOME or CLAUDE_CONFIG_DIR)")
	}
	path := filepath.Join(dir, provenance.CriticInputName(d.PlanDigest()))
	want := []byte(provenance.CriticInput(d))
	if have, err := safefile.ReadFile(path, int64(len(want))+1); err == nil && bytes.Equal(have, want) {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return path, safefile.WriteAtomic(path, want, 0o600)
}

// PreReadInput is the PreToolUse route for a Read of a critic input file:
// it writes the file from the session's plan as it stands, so that what
// the reader is shown is that plan, and answers the permission question
// for rodin's own readers (the file is outside the project: Claude Code
// would otherwise ask the user at every page). A file named for another
// plan than the one that stands is not written: the plan changed since
// the run was launched, and its reads are denied, saying so.
func PreReadInput(in hookio.Input, getenv func(string) string) hookio.PreOutcome {
	path, _, _ := in.Field("tool_input.file_path")
	name := inputFile(path, getenv)
	if name == "" {
		return hookio.NoDecision
	}
	agent, _, _ := in.Field("agent_type")
	_, doc, _ := sessionPlan(in, getenv, agent)
	if doc == nil {
		return hookio.NoDecision
	}
	if provenance.CriticInputName(doc.PlanDigest()) != name {
		return deny("%s is the input of a plan that no longer stands: the plan changed since this run was launched, so what it would read is not the plan. To fix: answer with what you have read; /rodin:plan-gate launches a critic on the plan as it stands.", path)
	}
	if doc.Malformed() {
		return deny("The plan's rodin markers are malformed (%s), so rodin cannot tell its content. To fix: correct them, then run /rodin:plan-gate.", doc.ProblemSummary())
	}
	if _, err := WriteCriticInput(filepath.Dir(path), doc); err != nil {
		return deny("rodin could not write %s: %v. To fix: make the directory writable, then run /rodin:plan-gate.", path, err)
	}
	if !reader(agent) {
		return hookio.NoDecision
	}
	return hookio.PreOutcome{Allow: true}
}

// RecordRead is the PostToolUse route for a Read of a critic input file
// by a subagent: the page it was shown (where it starts, how many lines,
// the digest of their text) goes into the session's evidence, for the run
// it belongs to (provenance.Finish judges whether the pages were all of
// the plan).
func RecordRead(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	path, _, _ := in.Field("tool_input.file_path")
	name := inputFile(path, getenv)
	id, _, _ := in.Field("agent_id")
	if name == "" || id == "" {
		return hookio.PostOutcome{}
	}
	file := in.Get("tool_response.file")
	content := file.Get("content")
	if !content.Exists() {
		return hookio.PostOutcome{}
	}
	r := evidence.Read{File: name, Start: int(file.Get("startLine").Int()), Num: int(file.Get("numLines").Int()),
		Total: int(file.Get("totalLines").Int()), Sum: provenance.Sum(content.String())}
	if err := evidence.Update(evidence.Path(getenv, in.SessionID()), func(log *evidence.Log) bool {
		log.AddRead(id, r)
		return true
	}); err != nil {
		return hookio.PostOutcome{SystemMessage: fmt.Sprintf("[rodin] Could not record what the critic read: %v. Its run will not back a verdict.", err)}
	}
	return hookio.PostOutcome{}
}
