package tasks

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// What the words around a command say about it: where it runs ("`cargo
// build` in daemon/") and what it must find ("`grep -rn TODO src/` must
// return empty"). A careful person reads a check with them; a gate that
// ran the bare command would run it in the wrong place, or demand the
// opposite of the check (a search that finds nothing exits 1).

// said is a command with the words that follow it: the text up to the
// next code span, and that span when there is one.
func said(c, after, next string) (run string, usesNext bool) {
	run = c
	if statusClean(c, after) {
		// `git status --porcelain` "Expected: no output": it exits 0
		// either way; its output must be empty (honest day 63).
		return "test -z \"$(" + uncommented(c) + ")\"", false
	}
	// A comment at the line's end would hold what is appended, and an
	// operator in it would hide the search (attacks 64 and 65).
	nothing := findsNothing(uncommented(c), after)
	if n := listingPipe(uncommented(c)); n > 0 && !strings.ContainsAny(c, ";&<>$`") && saysNothing(uncommented(c), after) {
		// "`find src -name \"*.ts\" | grep -E \"/[A-Z]\"` finds no
		// PascalCase name": the listing succeeds and the last search
		// selects nothing (the pipe's own status cannot say it).
		return uncommented(c) + "; test ${PIPESTATUS[0]} -eq 0 -a " + strings.TrimPrefix(pipeFindsNothing(n), "${PIPESTATUS[0]} -le 1 -a "), false
	}
	if f := strings.Fields(uncommented(c)); len(f) > 1 && f[0] == "ls" && !strings.ContainsAny(c, "|;&<>$`") && listsNothing(after) {
		// "`ls apps/web/tailwind.config.*` finds nothing": a listing that
		// must fail, as ls does on a name that is not there.
		return uncommented(c) + "; test $? -ne 0", false
	}
	if nothing && loneSearch(uncommented(c)) && limitedMatches(after) {
		// "MUST return zero matches inside input/textarea JSX", "(ideally)
		// nothing", "outside of test fixtures": which matches count is
		// read, not said by the exit. Its matches are read by a
		// qa-engineer (ReadsMatches); none is no failure, an error still
		// is.
		c = uncommented(c)
		run = c + matchesRead
	} else if nothing {
		c = uncommented(c)
		run = c + "; test $? -eq 1"
		if n := searchPipe(c); n > 0 {
			// Binary files are searched as text (-a): a match in one is
			// a line its filters read, not a note on stderr the pipe
			// never sees (attack 64, and attack 65 with a filter that
			// selects). A search's error still fails it (its status).
			run = searchAsText(c) + "; test " + pipeFindsNothing(n)
		}
	}
	if search, ok := countedSearch(uncommented(c)); ok {
		// `grep -rn TODO src/ | wc -l`: the search exits 1 when it finds
		// nothing, which a pipe run with pipefail (rodin verify) takes
		// for a failure. A count that must be 0 is a search that must
		// find nothing; another count is read, the search's "nothing"
		// no failure.
		if findsNothing(search, after) || zeroCount(after) {
			run, nothing = search+"; test $? -eq 1", true
		} else {
			run = "{ " + search + "; test $? -le 1; } " + c[strings.IndexByte(c, '|'):]
		}
	}
	if _, value := namesOutput(c, after, next); value {
		usesNext = true // "returns `false`": a value, not a command
	}
	if dir, uses := inDir(after, next); dir != "" && !strings.HasPrefix(strings.TrimSpace(c), "cd ") && !namesDir(c, dir) {
		if nothing || strings.HasSuffix(run, matchesRead) {
			// Grouped, so that a cd that fails is no search that found
			// nothing: `cd d && s; test $? -eq 1` would pass then.
			run = "{ " + run + "; }"
		}
		run = "cd " + dir + " && " + run
		usesNext = uses
	}
	return run, usesNext
}

