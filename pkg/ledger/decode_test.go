package ledger

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The records as rodin writes them, and shapes around them: decodeRun and
// decodeBaseline agree with encoding/json on each (the same value, or both
// refuse it; they also refuse a key twice, which encoding/json takes).
var runLines = []string{
	`{"t":1795650000000000000,"k":"bash","cmd":"true \u0026\u0026 echo ok","exit":0,"cwd":"/p","tu":"toolu_1","dur":5}`,
	`{"t":1,"k":"qa","exit":0,"psum":"ab","pass":true,"tail":"VERIFICATION_PASS","resumed":true,"big":true,"agent":"a1","at":"w","bg":"b1","sid":"s"}`,
	`{"t":1,"k":"bash","exit":-2,"bg":"b1","dur":-1,"extra":[1,2,{"x":null}]}`,
	`{"t":null,"k":null,"exit":null,"pass":null}`,
	`{"t":"1","k":"bash"}`, `{"t":1.5,"k":"bash"}`, `{"t":1e3}`, `{"t":99999999999999999999}`,
	`{"k":1}`, `{"pass":"yes"}`, `[1]`, `"x"`, `{"t":1,"k":"bash"`, `{}`, `null`,
}

func TestDecodeRunAsJSON(t *testing.T) {
	for _, l := range runLines {
		checkRun(t, []byte(l))
	}
}

func checkRun(t *testing.T, l []byte) {
	t.Helper()
	var want Run
	err := json.Unmarshal(l, &want)
	got, ok := decodeRun(l)
	if hasDup(l) || lineHasFoldedKey(l) || !utf8.Valid(l) {
		if ok {
			t.Errorf("%s: a key twice, or one in another case, was decoded", l)
		}
		return
	}
	if ok != (err == nil) || ok && !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n decodeRun %+v %v\n json      %+v %v", l, got, ok, want, err)
	}
}

func hasDup(l []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(l, &m) != nil {
		return false
	}
	var keys []string
	dec := json.NewDecoder(jsonReader(l))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return false
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return len(keys) != len(m)
}

// lineHasFoldedKey reports whether a line has a key that is one of a Run's in
// another case (encoding/json matches it; rodin writes none).
func lineHasFoldedKey(l []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(l, &m) != nil {
		return false
	}
	for k := range m {
		if foldsToRunKey(k) && !slices.Contains(runKeys, k) {
			return true
		}
	}
	return false
}

var baselineDocs = []string{
	`{"t":1795650000000000000,"root":"/p","config":{"taskFiles":["**/tasks.md"],"ignore":["**/progress.md"]},"files":{"tasks.md":[{"key":"V1","checked":true,"verify":true,"ac":true,"commands":["go test ./..."],"sources":["Verify line"]},{"key":"1.1"}],"empty.md":null},"quality":{"tasks.md":["make lint"]}}`,
	`{"t":1,"root":"/p","config":null,"files":{}}`,
	`{"t":1,"root":"/p","files":{"a":[{"key":1}]}}`, `{"t":1,"files":[]}`, `{"t":"x"}`, `{"t":1,"quality":{"a":"x"}}`,
	`{"t":1,"files":{"a":[{"commands":[1]}]}}`, `{"t":1,"files":{"a":[{"key":"V1","key":"V2"}]}}`, `[]`, `{`,
	`{"t":1,"root":"/p","files":{"a":[{"key":"V3","verify":true,"manual":true}]}}`, `{"t":1,"files":{"a":[{"key":"V3","manual":"yes"}]}}`,
	`{"t":1,"files":{"a":[{"key":"V3","Manual":true}]}}`,
	`{"t":1,"files":{"a":[{"key":"Step#2","verify":true,"commands":["make"],"title":"2: [VERIFY] build"}]}}`,
	`{"t":1,"files":{"a":[{"key":"Step#2","title":3}]}}`, `{"t":1,"files":{"a":[{"key":"Step#2","Title":"x"}]}}`,
	`{"t":1,"files":{"s/tasks.md":[]},"dirs":{"s/tasks.md":{},"p/a/tasks.md":{"npm test":"p/a","make lint":"."},"x":null}}`,
	`{"t":1,"dirs":[]}`, `{"t":1,"dirs":{"a":[]}}`, `{"t":1,"dirs":{"a":{"x":1}}}`, `{"t":1,"Dirs":{}}`, `{"t":1,"dirs":{"a":{"x":"1","x":"2"}}}`,
}

