package tasks

import (
	"bytes"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// codeMark stands for a code span in a title's text, so that a tag or a
// colon inside backticks is never read as one.
const codeMark = '\x1a'

// title is a task's first line after its box: its text with code spans
// marked, and the code spans themselves.
type title struct {
	raw  string   // as written
	text string   // the words outside code spans, codeMark for each span
	code []string // the code spans, in order
}

func readTitle(first ast.Node, box ast.Node, line text.Segment, src []byte) title {
	t := title{raw: strings.TrimRight(string(src[line.Start:line.Stop]), "\r\n")}
	// The line starts with the box itself: "[ ] V4 …", "[ ]* 2.3 …".
	if i := strings.IndexByte(t.raw, ']'); strings.HasPrefix(t.raw, "[") && i == 2 {
		t.raw = strings.TrimPrefix(t.raw[3:], "*")
	}
	var b strings.Builder
	// A bracket the line leaves open ("[VM-RUNNING: … operator to", wrapped
	// by the author) closes on a line after it: the title runs on to
	// there, so that the tags after it are read as leading tags.
	lines, k := first.Lines(), 0
	for n := box.NextSibling(); n != nil; n = n.NextSibling() {
		for !onLine(n, line) && k+1 < lines.Len() {
			if k < maxTitleLines && (openBracket(b.String()) || k == 0 && noteOnly(t.raw)) {
				k++
				line = lines.At(k)
				t.raw += " " + strings.TrimSpace(strings.TrimRight(string(src[line.Start:line.Stop]), "\r\n"))
			} else if k < maxWrapLines && wrapped(lines, k, src) {
				k++
				line = lines.At(k)
			} else {
				break
			}
		}
		if !onLine(n, line) {
			break
		}
		t.add(n, src, &b)
	}
	t.text = b.String()
	return t
}

// maxWrapLines bounds how many lines a title wrapped by its author's
// width runs over.
const maxWrapLines = 12

// wrapped reports whether the paragraph's line k was broken by its
// author's line width, not ended: the next line goes on with no capital
// (a capital starts a sentence of its own: a note under the title), line
// k is long, not much wider than the paragraph's other lines, and the
// next line's first word would not have fit on it within them. A first
// line wider than the rest (a note, a title, then wrapped prose under it)
// is no wrap.
func wrapped(lines *text.Segments, k int, src []byte) bool {
	// The width the author wrapped at: the widest of the other lines but
	// the paragraph's last (which ends short); a title of two lines has
	// only its own.
	here := column(lines.At(k), src)
	width, last := 0, lines.Len()-1
	for i := 0; i < min(lines.Len(), maxWrapLines+1); i++ { // the title's lines at most: bounded work
		if i != k && i != last {
			width = max(width, column(lines.At(i), src))
		}
	}
	if width == 0 {
		width = here
	}
	next := lines.At(k + 1)
	rest := strings.TrimSpace(string(src[next.Start:next.Stop]))
	if r, _ := utf8.DecodeRuneInString(strings.TrimLeft(rest, "*_~>#([\"'“ ")); unicode.IsUpper(r) {
		return false // a new sentence starts the line ("Known flaky …", "Next, …", "**Per-change checks:**"): a note under the title (attack 73)
	}
	word, _, _ := strings.Cut(rest, " ")
	if strings.HasPrefix(rest, "`") {
		// A code span is kept whole by an author who wraps: "`ruff
		// format --check .`:" went to the next line as one.
		if end := strings.IndexByte(rest[1:], '`'); end >= 0 {
			word, _, _ = strings.Cut(rest[end+1:], " ")
			word = rest[:end+1] + word
		}
	}
	return here >= 72 && here <= width+wrapSlack && here+1+utf8.RuneCountInString(word) > width
}

// wrapSlack is how much wider than the paragraph's other lines a wrapped
// line may be: authors wrap by eye, or count a code span's backticks out.
const wrapSlack = 8

// column is the width of a segment's line in the file, from the line's
// start (its list marker and indent) to its end.
func column(seg text.Segment, src []byte) int {
	start := bytes.LastIndexByte(src[:seg.Start], '\n') + 1
	return utf8.RuneCount(bytes.TrimRight(src[start:seg.Stop], "\r\n \t"))
}

// maxTitleLines bounds how many more lines a title with an open bracket
// runs on to.
const maxTitleLines = 3

// noteOnly reports whether a title's first line is only a status note in
// emphasis (`*(blocked by: needs a live session)*`): its words, tags
// first, are on the next line.
func noteOnly(raw string) bool {
	r := strings.TrimSpace(raw)
	return (strings.HasPrefix(r, "*(") && strings.HasSuffix(r, ")*") || strings.HasPrefix(r, "_(") && strings.HasSuffix(r, ")_")) &&
		strings.Count(r, "(") == strings.Count(r, ")")
}

// openBracket reports whether s leaves a bracket open.
func openBracket(s string) bool {
	return strings.Count(s, "[") > strings.Count(s, "]")
}

// onLine reports whether an inline node starts on the title's line.
func onLine(n ast.Node, line text.Segment) bool {
	for c := ast.Node(n); c != nil; c = c.FirstChild() {
		if tx, ok := c.(*ast.Text); ok {
			return tx.Segment.Start < line.Stop
		}
	}
	return true // no text of its own (a link with no text, raw HTML): harmless
}

func (t *title) add(n ast.Node, src []byte, b *strings.Builder) {
	switch n := n.(type) {
	case *ast.CodeSpan:
		t.code = append(t.code, strings.TrimSpace(plain(n, src)))
		b.WriteRune(codeMark)
	case *ast.Text:
		b.WriteString(Visible(string(n.Segment.Value(src))))
		if n.SoftLineBreak() || n.HardLineBreak() {
			b.WriteByte(' ')
		}
	case *ast.String:
		b.WriteString(Visible(string(n.Value)))
	case *ast.RawHTML:
		// An HTML comment or tag: not words of the title.
	default:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			t.add(c, src, b)
		}
	}
}

