// Package planfile is the model of a rodin plan file: the Markdown plan, the
// gaps block the agent maintains, and the metadata lines (HTML comments) that
// the hooks keep at the end of the file.
//
// The structure comes from goldmark's block parser, never from line regexes:
// a metadata line counts only where CommonMark reads an HTML block, so a
// marker inside a code fence or inline in a paragraph is ordinary plan text.
package planfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSize caps how much of a plan file rodin reads. A larger file is treated
// as unreadable: PostToolUse leaves it alone and PreToolUse denies.
const MaxSize = 16 << 20

// kind says what a line of the plan file is.
type kind uint8

const (
	kindText       kind = iota // plan or gaps text
	kindGapsStart              // <!-- rodin:gaps:start -->
	kindGapsEnd                // <!-- rodin:gaps:end -->
	kindSession                // <!-- rodin:session=<id> -->
	kindPlanHash               // <!-- rodin:plan:hash=<hex> -->
	kindGapsHash               // <!-- rodin:gaps:hash=<hex> -->
	kindValidation             // <!-- rodin:validation=<json> -->
	kindCritic                 // <!-- rodin:critic=… -->: rodin 0.1's run record, now malformed
	kindValidator              // <!-- rodin:validator=… -->: likewise
	kindSeal                   // <!-- rodin:seal=<hex> -->: see seal.go
	kindSignal                 // <!-- rodin:verdict:signal=<json> -->
	kindUnknown                // <!-- rodin:<key> --> of a key this version does not know
)

// keyKinds are the keys of rodin's lines and their kinds: an array, not a
// map, so that nothing is built at package init.
var keyKinds = [...]struct {
	key  string
	kind kind
}{
	{"gaps:start", kindGapsStart},
	{"gaps:end", kindGapsEnd},
	{"session", kindSession},
	{"plan:hash", kindPlanHash},
	{"gaps:hash", kindGapsHash},
	{"validation", kindValidation},
	{"critic", kindCritic},
	{"validator", kindValidator},
	{"seal", kindSeal},
	{"verdict:signal", kindSignal},
}

// kindOfKey is the kind of a line's key; known is false for another key.
func kindOfKey(key string) (k kind, known bool) {
	for _, kk := range keyKinds {
		if kk.key == key {
			return kk.kind, true
		}
	}
	return 0, false
}

// managed reports whether the hooks own lines of kind k: they remove and
// rewrite these, and keep them in the trailer at the end of the file.
func (k kind) managed() bool { return k >= kindSession && k <= kindSignal }

// line is one physical line. Offsets into the normalized text (LF only, no
// BOM) give its content; offsets into the original bytes let a rewrite copy
// every byte of the lines it keeps exactly as they were.
type line struct {
	start, end  int // content in norm, without the '\n'
	rawStart    int // in src
	rawNext     int // in src, after the line terminator
	kind        kind
	value       string // for metadata lines: the text after '='
	hasValue    bool
	inGapsBlock bool // strictly between the markers of a well-formed gaps block
	isMetaLine  bool // a rodin metadata line (any key)
	broken      bool // a rodin line that is not exactly one comment (its problem is recorded)
}

// Doc is a parsed plan file.
type Doc struct {
	src     []byte // the file as read
	bomLen  int
	norm    []byte // src without BOM, CRLF and lone CR turned into LF
	crlf    bool   // the file's first line ends in CRLF: new lines use CRLF too
	lines   []line
	start   int // line index of the gaps start marker, -1 when none
	end     int // line index of the gaps end marker, -1 when none
	meta    Trailer
	signals []int // line indexes of verdict signals
	probs   []problem

	planDigest, gapsDigest string // computed once, on first use, or proven by the seal

	seal string // the seal line's value, "" when absent
	// lazy: the seal proved the digests, so only the trailer's lines are
	// classified; full classifies the rest when something asks for it.
	lazy   bool
	sealed bool // the seal held when the file was read

	headings []span // ATX and setext headings, in file order
	items    []span // the first line of each list item's text, in file order
}