// listsNothing reports whether the words after a listing say it must find
// nothing ("finds nothing", "no matches", "で何も見つからない").
func listsNothing(after string) bool {
	clause := strings.ToLower(after)
	if i := strings.IndexAny(clause, ".;。"); i >= 0 {
		clause = clause[:i]
	}
	if containsAny(clause, " not ", "n't ", "non-", " if ", " unless") {
		return false
	}
	return containsAny(clause, "finds nothing", "find nothing", "returns nothing", "shows nothing", "lists nothing", "no matches", "no such file",
		"no files", "is empty", "must be empty", "何も見つからない", "見つからない", "存在しない", "なし", "没有")
}

// matchesRead follows a search whose matches are read rather than
// counted: none found (exit 1) is no failure, an error (2) still is.
const matchesRead = "; test $? -le 1"

// ReadsMatches reports whether a command is a search whose matches a
// qa-engineer reads (matchesRead).
func ReadsMatches(c string) bool {
	if strings.HasPrefix(c, "cd ") {
		if i := strings.Index(c, " && "); i > 0 {
			c = c[i+len(" && "):] // said in a folder: `cd web && { …; }`
		}
	}
	c = strings.TrimSuffix(strings.TrimPrefix(c, "{ "), "; }")
	return strings.HasSuffix(c, matchesRead) && loneSearch(strings.TrimSuffix(c, matchesRead))
}

// limitedMatches reports whether the words after a search that must find
// nothing limit which matches count: "inside …", "outside of …", "except
// …", "(ideally)", "or only …".
func limitedMatches(after string) bool {
	clause := strings.ToLower(after)
	if i := strings.IndexAny(clause, ".;"); i >= 0 {
		clause = clause[:i]
	}
	return containsAny(clause, " inside ", " outside ", "ideally", " or only ", " except ", " other than ", " apart from ", " besides ")
}

// namesDir reports whether a command names dir itself ("go test
// ./internal/store/..." said to run "in internal/store/"): the words then
// say what it checks, not where it runs.
func namesDir(c, dir string) bool {
	for _, w := range strings.Fields(c)[1:] {
		w = strings.TrimPrefix(strings.Trim(w, `"'`), "./")
		if w == dir || strings.HasPrefix(w, dir+"/") {
			return true
		}
	}
	return false
}

// inDir is the directory the words right after a command say it runs in:
// "in daemon/", "(from packages/api/)", "in `packages/api`", "inside the
// `web/` directory". Only a relative path inside the project: with a
// trailing slash, or in backticks and not a file's name; "in CI", "in
// parallel" and "in /tmp/" name none.
func inDir(after, next string) (dir string, usesNext bool) {
	s := strings.TrimLeft(after, " (—–-")
	lower := strings.ToLower(s)
	for _, prep := range []string{"in ", "from ", "inside ", "within ", "under ", "for "} {
		if !strings.HasPrefix(lower, prep) {
			continue
		}
		rest := strings.TrimSpace(s[len(prep):])
		rest = strings.TrimSpace(strings.TrimPrefix(rest, "the "))
		if prep == "for " && (rest != "" || !strings.HasSuffix(next, "/")) {
			// "for `web/`" names where it runs; "for `auth.ts`" or "for
			// the release" what it checks.
			return "", false
		}
		if rest == "" && next != "" {
			// The directory in backticks: a path, not a file's name.
			d := strings.TrimPrefix(next, "./")
			if relativeDir(d) && (strings.HasSuffix(d, "/") || !strings.Contains(d[strings.LastIndex(strings.TrimSuffix(d, "/"), "/")+1:], ".")) {
				return strings.TrimSuffix(d, "/"), true
			}
			return "", false
		}
		if f := strings.Fields(rest); len(f) > 0 {
			d := strings.TrimPrefix(strings.TrimRight(f[0], ".,;:)"), "./")
			// "in api/ and web/", "in api/ + web/": more than one
			// directory, which one `cd` cannot say; "the root/ of the
			// repo" names none. The command is left as written.
			if len(f) > 1 && (f[1] == "and" || f[1] == "or" || f[1] == "&" || f[1] == "+" || f[1] == "plus" || f[1] == "as" || f[1] == "of" || strings.HasSuffix(f[0], ",")) {
				return "", false
			}
			if strings.HasSuffix(d, "/") && relativeDir(d) {
				return strings.TrimSuffix(d, "/"), false
			}
		}
		return "", false
	}
	return "", false
}