func TestDecodeBaselineAsJSON(t *testing.T) {
	for _, d := range baselineDocs {
		checkBaseline(t, []byte(d))
	}
}

func checkBaseline(t *testing.T, d []byte) {
	t.Helper()
	var want Baseline
	err := json.Unmarshal(d, &want)
	got, ok := decodeBaseline(d)
	if err == nil && !ok {
		// decodeBaseline also refuses a key twice at any depth.
		return
	}
	if ok != (err == nil) {
		t.Errorf("%s: decodeBaseline ok=%v, json err=%v", d, ok, err)
		return
	}
	if ok && (got.Time != want.Time || got.Root != want.Root || string(got.Config) != string(want.Config) && !(len(got.Config) == 0 && string(want.Config) == "null") || !reflect.DeepEqual(got.Files, want.Files) || !reflect.DeepEqual(got.Quality, want.Quality) || !reflect.DeepEqual(got.Dirs, want.Dirs)) {
		t.Errorf("%s:\n decodeBaseline %+v\n json           %+v", d, got, want)
	}
}

func FuzzDecodeRun(f *testing.F) {
	for _, l := range runLines {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, l []byte) { checkRun(t, l) })
}

func FuzzDecodeBaseline(f *testing.F) {
	for _, d := range baselineDocs {
		f.Add([]byte(d))
	}
	f.Fuzz(func(t *testing.T, d []byte) { checkBaseline(t, d) })
}

func jsonReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// FuzzDecodeRunFast holds the one-pass reader of rodin's own lines to
// decodeRun: whatever it accepts, decodeRun accepts and reads alike, and it
// accepts every line marshalRun writes.
func FuzzDecodeRunFast(f *testing.F) {
	for _, l := range runLines {
		f.Add([]byte(l))
	}
	f.Add(marshalRun(Run{Time: -3, Kind: "bash", Command: "a \"b\" \\ <x> & \u2028 é \x01 \xff", Exit: 2, Cwd: "/p", Agent: "a", Type: "t", Tool: "tu", Dur: 7, Bg: "b", Session: "s", PromptSum: "p", Pass: true, Tail: "line\nline\t\r\b\f", Resumed: true, Oversize: true}))
	f.Add([]byte(`{"t":1,"k":"bash","exit":0,"cmd":"x"}`))
	f.Add([]byte(`{"t":01,"k":"bash","exit":0}`))
	f.Add([]byte(`{"t":1,"k":"a\ud83d\ude00","exit":0}`))
	f.Add([]byte(`{"t":1,"k":"a\/\u00e9","exit":0}`))
	f.Fuzz(func(t *testing.T, l []byte) {
		got, ok := decodeRunFast(l)
		want, wantOK := decodeRun(l)
		if ok && (!wantOK || !reflect.DeepEqual(got, want)) {
			t.Errorf("%q:\n fast      %+v\n decodeRun %+v %v", l, got, want, wantOK)
		}
		// Any run, as marshalRun writes it, takes the fast path.
		var r Run
		if json.Unmarshal(l, &r) == nil {
			line := marshalRun(r)
			got, ok := decodeRunFast(line)
			want, wantOK := decodeRun(line)
			if !ok || !wantOK || !reflect.DeepEqual(got, want) {
				t.Errorf("%q written as %q:\n fast      %+v %v\n decodeRun %+v %v", l, line, got, ok, want, wantOK)
			}
		}
	})
}

