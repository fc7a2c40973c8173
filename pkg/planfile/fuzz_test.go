package planfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func addPlanSeeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "plans", "*.md"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), "All findings covered")
	}
	f.Add("", "")
	f.Add("<!-- rodin:gaps:start -->\n```\n<!-- rodin:gaps:end -->\n", "--> <!--")
	f.Add("# P\r\n<!-- rodin:session=a -->\r\n\ufeff", "\u2028\x00")
	f.Add("- a\n\n  <!-- rodin:validation={\"status\":\"pass\"} -->\n> <!-- rodin:session=b -->\n", "&<>")
	f.Add("<pre>\n<!-- rodin:session=c -->\n", "x")
}

// FuzzParseRender: the parser never panics; for a well-formed file, a
// rewrite keeps the plan and gaps content (up to trailing newlines), the
// trailer written reads back exactly, whatever the reason says (no value
// can open or close a comment or add a metadata line), and rendering twice
// equals rendering once.
func FuzzParseRender(f *testing.F) {
	addPlanSeeds(f)
	f.Fuzz(func(t *testing.T, src, reason string) {
		d := Parse([]byte(src))
		_ = d.Problems()
		_ = d.ProblemSummary()
		_, _ = d.Entries("GAP", true)
		_ = d.NextID("GAP", true)
		_ = d.HasHeading(2, "Goals")
		plan, gaps := d.PlanDigest(), d.GapsDigest()
		if Digest(d.PlanContent()) != plan || Digest(d.GapsContent()) != gaps {
			t.Fatalf("streamed digests differ from the content's")
		}
		if d.Malformed() {
			if _, err := d.Render(Trailer{Session: "s"}); err == nil {
				t.Fatal("a malformed file rendered")
			}
			return
		}
		tr := Trailer{Session: "s-1", PlanHash: plan, GapsHash: gaps,
			Validation: Validation{Status: StatusFail, Reason: reason, TS: "2026-11-21T12:00:00Z"}.Encode()}
		out, err := d.Render(tr)
		if err != nil {
			return // refused, e.g. the file ends inside an open block: nothing written
		}
		back := Parse(out)
		if back.Malformed() || back.Trailer() != tr {
			t.Fatalf("the trailer did not read back: %v\n%q", back.Problems(), out)
		}
		v, err := ParseValidation(back.Trailer().Validation)
		if err != nil || v.Reason != string([]rune(reason)) {
			t.Fatalf("reason %q read back as %q (%v)", reason, v.Reason, err)
		}
		trim := func(b []byte) string { return strings.TrimRight(string(b), "\n") }
		if trim(back.PlanContent()) != trim(d.PlanContent()) || trim(back.GapsContent()) != trim(d.GapsContent()) {
			t.Fatalf("plan or gaps content changed:\n%q\n%q", src, out)
		}
		again, err := back.Render(tr)
		if err != nil || string(again) != string(out) {
			t.Fatalf("rendering twice differs: %v\n%q\n%q", err, out, again)
		}
	})
}

// FuzzEncode: an encoded value is one line of valid JSON that cannot end or
// open an HTML comment, and decodes to the text it was given.
func FuzzEncode(f *testing.F) {
	f.Add("All findings covered", "pass")
	f.Add("a --> b <!-- c & d\n\r\t\"\\", "fail")
	f.Add("\xff\xfe\u2028\u2029\x00", "pass")
	f.Fuzz(func(t *testing.T, reason, status string) {
		enc := Verdict{Status: status, Reason: reason}.Encode()
		if strings.ContainsAny(enc, "<>&\n\r") || !utf8.ValidString(enc) {
			t.Fatalf("unsafe encoding %q", enc)
		}
		obj, err := object(enc)
		if err != nil {
			t.Fatalf("invalid JSON %q: %v", enc, err)
		}
		if got := obj.Get("reason").String(); got != string([]rune(reason)) {
			t.Fatalf("reason %q decoded as %q", reason, got)
		}
	})
}
