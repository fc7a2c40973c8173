package planfile

import "testing"

// TestGoalsHeading: goals headings as people write them count; headings
// that only contain the word do not.
func TestGoalsHeading(t *testing.T) {
	for text, want := range map[string]bool{
		"## Goals": true, "## Goals:": true, "## 1. Goals": true, "## Goals (success criteria)": true,
		"## **Goals**": true, "## 1.2 Goals": true, "## IV. Goals": true, "## A) Goals": true,
		"## 🎯 Goals": true, "## Goals for v2": true, "# Goals": true, "### Goals": true,
		"## Objectives": true, "## Success criteria": true, "## Goal": true,
		"## Ziele": true, "## Objectifs": true, "## 目标与范围": true, "## ゴール": true,
		"## Goalkeeper": false, "## Non-goals": false, "## Steps": false, "#### Goals": false, "## i goals": false,
	} {
		d := Parse([]byte("# Plan\n\n" + text + "\n- a\n"))
		got, seen := d.GoalsHeading()
		if got != want {
			t.Errorf("%q: goals heading %v, want %v", text, got, want)
		}
		if !got && len(seen) == 0 {
			t.Errorf("%q: no headings named", text)
		}
	}
	// Inside the gaps block or in code: not the plan's.
	for _, src := range []string{
		"# P\n\n<!-- rodin:gaps:start -->\n## Goals\n<!-- rodin:gaps:end -->\n",
		"# P\n\n```\n## Goals\n```\n",
	} {
		if ok, _ := Parse([]byte(src)).GoalsHeading(); ok {
			t.Errorf("%q: goals heading found", src)
		}
	}
}
