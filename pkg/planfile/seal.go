package planfile

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"sync/atomic"
)

// The seal lets a reader confirm a plan's digests without parsing the plan.
//
// When the hooks write the trailer and the digests they record are the
// current ones, they end it with `<!-- rodin:seal=<hex> -->`: the SHA-256 of
// the file's bytes before the trailer (its body) and of those two digests.
// A reader that finds the same body bytes and the same recorded digests
// knows the digests without a parse, because
//
//   - block parsing reads forward: the body's lines are read the same
//     whatever follows them, so its plan and gaps content are as sealed;
//   - the trailer holds only empty lines and whole-line comments of the
//     keys the hooks write, in column 0. After that body they were metadata
//     when the hooks wrote them, and a line of the same shape still is;
//   - the body held no metadata the hooks manage and no malformed marker
//     (Render writes nothing else), so every problem the file can have now
//     is in the trailer, which is read line by line as a parse would.
//
// Any other change, to a body byte or to a hash line, breaks the seal and
// the file is parsed in full.
//
// The seal is an HMAC keyed with a secret kept in the plugin's data
// directory (SetSealKey), not a plain digest: an agent that edits the body
// and recomputes a plain digest would make the gate trust the old digests
// for new text. Without the key (outside Claude Code, or before the hooks
// first ran) no seal is written or trusted: every file is parsed in full.

// sealDomain names what a seal attests. Version 3: the body's gaps block
// also held gap entries only (StrayGapsLines found nothing) when sealed, so
// a reader whose seal holds need not parse the body to know it.
const sealDomain = "rodin seal 3\n"

var (
	sealKey     atomic.Pointer[[]byte]
	sealKeyFunc atomic.Pointer[func() []byte]
	sealKeyMu   sync.Mutex
)

// SetSealKey sets the secret seals are keyed with; nil turns seals off.
func SetSealKey(key []byte) {
	sealKeyMu.Lock()
	defer sealKeyMu.Unlock()
	sealKeyFunc.Store(nil)
	if len(key) == 0 {
		sealKey.Store(nil)
		return
	}
	k := append([]byte(nil), key...)
	sealKey.Store(&k)
}

// SetSealKeyFunc makes load the source of the key, called the first time a
// seal is written or checked: the hooks' Main sets it, so that calls that
// never meet a seal never read the key file.
func SetSealKeyFunc(load func() []byte) {
	sealKeyMu.Lock()
	defer sealKeyMu.Unlock()
	sealKey.Store(nil)
	sealKeyFunc.Store(&load)
}

func currentSealKey() []byte {
	if k := sealKey.Load(); k != nil {
		return *k
	}
	if sealKeyFunc.Load() == nil {
		return nil
	}
	sealKeyMu.Lock()
	defer sealKeyMu.Unlock()
	if f := sealKeyFunc.Load(); f != nil {
		sealKeyFunc.Store(nil)
		if key := (*f)(); len(key) > 0 {
			sealKey.Store(&key)
		}
	}
	if k := sealKey.Load(); k != nil {
		return *k
	}
	return nil
}

// sealOf is the seal of a body with the digests recorded after it, "" when
// there is no key.
func sealOf(body []byte, planHash, gapsHash string) string {
	key := currentSealKey()
	if key == nil {
		return ""
	}
	k := &key
	h := hmac.New(sha256.New, *k)
	h.Write([]byte(sealDomain))
	h.Write(body)
	h.Write([]byte("\n" + planHash + "\n" + gapsHash + "\n"))
	return hex.EncodeToString(h.Sum(nil))
}

func sealLine(seal, nl string) string { return markerOpen + "seal=" + seal + markerClose + nl }

// trailerStart is the first line of the trailer: the run of lines at the
// end of the file that are empty or could be hook-written metadata.
func (d *Doc) trailerStart() int {
	i := len(d.lines)
	for i > 0 && d.trailerLine(i-1) {
		i--
	}
	return i
}

// trailerLine reports whether line i can belong to the trailer: empty, or
// exactly one comment of a key the hooks manage, starting in column 0.
// (A line of spaces is plan content: it would change the plan digest.)
func (d *Doc) trailerLine(i int) bool {
	t := d.lineText(i)
	if len(t) == 0 {
		return true
	}
	m, ok := readMeta(t)
	return ok && t[0] == '<' && t[len(t)-1] == '>' && m.problem == "" && m.kind.managed()
}

// sealFor returns the seal for d, a fully parsed rendering whose trailer
// records t, when t's digests are d's current ones and the trailer is made
// of metadata and empty lines only.
func (d *Doc) sealFor(t Trailer) (string, bool) {
	if t.PlanHash == "" || t.PlanHash != d.PlanDigest() || t.GapsHash != d.GapsDigest() {
		return "", false
	}
	start := d.trailerStart()
	if start == len(d.lines) || len(d.StrayGapsLines()) > 0 {
		return "", false
	}
	for i := start; i < len(d.lines); i++ {
		if l := d.lines[i]; !l.isMetaLine && l.end > l.start {
			return "", false
		}
	}
	seal := sealOf(d.src[:d.lines[start].rawStart], t.PlanHash, t.GapsHash)
	return seal, seal != ""
}

// classifySealed classifies a sealed file from its trailer alone, and
// reports whether the seal held. When it does not, d is left untouched.
func (d *Doc) classifySealed() bool {
	start := d.trailerStart()
	metas := make([]metaLine, len(d.lines)-start) // kind 0 (text) for empty lines
	var seal, planHash, gapsHash string
	var found [3]int
	for i := range metas {
		m, ok := readMeta(d.lineText(start + i))
		if !ok {
			continue
		}
		metas[i] = m
		switch m.kind {
		case kindSeal:
			seal = m.value
			found[0]++
		case kindPlanHash:
			planHash = m.value
			found[1]++
		case kindGapsHash:
			gapsHash = m.value
			found[2]++
		}
	}
	if found != [3]int{1, 1, 1} || !isDigest(planHash) || !isDigest(gapsHash) {
		return false
	}
	if want := sealOf(d.src[:d.lines[start].rawStart], planHash, gapsHash); want == "" || !hmac.Equal([]byte(seal), []byte(want)) {
		return false
	}
	for i, m := range metas {
		if m.kind != kindText {
			m.set(&d.lines[start+i])
		}
	}
	d.structure()
	d.planDigest, d.gapsDigest = planHash, gapsHash
	d.lazy, d.sealed = true, true
	return true
}

// unclassifyLines forgets what a parse found on every line, keeping only
// where each line is.
func (d *Doc) unclassifyLines() {
	for i := range d.lines {
		l := &d.lines[i]
		*l = line{start: l.start, end: l.end, rawStart: l.rawStart, rawNext: l.rawNext}
	}
}

// Sealed reports whether the file's seal held when it was read: its digests
// came from the trailer, without a parse of the plan.
func (d *Doc) Sealed() bool { return d.sealed }

// full classifies the body of a file that classifySealed read from its
// trailer, for the answers the seal does not give (content, entries,
// headings, a rewrite).
func (d *Doc) full() {
	if !d.lazy {
		return
	}
	d.lazy = false
	d.unclassifyLines()
	d.start, d.end = -1, -1
	d.meta, d.seal, d.signals, d.probs = Trailer{}, "", nil, nil
	d.planDigest, d.gapsDigest = "", ""
	d.classify()
}