// relativeDir reports whether d is a plain relative path: letters,
// digits, - _ . and /, never .. or a leading slash.
func relativeDir(d string) bool {
	if d == "" || d == "/" || strings.HasPrefix(d, "/") || strings.HasPrefix(d, ".") {
		return false
	}
	for _, part := range strings.Split(strings.TrimSuffix(d, "/"), "/") {
		if part == "" || part == ".." || part == "." {
			return false
		}
	}
	for _, r := range d {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./@", r)) {
			return false
		}
	}
	return true
}

// searchPipe is the number of commands of a search piped through more
// searches only (`grep -rn X scripts/ | grep -v "IN ("`), 0 for any other
// line. Such a line finds nothing when its last search selects nothing.
func searchPipe(c string) int {
	return pipedThroughSearches(c, func(head string) bool { return loneSearch(strings.TrimSpace(head)) })
}

// pipedThroughSearches is the number of commands of a line whose first
// command head accepts and whose others are searches, all piped; 0 for any
// other line.
func pipedThroughSearches(c string, head func(string) bool) int {
	parts, ok := splitOperators(c)
	pipes, _ := splitPipes(c)
	if !ok || len(parts) < 2 || len(parts) != len(pipes) || !head(parts[0]) {
		return 0
	}
	for _, p := range parts[1:] {
		switch path.Base(FirstWord(p)) {
		case "grep", "egrep", "fgrep", "rg":
		default:
			return 0
		}
	}
	return len(parts)
}

// pipeFindsNothing is the test, right after a pipe of n searches, that
// it found nothing: the last selected nothing (exit 1) and none failed
// (2). The pipe's own status cannot say it: with pipefail it is the last
// failing command's, and a search that failed feeds the next nothing.
func pipeFindsNothing(n int) string {
	var b strings.Builder
	for i := range n - 1 {
		fmt.Fprintf(&b, "${PIPESTATUS[%d]} -le 1 -a ", i)
	}
	fmt.Fprintf(&b, "${PIPESTATUS[%d]} -eq 1", n-1)
	return b.String()
}

// loneSearch reports whether c is a search (grep, rg, ag, git grep: exit
// 1 when nothing matches, 2 on an error) alone, not piped or chained.
func loneSearch(c string) bool {
	w := strings.Fields(c)
	if len(w) < 2 {
		return false
	}
	switch w[0] {
	case "grep", "egrep", "fgrep", "rg", "ag":
	case "git":
		if w[1] != "grep" {
			return false
		}
	default:
		return false
	}
	parts, ok := splitOperators(c)
	return ok && len(parts) == 1
}

// findsNothing reports whether the words after a search (grep, rg, ag,
// git grep: exit 1 when nothing matches, 2 on an error) say it must find
// nothing: the check passes on exit 1. Only a search alone, not one piped
// or chained, whose status the words do not speak of.
func findsNothing(c, after string) bool {
	if !loneSearch(c) && searchPipe(c) == 0 || quietSearch(c) && speaksOfOutput(after) {
		return false
	}
	return saysNothing(c, after)
}

// listingPipe is the number of commands of a listing piped through
// searches only (`find src -name "*.ts" | grep -E "/[A-Z]"`), 0 for any
// other line: it finds nothing when its last search selects nothing.
func listingPipe(c string) int {
	return pipedThroughSearches(c, func(head string) bool {
		f := strings.Fields(head)
		return len(f) > 1 && f[0] == "find"
	})
}

