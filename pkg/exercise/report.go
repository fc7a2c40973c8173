package exercise

import (
	"fmt"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"strings"
	"time"
)

// Report is one `rodin exercise` invocation: every component exercised.
type Report struct {
	Status    string      `json:"status"` // passed, failed, skipped
	Claude    string      `json:"claude,omitempty"`
	Reason    string      `json:"reason,omitempty"` // why skipped
	Runs      int         `json:"runs"`             // with the plugin, per component
	Baseline  bool        `json:"baseline"`         // as many without it
	Threshold float64     `json:"threshold"`        // the pass rate a criterion needs
	CostUSD   float64     `json:"cost_usd"`         // every session, judges included
	Tokens    int64       `json:"tokens"`
	Duration  int64       `json:"duration_ms"`
	Exercised []Exercised `json:"components"`
}

// Summarize sets the report's totals and status: skipped when nothing
// ran, failed when anything failed.
func (r *Report) Summarize() {
	r.Status = Passed
	if len(r.Exercised) == 0 {
		r.Status = Skipped
	}
	r.CostUSD, r.Tokens, r.Duration = 0, 0, 0
	for _, x := range r.Exercised {
		r.CostUSD += x.CostUSD
		r.Tokens += x.Tokens
		r.Duration += x.DurationMS
	}
	for _, x := range r.Exercised {
		switch x.Status {
		case Failed:
			r.Status = Failed
			return
		case Skipped:
			r.Status = Skipped
		}
	}
}

// Heading is the report section's title.
const Heading = "Exercise Test Results"

// Markdown is the report section: a summary line, then per component its
// runs, the criteria's rates and what went wrong.
func (r *Report) Markdown() string {
	var b strings.Builder
	b.WriteString("## " + Heading + "\n\n")
	if r.Status == Skipped && len(r.Exercised) == 0 {
		b.WriteString("**Exercise testing was skipped.**\n\n| Field | Value |\n|---|---|\n")
		fmt.Fprintf(&b, "| **Reason** | %s |\n", cell(r.Reason))
		b.WriteString("| **Recommendation** | Run `rodin exercise` where the claude CLI is installed, or exercise the skill by hand |\n")
		return b.String()
	}
	passed := 0
	for _, x := range r.Exercised {
		if x.Status == Passed {
			passed++
		}
	}
	fmt.Fprintf(&b, "%d of %d exercised %s passed", passed, len(r.Exercised), plural(len(r.Exercised), "component"))
	if r.Claude != "" {
		fmt.Fprintf(&b, " (claude %s)", r.Claude)
	}
	fmt.Fprintf(&b, "; %s.\n", spend(r.CostUSD, r.Tokens, r.Duration))
	for _, x := range r.Exercised {
		b.WriteString("\n")
		x.markdown(&b)
	}
	return b.String()
}

