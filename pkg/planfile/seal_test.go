package planfile

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// observed is everything a reader of a parsed file can ask without
// classifying the body: what the seal's shortcut must answer exactly as a
// full parse does.
type observed struct {
	Malformed  bool
	Problems   []string
	Trailer    Trailer
	Signals    []string
	Plan, Gaps string
}

func observe(d *Doc) observed {
	return observed{d.Malformed(), d.Problems(), d.Trailer(), d.Signals(), d.PlanDigest(), d.GapsDigest()}
}

// checkSealed parses src with and without the seal's shortcut and compares
// every answer, first those the shortcut gives, then those that make it
// classify the body. It returns whether the shortcut was taken.
func checkSealed(t *testing.T, src string) bool {
	t.Helper()
	fast, whole := Parse([]byte(src)), parseFull([]byte(src))
	sealed := fast.lazy
	if diff := cmp.Diff(observe(whole), observe(fast)); diff != "" {
		t.Fatalf("sealed=%v: the shortcut answers differently (-full +shortcut):\n%s\n%q", sealed, diff, src)
	}
	// A rewrite of a sealed file copies its body whole instead of line by
	// line: the bytes must be the same.
	tr := Trailer{Session: "s-2", PlanHash: whole.PlanDigest(), GapsHash: whole.GapsDigest(),
		Validation: Validation{Status: StatusPending, Reason: "r", TS: "2026-11-21T12:00:00Z"}.Encode()}
	gotOut, gotErr := fast.Render(tr)
	wantOut, wantErr := whole.Render(tr)
	if string(gotOut) != string(wantOut) || (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("sealed=%v: the rewrite differs:\n%q (%v)\n%q (%v)", sealed, gotOut, gotErr, wantOut, wantErr)
	}
	if got, want := string(fast.PlanContent()), string(whole.PlanContent()); got != want {
		t.Fatalf("plan content differs after the body was classified:\n%q\n%q", got, want)
	}
	ge, gp := fast.Entries("GAP", true)
	we, wp := whole.Entries("GAP", true)
	if diff := cmp.Diff([]any{we, wp, whole.HasGapsBlock(), string(whole.GapsContent())}, []any{ge, gp, fast.HasGapsBlock(), string(fast.GapsContent())}); diff != "" {
		t.Fatalf("entries differ after the body was classified:\n%s", diff)
	}
	return sealed
}

// sealedRendering renders src with a trailer whose digests are current, as
// the hooks write it: it ends with a seal.
func sealedRendering(t *testing.T, src string) (string, bool) {
	t.Helper()
	d := Parse([]byte(src))
	if d.Malformed() {
		return "", false
	}
	out, err := d.Render(Trailer{Session: "s-1", PlanHash: d.PlanDigest(), GapsHash: d.GapsDigest(),
		Validation: Validation{Status: StatusPass, Reason: "ok", TS: "2026-11-21T12:00:00Z"}.Encode()})
	if err != nil {
		return "", false
	}
	return string(out), true
}