// words are the title's words outside code spans.
func (t title) words() []string { return strings.Fields(t.text) }

// isTag reports whether a word is a tag, or tags written together: [P],
// [US1], [VERIFY], [VERIFY:TEST], [P][VERIFY], [VERIFY]: (a colon after),
// \[VERIFY\] (brackets escaped). It allocates nothing: leading asks it of
// most words of every title.
func isTag(w string) bool {
	inner, ok := tagInner(w)
	if !ok {
		return false
	}
	for inner != "" {
		part, rest, more := strings.Cut(inner, "][")
		if part == "" || strings.ContainsAny(part, "[] ") || more && rest == "" {
			return false
		}
		inner = rest
	}
	return true
}

// tagInner is a tag word without its emphasis, a colon after it, and its
// outer brackets ("P][VERIFY" of "[P][VERIFY]:").
func tagInner(w string) (string, bool) {
	if strings.IndexByte(w, '\\') >= 0 {
		// Brackets escaped as Markdown allows render as brackets.
		w = strings.ReplaceAll(strings.ReplaceAll(w, `\[`, "["), `\]`, "]")
	}
	w = strings.TrimSuffix(strings.Trim(w, "*_"), ":")
	if len(w) <= 2 || w[0] != '[' || w[len(w)-1] != ']' {
		return "", false
	}
	return w[1 : len(w)-1], true
}

// tagsOf are the tags a word holds ("[P][VERIFY]" holds two), none when it
// is no tag.
func tagsOf(w string) []string {
	if !isTag(w) {
		return nil
	}
	inner, _ := tagInner(w)
	parts := strings.Split(inner, "][")
	for i := range parts {
		parts[i] = "[" + parts[i] + "]"
	}
	return parts
}

