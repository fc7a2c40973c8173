package verifygate

import (
	"slices"
	"testing"
)

// TestChainHeads: a line is cut before a `&&` only where its exit 0 says
// the head's was 0.
func TestChainHeads(t *testing.T) {
	for _, c := range []struct {
		line  string
		heads []string
	}{
		{"go test ./... && git commit -am wip", []string{"go test ./..."}},
		{"a && b && c", []string{"a", "a && b"}},
		{"a&&b", []string{"a"}},
		{"cd web && npm test 2>&1 && sed -i 's/x/y/' t.md", []string{"cd web", "cd web && npm test 2>&1"}},
		{"a | b && c | d", []string{"a | b"}},
		{"a && b 2>&1 >/dev/null", []string{"a"}},
		{"a && b &>log", []string{"a"}},
		{"a && (b; c)", []string{"a"}},
		{"a && $(b; c)", []string{"a"}},
		{"a && echo 'x; y || z &'", []string{"a"}},
		{`a && echo "x; \" y"`, []string{"a"}},
		{"a && echo x#y", []string{"a"}},
		// No cut: what follows could hide the head's failure.
		{"a && b; c", nil},
		{"a && b || true", nil},
		{"a || b && c", []string{"a || b"}}, // (a || b) && c: the head is the whole of it
		{"a && b &", nil},
		{"a && b |& c", nil},
		{"a && b # ; x", nil},
		{"a && b\nc", nil},
		{"a; b && c", []string{"a; b"}}, // a cut head is compared whole: a; b is no check
		// Unbalanced: nothing is cut.
		{`echo "a && b`, nil},
		{"a && (b", nil},
		{"a && b)", nil},
		{`a && b \`, nil},
		{"plain command", nil},
	} {
		if got := chainHeads(c.line); !slices.Equal(got, c.heads) {
			t.Errorf("chainHeads(%q) = %q, want %q", c.line, got, c.heads)
		}
	}
	if !chainedOf("unit-tests 2>&1 && sed x", "unit-tests", true, nil) || chainedOf("unit-tests 2>&1 && sed x", "unit-tests", false, nil) {
		t.Error("chainedOf: a head with 2>&1 is the check only when joinable")
	}
	if chainedOf(`echo "a && b"`, `echo "a`, true, nil) {
		t.Error("chainedOf cut inside quotes")
	}
}

// TestChainedLinks: each link of a clean `&&` line passed when the line did.
func TestChainedLinks(t *testing.T) {
	for _, c := range []struct {
		line, want string
		ok         bool
	}{
		{"sh lint.sh && sh test.sh", "sh lint.sh", true},
		{"sh lint.sh && sh test.sh", "sh test.sh", true},
		{"go vet ./... && go test ./... && git add -A", "go test ./...", true},
		{"a && b 2>&1 && c", "b", true},
		{"a && b; c", "b", false},
		{"a && b || true", "b", false},
		{"a && b &", "b", false},
		{"a && b | tail -1", "b", false},
		{"a && echo 'x && b'", "b", false},
		{"a; b && c", "b", false},
		{"cd sub && b && cd ..", "b", false},
		{"pushd sub && b", "b", false},
		{"b && cd sub && c", "b", true},
		{"b && cd sub && c", "c", false},
		{"exit 0 && b", "b", false},
		{"trap 'exit 0' EXIT && b", "b", false},
		{"b() ( exit 0 ) && b", "b", false},
		{"\\cd sub && b", "b", false},
		{"PATH=/tmp/x:$PATH && b", "b", false},
		{"[[ -n x && b && -n y ]]", "b", false},
		{": ${x:-&& b &&}", "b", false},
		{"a && b && echo $'\\'' || true \\'", "b", false},
		{"sh lint.sh && git add -A && sh test.sh", "sh test.sh", false},
		{"cd web && npm test && sed -i x t.md", "cd web && npm test", true},
	} {
		own := func(l string) bool {
			return l == "sh lint.sh" || l == "go vet ./..." || l == "a" || l == "b" || l == "sh test.sh" || l == "go test ./..."
		}
		if got := chainedOf(c.line, c.want, true, own); got != c.ok {
			t.Errorf("chainedOf(%q, %q) = %v, want %v", c.line, c.want, got, c.ok)
		}
	}
}

// TestSubshell: a call that is one subshell, and nothing else.
func TestSubshell(t *testing.T) {
	for _, c := range []struct {
		line, inner string
		ok          bool
	}{
		{"(cd web && npm test)", "cd web && npm test", true},
		{" ( make check ) ", "make check", true},
		{"(a) && (b)", "", false},
		{"(a); b", "", false},
		{"(echo ')')", "", false},
		{"()", "", false},
		{"a (b)", "", false},
	} {
		inner, ok := subshell(c.line)
		if inner != c.inner || ok != c.ok {
			t.Errorf("subshell(%q) = %q, %v; want %q, %v", c.line, inner, ok, c.inner, c.ok)
		}
	}
}

// TestChainBraces: a brace or `[[` outside `${ }` is not read (attack 63).
func TestChainBraces(t *testing.T) {
	for _, line := range []string{"unit-tests && echo { || echo }", "unit-tests && echo [[ || echo ]]", "printf %s { || true && echo }", "{ a; } && b"} {
		if h := chainHeads(line); h != nil {
			t.Errorf("chainHeads(%q) = %q, want none", line, h)
		}
	}
	if h := chainHeads("a && echo ${x:-y}"); len(h) != 1 || h[0] != "a" {
		t.Errorf("chainHeads with ${ }: %q", h)
	}
}
