package exercise

import (
	"context"
	"fmt"
	"strings"

	"github.com/rodin-gate/rodin/pkg/headless"
)

// Arms of an exercise: the sessions with the plugin, and the baseline
// sessions that get the same task without it.
const (
	ArmPlugin   = "plugin"
	ArmBaseline = "baseline"
)

// Plan is how often each component runs, and against what.
type Plan struct {
	Runs      int     // sessions with the plugin, per component (≥ 1)
	Baseline  bool    // as many sessions again without it
	Threshold float64 // the pass rate each criterion needs (0..1)
	// MaxCostUSD, when positive, is what the whole invocation may spend:
	// no session starts once it is spent, and each gets what is left.
	MaxCostUSD float64
}

// Exercised is one component run Plan.Runs times (and its baseline), with
// every criterion's pass rate over the runs.
type Exercised struct {
	Component
	Status         string    `json:"status"`
	Reason         string    `json:"reason,omitempty"`
	Prompt         string    `json:"prompt"`
	BaselinePrompt string    `json:"baseline_prompt,omitempty"`
	BaselineNote   string    `json:"baseline_note,omitempty"` // why no baseline ran
	Criteria       []Rate    `json:"criteria"`
	Runs           []Outcome `json:"runs"`
	Baseline       []Outcome `json:"baseline"`
	CostUSD        float64   `json:"cost_usd"` // every session of it, judges included
	Tokens         int64     `json:"tokens"`
	DurationMS     int64     `json:"duration_ms"`
}

// Rate is one criterion over the runs of both arms.
type Rate struct {
	ID     string  `json:"id"`
	Title  string  `json:"title"`
	Passed int     `json:"passed"` // runs with the plugin that passed it
	Runs   int     `json:"runs"`
	Rate   float64 `json:"rate"`
	Met    bool    `json:"met"` // Rate reached the threshold
	// The baseline arm, when it ran and the criterion applies to it.
	BaselinePassed int      `json:"baseline_passed"`
	BaselineRuns   int      `json:"baseline_runs"`
	BaselineRate   *float64 `json:"baseline_rate,omitempty"`
	// Evidence is false when the bare model met the criterion as often as
	// the plugin did: then passing it says nothing of the change.
	Evidence bool   `json:"evidence"`
	Note     string `json:"note,omitempty"`
}

// Spent is what the invocation has spent so far, shared by its components.
type Spent struct{ USD float64 }

// Exercise runs c as p says, and rates its criteria. It stops early when
// ctx is cancelled or the cost ceiling is reached; say reports progress.
func Exercise(ctx context.Context, c Component, o Options, p Plan, spent *Spent, say func(string)) Exercised {
	if p.Runs < 1 {
		p.Runs = 1
	}
	x := Exercised{Component: c, Prompt: o.Prompt, Runs: []Outcome{}, Baseline: []Outcome{}}
	if x.Prompt == "" {
		x.Prompt = DefaultPrompt(c, o.Args)
	}
	if p.Baseline {
		x.BaselinePrompt, x.BaselineNote = BaselinePrompt(c, o)
	}
	arm := func(baseline bool, n int) (Outcome, bool) {
		if p.MaxCostUSD > 0 {
			left := p.MaxCostUSD - spent.USD
			if left <= 0.005 {
				return Outcome{}, false
			}
			o.Budget = left
		}
		oo := o
		oo.Baseline = baseline
		if baseline {
			oo.Prompt = x.BaselinePrompt
		}
		out := Run(ctx, c, oo)
		out.Run = n
		spent.USD += out.CostUSD + out.JudgeCostUSD
		if say != nil {
			what := "run %d of %d"
			if baseline {
				what = "baseline run %d of %d (without the plugin)"
			}
			say(fmt.Sprintf(what+": %s, $%.4f, %d tokens", n, p.Runs, strings.ToUpper(out.Status), out.CostUSD+out.JudgeCostUSD, out.Usage.Total()))
		}
		return out, true
	}
	ceiling := false
	for i := 1; i <= p.Runs && ctx.Err() == nil; i++ {
		out, ok := arm(false, i)
		if !ok {
			ceiling = true
			break
		}
		x.Runs = append(x.Runs, out)
		if out.Status == Skipped {
			break // not logged in: the next run would be the same
		}
		if p.Baseline && x.BaselinePrompt != "" && ctx.Err() == nil {
			out, ok := arm(true, i)
			if !ok {
				ceiling = true
				break
			}
			x.Baseline = append(x.Baseline, out)
		}
	}
	for _, r := range append(append([]Outcome{}, x.Runs...), x.Baseline...) {
		x.CostUSD += r.CostUSD + r.JudgeCostUSD
		x.Tokens += r.Usage.Total()
		x.DurationMS += r.DurationMS
	}
	x.Criteria = rates(x.Runs, x.Baseline, p.Threshold)
	x.Status = Passed
	switch {
	case len(x.Runs) > 0 && x.Runs[0].Status == Skipped:
		x.Status, x.Reason = Skipped, x.Runs[0].Reason
	case ceiling && len(x.Runs) < p.Runs:
		x.Status, x.Reason = Failed, fmt.Sprintf("the cost ceiling (--max-cost-usd %.2f) was reached after %d of %d runs", p.MaxCostUSD, len(x.Runs), p.Runs)
	case len(x.Runs) < p.Runs:
		x.Status, x.Reason = Failed, fmt.Sprintf("stopped after %d of %d runs", len(x.Runs), p.Runs)
	}
	if x.Status == Passed {
		for _, r := range x.Runs {
			if r.Status == Failed && r.Reason != "" {
				x.Status, x.Reason = Failed, r.Reason
			}
		}
		for _, r := range x.Criteria {
			if !r.Met {
				x.Status = Failed
			}
		}
	}
	return x
}