// leading are the index of the id among the words (-1 when there is none)
// and the number of words the id and the leading tags take: tags may
// stand before the id, after it, or both.
func (t title) leading() (id, n int) {
	w := t.words()
	id = -1
	for n < len(w) && isMark(w[n]) {
		n++ // status marks first (✅): the title starts after them
	}
	// A status note in emphasis before the tags ("*(blocked by: needs a
	// live session …)* [VERIFY] Confirm …", the tag on the note's next
	// line; corpus thirteen): the title starts after it.
	if n < len(w) && strings.HasPrefix(strings.TrimLeft(w[n], "*_"), "(") {
		for k := n; k < len(w); k++ {
			if strings.HasSuffix(strings.TrimRight(w[k], "*_"), ")") {
				if k+1 < len(w) && tagWords(w, k+1) > 0 {
					n = k + 1
				}
				break
			}
		}
	}
	start := n
	for k := tagWords(w, n); k > 0; k = tagWords(w, n) {
		n += k
	}
	if n < len(w) && (n == start || strings.ContainsAny(w[n], "0123456789")) && !strings.ContainsRune(w[n], codeMark) {
		id = n
		n++
		// A second label between the id and the tags ("1.4 V1 [VERIFY]",
		// "6.3.6 VE-WEEKLY [VERIFY]"), or a step's number after a word
		// ("Step 1.5: [VERIFY]", "**Task 4: [VERIFY] …**", as plans of
		// numbered steps write it): part of the leading words.
		switch {
		case n+1 < len(w) && (isLabel(w[n]) || isWord(w[id]) && isStepNumber(w[n])) && isTag(w[n+1]):
			n++
		case n+2 < len(w) && isWord(w[id]) && isStepNumber(w[n]) && isLabel(w[n+1]) && isTag(w[n+2]):
			// Both: "Task 5.1: V4 [VERIFY] Full local CI".
			n += 2
		}
	}
	for k := tagWords(w, n); k > 0; k = tagWords(w, n) {
		n += k
	}
	return id, n
}

// tagWords is how many words the tag at w[n] takes: one for a tag ([P],
// [VERIFY]), several for a bracketed note of words ("[VM-RUNNING: backfill
// @ host — operator to verify once complete]", which some authors put
// among the leading tags), 0 when w[n] opens none. A note holds no other
// bracket and no code span, and takes at most maxNoteWords words.
func tagWords(w []string, n int) int {
	if n >= len(w) {
		return 0
	}
	if isTag(w[n]) {
		return 1
	}
	first := strings.TrimLeft(w[n], "*_")
	if !strings.HasPrefix(first, "[") || strings.ContainsAny(first[1:], "[]") || strings.ContainsRune(first, codeMark) {
		return 0
	}
	for k := n + 1; k < len(w) && k-n < maxNoteWords; k++ {
		x := strings.TrimRight(w[k], "*_")
		switch {
		case strings.ContainsRune(x, codeMark) || strings.ContainsRune(x, '['):
			return 0
		case strings.HasSuffix(x, "]") && !strings.ContainsRune(x[:len(x)-1], ']'):
			return k - n + 1
		case strings.ContainsRune(x, ']'):
			return 0
		}
	}
	return 0
}

// maxNoteWords bounds a bracketed note among the leading tags.
const maxNoteWords = 32

// isMark reports whether a word is a status mark with no letter or digit
// (✅, ❌, ⏳): "- [x] ✅ [VERIFY] P0. Smoke" is task P0.
func isMark(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '[' || r == '`' || r == codeMark {
			return false
		}
	}
	return w != ""
}

// isWord reports whether w is a word of letters (emphasis around it
// allowed): "Step", "**Task".
func isWord(w string) bool {
	w = strings.Trim(w, "*_")
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return w != ""
}

