package contracts

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rodin-gate/rodin/internal/realpath"
	"github.com/rodin-gate/rodin/pkg/freshness"
	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rodin-gate/rodin/pkg/project"
	"github.com/tidwall/gjson"
)

// Witness is what rodin observed in a session, against which an artifact's
// evidence rule is checked: the verify gate's record of the commands that
// ran (ledger), read only when an artifact with evidence is written.
type Witness struct {
	Root    string // the project root, links resolved
	AgentID string // the writer's agent_id; "" for a session's main thread
	// Artifacts are the path templates of every artifact: written after
	// the runs they cite, they do not make those stale.
	Artifacts []string
	Runs      []ledger.Run
	Damaged   int   // records lost to damage (the runs before them too)
	Err       error // the record could not be read: no claim is backed

	memo *witnessMemo // what one hook works out once for all the artifacts it checks
}

// witnessMemo is what a Witness works out at most once: its runs by
// command, and the project's newest change (one walk of the tree).
type witnessMemo struct {
	byCommand map[string][]*ledger.Run
	newest    *freshness.Change
}

// Witnessed reads the session's record of runs.
func (c *Contracts) Witnessed(data, session, root, agentID string) Witness {
	w := Witness{Root: root, AgentID: agentID, Artifacts: c.paths, memo: &witnessMemo{}}
	if w.Artifacts == nil {
		for _, a := range c.Artifacts {
			w.Artifacts = append(w.Artifacts, a.Path)
		}
	}
	w.Runs, w.Damaged, w.Err = ledger.Runs(data, session)
	return w
}

// levelRank orders the evidence levels: each asks what the one before does
// and more.
func levelRank(level string) int {
	switch level {
	case "fresh":
		return 1
	case "independent":
		return 2
	}
	return 0
}

