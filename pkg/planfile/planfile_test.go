package planfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The vectors of SPEC section 3, computed with the original shell pipeline.
func TestSpecVectors(t *testing.T) {
	d := Parse([]byte("# P\n\n## Goals\n- a\n\n<!-- rodin:gaps:start -->\n<!-- rodin:gaps:end -->\n\n\n"))
	if got, want := d.PlanDigest(), "6c898f90288e8eb48d7e29e7985b81b96956ff7400056858df7faa38d29b919c"; got != want {
		t.Errorf("plan digest = %s, want %s", got, want)
	}
	if got, want := d.GapsDigest(), "01ba4719c80b6fe911b091a7c05124b64eeece964e09c058ef8f9805daca546b"; got != want {
		t.Errorf("gaps digest = %s, want %s", got, want)
	}
	if got := Digest(nil); got != d.GapsDigest() {
		t.Errorf("Digest(empty) = %s, want the empty gaps digest", got)
	}
	// Digest strips every trailing newline and adds one.
	if Digest([]byte("a")) != Digest([]byte("a\n\n\n")) {
		t.Error("Digest must ignore trailing newlines")
	}
}

// summary is what a parse tells the hooks.
type summary struct {
	Plan, Gaps string
	Trailer    Trailer
	Signals    []string
	Problems   []string
	GapsBlock  bool
}

func summarize(d *Doc) summary {
	return summary{
		Plan:      string(d.PlanContent()),
		Gaps:      string(d.GapsContent()),
		Trailer:   d.Trailer(),
		Signals:   d.Signals(),
		Problems:  d.Problems(),
		GapsBlock: d.HasGapsBlock(),
	}
}

