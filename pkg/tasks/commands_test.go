package tasks

import "testing"

func TestPrintsVerdict(t *testing.T) {
	for c, want := range map[string]bool{
		`curl -s localhost/health | grep -q ok && echo "PASS" || echo "FAIL"`: true,
		`unit-tests; echo done`:                 true,
		`unit-tests || true`:                    true,
		`unit-tests || exit 1`:                  false,
		`unit-tests && echo ok`:                 false,
		`unit-tests | tee log.txt`:              false,
		`bash t.sh; test $? -eq 0 && echo PASS`: false,
		`echo "a || echo b" | grep -q x`:        false,
		`unit-tests`:                            false,
		`unit-tests;`:                           false,
	} {
		if got := PrintsVerdict(c); got != want {
			t.Errorf("PrintsVerdict(%q) = %v, want %v", c, got, want)
		}
	}
}

func TestFirstWordEndsWithItsCommand(t *testing.T) {
	for c, want := range map[string]string{
		`unit-tests; echo done`: "unit-tests",
		`A=1 make check&& x`:    "make",
		`"./run tests" -v`:      `"./run`,
		`go test ./...`:         "go",
	} {
		if got := FirstWord(c); got != want {
			t.Errorf("FirstWord(%q) = %q, want %q", c, got, want)
		}
	}
}