// isStepNumber reports whether w numbers a step after a word, ending in a
// colon: "1:", "1.5:", "2b:".
func isStepNumber(w string) bool {
	n, ok := strings.CutSuffix(w, ":")
	if !ok || n == "" || len(n) > 12 || !strings.ContainsAny(n[:1], "0123456789") {
		return false
	}
	for _, r := range n {
		if !(r >= '0' && r <= '9' || r == '.' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// isLabel reports whether a word is a task label of its own: capitals,
// digits and dashes, with a capital (V1, VE-WEEKLY, AC-2).
func isLabel(w string) bool {
	w = strings.Trim(w, "*_")
	if w == "" || len(w) > 24 || strings.ContainsRune(w, codeMark) {
		return false
	}
	upper := false
	for _, r := range w {
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= '0' && r <= '9', r == '-', r == '_', r == '.':
		default:
			return false
		}
	}
	return upper
}

// id splits the id off the title as written: the first word after any
// leading tags, without the emphasis around it and a trailing dot ("1." is
// task 1); "" when there is none.
func (t title) id(raw string) (id, rest string) {
	at, _ := t.leading()
	if at < 0 {
		return "", raw
	}
	if at > 0 {
		// Tags before the id (spec-kit: "[P] T007 …", "[VERIFY] T004 …"):
		// the id is the word after them, and the tags stay in the rest.
		f := strings.Fields(raw)
		if at >= len(f) {
			return "", raw
		}
		pos := 0
		for i := 0; i <= at; i++ {
			pos += strings.Index(raw[pos:], f[i])
			if i < at {
				pos += len(f[i])
			}
		}
		return cleanID(f[at]), strings.TrimSpace(strings.TrimSpace(raw[:pos]) + " " + strings.TrimSpace(raw[pos+len(f[at]):]))
	}
	first, rest, _ := strings.Cut(raw, " ")
	if f := strings.Fields(raw); len(f) > 0 {
		first = f[0]
		rest = strings.TrimSpace(strings.TrimPrefix(raw, first))
	}
	// Emphasis the id opens ("**Step 1: [VERIFY] smoke check**") closes
	// in the rest: it is dropped with the id's.
	for _, m := range []string{"**", "__"} {
		if strings.HasPrefix(first, m) && !strings.HasSuffix(first, m) && strings.Count(rest, m) == 1 {
			i := strings.Index(rest, m)
			rest = strings.TrimSpace(rest[:i] + rest[i+len(m):])
		}
	}
	return cleanID(first), rest
}

func cleanID(w string) string {
	w = strings.Trim(Visible(w), "*_")
	return strings.TrimRight(w, ".:")
}

// verifyTag reports whether the leading tags hold [VERIFY] or a variant
// [VERIFY:KIND], and the KIND. The tag in the title's prose ("Add
// [VERIFY] task delegation") or in backticks is not the tag. Authors
// write it in other cases too ("[Verify] 运行 go test", a "[verify]"
// list beside "[impl]" items): the same tag.
func (t title) verifyTag() (bool, string) {
	_, n := t.leading()
	words := t.words()[:n]
	for i, w := range words {
		tags := tagsOf(w)
		if len(tags) == 0 && strings.HasPrefix(strings.TrimLeft(w, "*_"), "[") {
			// A bracketed note ("[Verify: TEST]"): its words as one.
			k := tagWords(words, i)
			tags = []string{strings.Trim(strings.Join(words[i:i+k], ""), "*_:")}
		}
		for _, tag := range tags {
			if strings.EqualFold(tag, "[VERIFY]") {
				return true, ""
			}
			if len(tag) > len("[VERIFY:") && strings.EqualFold(tag[:len("[VERIFY:")], "[VERIFY:") {
				return true, strings.TrimSpace(strings.TrimSuffix(tag[len("[VERIFY:"):], "]"))
			}
		}
	}
	return false, ""
}

// MentionsTag reports whether s holds the tag in any case or variant
// ("[VERIFY]", "[Verify]", "[VERIFY:TEST]", "VERIFY:"): a look before a
// parse, which decides whether it is a task's tag.
func MentionsTag(s string) bool {
	const tag = "VERIFY"
	if strings.Contains(s, "VERIFY:") {
		return true // the label form ("1.4.3 VERIFY: …"), which the parse decides on
	}
	for {
		i := strings.IndexByte(s, '[')
		if i < 0 {
			return false
		}
		s = s[i+1:]
		if len(s) > len(tag) && strings.EqualFold(s[:len(tag)], tag) && (s[len(tag)] == ']' || s[len(tag)] == ':') {
			return true
		}
	}
}

// verifyLabel reports whether the title's first word, or its first after
// the id, is the tag written as a label in capitals: "VERIFY:" (emphasis
// around it allowed).
func (t title) verifyLabel() bool {
	w := t.words()
	for i := 0; i < len(w) && i < 2; i++ {
		switch strings.Trim(w[i], "*_") {
		case "VERIFY:":
			return i == 0 || strings.ContainsAny(w[0], "0123456789")
		case "Verify:":
			// "1.6 Verify: `uv sync` exits 0; …": a step's label, after
			// its number (corpus eleven); alone it is a sentence's word.
			return i == 1 && strings.ContainsAny(w[0], "0123456789")
		}
	}
	return false
}

// prose is the title's text after its id and tags, code spans dropped.
func (t title) prose() string {
	_, n := t.leading()
	w := t.words()[n:]
	for i := 1; i < len(w); i++ {
		if ResultMark(w[i]) {
			w = w[:i] // the author's result note (noted) claims nothing
			break
		}
	}
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r == codeMark {
			return ' '
		}
		return r
	}, strings.Join(w, " ")))
}