const (
	hashA = "aab29ec4a82a164761d6cad27395deb3b214e85e05e828df96d0a2e578d8e205"
	hashE = "01ba4719c80b6fe911b091a7c05124b64eeece964e09c058ef8f9805daca546b"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want summary
	}{{
		name: "empty",
		in:   "",
		want: summary{Plan: ""},
	}, {
		name: "gaps block and trailer",
		in: "# P\n<!-- rodin:gaps:start -->\n### GAP-1: a\n<!-- rodin:gaps:end -->\n\n" +
			"<!-- rodin:session=s-1 -->\n<!-- rodin:plan:hash=" + hashA + " -->\n<!-- rodin:gaps:hash=" + hashE + " -->\n" +
			`<!-- rodin:validation={"status":"pass","reason":"r","ts":"t","x":[1]} -->` + "\n",
		want: summary{
			Plan:      "# P\n\n",
			Gaps:      "### GAP-1: a\n",
			Trailer:   Trailer{Session: "s-1", PlanHash: hashA, GapsHash: hashE, Validation: `{"status":"pass","reason":"r","ts":"t","x":[1]}`},
			GapsBlock: true,
		},
	}, {
		name: "surrounding spaces and a paragraph before",
		in:   "text\n  <!-- rodin:session=s-1 -->  \n",
		want: summary{Plan: "text\n", Trailer: Trailer{Session: "s-1"}},
	}, {
		name: "markers in code and inline are text",
		in:   "```\n<!-- rodin:session=a -->\n```\n\n    <!-- rodin:session=b -->\n\nx <!-- rodin:session=c -->\n",
		want: summary{Plan: "```\n<!-- rodin:session=a -->\n```\n\n    <!-- rodin:session=b -->\n\nx <!-- rodin:session=c -->\n"},
	}, {
		name: "unknown keys: malformed outside the gaps, gaps text inside",
		in:   "a\n<!-- rodin:future=1 -->\n<!-- rodin:gaps:start -->\n<!-- rodin:note -->\n<!-- rodin:gaps:end -->\n",
		want: summary{Plan: "a\n", Gaps: "<!-- rodin:note -->\n", GapsBlock: true, Problems: []string{
			"line 2: an unknown `rodin:future` line: it would carry text past the digests; delete it, or write it without `<!-- rodin:`",
		}},
	}, {
		name: "run records of rodin 0.1 are malformed",
		in:   "a\n<!-- rodin:critic={} -->\n<!-- rodin:validator={} -->\n",
		want: summary{Plan: "a\n", Problems: []string{
			"line 2: a `rodin:critic` line: rodin no longer keeps run records in the plan file (they are kept where the agent's tools do not write); delete the line",
			"line 3: a `rodin:validator` line: rodin no longer keeps run records in the plan file (they are kept where the agent's tools do not write); delete the line",
		}},
	}, {
		name: "marker in a list item's HTML block counts",
		in:   "- item\n\n  <!-- rodin:session=s-1 -->\n",
		want: summary{Plan: "- item\n\n", Trailer: Trailer{Session: "s-1"}},
	}, {
		name: "signals are collected, not judged",
		in:   "a\n<!-- rodin:verdict:signal={} -->\n<!-- rodin:verdict:signal=nope -->\n",
		want: summary{Plan: "a\n", Signals: []string{"{}", "nope"}},
	}, {
		name: "CRLF, lone CR and BOM",
		in:   "\ufeff# P\r\n\r\n- a\r- b\r\n<!-- rodin:session=s-1 -->\r\n",
		want: summary{Plan: "# P\n\n- a\n- b\n", Trailer: Trailer{Session: "s-1"}},
	}, {
		name: "malformed: every kind at once, in line order",
		in: "<!-- rodin:gaps:end -->\n<!-- rodin:gaps:start=x -->\n<!-- rodin:gaps:start -->\n<!-- rodin:gaps:end -->\n" +
			"<!-- rodin:gaps:start -->\n" +
			"<!-- rodin:session -->\n<!-- rodin:plan:hash=abc -->\n<!-- rodin:session=a b -->\n" +
			`<!-- rodin:validation=[] -->` + "\n" + `<!-- rodin:x="-->" -->` + "\n" +
			"<!-- rodin:session=s1 -->\n<!-- rodin:session=s2 -->\n",
		want: summary{
			Plan:    "",
			Trailer: Trailer{Session: "s1"},
			Problems: []string{
				"line 1: `<!-- rodin:gaps:end -->` without a matching `<!-- rodin:gaps:start -->`",
				"line 2: `<!-- rodin:gaps:start -->` takes no value",
				"line 3: gaps block opened again before `<!-- rodin:gaps:end -->` (blocks cannot nest)",
				"line 5: a second gaps block (only one is allowed)",
				"line 6: `<!-- rodin:session -->` needs a value after `=`",
				"line 7: the plan:hash is not 64 lowercase hex digits",
				"line 8: the session id \"a b\" is not valid",
				"line 9: the validation value is not valid: it is not a JSON object",
				"line 10: a rodin metadata line must be exactly one comment, `<!-- rodin:key=value -->`",
				"line 12: a second `rodin:session` line (each may appear once)",
			},
		},
	}, {
		name: "unclosed block: one problem, the metadata after it still read",
		in:   "<!-- rodin:gaps:start -->\n### GAP-1\n<!-- rodin:session=s-1 -->\n",
		want: summary{
			Gaps:     "",
			Plan:     "### GAP-1\n",
			Trailer:  Trailer{Session: "s-1"},
			Problems: []string{"line 1: the gaps block is not closed: add `<!-- rodin:gaps:end -->` after the last gap"},
		},
	}, {
		name: "metadata inside the gaps block",
		in:   "<!-- rodin:gaps:start -->\n<!-- rodin:session=s-1 -->\n<!-- rodin:gaps:end -->\n",
		want: summary{
			Gaps:      "<!-- rodin:session=s-1 -->\n",
			GapsBlock: true,
			Problems:  []string{"line 2: a `rodin:session` line inside the gaps block; metadata belongs at the end of the file"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summarize(Parse([]byte(tt.in)))
			if tt.want.Signals == nil {
				tt.want.Signals = []string{}
			}
			if tt.want.Problems == nil {
				tt.want.Problems = []string{}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func readPlans(t testing.TB) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "plans", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no plan fixtures: %v", err)
	}
	plans := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		plans[filepath.Base(f)] = b
	}
	return plans
}

// Rendering a trailer keeps every byte outside the managed metadata, reads
// back as written, and is idempotent; the same in CRLF and with a BOM.
func TestRenderRoundTrip(t *testing.T) {
	tr := Trailer{Session: "s-1", PlanHash: hashA, GapsHash: hashE,
		Validation: Validation{Status: StatusFail, Reason: `a --> b <!-- c & "d"`, TS: "2026-11-21T12:00:00Z"}.Encode()}
	for name, plan := range readPlans(t) {
		for _, variant := range []struct {
			name string
			src  []byte
		}{
			{"lf", plan},
			{"crlf", []byte(strings.ReplaceAll(string(plan), "\n", "\r\n"))},
			{"bom", append([]byte("\ufeff"), plan...)},
		} {
			t.Run(name+"/"+variant.name, func(t *testing.T) {
				d := Parse(variant.src)
				out, err := d.Render(tr)
				if err != nil {
					t.Fatal(err)
				}
				back := Parse(out)
				if diff := cmp.Diff(tr, back.Trailer()); diff != "" {
					t.Errorf("trailer mismatch (-want +got):\n%s", diff)
				}
				// Byte for byte up to trailing newlines, which the digests
				// ignore: the trailer comes after one blank line.
				trim := func(b []byte) string { return strings.TrimRight(string(b), "\n") }
				if diff := cmp.Diff(trim(d.PlanContent()), trim(back.PlanContent())); diff != "" {
					t.Errorf("plan content changed (-before +after):\n%s", diff)
				}
				if diff := cmp.Diff(trim(d.GapsContent()), trim(back.GapsContent())); diff != "" {
					t.Errorf("gaps content changed (-before +after):\n%s", diff)
				}
				again, err := back.Render(tr)
				if err != nil {
					t.Fatal(err)
				}
				if string(again) != string(out) {
					t.Errorf("render is not idempotent:\n%q\n%q", out, again)
				}
				if variant.name == "crlf" && strings.Contains(strings.ReplaceAll(string(out), "\r\n", ""), "\n") {
					t.Errorf("CRLF file got LF lines:\n%q", out)
				}
				if variant.name == "bom" && !strings.HasPrefix(string(out), "\ufeff") {
					t.Error("BOM lost")
				}
			})
		}
	}
}

// The body is copied byte for byte: only managed lines move, and trailing
// empty lines before them are dropped.
func TestRenderKeepsBody(t *testing.T) {
	in := "# P\n<!-- rodin:session=old -->\n  odd   spacing\t\n<!-- a comment -->\n<!-- rodin:verdict:signal={} -->\n\n\n"
	out, err := Parse([]byte(in)).Render(Trailer{Session: "new"})
	if err != nil {
		t.Fatal(err)
	}
	want := "# P\n  odd   spacing\t\n<!-- a comment -->\n\n<!-- rodin:session=new -->\n"
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestRenderRefusesWhatWouldNotReadBack(t *testing.T) {
	for name, in := range map[string]string{
		"open fence":         "# P\n```\ncode\n",
		"open indented list": "# P\n\n    <!-- code -->",
	} {
		t.Run(name, func(t *testing.T) {
			out, err := Parse([]byte(in)).Render(Trailer{Session: "s"})
			if name == "open fence" && err == nil {
				t.Fatalf("Render = %q, want an error", out)
			}
			if err == nil && Parse(out).Trailer().Session != "s" {
				t.Fatalf("Render wrote metadata that does not read back: %q", out)
			}
		})
	}
	if _, err := Parse([]byte("<!-- rodin:gaps:end -->\n")).Render(Trailer{Session: "s"}); err == nil {
		t.Error("Render of a malformed file must fail")
	}
}

func TestEncodeEscapes(t *testing.T) {
	got := Validation{Status: "fail", Reason: "a --> b <!-- \"q\" \\ & \n\u2028\xff", TS: "t"}.Encode()
	want := `{"status":"fail","reason":"a --\u003e b \u003c!-- \"q\" \\ \u0026 \n\u2028\ufffd","ts":"t"}`
	if got != want {
		t.Errorf("Encode =\n%s\nwant\n%s", got, want)
	}
	v, err := ParseValidation(got)
	if err != nil {
		t.Fatal(err)
	}
	if v.Reason != "a --> b <!-- \"q\" \\ & \n\u2028\ufffd" {
		t.Errorf("round trip reason = %q", v.Reason)
	}
}

func TestParseVerdict(t *testing.T) {
	for raw, wantErr := range map[string]string{
		`{"status":"pass","reason":"ok"}`:  "",
		`{"status":"fail"}`:                "",
		`{"status":"pending","reason":""}`: `status is "pending"; it must be "pass" or "fail"`,
		`{"reason":"x"}`:                   `it has no "status" field`,
		`{"status":"pass","reason":3}`:     `its "reason" field is not a string`,
		`["pass"]`:                         "it is not a JSON object",
		`{"status":"pass"`:                 "it is not valid JSON",
	} {
		_, err := ParseVerdict(raw)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != wantErr {
			t.Errorf("ParseVerdict(%s) error = %q, want %q", raw, got, wantErr)
		}
	}
}

// Headings and list items survive the emptied paragraphs: ATX and setext
// headings, and entries whose items are in tight and loose lists.
func TestHeadingsAndItems(t *testing.T) {
	d := Parse([]byte("Goals\n-----\n\n<!-- rodin:gaps:start -->\n### GAP-3: Tight\n- **Severity**: low\n- **Description**: a\n\n" +
		"### GAP-4: Loose\n\n- **Severity**: high\n\n- **Description**: b\n  more\n<!-- rodin:gaps:end -->\n"))
	if !d.HasHeading(2, "Goals") {
		t.Error("setext heading Goals not found")
	}
	entries, problems := d.Entries("GAP", true)
	want := []Entry{
		{ID: 3, Title: "Tight", Severity: "low", Description: "a", Line: 5},
		{ID: 4, Title: "Loose", Severity: "high", Description: "b", Line: 9},
	}
	if diff := cmp.Diff(want, entries); diff != "" || len(problems) > 0 {
		t.Errorf("entries (-want +got):\n%s\nproblems: %v", diff, problems)
	}
}

func TestProblemSummary(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 5; i++ {
		b.WriteString("<!-- rodin:gaps:end -->\n")
	}
	got := Parse([]byte(b.String())).ProblemSummary()
	want := "line 1: `<!-- rodin:gaps:end -->` without a matching `<!-- rodin:gaps:start -->`; line 2: `<!-- rodin:gaps:end -->` without a matching `<!-- rodin:gaps:start -->`; line 3: `<!-- rodin:gaps:end -->` without a matching `<!-- rodin:gaps:start -->`; and 2 more (`rodin check` lists them all)"
	if got != want {
		t.Errorf("ProblemSummary =\n%s\nwant\n%s", got, want)
	}
}