// spend says what sessions cost: dollars as the CLI counts them, tokens,
// time.
func spend(usd float64, tokens, ms int64) string {
	return fmt.Sprintf("$%.4f, %s tokens, %s", usd, thousands(tokens), (time.Duration(ms) * time.Millisecond).Round(100*time.Millisecond))
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func title(kind string) string { return strings.ToUpper(kind[:1]) + kind[1:] }

func (x Exercised) markdown(b *strings.Builder) {
	single := len(x.Runs) == 1 && len(x.Baseline) == 0 && x.BaselineNote == ""
	if single {
		o := x.Runs[0]
		fmt.Fprintf(b, "### %s `%s`: %s\n\n", title(x.Kind), x.ID(), strings.ToUpper(x.Status))
		o.markdown(b, "####")
		return
	}
	fmt.Fprintf(b, "### %s `%s`: %s\n\n", title(x.Kind), x.ID(), strings.ToUpper(x.Status))
	b.WriteString("| Field | Value |\n|---|---|\n")
	fmt.Fprintf(b, "| **%s Exercised** | `%s` (%s) |\n", title(x.Kind), x.ID(), x.File)
	if x.Reason != "" {
		fmt.Fprintf(b, "| **Reason** | %s |\n", cell(x.Reason))
	}
	fmt.Fprintf(b, "| **Prompt** | `%s` |\n", strings.ReplaceAll(cell(x.Prompt), "`", "'"))
	runs := fmt.Sprintf("%d with the plugin", len(x.Runs))
	switch {
	case len(x.Baseline) > 0:
		runs += fmt.Sprintf(", %d without it (baseline prompt: `%s`)", len(x.Baseline), strings.ReplaceAll(cell(x.BaselinePrompt), "`", "'"))
	case x.BaselineNote != "":
		runs += "; " + x.BaselineNote
	}
	fmt.Fprintf(b, "| **Runs** | %s |\n", cell(runs))
	fmt.Fprintf(b, "| **Spent** | %s |\n", spend(x.CostUSD, x.Tokens, x.DurationMS))
	if len(x.Criteria) > 0 {
		b.WriteString("\n#### Pass Rates\n\n| AC | Description | With the plugin | Without | Note |\n|---|---|---|---|---|\n")
		for _, r := range x.Criteria {
			without := "—"
			if r.BaselineRate != nil {
				without = fmt.Sprintf("%d/%d", r.BaselinePassed, r.BaselineRuns)
			}
			note := r.Note
			if !r.Met {
				note = strings.TrimPrefix(note+"; below the threshold", "; ")
			}
			fmt.Fprintf(b, "| %s | %s | %d/%d | %s | %s |\n", r.ID, cell(r.Title), r.Passed, r.Runs, without, cell(note))
		}
	}
	for _, o := range append(append([]Outcome{}, x.Runs...), x.Baseline...) {
		what := "with the plugin"
		if o.Arm == ArmBaseline {
			what = "without the plugin (baseline)"
		}
		fmt.Fprintf(b, "\n#### Run %d %s: %s\n\n", o.Run, what, strings.ToUpper(o.Status))
		o.markdown(b, "#####")
	}
}

// markdown is one run: its fields, what it left, its criteria, errors and
// notes, under headings of the given level.
func (o Outcome) markdown(b *strings.Builder, h string) {
	b.WriteString("| Field | Value |\n|---|---|\n")
	fmt.Fprintf(b, "| **%s Exercised** | `%s` (%s) |\n", title(o.Kind), o.ID(), o.File)
	if o.Reason != "" {
		fmt.Fprintf(b, "| **Reason** | %s |\n", cell(o.Reason))
	}
	method := "stream-JSON control protocol (what the Agent SDK's canUseTool uses)"
	ask := "Programmatic first-option"
	if !o.Interactive {
		method = "`claude -p` with AskUserQuestion disallowed: non-interactive path only"
		ask = "Denied (disallowed)"
	}
	if len(o.Answers) == 0 && o.Interactive {
		ask = "N/A (not called)"
	} else if len(o.Answers) > 0 {
		ask += fmt.Sprintf(": %d %s answered", len(o.Answers), plural(len(o.Answers), "question"))
	}
	if o.Method != "" {
		fmt.Fprintf(b, "| **Exercise Method** | %s |\n", method)
		fmt.Fprintf(b, "| **AskUserQuestion Handling** | %s |\n", ask)
	}
	fmt.Fprintf(b, "| **Prompt** | `%s` |\n", strings.ReplaceAll(cell(o.Prompt), "`", "'"))
	if o.Model != "" {
		fmt.Fprintf(b, "| **Model** | %s |\n", cell(o.Model))
	}
	project := o.Project
	if !o.Kept {
		project += " (removed)"
	}
	fmt.Fprintf(b, "| **Test Project** | %s |\n", cell(project))
	fmt.Fprintf(b, "| **Duration** | %s |\n", (time.Duration(o.DurationMS) * time.Millisecond).Round(100*time.Millisecond))
	if o.Method != "" {
		fmt.Fprintf(b, "| **Spent** | %s (%d turns) |\n", spend(o.CostUSD+o.JudgeCostUSD, o.Usage.Total(), o.DurationMS), o.Turns)
	}

	fmt.Fprintf(b, "\n%s Captured Output Summary\n\n", h)
	if len(o.Files) == 0 {
		b.WriteString("- Files: none created, changed or deleted\n")
	} else {
		var fs []string
		for _, f := range o.Files {
			fs = append(fs, fmt.Sprintf("`%s` (%s)", f.Path, f.Change))
		}
		fmt.Fprintf(b, "- Files: %s\n", strings.Join(fs, ", "))
	}
	if len(o.Tools) > 0 {
		var order []string
		count := map[string]int{}
		for _, c := range o.Tools {
			if count[c.Name] == 0 {
				order = append(order, c.Name)
			}
			count[c.Name]++
		}
		var ts []string
		for _, n := range order {
			ts = append(ts, fmt.Sprintf("%s ×%d", n, count[n]))
		}
		fmt.Fprintf(b, "- Tools: %s\n", strings.Join(ts, ", "))
	}
	for _, a := range o.Answers {
		fmt.Fprintf(b, "- Asked %q: answered %q\n", a.Question, a.Answer)
	}
	var cmds []string
	for _, c := range o.Tools {
		if c.Name == "Bash" {
			cmd := hookio.Clip(toolSummaryRaw(c.Input), 60)
			if strings.HasPrefix(c.Permission, "denied") {
				cmd += " (kept from running)"
			}
			cmds = append(cmds, "`"+strings.ReplaceAll(cmd, "`", "'")+"`")
		}
	}
	if len(cmds) > 0 {
		if len(cmds) > 8 {
			cmds = append(cmds[:8], fmt.Sprintf("and %d more", len(cmds)-8))
		}
		fmt.Fprintf(b, "- Commands: %s\n", strings.Join(cmds, ", "))
	}
	if o.Final != "" {
		fmt.Fprintf(b, "- Final message: %s\n", cell(hookio.Clip(o.Final, 300)))
	}

	if len(o.Criteria) > 0 {
		fmt.Fprintf(b, "\n%s AC Evaluation\n\n| AC | Description | Verdict | Evidence |\n|---|---|---|---|\n", h)
		for _, j := range o.Criteria {
			by := ""
			if j.By == "evaluator" {
				by = " (evaluator)"
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s%s |\n", j.ID, cell(j.Title), j.Verdict, cell(j.Evidence), by)
		}
	}
	if len(o.Errors) > 0 {
		fmt.Fprintf(b, "\n%s Captured Errors\n\n", h)
		for _, e := range o.Errors {
			fmt.Fprintf(b, "- %s\n", cell(e))
		}
	}
	if len(o.Notes) > 0 {
		fmt.Fprintf(b, "\n%s Notes\n\n", h)
		for _, n := range o.Notes {
			fmt.Fprintf(b, "- %s\n", n)
		}
	}
}

// cell makes text safe in a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