// rates counts, per criterion, the runs of each arm that passed it. A
// criterion the baseline met as often as the plugin is no evidence of
// the change.
func rates(runs, baseline []Outcome, threshold float64) []Rate {
	var out []Rate
	index := map[string]int{}
	for _, r := range runs {
		for _, j := range r.Criteria {
			i, ok := index[j.ID]
			if !ok {
				i = len(out)
				index[j.ID] = i
				out = append(out, Rate{ID: j.ID, Title: j.Title, Evidence: true})
			}
			out[i].Runs++
			if j.Verdict == Pass {
				out[i].Passed++
			}
		}
	}
	for _, r := range baseline {
		for _, j := range r.Criteria {
			if i, ok := index[j.ID]; ok {
				out[i].BaselineRuns++
				if j.Verdict == Pass {
					out[i].BaselinePassed++
				}
			}
		}
	}
	for i := range out {
		r := &out[i]
		r.Rate = float64(r.Passed) / float64(r.Runs)
		r.Met = r.Rate >= threshold-1e-9
		if r.BaselineRuns == 0 {
			continue
		}
		b := float64(r.BaselinePassed) / float64(r.BaselineRuns)
		r.BaselineRate = &b
		if r.Passed > 0 && b >= r.Rate {
			r.Evidence = false
			r.Note = fmt.Sprintf("met without the plugin too (%d of %d): not evidence of the change", r.BaselinePassed, r.BaselineRuns)
		}
	}
	return out
}

// BaselinePrompt is the task the bare model gets: the prompt without the
// plugin's own command. The default prompt is only that command (or the
// plugin's agent), so the baseline is then the --args alone; with neither,
// there is no task to compare and the note says so.
func BaselinePrompt(c Component, o Options) (prompt, note string) {
	if o.Prompt != "" {
		p := strings.TrimSpace(o.Prompt)
		if first, rest, _ := strings.Cut(p, " "); first == "/"+c.ID() || first == "/"+c.Name {
			p = strings.TrimSpace(rest)
		}
		if p != "" {
			return p, ""
		}
	} else if a := strings.TrimSpace(o.Args); a != "" {
		return a, ""
	}
	return "", "no baseline: the prompt is only the plugin's own " + c.Kind + ", which a session without the plugin does not have; give the task with --args or --prompt to compare"
}

// usageOf is what a session used, from its result event.
func usageOf(run *headless.Run) (cost float64, u headless.Usage, turns int) {
	if run == nil || run.Result == nil {
		return 0, headless.Usage{}, 0
	}
	return run.Result.CostUSD, run.Result.Usage, run.Result.NumTurns
}
