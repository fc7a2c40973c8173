package verifygate

import "strings"

// A check followed by more in one line: `go test ./... && git commit -am
// wip`, `rodin verify V1 tasks.md && sed -i 's/- \[ \] V1/- [x] V1/'
// tasks.md`. Honest agents write both. The line's exit 0 says its head's
// was 0 (sh runs what follows `&&` only after a success, and the list ends
// with the status of what ran last), so a passing line is a pass of its
// head. What follows may write (that is what the tick in it does): such a
// pass speaks for the code as it stood when the line began (evidenceTime).

// chainHeads are the heads of a line that can be cut from a `&& …` tail,
// shortest first: each ends where a `&&` outside quotes, parentheses and
// substitutions begins, and is cut only when the line's exit then says the
// head's: nothing after it ends the list otherwise (a `;`, `||`, a lone
// `&` that sends the list to the background and exits 0 at once, a line
// break, a comment) and the line closes every quote and parenthesis it
// opens. Nil when there is none.
func chainHeads(line string) []string {
	var cuts []int
	lastBad := -1
	braces := 0    // ${ not yet closed
	depth := 0     // ( and $( not yet closed
	var quote byte // the quote open, 0 outside
	word := false  // inside a word (a # there is no comment)
	for i := 0; i < len(line); i++ {
		ch := line[i]
		if quote != 0 {
			switch {
			case ch == '\\' && quote != '\'':
				i++
			case ch == quote:
				quote = 0
			}
			continue
		}
		switch ch {
		case '\\':
			i++
			word = true
			continue
		case '\'', '"', '`':
			if ch == '\'' && i > 0 && line[i-1] == '$' {
				return nil // $'…' quotes by other rules (a \' inside): not read here
			}
			quote, word = ch, true
			continue
		case '(':
			// Parentheses and `$( )`: a `&&` or a `;` inside is no link of
			// the line.
			depth++
		case ')':
			if depth--; depth < 0 {
				return nil
			}
		case '{':
			if i == 0 || line[i-1] != '$' {
				// A group `{ …; }`, or a brace as a word (`echo {`): bash
				// reads it by where it stands, this look does not (attack
				// 63: `check && echo { || echo }` hid a failure).
				return nil
			}
			braces++
			depth++ // `${x:-a && b}`: words of a value
		case '}':
			if braces == 0 {
				return nil
			}
			braces--
			depth--
		case '[', ']':
			if i+1 < len(line) && line[i+1] == ch {
				return nil // `[[ a && b ]]`: a test's operators, or a word
			}
		case '#':
			if !word && depth == 0 {
				lastBad = i
			}
		case '\n', '\r', ';':
			if depth == 0 {
				lastBad = i
			}
		case '|':
			if i+1 < len(line) && line[i+1] == '|' {
				if depth == 0 {
					lastBad = i
				}
				i++
			}
		case '&':
			switch {
			case i+1 < len(line) && line[i+1] == '&':
				if depth == 0 {
					cuts = append(cuts, i)
				}
				i++
			case i > 0 && (line[i-1] == '>' || line[i-1] == '<'), i+1 < len(line) && line[i+1] == '>':
				// A redirection: 2>&1, >&2, &>file.
			default:
				if depth == 0 {
					lastBad = i // a lone &: the list runs in the background
				}
			}
		}
		word = ch != ' ' && ch != '\t' && ch != '(' && ch != ')' && ch != '|' && ch != '&' && ch != ';'
	}
	if quote != 0 || depth != 0 || strings.HasSuffix(line, "\\") {
		return nil
	}
	var heads []string
	for _, c := range cuts {
		if c > lastBad {
			if h := strings.TrimRight(line[:c], " \t"); h != "" {
				heads = append(heads, h)
			}
		}
	}
	return heads
}

// chainedOf reports whether line is want followed by a `&& …` tail that
// chainHeads can cut (want with ` 2>&1` too, when join allows it), or a
// later link of such a line whose every earlier link is a check of the
// task too (own): `sh lint.sh && sh test.sh` passed says both did, each
// from the line's start. An earlier link of anything else may change what
// the check runs or what the line's exit says (`exit 0 &&`, `trap 'exit 0'
// EXIT &&`, a function or PATH named like the check, `\cd sub &&`).
func chainedOf(line, want string, join bool, own func(string) bool) bool {
	if !strings.Contains(line, "&&") {
		return false
	}
	heads := chainHeads(line)
	is := func(part string) bool {
		part = strings.TrimSpace(part)
		return part == want || join && strings.TrimSuffix(part, " 2>&1") == want
	}
	for _, h := range heads {
		if is(h) {
			return true // the check opens the line (`cd web && npm test && …` too)
		}
	}
	if len(heads) == 0 || own == nil {
		return false
	}
	// The links, cut where chainHeads cut the line.
	var links []string
	prev := ""
	for _, h := range heads {
		link, ok := strings.CutPrefix(h, prev)
		if !ok {
			return false
		}
		links = append(links, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(link), "&&")))
		prev = h
	}
	last, ok := strings.CutPrefix(line, prev)
	if !ok {
		return false
	}
	links = append(links, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(last), "&&")))
	for _, l := range links {
		if is(l) {
			return true
		}
		if !own(l) || movesShell(l) {
			return false // a link before the check that is no check of the task
		}
	}
	return false
}

// movesShell reports whether a line holds a command that changes the
// shell's directory (cd, pushd, popd) or runs in another shell's (a
// subshell's parentheses are no link of the line): what follows it ran
// elsewhere than where the line began.
func movesShell(line string) bool {
	words := strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune(" \t\n\r&;|()", r) })
	for _, w := range words {
		// `\cd`, `'cd'`, `"cd"` run cd too.
		switch strings.Map(func(r rune) rune {
			if r == '\\' || r == '\'' || r == '"' {
				return -1
			}
			return r
		}, w) {
		case "cd", "pushd", "popd", "chdir":
			return true
		}
	}
	return false
}

// subshell is the line inside a call that is one subshell, `( … )`: what
// it runs, from where the call began.
func subshell(line string) (string, bool) {
	line = strings.TrimSpace(line)
	if len(line) < 2 || line[0] != '(' || line[len(line)-1] != ')' {
		return "", false
	}
	inner := strings.TrimSpace(line[1 : len(line)-1])
	// One group, not `(a) && (b)`: the parentheses close only at the end.
	depth := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 && i != len(line)-1 {
				return "", false
			}
		case '\'', '"', '`', '\\':
			return "", false // quoted parentheses: not for this look
		}
	}
	return inner, inner != ""
}