// trailerEdits change a sealed file after its trailer was written: what an
// agent or a person may do to it. Each returns the edited text.
var trailerEdits = map[string]func(string) string{
	"unchanged": func(s string) string { return s },
	"signal appended": func(s string) string {
		return s + "<!-- rodin:verdict:signal={\"status\":\"pass\",\"reason\":\"ok\"} -->\n"
	},
	"bad signal appended":   func(s string) string { return s + "<!-- rodin:verdict:signal=nope -->\n" },
	"second validation":     func(s string) string { return s + "<!-- rodin:validation={\"status\":\"pass\"} -->\n" },
	"second seal":           func(s string) string { return s + s[strings.LastIndex(s, "<!-- rodin:seal="):] },
	"validation removed":    inTrailer(func(t string) string { return cutLine(t, "<!-- rodin:validation=") }),
	"validation to pending": inTrailer(func(t string) string { return strings.Replace(t, `"status":"pass"`, `"status":"pending"`, 1) }),
	"validation bad JSON":   inTrailer(func(t string) string { return strings.Replace(t, `{"status":"pass"`, `{"status":pass"`, 1) }),
	"critic appended":       func(s string) string { return s + "<!-- rodin:critic={} -->\n" },
	"plan hash changed":     inTrailer(func(t string) string { return replaceValue(t, "plan:hash", strings.Repeat("ab", 32)) }),
	"gaps hash changed":     inTrailer(func(t string) string { return replaceValue(t, "gaps:hash", strings.Repeat("cd", 32)) }),
	"plan hash bad":         inTrailer(func(t string) string { return replaceValue(t, "plan:hash", "XYZ") }),
	"seal bad":              inTrailer(func(t string) string { return replaceValue(t, "seal", "nope") }),
	"session bad":           inTrailer(func(t string) string { return replaceValue(t, "session", "a b") }),
	"blank lines appended":  func(s string) string { return s + "\n\n" },
	"spaces appended":       func(s string) string { return s + "  \n\t\n" },
	"text appended":         func(s string) string { return s + "More plan.\n" },
	"unknown key appended":  func(s string) string { return s + "<!-- rodin:future=1 -->\n" },
	"gaps end appended":     func(s string) string { return s + "<!-- rodin:gaps:end -->\n" },
	"gaps block appended":   func(s string) string { return s + "<!-- rodin:gaps:start -->\n<!-- rodin:gaps:end -->\n" },
	"indented trailer line": inTrailer(func(t string) string {
		return strings.Replace(t, "<!-- rodin:validation=", "    <!-- rodin:validation=", 1)
	}),
	"trailer in CRLF":  inTrailer(func(t string) string { return strings.ReplaceAll(t, "\n", "\r\n") }),
	"no final newline": func(s string) string { return strings.TrimSuffix(s, "\n") },
	"no blank before": func(s string) string {
		i := strings.Index(s, trailerSession)
		return strings.TrimSuffix(s[:i], "\n") + "\n" + s[i:]
	},
	"fence opened before": func(s string) string {
		i := strings.Index(s, trailerSession)
		return s[:i] + "```\n" + s[i:]
	},
	"body byte changed": func(s string) string {
		i := strings.Index(s, trailerSession)
		if i < 3 {
			return "!" + s
		}
		return s[:i-3] + "!" + s[i-2:]
	},
	"body line added": func(s string) string {
		i := strings.Index(s, trailerSession)
		return s[:i] + "Added.\n\n" + s[i:]
	},
	"file emptied": func(string) string { return "" },
}

// trailerSession is the first line of the trailer sealedRendering writes.
const trailerSession = "<!-- rodin:session=s-1 -->"

// inTrailer applies f to the trailer only.
func inTrailer(f func(string) string) func(string) string {
	return func(s string) string {
		i := strings.Index(s, trailerSession)
		return s[:i] + f(s[i:])
	}
}

func cutLine(s, prefix string) string {
	i := strings.Index(s, prefix)
	if i < 0 {
		return s
	}
	j := strings.IndexByte(s[i:], '\n')
	return s[:i] + s[i+j+1:]
}

func replaceValue(s, key, value string) string {
	open := "<!-- rodin:" + key + "="
	i := strings.Index(s, open)
	if i < 0 {
		return s
	}
	j := strings.Index(s[i:], " -->")
	return s[:i+len(open)] + value + s[i+j:]
}

