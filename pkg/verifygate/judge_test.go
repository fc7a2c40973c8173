package verifygate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
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