// saysNothing reports whether the words after a search or a listing say it
// must find nothing (findsNothing, without its look at the command's
// shape).
func saysNothing(c, after string) bool {
	// The words of the clause right after the search, up to its end; a
	// clause that denies ("must not return empty", "non-empty") or that
	// speaks of another time or case ("was 0 matches before", "no matches
	// means the patch was lost", "fails if") says nothing of what the
	// search must find now.
	clause := strings.TrimSpace(strings.ToLower(after))
	if inside, ok := strings.CutPrefix(clause, "("); ok {
		// "`grep -i ox` (expect empty)": the aside right after it.
		clause, _, _ = strings.Cut(inside, ")")
	} else if i := strings.IndexByte(clause, '('); i >= 0 {
		// "MUST return no matches (the module MUST NOT depend on …)": an
		// aside later in the clause speaks of something else.
		clause = clause[:i]
	}
	if i := strings.IndexAny(clause, ".;"); i >= 0 {
		clause = clause[:i]
	}
	if len(clause) > 80 {
		clause = clause[:80]
	}
	clause = " " + clause + " "
	// "no matches expected", "(no results expected)": what is expected is
	// the nothing found, not another thing.
	for _, e := range []string{"no matches expected", "no match expected", "no results expected", "no hits expected", "nothing expected", "empty expected"} {
		clause = strings.ReplaceAll(clause, e, "no match")
	}
	// "— Expected: **no output**", "→ Expected: no output": what is
	// expected, said as a label.
	for _, e := range []string{"expected output:", "expected:", "expect:", "expected result:"} {
		if rest, ok := strings.CutPrefix(strings.TrimLeft(strings.TrimLeft(clause, " -—–*_"), "→>=- "), e); ok {
			clause = " " + strings.Trim(rest, " *_") + " "
			break
		}
	}
	// "`grep '"PROVEN"' f.py` (empty)", "-- none": the word alone.
	switch strings.Trim(clause, " -—–:*_") {
	case "empty", "nothing", "none", "no output", "no matches", "no match", "no results":
		return true
	}
	for _, w := range []string{" not ", "n't ", "non-", "never", " if ", " means", " mean ", " before", " was ", " were ", " when ",
		" unless", " otherwise", " expected", " fail", " should have", " else", " until",
		// Success said outright ("returns no error", "exits 0 with no match
		// errors"): the search must find.
		"error", "exits 0", "exit 0", "exit code 0", "exit status 0", "succeed", "success"} {
		if strings.Contains(clause, w) {
			return false
		}
	}
	if containsAny(clause, "return empty", "returns empty", "→ empty", "-> empty", "empty output", "empty result",
		"returns nothing", "return nothing", "finds nothing", "find nothing", "prints nothing", "print nothing",
		"outputs nothing", "output nothing", "no output",
		"no match", "no hits", "no results", "no occurrences", "0 match", "0 result", "zero match", "zero result",
		"0 hits", "zero hits", "0 occurrences", "zero occurrences", "sin resultados", "sin coincidencias", "keine treffer", "nenhum resultado",
		"exits 1", "exit code 1", "exit status 1", "exits with 1", "exits with code 1",
		"must be empty", "should be empty", "is empty", "expect empty", "be empty",
		// In the languages task files are written in: "で PascalCase
		// ファイル名なし", "0 件", "何も見つからない", "没有匹配".
		"なし", "0 件", "0件", "ゼロ件", "何も見つからない", "見つからない", "没有匹配", "无匹配", "没有结果", "0 个结果", "0 条") {
		return true
	}
	// A count that must be 0 (`grep -c X f` "must return 0"): grep -c
	// prints 0 and exits 1 then.
	if Counts(c) && zeroCount(after) {
		return true
	}
	// "returns no Scala/BATS source-tree matches": no, then what a search
	// finds within three words.
	ws := strings.Fields(clause)
	for i := 0; i+1 < len(ws); i++ {
		if (ws[i] == "returns" || ws[i] == "return") && ws[i+1] == "no" {
			for _, x := range ws[i+2 : min(i+5, len(ws))] {
				switch strings.Trim(x, ".,;:!?()*_") {
				case "match", "matches", "results", "hits", "lines", "occurrences", "output", "rows":
					return true
				}
			}
		}
	}
	return false
}

// InDir splits a command that opens by changing to a directory of the
// project ("cd daemon && cargo build") into that directory and the rest: a
// run of the rest in that directory is the same check. ok is false for any
// other command, and for a directory that is not a plain relative path.
func InDir(c string) (dir, rest string, ok bool) {
	dir, rest, ok = CdThen(c)
	dir = strings.TrimSuffix(dir, "/")
	if !ok || !relativeDir(dir) {
		return "", "", false
	}
	return dir, rest, true
}

