package plangate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"time"

	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/plansdir"
	"github.com/rodin-gate/rodin/pkg/provenance"
	"github.com/rodin-gate/rodin/pkg/safefile"
)

// Keep is the PostToolUse route for Write, Edit and MultiEdit: after a
// tool call touched a plan file in plan mode it keeps the metadata at the
// end of the file true (SPEC section 4).
//
// It is fail-open: whatever happens, on any error, it leaves the file as it
// was. Gate is what fails closed. The cheapest facts decide first: mode and
// path are checked before any file is opened, so edits outside plan mode
// cost a JSON lookup.
func Keep(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	if in.PermissionMode() != "plan" {
		return hookio.PostOutcome{}
	}
	path := in.FilePath()
	if !strings.HasSuffix(path, ".md") {
		return hookio.PostOutcome{}
	}
	session := in.SessionID()
	if !planfile.ValidSessionID(session) {
		return hookio.PostOutcome{}
	}
	real, err := plansdir.Resolve(path, plansdir.Dirs(plansdir.Env{Getenv: getenv, Cwd: in.Cwd()}))
	if err != nil {
		return hookio.PostOutcome{}
	}
	now := Now(getenv)

	// Decide on a snapshot first: writes are atomic renames, so a read
	// without the lock sees a whole version, and most edits need no write.
	data, err := safefile.ReadFile(real, planfile.MaxSize)
	if err != nil {
		return hookio.PostOutcome{}
	}
	doc := planfile.Parse(data)
	if doc.Malformed() {
		return malformed(path, doc)
	}
	check := provenance.Checker(getenv, session)
	tampered := ownedLinesEdited(in, doc)
	next := func(doc *planfile.Doc) (planfile.Trailer, string, bool) {
		if tampered {
			return tamperedTrailer(doc, session, now)
		}
		return Next(doc, session, now, check)
	}
	if _, _, changed := next(doc); !changed {
		return hookio.PostOutcome{}
	}

	// Decide again under the lock, on the file as it is now.
	note, wrote, out, err := rewrite(path, real, doc, next)
	switch {
	case err != nil:
		return hookio.PostOutcome{Context: fmt.Sprintf("[rodin] Could not update the metadata at the end of %s: %v. The plan gate will deny until it can.", path, err)}
	case wrote:
		out = hookio.PostOutcome{Context: fmt.Sprintf("[rodin] Updated the metadata at the end of %s (%s). Those lines are rodin's own: leave them as they are and edit the plan above them.", path, note)}
		if provenance.Off(getenv) && strings.Contains(note, " recorded from the verdict signal") {
			out.SystemMessage = "[rodin] A verdict was recorded from a signal with no assessment runs checked (RODIN_PROVENANCE=off): the plan gate will accept it."
		}
	}
	return out
}

// reasonTampered is the pending reason after a tool call changed the lines
// the hooks own (the guard denies those; this catches what it cannot see).
const reasonTampered = "rodin's lines at the end of the plan were changed by a tool call, so no earlier verdict counts"

// ownedLinesEdited reports whether the tool call changed the hook-owned
// lines: tool_response.originalFile is the file before it. A quick look at
// the raw `<!-- rodin:` lines first; only when those differ is the
// question settled with the Markdown model (a line in a code fence is not
// the hooks'). Dropping every owned line at once is no tampering: the plan
// then reads as never assessed.
func ownedLinesEdited(in hookio.Input, after *planfile.Doc) bool {
	orig, ok, _ := in.StringField("tool_response.originalFile")
	if !ok {
		return false
	}
	before := orig.String()
	if rawOwned(before) == rawOwned(string(after.Source())) {
		return false
	}
	b, a := planfile.Parse([]byte(before)).OwnedLines(), after.OwnedLines()
	what, _ := planfile.DiffOwned(b, a)
	return len(a) > 0 && what != ""
}

