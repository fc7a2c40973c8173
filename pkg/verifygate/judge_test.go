package verifygate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rodin-gate/rodin/pkg/tasks"
)

func TestShellWords(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want []string // nil: not plain words
	}{
		{`rodin verify V1`, []string{"rodin", "verify", "V1"}},
		{`rodin verify V1 "specs/a b/tasks.md"`, []string{"rodin", "verify", "V1", "specs/a b/tasks.md"}},
		{`rodin  verify 'V1' tasks.md`, []string{"rodin", "verify", "V1", "tasks.md"}},
		{`rodin verify 1.24a#1`, []string{"rodin", "verify", "1.24a#1"}},
		{`rodin verify V1 # a comment`, nil},
		{`rodin verify V1; true`, nil},
		{`rodin verify V1 || true`, nil},
		{`rodin verify V1 > /dev/null`, nil},
		{`rodin verify $(echo V1)`, nil},
		{`rodin verify "$ID"`, nil},
		{"rodin verify V1 --timeout\ntrue", nil},
		{`rodin verify V1 "unclosed`, nil},
		{`rodin verify V\1`, nil},
		{`rodin verify V*`, nil},
	} {
		got, ok := shellWords(tc.cmd)
		if !ok {
			got = nil
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("shellWords(%q): (-want +got)\n%s", tc.cmd, diff)
		}
	}
}

func TestEvidential(t *testing.T) {
	for cmd, want := range map[string]bool{
		"go test ./...":           true,
		"  go test ./...\n":       true,
		"go\ttest ./...":          true,
		"go\ntest ./...":          false,
		"go test ./...\r:":        false,
		"go test ./...\x1b[2K":    false,
		"rodin verify V1\x00true": false,
	} {
		if got := Evidential(cmd); got != want {
			t.Errorf("Evidential(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// TestIndexedSnaps: a long file's snaps found by the index are the ones
// the look through the whole baseline finds.
func TestIndexedSnaps(t *testing.T) {
	keys := []string{"V1", "V1#2", "V1#3", "@line7", "@line9", "T001", "T001@line12", "1.1", "1.1#2", "A@lineB#C", "x@line1@line2", "V1"}
	for i := 0; len(keys) < 200; i++ {
		keys = append(keys, fmt.Sprintf("%d.%d", i/10, i%10), fmt.Sprintf("T%03d#%d", i%7, i%3+1))
	}
	var fs []ledger.Snap
	for _, k := range keys {
		fs = append(fs, ledger.Snap{Key: k})
	}
	s := &Session{Baseline: &ledger.Baseline{Files: map[string][]ledger.Snap{"tasks.md": fs}}}
	linear := func(tk tasks.Task) []*ledger.Snap {
		for i := range fs {
			if fs[i].Key == tk.Key() {
				return []*ledger.Snap{&fs[i]}
			}
		}
		var out []*ledger.Snap
		for i := range fs {
			if id, _, _ := strings.Cut(fs[i].Key, "#"); id == tk.ID || strings.HasPrefix(fs[i].Key, tk.ID+"@line") {
				out = append(out, &fs[i])
			}
		}
		return out
	}
	for _, tk := range []tasks.Task{
		{ID: "V1", Ref: "V1"}, {ID: "V1", Ref: "V1#4"}, {ID: "", Ref: "@line8"}, {ID: "T001", Ref: "T001#9"},
		{ID: "A", Ref: "A#1"}, {ID: "A@lineB", Ref: "zz"}, {ID: "x", Ref: "x#9"}, {ID: "x@line1", Ref: "q"},
		{ID: "3.4", Ref: "3.4"}, {ID: "T003", Ref: "T003#7"}, {ID: "none", Ref: "none"},
	} {
		got, want := s.snaps("tasks.md", tk), linear(tk)
		if len(got) != len(want) {
			t.Fatalf("%+v: %d snaps by the index, %d by the look", tk, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%+v: snap %d differs: %q against %q", tk, i, got[i].Key, want[i].Key)
			}
		}
	}
}

// TestDetaches: a command that can leave a process running after it
// returns, and commands that cannot.
func TestDetaches(t *testing.T) {
	for c, want := range map[string]bool{
		"(sleep 2; sed -i s/a/b/ x.go) >/dev/null 2>&1 &": true,
		"npm run dev &":                    true,
		"nohup ./server":                   true,
		"setsid sh -c 'sleep 4; sed -i x'": true,
		"make & make test":                 true,
		"go test ./... 2>&1 | tail -5":     false,
		"a && b || c":                      false,
		"cmd &> out.log":                   false,
		"echo 'a & b'":                     true, // in quotes, a word after: a false alarm, a walk
		`echo "x \" & y"`:                  true,
		"grep -n screenshot docs/":         false,
		"echo a\\&b":                       false,
		"exec 3<&0":                        false,
		`echo "started $( (sleep 2; sed -i x y) >/dev/null 2>&1 & )"`: true,
		"bash -c '(sleep 2; sed -i x y) >/dev/null 2>&1 &'":           true,
		`eval "(sleep 2; sed -i x y) >/dev/null 2>&1 &"`:              true,
		"coproc { sleep 2; sed -i x y; } >/dev/null 2>&1":             true,
		"/usr/bin/setsid -f sh -c 'sleep 2'":                          true,
		`\setsid -f sh -c 'sleep 2'`:                                  true,
		"docker compose up -d":                                        true,
		"curl -s 'http://localhost:3000/api?a=1&b=2'":                 false,
		`grep -n "&amp;" index.html`:                                  false,
		`: <(sleep 2; sed -i s/a/b/ x.go)`:                            true,
		`echo hi > >(sleep 2; sed -i s/a/b/ x.go)`:                    true,
		`"setsid" -f sh -c 'sleep 2'`:                                 true,
		"bash -c 'nohup ./server'":                                    true,
		`git commit -m "fix the crash at startup in batch mode"`:      false,
		"": false,
	} {
		if got := detaches(c); got != want {
			t.Errorf("detaches(%q) = %v, want %v", c, got, want)
		}
	}
}