// CdThen splits a command line that opens with `cd DIR &&` into DIR (one
// word, no quotes or shell characters, as written) and the rest.
func CdThen(c string) (dir, rest string, ok bool) {
	after, found := strings.CutPrefix(strings.TrimSpace(c), "cd ")
	if !found {
		return "", "", false
	}
	dir, rest, found = strings.Cut(strings.TrimLeft(after, " "), " && ")
	rest = strings.TrimSpace(rest)
	if !found || dir == "" || strings.ContainsAny(dir, " '\"$`;|&\\") || rest == "" {
		return "", "", false
	}
	return dir, rest, true
}

// zeroCount reports whether the words right after a count say it must be
// 0 ("returns 0", "must be 0", "(expect 0)").
func zeroCount(after string) bool {
	clause := strings.TrimSpace(strings.ToLower(after))
	if inside, ok := strings.CutPrefix(clause, "("); ok {
		clause, _, _ = strings.Cut(inside, ")")
	}
	if i := strings.IndexAny(clause, ".;"); i >= 0 {
		clause = clause[:i]
	}
	clause = " " + clause + " "
	return containsAny(clause, "return 0 ", "returns 0 ", "print 0 ", "prints 0 ", "output 0 ", "outputs 0 ", "show 0 ", "shows 0 ", "be 0 ", "is 0 ", "= 0 ", "== 0 ", "expect 0 ")
}

// countedSearch is the search of a count of its matches (`grep -rn TODO
// src/ | wc -l`), and whether c is one: a lone search piped into wc alone.
func countedSearch(c string) (string, bool) {
	parts, ok := splitOperators(c)
	if !ok || len(parts) != 2 || !Counts(c) || strings.Count(c, "|") != 1 || strings.Contains(c, "||") {
		return "", false
	}
	i := strings.IndexByte(c, '|')
	search := strings.TrimSpace(c[:i])
	if !loneSearch(search) {
		return "", false
	}
	return search, true
}