// rawOwned is every line that starts a rodin comment and is not a gaps
// marker or a verdict signal, joined: equal for two texts whose owned lines
// cannot differ.
func rawOwned(text string) string {
	var b strings.Builder
	for len(text) > 0 {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "<!-- rodin:") && !strings.HasPrefix(t, "<!-- rodin:gaps:") && !strings.HasPrefix(t, "<!-- rodin:verdict:signal") {
			b.WriteString(t)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// tamperedTrailer is the trailer after a tool call changed the hook-owned lines:
// pending, with the current digests and this session's marker; signals are
// dropped with it.
func tamperedTrailer(d *planfile.Doc, session string, now time.Time) (planfile.Trailer, string, bool) {
	t := planfile.Trailer{Session: session, PlanHash: d.PlanDigest(), GapsHash: d.GapsDigest(),
		Validation: record(planfile.StatusPending, reasonTampered, now)}
	if t == d.Trailer() && len(d.Signals()) == 0 {
		return t, "", false
	}
	return t, "validation: pending, " + reasonTampered, true
}

// rewrite changes the plan's trailer under the lock: it parses the file as it
// is now (reusing snapshot, a parse of the same file made without the lock,
// when the bytes have not changed since), leaves it alone when its markers
// are malformed (out says why), and writes the trailer change returns unless
// change reports nothing to do.
func rewrite(path, real string, snapshot *planfile.Doc, change func(*planfile.Doc) (planfile.Trailer, string, bool)) (note string, wrote bool, out hookio.PostOutcome, err error) {
	wrote, err = safefile.Update(real, planfile.MaxSize, func(old []byte) ([]byte, error) {
		doc := snapshot
		if doc == nil || !bytes.Equal(doc.Source(), old) {
			doc = planfile.Parse(old)
		}
		if doc.Malformed() {
			out = malformed(path, doc)
			return nil, nil
		}
		t, why, changed := change(doc)
		if !changed {
			return nil, nil
		}
		note = why
		return doc.Render(t)
	})
	return note, wrote, out, err
}

func malformed(path string, doc *planfile.Doc) hookio.PostOutcome {
	return hookio.PostOutcome{Context: fmt.Sprintf("[rodin] The rodin markers in %s are malformed, so rodin changed nothing: %s. Fix them; the plan gate denies until they are well formed.",
		path, doc.ProblemSummary())}
}

// Reasons recorded with a pending status.
const (
	ReasonNotAssessed     = "Not assessed yet"
	ReasonMetadataMissing = "Metadata lines were missing, so no earlier assessment counts"
)

// Next is the metadata a well-formed plan file should carry after an edit by
// session, and whether that differs from what it carries. The note says
// what changed, for the message to the agent.
//
//   - No session marker: add one for session, with the current digests and
//     a pending status. A marker of another session: this session adopts
//     the plan (the marker moves, the status is pending), since an
//     assessment made in another session is not this session's evidence.
//   - Verdict signals: consume them; one valid signal that check accepts
//     (the recorded critic and validator runs back it, see package
//     provenance; nil accepts any) sets its status and reason, anything else
//     sets pending with what was wrong. The digests become the current ones.
//   - A hash or validation line missing: restore them as pending.
//   - Status pass or fail with a recorded digest that differs from the
//     current one: pending, naming what changed.
//   - Otherwise nothing: a pending plan stays untouched by ordinary edits.
func Next(d *planfile.Doc, session string, now time.Time, check func(d *planfile.Doc, status string) (string, error)) (t planfile.Trailer, note string, changed bool) {
	cur := d.Trailer()
	plan, gaps := d.PlanDigest(), d.GapsDigest()
	pending := func(reason string) (planfile.Trailer, string, bool) {
		t := cur // keeps the recorded critic and validator runs
		t.PlanHash, t.GapsHash, t.Validation = plan, gaps, record(planfile.StatusPending, reason, now)
		if t.Session == "" {
			t.Session = session
		}
		return t, "validation: pending, " + reason, true
	}

	if cur.Session != "" && cur.Session != session {
		t, note, changed := pending(fmt.Sprintf("Adopted from session %s: an assessment made there does not count in this session", cur.Session))
		t.Session = session
		return t, "the plan is now this session's; " + note, changed
	}
	if signals := d.Signals(); len(signals) > 0 {
		if len(signals) > 1 {
			return pending(fmt.Sprintf("Verdict signal rejected: found %d signal lines; write exactly one with `rodin signal`", len(signals)))
		}
		v, err := planfile.ParseVerdict(signals[0])
		if err != nil {
			return pending(fmt.Sprintf("Verdict signal rejected: %v; write it with `rodin signal`", err))
		}
		reason := v.Reason
		if check != nil {
			// The reason recorded is the validator's (or rodin's), never
			// the signal's own words.
			var err error
			if reason, err = check(d, v.Status); err != nil {
				return pending("Verdict signal not accepted: " + err.Error())
			}
		}
		t, _, _ := pending("")
		t.Validation = record(v.Status, reason, now)
		return t, "validation: " + v.Status + " recorded from the verdict signal", true
	}
	if cur.Session == "" {
		return pending(ReasonNotAssessed)
	}
	if cur.PlanHash == "" || cur.GapsHash == "" || cur.Validation == "" {
		return pending(ReasonMetadataMissing)
	}
	v, _ := planfile.ParseValidation(cur.Validation) // well formed: the doc is not malformed
	if v.Status != planfile.StatusPass && v.Status != planfile.StatusFail {
		return cur, "", false
	}
	if reason := d.Changed(); reason != "" {
		return pending(reason)
	}
	return cur, "", false
}

func record(status, reason string, now time.Time) string {
	return planfile.Validation{Status: status, Reason: reason, TS: now.UTC().Format(time.RFC3339)}.Encode()
}

// Now is rodin's one clock: the current time, or RODIN_NOW (RFC 3339) when
// set, so that tests can fix the timestamps the hooks write.
func Now(getenv func(string) string) time.Time {
	if s := getenv("RODIN_NOW"); s != "" {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			return t
		}
	}
	return time.Now()
}

// RecordVerdict records in the plan file at path the verdict of every run
// rodin observed on it (provenance.Judge), for session, as the keeper does
// for a verdict signal: `rodin verdict --record` in the skill's Bash, so
// that no Read and Edit of the plan are needed. The plan's marker must be
// the session's. The gate judges the runs again at ExitPlanMode: the line
// written here saves nothing an agent could forge.
// UnwritableError is RecordVerdict's error when it judged the runs but
// could not write the plan (Claude Code's sandbox keeps the Bash tool from
// writing outside the project): the hook records it instead.
type UnwritableError struct {
	provenance.Judgement
	Err error
}

func (e UnwritableError) Error() string { return e.Err.Error() }

func RecordVerdict(getenv func(string) string, path, session string) (provenance.Judgement, error) {
	var j provenance.Judgement
	if !planfile.ValidSessionID(session) {
		return j, fmt.Errorf("no Claude Code session to record the verdict for (CLAUDE_CODE_SESSION_ID): run this in the session's Bash tool")
	}
	real, err := plansdir.Resolve(path, plansdir.Dirs(plansdir.Env{Getenv: getenv}))
	if err != nil {
		return j, err
	}
	now := Now(getenv)
	_, err = safefile.Update(real, planfile.MaxSize, func(old []byte) ([]byte, error) {
		doc := planfile.Parse(old)
		if doc.Malformed() {
			return nil, fmt.Errorf("the rodin markers in %s are malformed: %s", path, doc.ProblemSummary())
		}
		t := doc.Trailer()
		if t.Session != session {
			return nil, fmt.Errorf("%s is not this session's plan (its marker names %q): edit it once in this session, then assess it", path, t.Session)
		}
		log, err := evidence.Load(evidence.Path(getenv, session))
		if err != nil {
			return nil, err
		}
		if j, err = provenance.Judge(doc, log); err != nil {
			return nil, err
		}
		t.PlanHash, t.GapsHash = doc.PlanDigest(), doc.GapsDigest()
		t.Validation = record(j.Status, j.Reason, now)
		if t == doc.Trailer() {
			return nil, nil
		}
		return doc.Render(t)
	})
	if err != nil && j.Status != "" && (errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)) {
		return j, UnwritableError{j, err}
	}
	return j, err
}

