// Package assess reads what the plan-gate skill's subagents answer: the
// critic's findings and the validator's verdict (SPEC section 6). It uses
// the plan-file Markdown model, so a heading inside a code block in a
// subagent's answer counts for nothing, as it would in a plan.
package assess

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rodin-gate/rodin/pkg/planfile"
)

// Critic is a parsed critic answer.
type Critic struct {
	NoIssues bool             `json:"no_issues"`
	Findings []planfile.Entry `json:"findings"`
	Counts   map[string]int   `json:"counts"`   // findings per severity
	Problems []string         `json:"problems"` // malformed findings, kept anyway
}

// ParseCritic reads a critic answer: `### FINDING-<n>: <title>` entries
// with `- **Severity**:` and `- **Description**:`, or `### NO ISSUES FOUND`,
// at heading levels 1 to 4 (an answer rodin cannot read stands against the
// plan, so the reading is as wide as it safely can be).
func ParseCritic(text string) (Critic, error) {
	d := planfile.Parse([]byte(text))
	c := Critic{Counts: map[string]int{"high": 0, "medium": 0, "low": 0}, Findings: []planfile.Entry{}, Problems: []string{}}
	for level := 1; level <= 4; level++ {
		for _, h := range d.HeadingTexts(level) {
			if strings.EqualFold(strings.Trim(h, "*_ "), "NO ISSUES FOUND") {
				c.NoIssues = true
			}
		}
	}
	findings, problems := d.Findings()
	c.Findings = append(c.Findings, findings...)
	c.Problems = append(c.Problems, problems...)
	for _, f := range findings {
		c.Counts[f.Severity]++
	}
	switch {
	case c.NoIssues && len(findings) > 0:
		return Critic{}, errors.New("the critic answered both `### NO ISSUES FOUND` and findings")
	case !c.NoIssues && len(findings) == 0 && len(problems) == 0:
		return Critic{}, errors.New("no `### FINDING-<n>: <title>` heading and no `### NO ISSUES FOUND` line")
	}
	return c, nil
}

// Validator is a parsed validator answer.
type Validator struct {
	Verdict string `json:"verdict"` // "pass" or "fail"
	Reason  string `json:"reason"`
}

// ParseValidator reads a validator answer: exactly one `### VERDICT: PASS`
// or `### VERDICT: FAIL` heading, and a `**Reason**: …` line.
func ParseValidator(text string) (Validator, error) {
	d := planfile.Parse([]byte(text))
	var verdicts []string
	for level := 1; level <= 4; level++ {
		for _, h := range d.HeadingTexts(level) {
			if rest, ok := strings.CutPrefix(h, "VERDICT:"); ok {
				verdicts = append(verdicts, strings.ToLower(strings.Trim(rest, "*_ ")))
			}
		}
	}
	if len(verdicts) != 1 {
		return Validator{}, fmt.Errorf("want exactly one `### VERDICT: PASS` or `### VERDICT: FAIL` heading, found %d", len(verdicts))
	}
	v := Validator{Verdict: verdicts[0]}
	if v.Verdict != planfile.StatusPass && v.Verdict != planfile.StatusFail {
		return Validator{}, fmt.Errorf("the verdict is %q; it must be PASS or FAIL", verdicts[0])
	}
	v.Reason, _ = d.LineWithPrefix("**Reason**:")
	return v, nil
}

// FindingsDigest identifies a set of findings by what they say, not how
// they are laid out: the critic's answer and the findings a validator was
// given have the same digest when they hold the same findings, whatever the
// white space or the text around them. "" when text holds no parseable
// findings.
func FindingsDigest(text string) string {
	c, err := ParseCritic(text)
	if err != nil {
		return ""
	}
	h := sha256.New()
	if c.NoIssues {
		io.WriteString(h, "no issues found")
	}
	for _, f := range c.Findings {
		fmt.Fprintf(h, "%d\x00%s\x00%s\x00%s\x00", f.ID, f.Title, f.Severity, f.Description)
	}
	return hex.EncodeToString(h.Sum(nil))
}
