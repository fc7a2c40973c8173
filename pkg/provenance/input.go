package provenance

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/plansdir"
)

// A plan of any size must reach the critic exactly as it stands (SPEC 5a
// and issue 32). A prompt cannot carry a long one: the skill gets its text
// through a Bash result, which Claude Code cuts to a preview past about
// 30,000 characters (as it does a hook's additionalContext past 10,000).
// So the critic reads the plan itself, from a file rodin writes when the
// critic asks for it (the Read's PreToolUse: the plan as it stands then,
// never the gaps), and rodin records what each Read returned (its
// PostToolUse). A critic run backs a verdict only when what it was shown,
// page by page, is all of the plan as it stands at the verdict.

// InputDir is where rodin writes what its agents read: under Claude Code's
// default plans directory, where hooks.json lets rodin's own hook answer
// their Reads (Read(~/.claude/plans/.rodin/**)).
func InputDir(getenv func(string) string) string {
	config := plansdir.ConfigDir(plansdir.Env{Getenv: getenv})
	if config == "" {
		return ""
	}
	return filepath.Join(config, "plans", ".rodin")
}

// CriticInputName is the name of the critic's input file for the plan
// with the given digest: the digest's first 16 digits name the plan the
// file must hold.
func CriticInputName(planDigest string) string {
	return "critic-" + tag(planDigest) + ".md"
}

func tag(digest string) string {
	if len(digest) > 16 {
		return digest[:16]
	}
	return digest
}

// maxInputLine bounds a line of an input file: Claude Code's Read cuts
// longer lines, so a long line of the plan is split there (at a rune
// boundary), and the critic reads every byte of it.
const maxInputLine = 1000

// CriticInput is the critic's input file: its framing, then the plan
// content (never the gaps) between two lines that carry the plan's digest,
// which the plan cannot hold, so it cannot close the frame early.
func CriticInput(d *planfile.Doc) string {
	t := tag(d.PlanDigest())
	var b strings.Builder
	b.WriteString(CriticFraming + "\n\n===== PLAN " + t + " BEGINS =====\n")
	for _, line := range strings.Split(Normalize(string(d.PlanContent())), "\n") {
		for len(line) > maxInputLine {
			cut := maxInputLine
			for cut > 0 && !utf8.RuneStart(line[cut]) {
				cut--
			}
			if cut == 0 {
				cut = maxInputLine
			}
			b.WriteString(line[:cut] + "\n")
			line = line[cut:]
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("===== PLAN " + t + " ENDS =====\n")
	return b.String()
}

// CriticReadPrompt is the critic's exact prompt when it reads the plan
// from its input file at path: short and fixed, so that the skill can give
// it whatever the plan's size.
func CriticReadPrompt(path string) string {
	return CriticPreamble + " It is in the file " + path + ": read all of it with the Read tool before you answer (page by page, " +
		"with offset and limit, when Read says the file is long), and read nothing else."
}

// LeakagePrompt is the leakage detector's prompt: the same file.
func LeakagePrompt(path string) string {
	return "Find the phrases of admitted uncertainty in the plan in the file " + path + ": read all of it with the Read tool (page by page, with offset and limit, when Read says the file is long), and read nothing else."
}

// Sum identifies a page of text as Read returned it: trailing newlines and
// carriage returns aside.
func Sum(text string) string {
	h := sha256.Sum256([]byte(strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), "\n")))
	return hex.EncodeToString(h[:])
}

// ReadAll reports whether the pages a run was shown (reads) are, together,
// every line of input and each exactly as input has it; missing names the
// first line range no page covered, for the message.
func ReadAll(input string, reads []evidence.Read) (complete bool, missing string) {
	lines := strings.Split(strings.TrimSuffix(input, "\n"), "\n")
	seen := make([]bool, len(lines))
	for _, r := range reads {
		// Claude Code counts the empty line after the file's last newline
		// as a line of its own: a page may run one past the text.
		if r.Start < 1 || r.Num < 1 || r.Start > len(lines) || r.Start-1+r.Num > len(lines)+1 {
			continue
		}
		n := min(r.Num, len(lines)-r.Start+1)
		if Sum(strings.Join(lines[r.Start-1:r.Start-1+n], "\n")) != r.Sum {
			continue // another text than this plan's (an older plan, or an edited file)
		}
		for i := r.Start - 1; i < r.Start-1+n; i++ {
			seen[i] = true
		}
	}
	for i, ok := range seen {
		if !ok {
			j := i
			for j+1 < len(seen) && !seen[j+1] {
				j++
			}
			return false, "lines " + itoa(i+1) + "-" + itoa(j+1) + " of " + itoa(len(lines))
		}
	}
	return true, ""
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		if n /= 10; n == 0 {
			break
		}
	}
	return string(b[i:])
}