// after is the title's text after its i-th code span, up to the next
// span, and that span ("" when there is none).
func (t title) after(i int) (text, next string) {
	rest := t.text
	for k := 0; k <= i; k++ {
		j := strings.IndexRune(rest, codeMark)
		if j < 0 {
			return "", ""
		}
		rest = rest[j+len(string(codeMark)):]
	}
	if j := strings.IndexRune(rest, codeMark); j >= 0 {
		rest = rest[:j]
		if i+1 < len(t.code) {
			next = t.code[i+1]
		}
	}
	return rest, next
}

// noted is how many of the title's code spans stand before the author's
// result note: a check mark after the task's words ("`chromium`
// resolvable — ✅ `/usr/bin/chromium`", "… — ✅ verified against
// `./data/app.db`") starts what the author saw when they ticked it, not
// what to run. A mark before the words is a status (leading).
func (t title) noted() int {
	w := t.words()
	_, n := t.leading()
	spans := 0
	for i, x := range w {
		if i > n && ResultMark(x) {
			return spans
		}
		spans += strings.Count(x, string(codeMark))
	}
	return len(t.code)
}

// ResultMark reports whether a word starts the author's note of a run in a
// task's title: a check mark (✅, ✔, ☑) or a label of what was found
// ("実測:", "Result:", "Observed:"). The words from it on claim nothing,
// and do not tell a task apart (a task moved with "✅ …" added is the same
// task).
func ResultMark(w string) bool {
	if strings.HasPrefix(w, "✅") || strings.HasPrefix(w, "✔") || strings.HasPrefix(w, "☑") {
		return true
	}
	l := strings.ToLower(strings.Trim(w, "*_"))
	for _, label := range []string{"実測", "结果", "結果", "实测"} {
		// Written with no space before it: "…を確認する。実測:".
		if strings.Contains(l, "。"+label+":") || strings.Contains(l, "。"+label+"：") || strings.HasPrefix(l, label+":") || strings.HasPrefix(l, label+"：") {
			return true
		}
	}
	for _, label := range []string{"result", "results", "actual", "observed", "outcome", "resultado", "résultat", "результат"} {
		if rest, ok := strings.CutPrefix(l, label); ok && (rest == ":" || rest == "：") {
			return true
		}
	}
	return false
}

// gaps are the title's texts between its code spans: gaps[i] stands before
// span i (the title's start for the first), the last after the last span.
func (t title) gaps() []string { return strings.Split(t.text, string(codeMark)) }

