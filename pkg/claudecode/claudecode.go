// Package claudecode knows which Claude Code release runs rodin's hooks, and
// which releases rodin supports.
//
// Claude Code sets AI_AGENT=claude-code_<major>-<minor>-<patch>_harness in
// its own environment, which every hook inherits: the only place a hook can
// learn the release without starting a process.
package claudecode

import (
	"strconv"
	"strings"
)

// MinVersion is the oldest release rodin supports: the first with
// `onFailure: "block"` on hooks (2.1.295), without which a gate hook that
// cannot start or times out lets ExitPlanMode through. plugin.json's
// engines.claude-code says the same to releases that read it.
const MinVersion = "2.1.295"

// Version is the running Claude Code release from AI_AGENT, "" when unknown.
func Version(getenv func(string) string) string {
	v := getenv("AI_AGENT")
	for _, prefix := range []string{"claude-code_", "claude-code/"} {
		if rest, ok := strings.CutPrefix(v, prefix); ok {
			if i := strings.IndexAny(rest, "_/"); i >= 0 {
				rest = rest[:i]
			}
			rest = strings.ReplaceAll(rest, "-", ".")
			if _, ok := parse(rest); ok {
				return rest
			}
		}
	}
	return ""
}

// Supported reports whether release v is at least MinVersion. An unknown
// release ("") counts as supported: rodin cannot tell, and the release
// that set nothing is not one it knows to be too old.
func Supported(v string) bool {
	if v == "" {
		return true
	}
	return !Older(v, MinVersion)
}

// Older reports whether release a comes before release b.
func Older(a, b string) bool {
	x, okA := parse(a)
	y, okB := parse(b)
	if !okA || !okB {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return false
}

func parse(v string) ([3]int, bool) {
	var out [3]int
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return out, false
		}
		out[i] = n
	}
	return out, true
}