// AfterRodinCommand is the PostToolUse route for Bash that finishes two of
// the skill's steps outside Claude Code's sandbox, where the Bash tool may
// not write: after `rodin prompt critic|leakage "PLAN"` it writes the
// critic's input file, and after `rodin verdict --record "PLAN"` it records
// the verdict in the plan. Any other command costs a prefix test.
func AfterRodinCommand(in hookio.Input, getenv func(string) string) hookio.PostOutcome {
	cmd, _, _ := in.Field("tool_input.command")
	rest, ok := strings.CutPrefix(cmd, "rodin ")
	if !ok || in.PermissionMode() != "plan" {
		return hookio.PostOutcome{}
	}
	var verb, arg string
	for _, v := range []string{"prompt critic ", "prompt leakage ", "verdict --record "} {
		if a, ok := strings.CutPrefix(rest, v); ok {
			verb, arg = v, a
		}
	}
	path := unquote(strings.TrimSpace(arg))
	if verb == "" || path == "" {
		return hookio.PostOutcome{}
	}
	dirs := plansdir.Dirs(plansdir.Env{Getenv: getenv, Cwd: in.Cwd()})
	real, err := plansdir.Resolve(path, dirs)
	if err != nil {
		return hookio.PostOutcome{}
	}
	if verb == "verdict --record " {
		j, err := RecordVerdict(getenv, real, in.SessionID())
		if err != nil {
			return hookio.PostOutcome{}
		}
		return hookio.PostOutcome{Context: fmt.Sprintf("[rodin] Recorded the verdict at the end of %s: %s: %s.", path, j.Status, j.Reason)}
	}
	data, err := safefile.ReadFile(real, planfile.MaxSize)
	if err != nil {
		return hookio.PostOutcome{}
	}
	if d := planfile.Parse(data); !d.Malformed() {
		WriteCriticInput(provenance.InputDir(getenv), d)
	}
	return hookio.PostOutcome{}
}

// unquote takes one argument as a shell would: in double or single quotes
// with nothing after them, or bare with no space or quote.
func unquote(s string) string {
	switch {
	case len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] && !strings.ContainsRune(s[1:len(s)-1], rune(s[0])):
		inner := s[1 : len(s)-1]
		if s[0] == '"' && strings.ContainsAny(inner, "$`\\") {
			return ""
		}
		return inner
	case !strings.ContainsAny(s, " \t'\"$`\\;&|<>()"):
		return s
	}
	return ""
}