// span is a piece of one line: its line index, heading level (for list
// items: 1 for an item of a list at the top of the document, 2 for any
// other) and the text's offsets in the normalized bytes. For a list item,
// last is the last line of the paragraph its text starts (the lines it
// wraps onto).
type span struct {
	line, level, start, end int
	last                    int
}

// Trailer is the single-line metadata the hooks keep at the end of the file.
// Values are kept exactly as written so that an unchanged line renders
// byte-for-byte as it was. An empty field means the line is absent.
type Trailer struct {
	Session    string
	PlanHash   string
	GapsHash   string
	Validation string // compact JSON
}

// Parse reads a plan file. It never fails: problems with the markers are
// collected and reported by Problems, and the digests are computed anyway.
func Parse(src []byte) *Doc {
	d := newDoc(src)
	if !d.classifySealed() {
		d.classify()
	}
	return d
}

// parseFull is Parse without the seal's shortcut.
func parseFull(src []byte) *Doc {
	d := newDoc(src)
	d.classify()
	return d
}

// newDoc is a Doc with its lines split and nothing classified yet.
func newDoc(src []byte) *Doc {
	d := &Doc{src: src, start: -1, end: -1}
	if bytes.HasPrefix(src, bom) {
		d.bomLen = len(bom)
	}
	d.splitLines()
	return d
}

var bom = []byte("\xef\xbb\xbf")

// splitLines normalizes line endings and records each line's offsets in the
// normalized and in the original bytes.
func (d *Doc) splitLines() {
	raw := d.src[d.bomLen:]
	hasCR := bytes.IndexByte(raw, '\r') >= 0
	if !hasCR {
		d.norm = raw
	} else {
		d.norm = make([]byte, 0, len(raw))
	}
	n := bytes.Count(raw, []byte{'\n'}) + 1
	d.lines = make([]line, 0, n)
	for i := 0; i < len(raw); {
		j := len(raw)
		if hasCR {
			for j = i; j < len(raw) && raw[j] != '\n' && raw[j] != '\r'; j++ {
			}
		} else if k := bytes.IndexByte(raw[i:], '\n'); k >= 0 {
			j = i + k
		}
		next := j
		if next < len(raw) {
			if raw[next] == '\r' && next+1 < len(raw) && raw[next+1] == '\n' {
				if len(d.lines) == 0 {
					d.crlf = true
				}
				next += 2
			} else {
				next++
			}
		}
		l := line{rawStart: d.bomLen + i, rawNext: d.bomLen + next}
		if hasCR {
			l.start = len(d.norm)
			d.norm = append(d.norm, raw[i:j]...)
			l.end = len(d.norm)
			if next > j {
				d.norm = append(d.norm, '\n')
			}
		} else {
			l.start, l.end = i, j
		}
		d.lines = append(d.lines, l)
		i = next
	}
}

// problem is one way the markers are malformed, at line (0-based).
type problem struct {
	line int
	msg  string
}

func (d *Doc) problem(i int, format string, args ...any) {
	d.probs = append(d.probs, problem{i, fmt.Sprintf(format, args...)})
}

