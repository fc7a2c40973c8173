package planfile

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Entry is one `### <KIND>-<n>: <title>` heading with its `- **Severity**:`
// and `- **Description**:` items: a gap in the gaps block, or a finding in
// a critic's output.
type Entry struct {
	ID          int    `json:"id"`
	Title       string `json:"title"`
	Severity    string `json:"severity"`
	Description string `json:"description"`
	Line        int    `json:"line"` // 1-based
}

// Severities, highest first.
var Severities = []string{"high", "medium", "low"}

func (d *Doc) text(s span) string { return string(bytes.TrimSpace(d.norm[s.start:s.end])) }

// Entries returns the level-3 headings `<kind>-<n>: <title>` with their
// items, and a problem for each entry that is not well formed. With
// inGaps, only headings inside the gaps block count.
func (d *Doc) Entries(kind string, inGaps bool) (entries []Entry, problems []string) {
	d.full()
	prefix := kind + "-"
	seen := map[int]int{}
	for hi, h := range d.headings {
		if inGaps && !d.inGaps(h.line) {
			continue
		}
		text := d.text(h)
		if h.level != 3 || !strings.HasPrefix(text, prefix) {
			continue
		}
		e := Entry{Line: h.line + 1}
		idText, title, ok := strings.Cut(text[len(prefix):], ":")
		id, err := strconv.Atoi(idText)
		if !ok || err != nil || id < 1 || strings.TrimLeft(idText, "0123456789") != "" {
			problems = append(problems, fmt.Sprintf("line %d: %q is not `### %s<n>: <title>`", e.Line, "### "+text, prefix))
			continue
		}
		e.ID, e.Title = id, strings.TrimSpace(title)
		if prev, dup := seen[id]; dup {
			problems = append(problems, fmt.Sprintf("line %d: %s%d is used again (first at line %d)", e.Line, prefix, id, prev))
		}
		seen[id] = e.Line
		// The entry's items lie between its heading and the next heading.
		end := len(d.lines)
		if hi+1 < len(d.headings) {
			end = d.headings[hi+1].line
		}
		for _, it := range d.items {
			if it.line <= h.line || it.line >= end {
				continue
			}
			key, value, ok := strings.Cut(d.text(it), ":")
			if !ok {
				continue
			}
			switch strings.TrimSpace(key) {
			case "**Severity**":
				e.Severity = strings.ToLower(strings.TrimSpace(value))
			case "**Description**":
				e.Description = strings.TrimSpace(value)
			}
		}
		if e.Title == "" {
			problems = append(problems, fmt.Sprintf("line %d: %s%d has no title", e.Line, prefix, id))
		}
		switch e.Severity {
		case "high", "medium", "low":
		case "":
			problems = append(problems, fmt.Sprintf("line %d: %s%d has no `- **Severity**: high|medium|low` item", e.Line, prefix, id))
		default:
			problems = append(problems, fmt.Sprintf("line %d: %s%d has severity %q; use high, medium or low", e.Line, prefix, id, e.Severity))
		}
		if e.Description == "" {
			problems = append(problems, fmt.Sprintf("line %d: %s%d has no `- **Description**: …` item", e.Line, prefix, id))
		}
		entries = append(entries, e)
	}
	return entries, problems
}

// NextID is one more than the largest n of the `### <kind>-<n>:` headings
// (inside the gaps block when inGaps), 1 when there are none.
func (d *Doc) NextID(kind string, inGaps bool) int {
	d.full()
	entries, _ := d.Entries(kind, inGaps)
	next := 1
	for _, e := range entries {
		if e.ID >= next {
			next = e.ID + 1
		}
	}
	return next
}

// HasHeading reports whether the plan (outside the gaps block) has a heading
// of the given level and text, such as `## Goals`.
func (d *Doc) HasHeading(level int, text string) bool {
	d.full()
	for _, h := range d.headings {
		if h.level == level && d.inPlan(h.line) && strings.EqualFold(d.text(h), text) {
			return true
		}
	}
	return false
}

// HeadingTexts returns the text of every heading of the given level, code
// blocks excluded: used for marker headings such as `### NO ISSUES FOUND`.
func (d *Doc) HeadingTexts(level int) []string {
	d.full()
	var out []string
	for _, h := range d.headings {
		if h.level == level {
			out = append(out, d.text(h))
		}
	}
	return out
}

// LineWithPrefix returns the rest of the first line that starts, after
// spaces, with prefix (such as `**Reason**:`).
func (d *Doc) LineWithPrefix(prefix string) (string, bool) {
	d.full()
	for i := range d.lines {
		t := bytes.TrimSpace(d.lineText(i))
		if bytes.HasPrefix(t, []byte(prefix)) {
			return strings.TrimSpace(string(t[len(prefix):])), true
		}
	}
	return "", false
}

// StrayGapsLines names the lines of the gaps block that belong to no gap
// entry: text before the first `### GAP-<n>:` heading, other headings, and
// lines after an entry that are neither one of its list items (as the
// Markdown parse found them) nor indented under one. The gaps block holds
// gap entries only: anything else would reach the validator as if it were
// a gap, unread by the critic.
func (d *Doc) StrayGapsLines() []string {
	d.full()
	if !d.hasGapsBlock() {
		return nil
	}
	heading := map[int]bool{}
	for _, h := range d.headings {
		if d.inGaps(h.line) {
			heading[h.line] = h.level == 3 && strings.HasPrefix(d.text(h), "GAP-")
		}
	}
	item := map[int]bool{}
	for _, it := range d.items {
		item[it.line] = true
	}
	var out []string
	inEntry := false
	for i := d.start + 1; i < d.end; i++ {
		text := d.lineText(i)
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		if entry, isHeading := heading[i]; isHeading {
			if !entry {
				out = append(out, fmt.Sprintf("line %d: %q is not a `### GAP-<n>: <title>` heading", i+1, string(bytes.TrimSpace(text))))
			}
			inEntry = entry
			continue
		}
		if inEntry && (item[i] || text[0] == ' ' || text[0] == '\t') {
			continue
		}
		out = append(out, fmt.Sprintf("line %d: %q is not part of a gap entry", i+1, shortLine(string(bytes.TrimSpace(text)))))
	}
	return out
}

func shortLine(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// reviewerCues are phrases by which a plan speaks to its reviewers rather
// than about its work: the answers rodin's agents give, and the usual ways
// of telling a model what to do.
var reviewerCues = []string{
	"no issues found", "verification_pass", "verdict", "reviewer", "critic", "validator", "assessor",
	"ignore previous", "ignore all previous", "ignore the above", "disregard", "answer exactly",
	"respond with", "you must answer", "as an ai", "language model", "===== plan ",
}

// ReviewerAddresses names the lines of the plan (outside the gaps block)
// that seem to speak to its reviewers: `rodin check` shows them, so that
// the skill tells the user. A heuristic, for the user's eyes: the critic's
// prompt frames the plan as material to assess whatever it says.
func (d *Doc) ReviewerAddresses() []string {
	var out []string
	for _, l := range strings.Split(string(d.PlanContent()), "\n") {
		low := strings.ToLower(l)
		for _, c := range reviewerCues {
			if strings.Contains(low, c) {
				out = append(out, fmt.Sprintf("%q", shortLine(strings.TrimSpace(l))))
				break
			}
		}
	}
	return out
}
