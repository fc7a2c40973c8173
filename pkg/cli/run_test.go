package cli

import (
	"slices"
	"testing"
)

// The variables that change what a check's shell line does before it runs
// are not passed on to it (attacks 68 and 70).
func TestCheckEnv(t *testing.T) {
	in := []string{"PATH=/bin", "CDPATH=/x", "BASH_ENV=/x/e", "ENV=/x/e", "SHELLOPTS=xtrace", "BASHOPTS=extglob",
		"PS4=${CDPATH=/x}", "GLOBIGNORE=*", "IFS=/", "BASH_XTRACEFD=3", "PROMPT_COMMAND=cd /x", "BASH_FUNC_cd%%=() { :; }", "HOME=/h"}
	got := checkEnv(in)
	if want := []string{"PATH=/bin", "HOME=/h"}; !slices.Equal(got, want) {
		t.Errorf("checkEnv = %q, want %q", got, want)
	}
}