// TestSealAgreesWithFullParse: on every plan, sealed and then edited in
// every way above, the shortcut answers as a full parse does; it is taken
// on the untouched file and on edits that leave the body and the digests
// alone, and never on the others.
func TestSealAgreesWithFullParse(t *testing.T) {
	mustSeal := map[string]bool{"unchanged": true, "signal appended": true, "blank lines appended": true,
		"validation to pending": true, "no blank before": true}
	mustNotSeal := map[string]bool{"plan hash changed": true, "gaps hash changed": true, "plan hash bad": true,
		"seal bad": true, "second seal": true, "spaces appended": true, "text appended": true, "unknown key appended": true,
		"gaps end appended": true, "gaps block appended": true, "indented trailer line": true,
		"fence opened before": true, "body byte changed": true, "body line added": true, "file emptied": true}
	rendered := 0
	for _, src := range append(seamSeeds(t), "", "\ufeff", "\ufeff# P\r\n\r\nText\r\n", "\n\n\n") {
		out, ok := sealedRendering(t, src)
		if !ok {
			continue
		}
		rendered++
		if stray := parseFull([]byte(out)).StrayGapsLines(); len(stray) > 0 {
			// A seal attests a gaps block of gap entries only.
			if strings.Contains(out, "\n<!-- rodin:seal=") {
				t.Fatalf("sealed with %s:\n%s", stray[0], out)
			}
			continue
		}
		if !strings.Contains(out, "\n<!-- rodin:seal=") {
			t.Fatalf("a rendering with current digests has no seal:\n%s", out)
		}
		for name, edit := range trailerEdits {
			sealed := checkSealed(t, edit(out))
			if mustSeal[name] && !sealed || mustNotSeal[name] && sealed {
				t.Errorf("%s: shortcut taken = %v\n%q", name, sealed, edit(out))
			}
		}
	}
	if rendered < 10 {
		t.Fatalf("only %d plans rendered", rendered)
	}
}

// TestSealOnlyForCurrentDigests: a trailer that records other digests (a
// pending status whose hashes are older than the plan) gets no seal.
func TestSealOnlyForCurrentDigests(t *testing.T) {
	d := Parse([]byte("# P\n\n## Goals\n- a\n"))
	out, err := d.Render(Trailer{Session: "s", PlanHash: strings.Repeat("0", 64), GapsHash: d.GapsDigest(),
		Validation: Validation{Status: StatusPending, Reason: "r"}.Encode()})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "rodin:seal=") {
		t.Errorf("sealed with a stale plan digest:\n%s", out)
	}
}

// FuzzSeal: a sealed rendering of any plan, with anything appended or
// inserted before its trailer, reads the same with and without the seal.
func FuzzSeal(f *testing.F) {
	for _, s := range seamSeeds(f) {
		f.Add(s, "<!-- rodin:verdict:signal={} -->\n", false)
		f.Add(s, "x", true)
	}
	f.Fuzz(func(t *testing.T, src, extra string, before bool) {
		out, ok := sealedRendering(t, src)
		if !ok {
			return
		}
		if before {
			i := strings.LastIndex(out, "\n\n<!-- rodin:session=")
			if i < 0 {
				return
			}
			out = out[:i+1] + extra + out[i+1:]
		} else {
			out += extra
		}
		checkSealed(t, out)
	})
}

// TestRenderAfterLoneCR: a body ending in a lone CR (old Mac line ends)
// keeps the empty line before the trailer; an LF written after it would
// make one CRLF of the two, and the next rewrite would differ. (Found by
// FuzzParseRender.)
func TestRenderAfterLoneCR(t *testing.T) {
	d := Parse([]byte("# P\r"))
	tr := Trailer{Session: "s", PlanHash: d.PlanDigest(), GapsHash: d.GapsDigest(), Validation: Validation{Status: StatusPending, Reason: "r"}.Encode()}
	out, err := d.Render(tr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "# P\r\r<!-- rodin:session=s -->\n") {
		t.Errorf("rendered %q", out)
	}
	again, err := Parse(out).Render(tr)
	if err != nil || string(again) != string(out) {
		t.Errorf("rendering twice differs: %v\n%q\n%q", err, out, again)
	}
}

// The seal is keyed (seal.go); the tests use a fixed key.
func init() { SetSealKey([]byte("rodin test seal key")) }