// namesOutput reports whether the words right after a command say what it
// must print, not that it succeeds: "`jq -r .version package.json`
// returns `1.4.0`", "`curl -si localhost:8080/health` → 200", "should
// output the version". The command's exit says nothing of that (curl
// exits 0 on a 500): a qa-engineer reads what it printed. A search's
// "nothing" (findsNothing), a count (Counts, read already) and success in
// any words ("returns 0", "passes", "shows no errors") are its exit.
//
// valueNext is set when the value is the next code span ("returns
// `false`"): a value, never a command of its own.
func namesOutput(c, after, next string) (names, valueNext bool) {
	if Counts(c) || findsNothing(c, after) {
		return false, false
	}
	clause := strings.ToLower(strings.TrimSpace(after))
	// Its own line's words: "no warnings" on the Done when line below
	// a list of commands is said of them all (clippy's -D warnings).
	sentence, _, _ := strings.Cut(strings.ToLower(after), "\n")
	sentence, _, _ = strings.Cut(sentence, ". ")
	if strings.Contains(sentence, "warning") && !strings.Contains(sentence, "as error") {
		// "exits with code 0 and zero new warnings": a build exits 0
		// with warnings; how many it printed is read. `go vet`'s and
		// `clippy -- -D warnings`' are their exit.
		return !failsOnWarnings(c), false
	}
	object := ""
	arrow := false
	for _, a := range []string{"→", "->", "=>", "==", "= "} {
		if rest, ok := strings.CutPrefix(clause, a); ok {
			object, arrow = rest, true
			break
		}
	}
	if !arrow {
		// "`sqlite3 db \"SELECT …\"` -- returns 0": a dash before the words.
		clause = strings.TrimLeft(clause, " :,(-–—")
		for _, w := range []string{"and ", "which ", "that ", "it "} {
			clause = strings.TrimPrefix(clause, w)
		}
		verb := false
		for _, v := range []string{"should return", "must return", "returns", "return", "should print", "must print", "prints",
			"should output", "must output", "outputs", "should show", "must show", "shows", "should display", "must display",
			"displays", "should report", "must report", "reports", "echoes", "yields", "should equal", "must equal", "equals",
			"expecting", "expected:", "expect", "should contain", "must contain", "contains", "should include", "must include",
			"includes", "should list", "must list", "lists", "should match", "must match", "matches", "should read", "must read"} {
			if rest, ok := strings.CutPrefix(clause, v); ok && (rest == "" || strings.IndexByte(" :", rest[0]) >= 0) {
				object, verb = rest, true
				break
			}
		}
		if !verb {
			object, verb = foreignOutput(clause)
		}
		if !verb {
			return false, false
		}
	}
	object = strings.TrimLeft(object, " :")
	if i := strings.IndexAny(object, ".;(\n"); i >= 0 {
		object = object[:i]
	}
	object = strings.TrimSpace(object)
	if object == "" {
		// The value in the next code span: "returns `1.4.0`".
		object, valueNext = strings.ToLower(strings.TrimSpace(next)), true
		if object == "" {
			return false, false
		}
	}
	for _, w := range []string{"to ", "into ", "in ", "under ", "on "} {
		if strings.HasPrefix(object, w) {
			return false, false // where it writes ("outputs to dist/"), not what
		}
	}
	o := " " + object + " "
	if loneSearch(c) && matchFound(o) {
		return false, valueNext // "MUST return ≥1 match": the search's exit
	}
	if queries(c) {
		// A query prints what it finds: "returns 0" is a count of rows.
		o = strings.NewReplacer(" 0 ", " # ", " zero", " #").Replace(o)
	}
	for _, w := range []string{" 0 ", " zero", "exit", "succe", "pass", "green", " clean", " ok ", " ok,", "true", "no error",
		"without error", "error-free", "no errors", "nothing", "empty", "no output", "no match", "no result", " none",
		"no failure", "0 failure", "no issue", "0 issue", "no problem", "no violation", "no diff", "no change", "clean"} {
		if strings.Contains(o, w) {
			return false, valueNext
		}
	}
	return true, valueNext
}

// foreignOutput is the value the words after a command say it prints, in
// the languages task files are written in: "が \"1.4.0\" を返す" (Japanese
// puts the value before the verb), "devuelve 200", "retourne null".
func foreignOutput(clause string) (object string, ok bool) {
	sentence, _, _ := strings.Cut(clause, "\n")
	for _, v := range []string{"を返す", "を返し", "と出力", "を出力", "と表示", "を表示", "が表示", "返回", "输出"} {
		if before, _, found := strings.Cut(sentence, v); found {
			before = strings.TrimSpace(before)
			for _, p := range []string{"が", "は", "で", "に"} {
				before = strings.TrimSpace(strings.TrimPrefix(before, p))
			}
			return before, before != ""
		}
	}
	for _, v := range []string{"devuelve", "retorna", "imprime", "muestra", "renvoie", "retourne", "affiche", "liefert", "ausgibt", "mostra"} {
		if rest, found := strings.CutPrefix(sentence, v); found && (rest == "" || rest[0] == ' ' || rest[0] == ':') {
			return rest, true
		}
	}
	return "", false
}

// queries reports whether a command line asks a database or a document
// for a value (sqlite3, psql, mysql, duckdb, redis-cli, jq, yq, a script's
// `query` word): it prints what it finds and exits 0 on any answer.
func queries(c string) bool {
	w := strings.Fields(c)
	if len(w) == 0 {
		return false
	}
	switch path.Base(w[0]) {
	case "sqlite3", "psql", "mysql", "mariadb", "duckdb", "clickhouse-client", "mongosh", "mongo", "redis-cli", "jq", "yq", "sqlcmd":
		return true
	}
	return slices.Contains(w[1:], "query")
}

