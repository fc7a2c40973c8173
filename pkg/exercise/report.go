package exercise

import (
	"fmt"
	"strings"
	"time"
)

// Report is one `rodin exercise` invocation: every component's outcome.
type Report struct {
	Status   string    `json:"status"` // passed, failed, skipped
	Claude   string    `json:"claude,omitempty"`
	Reason   string    `json:"reason,omitempty"` // why skipped
	Outcomes []Outcome `json:"skills"`
}

// Summarize sets the report's status: skipped when nothing ran, failed
// when anything failed.
func (r *Report) Summarize() {
	r.Status = Passed
	if len(r.Outcomes) == 0 {
		r.Status = Skipped
	}
	for _, o := range r.Outcomes {
		switch o.Status {
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
// run, the captured output, the criteria and what went wrong.
func (r *Report) Markdown() string {
	var b strings.Builder
	b.WriteString("## " + Heading + "\n\n")
	if r.Status == Skipped && len(r.Outcomes) == 0 {
		b.WriteString("**Exercise testing was skipped.**\n\n| Field | Value |\n|---|---|\n")
		fmt.Fprintf(&b, "| **Reason** | %s |\n", cell(r.Reason))
		b.WriteString("| **Recommendation** | Run `rodin exercise` where the claude CLI is installed, or exercise the skill by hand |\n")
		return b.String()
	}
	passed := 0
	for _, o := range r.Outcomes {
		if o.Status == Passed {
			passed++
		}
	}
	fmt.Fprintf(&b, "%d of %d exercised %s passed", passed, len(r.Outcomes), plural(len(r.Outcomes), "component"))
	if r.Claude != "" {
		fmt.Fprintf(&b, " (claude %s)", r.Claude)
	}
	b.WriteString(".\n")
	for _, o := range r.Outcomes {
		b.WriteString("\n")
		o.markdown(&b)
	}
	return b.String()
}

func (o Outcome) markdown(b *strings.Builder) {
	fmt.Fprintf(b, "### %s `%s`: %s\n\n", strings.ToUpper(o.Kind[:1])+o.Kind[1:], o.ID(), strings.ToUpper(o.Status))
	b.WriteString("| Field | Value |\n|---|---|\n")
	fmt.Fprintf(b, "| **%s Exercised** | `%s` (%s) |\n", strings.ToUpper(o.Kind[:1])+o.Kind[1:], o.ID(), o.File)
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

	b.WriteString("\n#### Captured Output Summary\n\n")
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
			cmd := oneLine(toolSummaryRaw(c.Input), 60)
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
		fmt.Fprintf(b, "- Final message: %s\n", cell(oneLine(o.Final, 300)))
	}

	if len(o.Criteria) > 0 {
		b.WriteString("\n#### AC Evaluation\n\n| AC | Description | Verdict | Evidence |\n|---|---|---|---|\n")
		for _, j := range o.Criteria {
			by := ""
			if j.By == "evaluator" {
				by = " (evaluator)"
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s%s |\n", j.ID, cell(j.Title), j.Verdict, cell(j.Evidence), by)
		}
	}
	if len(o.Errors) > 0 {
		b.WriteString("\n#### Captured Errors\n\n")
		for _, e := range o.Errors {
			fmt.Fprintf(b, "- %s\n", cell(e))
		}
	}
	if len(o.Notes) > 0 {
		b.WriteString("\n#### Notes\n\n")
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