// structure checks the markers: first the gaps block (one, start before
// end, not nested), then the other metadata lines against it (single-line
// metadata at most once, outside the block, with well-formed values).
func (d *Doc) structure() {
	d.findGapsBlock()
	for i := range d.lines {
		l := &d.lines[i]
		if !l.isMetaLine || l.kind == kindGapsStart || l.kind == kindGapsEnd {
			continue
		}
		inside := d.hasGapsBlock() && i > d.start && i < d.end
		if l.kind == kindUnknown {
			if inside {
				l.isMetaLine = false // gaps text: the gaps content is every line between the markers
				continue
			}
			// It would read as metadata, so it is outside the digests: a way
			// to carry unassessed text past them.
			if l.broken {
				continue
			}
			d.problem(i, "an unknown `rodin:%s` line: it would carry text past the digests; delete it, or write it without `<!-- rodin:`", oneLineKey(l.value))
			continue
		}
		if l.kind == kindCritic || l.kind == kindValidator {
			d.problem(i, "a `rodin:%s` line: rodin no longer keeps run records in the plan file (they are kept where the agent's tools do not write); delete the line", keyOf(l.kind))
			continue
		}
		if inside {
			d.problem(i, "a `rodin:%s` line inside the gaps block; metadata belongs at the end of the file", keyOf(l.kind))
			continue
		}
		if !l.hasValue {
			d.problem(i, "`<!-- rodin:%s -->` needs a value after `=`", keyOf(l.kind))
			continue
		}
		switch l.kind {
		case kindSession:
			if !ValidSessionID(l.value) {
				d.problem(i, "the session id %q is not valid", l.value)
				continue
			}
			d.setOnce(i, d.field(l.kind), l.value)
		case kindPlanHash, kindGapsHash, kindSeal:
			if !isDigest(l.value) {
				d.problem(i, "the %s is not 64 lowercase hex digits", keyOf(l.kind))
				continue
			}
			d.setOnce(i, d.field(l.kind), l.value)
		case kindValidation:
			if _, err := ParseValidation(l.value); err != nil {
				d.problem(i, "the validation value is not valid: %v", err)
				continue
			}
			d.setOnce(i, d.field(l.kind), l.value)
		case kindSignal:
			d.signals = append(d.signals, i)
		}
	}
	sort.SliceStable(d.probs, func(a, b int) bool { return d.probs[a].line < d.probs[b].line })
	if d.hasGapsBlock() {
		for i := d.start + 1; i < d.end; i++ {
			d.lines[i].inGapsBlock = true
		}
	}
}

// findGapsBlock sets d.start and d.end when the file has exactly one
// well-formed gaps block, and records a problem for anything else.
func (d *Doc) findGapsBlock() {
	start, end := -1, -1
	for i, l := range d.lines {
		if !l.isMetaLine || (l.kind != kindGapsStart && l.kind != kindGapsEnd) {
			continue
		}
		if l.hasValue {
			d.problem(i, "`<!-- rodin:%s -->` takes no value", keyOf(l.kind))
		}
		open := start >= 0 && end < 0
		switch {
		case l.kind == kindGapsStart && open:
			d.problem(i, "gaps block opened again before `<!-- rodin:gaps:end -->` (blocks cannot nest)")
		case l.kind == kindGapsStart && start >= 0:
			d.problem(i, "a second gaps block (only one is allowed)")
		case l.kind == kindGapsStart:
			start = i
		case open:
			end = i
		default:
			d.problem(i, "`<!-- rodin:gaps:end -->` without a matching `<!-- rodin:gaps:start -->`")
		}
	}
	if start >= 0 && end < 0 {
		d.problem(start, "the gaps block is not closed: add `<!-- rodin:gaps:end -->` after the last gap")
		return
	}
	if !d.Malformed() {
		d.start, d.end = start, end
	}
}

// field is where the value of a single-line metadata kind is kept.
func (d *Doc) field(k kind) *string {
	switch k {
	case kindSession:
		return &d.meta.Session
	case kindPlanHash:
		return &d.meta.PlanHash
	case kindGapsHash:
		return &d.meta.GapsHash
	case kindValidation:
		return &d.meta.Validation
	case kindSeal:
		return &d.seal
	}
	panic("planfile: no single-line field for kind " + keyOf(k))
}

func (d *Doc) setOnce(i int, field *string, value string) {
	if *field != "" {
		d.problem(i, "a second `rodin:%s` line (each may appear once)", keyOf(d.lines[i].kind))
		return
	}
	*field = value
}

func keyOf(k kind) string {
	for _, kk := range keyKinds {
		if kk.kind == k {
			return kk.key
		}
	}
	return "?"
}

func isDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// ValidSessionID reports whether id can be written into a session marker:
// Claude Code's ids are UUIDs; anything that could end a comment or a line
// is refused.
func ValidSessionID(id string) bool { return hookio.ValidSessionID(id) }

// Source is the file as parsed.
func (d *Doc) Source() []byte { return d.src }

// Problems lists what is malformed about the markers, one entry per problem,
// each naming its line. A malformed file is never rewritten.
func (d *Doc) Problems() []string {
	out := make([]string, len(d.probs))
	for i, p := range d.probs {
		out[i] = fmt.Sprintf("line %d: %s", p.line+1, p.msg)
	}
	return out
}

// ProblemSummary is the first few problems joined with "; ", and how many
// more there are: short enough to read in a deny message.
func (d *Doc) ProblemSummary() string {
	const shown = 3
	all := d.Problems()
	if len(all) <= shown {
		return strings.Join(all, "; ")
	}
	return fmt.Sprintf("%s; and %d more (`rodin check` lists them all)", strings.Join(all[:shown], "; "), len(all)-shown)
}

// Malformed reports whether any marker is malformed.
func (d *Doc) Malformed() bool { return len(d.probs) > 0 }

// Trailer returns the single-line metadata as found in the file.
func (d *Doc) Trailer() Trailer { return d.meta }

// HasGapsBlock reports whether the file has a well-formed gaps block.
func (d *Doc) HasGapsBlock() bool {
	d.full()
	return d.hasGapsBlock()
}

func (d *Doc) hasGapsBlock() bool { return d.start >= 0 && d.end >= 0 }

// Signals returns the raw JSON values of the verdict signal lines.
func (d *Doc) Signals() []string {
	out := make([]string, len(d.signals))
	for i, li := range d.signals {
		out[i] = d.lines[li].value
	}
	return out
}

func (d *Doc) lineText(i int) []byte { return d.norm[d.lines[i].start:d.lines[i].end] }

// OwnedLine is one of the lines the hooks own (session, hashes, validation,
// seal, and rodin 0.1's run records), wherever it stands: a line no tool
// call may write, change or remove.
type OwnedLine struct {
	Line int    // 1-based
	Text string // without surrounding spaces
}

// DiffOwned names the first hook-owned line that differs between two
// versions of a file: what happens to it ("add", "change", "remove") and
// the line; "" when they hold the same owned lines.
func DiffOwned(before, after []OwnedLine) (what, line string) {
	for i := 0; i < len(before) || i < len(after); i++ {
		switch {
		case i >= len(after):
			return "remove", before[i].Text
		case i >= len(before):
			return "add", after[i].Text
		case before[i].Text != after[i].Text:
			return "change", before[i].Text + "` into `" + after[i].Text
		}
	}
	return "", ""
}

// OwnedLines are the hook-owned lines of the file, in order. It reads the
// whole file, seal or no seal: a seal proves nothing to a caller that must
// see every line.
func (d *Doc) OwnedLines() []OwnedLine {
	d.full()
	var out []OwnedLine
	for i, l := range d.lines {
		if l.isMetaLine && l.kind >= kindSession && l.kind <= kindSeal {
			out = append(out, OwnedLine{i + 1, strings.TrimSpace(string(d.lineText(i)))})
		}
	}
	return out
}

// inPlan reports whether line i is plan content: not a metadata line and not
// part of the gaps block (its markers included).
func (d *Doc) inPlan(i int) bool {
	l := d.lines[i]
	if l.isMetaLine || l.inGapsBlock {
		return false
	}
	return !(d.hasGapsBlock() && i >= d.start && i <= d.end)
}

func (d *Doc) inGaps(i int) bool { return d.hasGapsBlock() && d.lines[i].inGapsBlock }

// PlanContent is the canonical plan text (SPEC section 3): every line but the
// metadata lines and the gaps block, LF-terminated.
func (d *Doc) PlanContent() []byte { return d.content(d.inPlan) }

