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

func TestPrintsVerdictForms(t *testing.T) {
	for c, want := range map[string]bool{
		`if make test; then echo PASS; else echo FAIL; fi`: true,
		`make test || { echo FAIL; }`:                      true,
		`make test || (echo FAIL)`:                         true,
		`make test || exit 0`:                              true,
		`make test; exit 0`:                                true,
		`make test; cat out.log`:                           true,
		`make test && echo PASS || echo FAIL && true`:      true,
		`make test; (echo done)`:                           true,
		"make test\nSTATUS=$?\necho \"status $STATUS\"":    true,
		`make test &`:                                      true,
		`make lint; make test`:                             true,
		`make test || exit 1`:                              false,
		`make test && make lint`:                           false,
		`make test 2>&1 | tee log`:                         false,
		`bash t.sh; test $? -eq 0 && echo PASS`:            false,
		`grep -rn x src/; test $? -eq 1`:                   false,
		`cd web && { grep -rn x src/; test $? -eq 1; }`:    false,
		`{ grep -rn x src/; test $? -le 1; } | wc -l`:      false,
		"set -e\nmake lint\nmake test":                     false,
		`make test; exit $?`:                               false,
		`a | sh t.sh; E1=$?; b | sh t.sh; E2=$?; test $E1 -eq 0 && test $E2 -eq 2 && echo PASS`: false,
		`echo hi`: false,
		// Attack 65: what follows || answers the failure.
		`make test || tail -n 50 test.log`:        true,
		`make test || grep FAIL test.log`:         true,
		`make test || (cat log)`:                  true,
		`make test || echo FAIL | tee -a ci.log`:  true,
		`make test || exit "0"`:                   true,
		`make test || command true`:               true,
		`cd src && make test || cd ..`:            true,
		"set -e\nmake test && echo ok\necho done": true,
		"set -e\nset +e\nmake test\necho done":    true,
		`bash -c 'make test || echo FAILED'`:      true,
		`sh -c "make test; echo done"`:            true,
		`eval "make test || true"`:                true,
		`make test # don't stop`:                  false,
		`make test; echo it's done`:               true,
		`find . -name '*.t' -exec prove {} \;`:    true,
		`echo "$(make test)"`:                     true,
		"cd web\nunit-tests":                      false,
		"export CI=1\nunit-tests --all":           false,
		`unit-tests |& tee log`:                   false,
		`unit-tests & wait $!`:                    false,
		`time make test`:                          false,
		`out=$(make test)`:                        false,
		// Attack 66: a status read that says nothing, set-up words that
		// run the check, inline scripts behind wrappers, substitutions.
		`make test; test $?`:                    true,
		`make test; [ "$?" ]`:                   true,
		`make test; exit ${STATUS:-0}`:          true,
		`X=0; make test; exit $X`:               true,
		`make test; exit "$((0))"`:              true,
		`make test & wait`:                      true,
		`make test; wait $!`:                    true,
		`export RESULT=$(make test)`:            true,
		`set -- $(make test)`:                   true,
		`trap 'exit 0' EXIT; make test`:         true,
		`bash -ec 'make test || true'`:          true,
		`timeout 300 sh -c 'make test || true'`: true,
		`env CI=1 sh -c 'make test; true'`:      true,
		`cat <(make test)`:                      true,
		`make test; S=$?; exit $S`:              false,
		`timeout 300 make test`:                 false,
		`bash -ec 'make lint && make test'`:     false,
		`NODE_ENV=test npm test -- --run 2>&1`:  false,
	} {
		if got := PrintsVerdict(c); got != want {
			t.Errorf("PrintsVerdict(%q) = %v, want %v", c, got, want)
		}
	}
}