// TestReadRunsWholeAsStreamed: a log read whole in one call gives the runs
// and the damage count the streamed reading gives, on logs as crashes,
// full disks and hostile writers leave them.
func TestReadRunsWholeAsStreamed(t *testing.T) {
	good := func(i int) string {
		return string(marshalRun(Run{Time: int64(i), Kind: KindBash, Command: "go test ./...", Exit: i % 2, Cwd: "/p", Tool: "toolu_" + strconv.Itoa(i), Tail: strings.Repeat("out\n", i)}))
	}
	logs := map[string]string{
		"empty":            "",
		"clean":            good(1) + "\n" + good(2) + "\n",
		"no final newline": good(1) + "\n" + good(2),
		"torn last line":   good(1) + "\n" + good(2)[:30],
		"damage between":   good(1) + "\n{\"t\":\n" + good(3) + "\n",
		"blank lines, CR":  "\n\n" + good(1) + "\r\n\n" + good(2) + "\n  \n",
		"overlong line":    good(1) + "\n{\"t\":1,\"k\":\"bash\",\"cmd\":\"" + strings.Repeat("x", MaxRecord) + "\",\"exit\":0}\n" + good(2) + "\n",
		"overlong blank":   good(1) + "\n" + strings.Repeat(" ", MaxRecord+10) + "\n" + good(2) + "\n",
		"other kind":       good(1) + "\n{\"t\":1,\"k\":\"nope\",\"exit\":0}\n" + good(2) + "\n",
		"not a record":     "null\n" + good(1) + "\n",
	}
	var many strings.Builder
	for i := 0; i < 3000; i++ {
		many.WriteString(good(i%50) + "\n")
	}
	logs["many"] = many.String()
	defer func(w int64) { wholeLog = w }(wholeLog)
	for name, log := range logs {
		p := filepath.Join(t.TempDir(), "log.jsonl")
		os.WriteFile(p, []byte(log), 0o600)
		wholeLog = 4 * MaxLog
		runs, skipped, err := readRuns(p)
		wholeLog = -1
		sRuns, sSkipped, sErr := readRuns(p)
		if err != nil || sErr != nil || skipped != sSkipped || len(runs) != len(sRuns) || len(runs) > 0 && !reflect.DeepEqual(runs, sRuns) {
			t.Errorf("%s: whole %d runs, %d skipped, %v; streamed %d runs, %d skipped, %v", name, len(runs), skipped, err, len(sRuns), sSkipped, sErr)
		}
	}
}

// TestEveryKindRead: a log holding a record of every kind rodin writes (each
// Kind constant of this package, found in its source) reads whole. A kind
// missing from knownKind was read as damage, and every record before it was
// dropped: an unclaim dropped the claims that justified earlier ticks.
func TestEveryKindRead(t *testing.T) {
	fset := token.NewFileSet()
	names, _ := filepath.Glob("*.go")
	var kinds []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		{
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.CONST {
					continue
				}
				for _, sp := range g.Specs {
					vs := sp.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && strings.HasPrefix(n.Name, "Kind") && lit.Kind == token.STRING {
							kinds = append(kinds, strings.Trim(lit.Value, `"`))
						}
					}
				}
			}
		}
	}
	if len(kinds) < 8 {
		t.Fatalf("found %d kinds in the source: %v", len(kinds), kinds)
	}
	data := t.TempDir()
	for i, k := range kinds {
		if err := Append(data, "s", Run{Time: int64(i + 1), Kind: k, Command: "c", Cwd: "/p"}); err != nil {
			t.Fatal(err)
		}
	}
	runs, skipped, err := Runs(data, "s")
	if err != nil || skipped != 0 || len(runs) != len(kinds) {
		t.Fatalf("a log of every kind %v read %d runs, %d skipped, %v", kinds, len(runs), skipped, err)
	}
}