// asides marks the code spans inside parentheses that open right after a
// command's span: "`nx run server:export-openapi` (canonical `node
// dist/main.js`, locally first `env -u OSS_*`)" says how that command runs,
// and names no command of its own to demand. Parentheses that go on with
// the work ("(then `npm run build`)", "(and `…`)") are no aside.
func (t title) asides() []bool {
	out := make([]bool, len(t.code))
	span, depth, open := -1, 0, false
	rs := []rune(t.text)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == codeMark:
			span++
			if depth > 0 && open && span < len(out) {
				out[span] = true
			}
		case r == '(' || r == '（':
			if depth == 0 {
				j := i - 1
				for j >= 0 && unicode.IsSpace(rs[j]) {
					j--
				}
				rest := strings.ToLower(strings.TrimSpace(string(rs[i+1 : min(len(rs), i+16)])))
				open = j >= 0 && rs[j] == codeMark && span >= 0 && !strings.HasPrefix(rest, "then") && !strings.HasPrefix(rest, "and") &&
					!strings.HasPrefix(rest, "+") && !strings.HasPrefix(rest, "plus") && !strings.HasPrefix(rest, "followed")
				// Where a thing comes from, after any words ("message
				// appears once (it comes from the initial `./iw-run
				// --bootstrap`)"): an explanation.
				open = open || hasAnyPrefix(rest, "it comes from", "comes from", "which comes from", "from the ", "canonical", "see ", "cf. ")
				// What a search looks for, listed after its noun ("grep the
				// targets for PVE tokens (`LEVEL 1`, `values hierarchy`)"):
				// terms, not commands.
				if k := j; !open && k >= 0 {
					for k >= 0 && unicode.IsLetter(rs[k]) {
						k--
					}
					switch strings.ToLower(string(rs[k+1 : j+1])) {
					case "tokens", "terms", "strings", "keywords", "phrases", "patterns", "markers", "identifiers":
						open = true
					}
				}
			}
			depth++
		case r == ')' || r == '）':
			if depth > 0 {
				depth--
			}
		}
	}
	return out
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// negated reports whether the words before a code span say it is not to
// be run ("spot-check `bats x.bats` *without* a prior `./iw ./test e2e`",
// "instead of `npm test`"): it is named to be left out.
func negated(before string) bool {
	l := strings.ToLower(strings.Trim(strings.TrimSpace(before), "*_"))
	for _, s := range []string{"without", "without a prior", "without running", "without first running", "instead of", "rather than", "never run", "do not run", "don't run", "not via"} {
		if l == s || strings.HasSuffix(l, " "+s) || strings.HasSuffix(l, "*"+s) || strings.HasSuffix(l, "_"+s) {
			return true
		}
	}
	return false
}

// negatedAfter reports whether the words right after a code span leave
// it out ("`./deploy.sh staging`; do not run that one from here", "(not
// run here)", "— skipped"): named, never run.
func negatedAfter(after string) bool {
	l := strings.ToLower(strings.TrimLeft(strings.TrimSpace(after), ";,.:—–-()*_ "))
	for _, s := range []string{"do not run", "don't run", "never run", "not run", "not to be run", "skipped", "is skipped", "are skipped", "must not be run", "should not be run"} {
		if strings.HasPrefix(l, s) {
			return true
		}
	}
	return false
}

// logged reports whether the words before a code span say a program logs
// or prints it ("workers start and log `pool ready (size=2)`", "logean
// `…`"): the span is the line to look for, not a command.
func logged(before string) bool {
	f := strings.Fields(strings.ToLower(before))
	if len(f) == 0 || strings.HasSuffix(strings.TrimRight(f[len(f)-1], "*_"), ":") {
		return false // "read logs: `gh pr checks`": what to run to read them
	}
	if len(f) > 1 {
		switch f[len(f)-2] {
		case "read", "the", "check", "view", "see", "tail", "inspect", "its", "their":
			return false // the logs, a noun
		}
	}
	switch strings.Trim(f[len(f)-1], ".,;:*_\"'“”") {
	case "log", "logs", "logged", "logean", "loguea", "registra", "prints", "outputs", "emits", "logging", "печатает", "выводит", "输出", "出力":
		return true
	}
	return false
}

// runPhrase is a command written without backticks after the title's
// "Run" ("Run npx prisma generate to confirm the client"), up to the words
// that say why, when it reads as a command line (CommandLine); "" when
// there is none ("Run the tests", a command in backticks).
// parenCommand is a command line a title gives in parentheses at its end
// ("Run the unit tests (make test)"), "" when it gives none: the words
// name the check, the parentheses the command (honest day 62: the
// project's checks had stood for it).
func (t title) parenCommand() string {
	_, n := t.leading()
	rest := strings.TrimSpace(strings.Join(t.words()[n:], " "))
	if !strings.HasSuffix(rest, ")") || strings.ContainsRune(rest, codeMark) {
		return ""
	}
	i := strings.LastIndexByte(rest, '(')
	if i < 0 {
		return ""
	}
	inner := strings.TrimSpace(rest[i+1 : len(rest)-1])
	if inner == "" || strings.ContainsAny(inner, "()") || !CommandLine(inner) {
		return ""
	}
	return inner
}