// CheckEvidence applies the artifact's evidence rule to its content: each
// step of the array it names that its `when` selects (a step that claims a
// success) must name, in its command field, a command rodin observed in
// this session by the verify gate's rules (exactly that command, one line,
// run in the foreground from the project root, its last such run exiting
// 0); at level fresh, with no project file changed since; at level
// independent, run by the writing agent itself. Every step that is not
// backed is named.
func (a *Artifact) CheckEvidence(content []byte, w Witness) []Violation {
	ev := a.Evidence
	if ev == nil || !gjson.ValidBytes(content) {
		return nil
	}
	var steps gjson.Result
	gjson.ParseBytes(content).ForEach(func(k, v gjson.Result) bool {
		if k.String() == ev.Each {
			steps = v
		}
		return true
	})
	if !steps.IsArray() {
		return nil // the field rules say what is missing
	}
	if n := len(steps.Array()); n > maxSteps {
		return []Violation{{Field: ev.Each, Rule: "evidence", Expected: fmt.Sprintf("at most %d steps", maxSteps), Got: fmt.Sprintf("%d", n)}}
	}
	if w.memo == nil {
		w.memo = &witnessMemo{}
	}
	rank := levelRank(ev.Level)
	runs := w.byCommand()
	type claim struct {
		at, cmd string
		run     *ledger.Run
	}
	var out []Violation
	var backed []claim
	for i, step := range steps.Array() {
		if !step.IsObject() || !selected(step, ev.When) {
			continue
		}
		at := fmt.Sprintf("%s[%d].%s", ev.Each, i, ev.Command)
		cmd := member(step, ev.Command)
		if cmd.Type != gjson.String || strings.TrimSpace(cmd.String()) == "" {
			out = append(out, Violation{Field: at, Rule: "evidence", Expected: "the command this step says succeeded", Got: describe(cmd)})
			continue
		}
		want := fmt.Sprintf("a run of `%s` from the project root that rodin observed in this session", ledger.Normalize(cmd.String()))
		if rank == 2 {
			want += ", by the agent that writes this file"
		}
		want += " (evidence: " + ev.Level + ")"
		if !ledger.Evidential(cmd.String()) {
			out = append(out, Violation{Field: at, Rule: "evidence", Expected: "a command of one line (a line break makes it several)", Got: describe(cmd)})
			continue
		}
		if w.Err != nil {
			out = append(out, Violation{Field: at, Rule: "evidence", Expected: want, Got: "rodin's record of runs unreadable (" + w.Err.Error() + ")"})
			continue
		}
		run, others := w.latest(runs, cmd.String(), rank == 2)
		switch {
		case run == nil:
			got := "no such run"
			if others {
				got = "runs by other agents only"
			}
			if w.Damaged > 0 {
				got += fmt.Sprintf(" (%d records of runs were lost to damage: run it again)", w.Damaged)
			}
			out = append(out, Violation{Field: at, Rule: "evidence", Expected: want, Got: got})
		case run.Exit != 0:
			got := fmt.Sprintf("its last run exiting %d", run.Exit)
			if run.Exit < 0 {
				got = "its last run not a pass: " + ledger.ExitMeaning(run.Exit)
			}
			out = append(out, Violation{Field: at, Rule: "evidence", Expected: want, Got: got})
		default:
			backed = append(backed, claim{at, cmd.String(), run})
		}
	}
	if rank >= 1 && len(backed) > 0 {
		if w.memo.newest == nil {
			// The newest change in the project decides for every run: it
			// is after a run or it is not.
			ch := freshness.Newest(w.tree(), []time.Time{time.Unix(0, 0)})[0]
			w.memo.newest = &ch
		}
		for _, c := range backed {
			if ch := *w.memo.newest; ch.Path != "" && !ch.Time.Before(c.run.When()) {
				out = append(out, Violation{Field: c.at, Rule: "evidence", Expected: fmt.Sprintf("a run of `%s` with no project file changed since (evidence: %s)", ledger.Normalize(c.cmd), ev.Level), Got: "a run before " + ch.Path + " changed: run it again"})
			}
		}
		sort.SliceStable(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	}
	return out
}

// selected reports whether a step has every field `when` asks for.
func selected(step gjson.Result, when map[string]any) bool {
	for k, want := range when {
		if !sameJSON(member(step, k), want) {
			return false
		}
	}
	return true
}

// member is an object's field by its exact name (no path syntax).
func member(obj gjson.Result, name string) gjson.Result {
	var out gjson.Result
	obj.ForEach(func(k, v gjson.Result) bool {
		if k.String() == name {
			out = v
			return false
		}
		return true
	})
	return out
}

// maxSteps bounds the steps of an artifact with an evidence rule: each is
// looked up, and the check runs after every Bash command.
const maxSteps = 1000

// byCommand indexes the runs that can be evidence by their command, so
// that each step costs one look-up however long the session's record.
func (w Witness) byCommand() map[string][]*ledger.Run {
	if w.memo.byCommand != nil {
		return w.memo.byCommand
	}
	out := map[string][]*ledger.Run{}
	defer func() { w.memo.byCommand = out }()
	for i := range w.Runs {
		r := &w.Runs[i]
		if r.Kind == ledger.KindBash && ledger.Evidential(r.Command) {
			k := ledger.Normalize(r.Command)
			out[k] = append(out[k], r)
		}
	}
	return out
}

// latest is the last run of command cmd that can speak for it: the same
// command (white space at its ends aside), one line, from the project
// root, and by the writing agent when own is set (others then says whether
// other agents ran it).
func (w Witness) latest(runs map[string][]*ledger.Run, cmd string, own bool) (run *ledger.Run, others bool) {
	rs := runs[ledger.Normalize(cmd)]
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i]
		if !w.atRoot(r.Cwd) {
			continue
		}
		if own && r.Agent != w.AgentID {
			others = true
			continue
		}
		return r, others
	}
	return nil, others
}

// atRoot reports whether a run's directory is the project root (Root has
// its links resolved; the session's cwd may reach it through one).
func (w Witness) atRoot(cwd string) bool {
	if cwd == "" || filepath.Clean(cwd) == w.Root {
		return true
	}
	real, err := realpath.Eval(cwd)
	return err == nil && real == w.Root
}

// tree is the project tree whose changes make a run stale: the verify
// gate's (its configuration's ignores and hidden directories aside), less
// the artifacts and their directories.
func (w Witness) tree() *project.Tree {
	c, err := project.LoadConfig(w.Root)
	if err != nil {
		c = project.Defaults()
	}
	for _, p := range w.Artifacts {
		// As the verify gate's task files: neither they nor the times of
		// the directories that hold them (an artifact written after the
		// run moves its directory's) make a run stale.
		c.TaskFiles = append(c.TaskFiles, globOf(p))
	}
	return project.NewTree(w.Root, c)
}

// globOf is a path template as a glob: each {name} stands for any text
// within its segment.
func globOf(template string) string {
	var b strings.Builder
	for _, p := range splitTemplate(template) {
		if p.name != "" {
			b.WriteByte('*')
			continue
		}
		for _, r := range p.lit {
			if strings.ContainsRune(`*?[\`, r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}