// matchFound reports whether the words say a search must find something,
// whatever its count ("≥1 match", "at least one match", "a match"): a
// search exits 0 exactly then.
func matchFound(o string) bool {
	o = strings.NewReplacer("≥ ", "≥", ">= ", ">=", "1+ ", "1+").Replace(o)
	for _, w := range []string{"≥1 ", ">=1 ", "1+", "at least one ", "at least 1 ", "one or more ", " a "} {
		i := strings.Index(o, w)
		if i < 0 {
			continue
		}
		// The count and its noun, and nothing after: "≥1 match at the
		// badge's context" asks where, which a qa-engineer reads.
		rest := strings.Fields(strings.TrimSpace(o[i+len(w):]))
		if len(rest) == 1 {
			switch strings.Trim(rest[0], ".,;:!)") {
			case "match", "matches", "result", "results", "hit", "hits", "line", "lines", "occurrence", "occurrences":
				return true
			}
		}
	}
	return false
}

// failsOnWarnings reports whether a command's warnings fail it (`go vet`,
// `cargo clippy -- -D warnings`, `-Werror`, `eslint --max-warnings 0`):
// "no warnings" is then its exit.
func failsOnWarnings(c string) bool {
	return containsAny(c, "go vet", "-D warnings", "-Dwarnings", "-Werror", "max-warnings", "--deny warnings", "warnaserror", "warnings-as-errors", "--strict", "tsc ")
}

// quietSearch reports whether a grep prints nothing whatever it finds
// (`grep -q`, `-rq`, `--quiet`, `--silent`): "no output" says nothing of
// what it must find (attack 64: it was inverted, and passed on a missing
// pattern). Only grep's: rg's -t takes a type (`-tsql`).
func quietSearch(c string) bool {
	w := strings.Fields(uncommented(c))
	if len(w) == 0 || w[0] != "grep" && w[0] != "egrep" && w[0] != "fgrep" && !(w[0] == "git" && len(w) > 1 && w[1] == "grep") {
		return false
	}
	for _, a := range w[1:] {
		if a == "--quiet" || a == "--silent" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], 'q') &&
			!strings.ContainsAny(a[1:], "efmABCd") {
			return true
		}
	}
	return false
}

// speaksOfOutput reports whether the words after a search speak of what
// it prints ("Expected: no output", "prints nothing"), not of what it
// matches ("no matches"): what a quiet search never does.
func speaksOfOutput(after string) bool {
	l := strings.ToLower(after)
	return containsAny(l, "output", "prints nothing", "print nothing", "nothing printed", "silent")
}

// searchAsText is a search with -a (--text) after its program: grep's,
// rg's and git grep's.
func searchAsText(c string) string {
	lead := len(c) - len(strings.TrimLeft(c, " "))
	w := strings.Fields(c)
	n := 1
	if len(w) > 1 && w[0] == "git" && w[1] == "grep" {
		n = 2
	}
	head := strings.Join(w[:n], " ")
	i := strings.Index(c[lead:], head) + lead + len(head)
	return c[:i] + " -a" + c[i:]
}

// uncommented is a command line without a comment at its end: a # that
// opens a word, outside quotes.
func uncommented(c string) string {
	quote := byte(0)
	for i := 0; i < len(c); i++ {
		switch ch := c[i]; {
		case ch == '\\' && quote != '\'':
			i++
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '#' && (i == 0 || c[i-1] == ' ' || c[i-1] == '\t'):
			return strings.TrimRight(c[:i], " \t")
		}
	}
	return c
}

// statusClean reports whether c is git's short status (`git status
// --porcelain`, `-s`, `--short`) and the words after it say its output
// must be empty ("Expected: no output", "(empty)", "prints nothing").
func statusClean(c, after string) bool {
	w := strings.Fields(uncommented(c))
	if len(w) < 3 || w[0] != "git" || w[1] != "status" || strings.ContainsAny(c, "|;&") {
		return false
	}
	short := false
	for _, a := range w[2:] {
		short = short || a == "--porcelain" || a == "-s" || a == "--short" || strings.HasPrefix(a, "--porcelain=")
	}
	if !short {
		return false
	}
	l := strings.ToLower(after)
	if i := strings.IndexByte(l, '\n'); i >= 0 {
		l = l[:i]
	}
	return containsAny(l, "no output", "empty", "prints nothing", "nothing", "clean")
}