func (t title) runPhrase() string {
	_, n := t.leading()
	w := t.words()[n:]
	if len(w) < 2 {
		return ""
	}
	switch strings.ToLower(w[0]) {
	case "run", "execute":
	default:
		return ""
	}
	var cmd []string
	for i, x := range w[1:] {
		if strings.ContainsRune(x, codeMark) {
			return ""
		}
		switch strings.ToLower(x) {
		case "and", "then", "&", "+", "plus":
			// "Run go vet and the unit tests": a second thing to run,
			// which the words do not give as a command; none is read.
			return ""
		case "to", "so", "for", "which", "that", "—", "–", "-", "→", "->":
			return runnerLine(cmd)
		}
		if y := strings.TrimRight(x, ".,;:"); y != x {
			if strings.HasSuffix(x, ",") && i+2 < len(w) {
				return "" // "Run make lint, make test": a list
			}
			return runnerLine(append(cmd, y))
		}
		cmd = append(cmd, x)
	}
	return runnerLine(cmd)
}

// runnerLine is words that read as a command line (CommandLine) and say
// so beyond doubt, "" otherwise: their program is a build or test runner,
// or they pass a flag or a path. "Run file checks" would pass CommandLine
// (file(1) is on PATH, and exits 0 on a missing file) and is prose.
func runnerLine(words []string) string {
	c := strings.Join(words, " ")
	if c == "" || !CommandLine(c) {
		return ""
	}
	switch path.Base(FirstWord(c)) {
	case "npm", "npx", "pnpm", "yarn", "bun", "bunx", "deno", "node", "go", "cargo", "make", "just", "task", "gradle", "gradlew",
		"mvn", "dotnet", "pytest", "python", "python3", "uv", "uvx", "poetry", "tox", "nox", "ruff", "mypy", "tsc", "eslint",
		"vitest", "jest", "mix", "rake", "bundle", "rspec", "phpunit", "composer", "swift", "xcodebuild", "flutter", "dart", "bats":
		return c
	}
	for _, a := range words[1:] {
		if strings.HasPrefix(a, "-") || strings.ContainsAny(a, "/.") {
			return c
		}
	}
	if strings.HasPrefix(words[0], "./") || strings.HasPrefix(words[0], "/") {
		return c
	}
	return ""
}

// afterColon is the title's text after the colon that follows its label
// ("Quality checkpoint: pnpm lint && pnpm test"), "" when there is none or
// it holds a code span.
func (t title) afterColon() string {
	_, n := t.leading()
	rest := strings.Join(t.words()[n:], " ")
	_, after, ok := strings.Cut(rest, ":")
	after = strings.TrimSpace(after)
	if !ok || after == "" || strings.ContainsRune(after, codeMark) {
		return ""
	}
	return withoutSuccess(after)
}

// withoutSuccess is a title's command line without the words after it
// that say it succeeds ("make test passes", "pnpm lint is green"): the
// command is what runs, the words are its exit (`make test passes` asks
// make for a target named passes).
func withoutSuccess(s string) string {
	lower := strings.ToLower(s)
	for _, w := range []string{" passes cleanly", " passes", " pass", " succeeds", " succeed", " is green", " are green", " green",
		" works", " exits 0", " exit 0", " without errors", " with no errors", " cleanly"} {
		if strings.HasSuffix(lower, w) && len(s) > len(w) {
			return strings.TrimSpace(s[:len(s)-len(w)])
		}
	}
	return s
}

// hasLetterOrDigit reports whether a word is more than punctuation.
func hasLetterOrDigit(w string) bool {
	return strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// Visible drops Unicode format characters (zero-width spaces and joiners,
// direction marks, the word joiner, a BOM): text that looks the same reads
// the same, so an id or a tag cannot be hidden from rodin by an invisible
// character.
func Visible(s string) string {
	if strings.IndexFunc(s, isFormat) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isFormat(r) {
			return -1
		}
		return r
	}, s)
}

func isFormat(r rune) bool { return r >= 0x80 && unicode.Is(unicode.Cf, r) }

// IsFormat reports whether r is an invisible format character (Unicode
// Cf) that Visible drops.
func IsFormat(r rune) bool { return isFormat(r) }

// containsAny reports whether s holds one of the words.
func containsAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