// GapsContent is the canonical text strictly between the gaps markers; empty
// when there is no block.
func (d *Doc) GapsContent() []byte { return d.content(d.inGaps) }

func (d *Doc) content(keep func(int) bool) []byte {
	d.full()
	var b bytes.Buffer
	for i := range d.lines {
		if keep(i) {
			b.Write(d.lineText(i))
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// PlanDigest is the digest of PlanContent.
func (d *Doc) PlanDigest() string {
	if d.planDigest == "" {
		d.planDigest = d.digest(d.inPlan)
	}
	return d.planDigest
}

// GapsDigest is the digest of GapsContent.
func (d *Doc) GapsDigest() string {
	if d.gapsDigest == "" {
		d.gapsDigest = d.digest(d.inGaps)
	}
	return d.gapsDigest
}

// PlanSight and GapsSight digest the plan and the gaps as a reader sees
// them: each line's words, with runs of white space one space, format
// characters (zero-width spaces, joiners) and blank lines left out. Two
// versions with the same sight differ in nothing the user is shown: the
// runs on one are runs on the other (SPEC 5a; attack 69: a trailing space
// had made a new plan, and a fresh critic and validator the verdict).
func (d *Doc) PlanSight() string { return d.sight(d.inPlan) }

// GapsSight is PlanSight's for the gaps.
func (d *Doc) GapsSight() string { return d.sight(d.inGaps) }

func (d *Doc) sight(keep func(int) bool) string {
	d.full()
	h := sha256.New()
	var line []byte
	for i := range d.lines {
		if !keep(i) {
			continue
		}
		line = line[:0]
		space := false
		for _, r := range string(d.lineText(i)) {
			switch {
			case unicode.Is(unicode.Cf, r):
				continue
			case unicode.IsSpace(r):
				space = len(line) > 0
				continue
			}
			if space {
				line = append(line, ' ')
				space = false
			}
			line = utf8.AppendRune(line, r)
		}
		if len(line) > 0 {
			h.Write(line)
			h.Write([]byte{'\n'})
		}
	}
	return "s" + hex.EncodeToString(h.Sum(nil))
}

// Changed names what differs between the digests recorded in the trailer and
// the current ones: "Plan content changed since assessment", "Gaps changed
// since assessment", both, or "" when neither does.
func (d *Doc) Changed() string {
	switch plan, gaps := d.meta.PlanHash != d.PlanDigest(), d.meta.GapsHash != d.GapsDigest(); {
	case plan && gaps:
		return "Plan content and gaps changed since assessment"
	case plan:
		return "Plan content changed since assessment"
	case gaps:
		return "Gaps changed since assessment"
	}
	return ""
}

// digest hashes the kept lines without building the text: trailing empty
// lines only add newlines that Digest would strip, so it stops at the last
// non-empty kept line.
func (d *Doc) digest(keep func(int) bool) string {
	d.full()
	last := -1
	for i := len(d.lines) - 1; i >= 0; i-- {
		if keep(i) && d.lines[i].end > d.lines[i].start {
			last = i
			break
		}
	}
	h := sha256.New()
	for i := 0; i <= last; i++ {
		if keep(i) {
			h.Write(d.lineText(i))
			h.Write([]byte{'\n'})
		}
	}
	if last < 0 {
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Digest is SHA-256 of text with all trailing newlines removed and exactly
// one appended, in lowercase hex: what the original shell design computed
// with `echo "$(…)" | shasum -a 256`.
func Digest(text []byte) string {
	h := sha256.New()
	h.Write(bytes.TrimRight(text, "\n"))
	h.Write([]byte{'\n'})
	return hex.EncodeToString(h.Sum(nil))
}

// oneLineKey is an unknown key as a problem quotes it: short, and without
// what could break the message.
func oneLineKey(k string) string {
	if len(k) > 40 {
		k = k[:40] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == '`' {
			return '?'
		}
		return r
	}, k)
}
