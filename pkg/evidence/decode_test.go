package evidence

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decode reads every field encoding/json writes, as encoding/json reads it.
func TestDecodeAgreesWithJSON(t *testing.T) {
	l := Log{
		Launches: map[string]Launch{
			"a": {Agent: "rodin:critic", TS: "t1", Critic: &CriticRun{Plan: "p", GapsSeen: true, Model: "haiku"}},
			"b": {Agent: "rodin:validator", TS: "t2", Validator: &ValidatorRun{Gaps: "g", Critics: []string{"x", "y"}}},
			"c": {Agent: "rodin:leakage-detector", TS: "t3", Leakage: &LeakageRun{TS: "t3"}},
		},
		Critics:    []CriticRun{{AgentID: "c1", Plan: "p", Findings: "f", Answer: "### NO ISSUES FOUND\n\"quoted\" <b>", High: 1, Medium: 2, Low: 3, TS: "t"}},
		Validators: []ValidatorRun{{AgentID: "v1", Gaps: "g", Critics: []string{"c1"}, Findings: "f", Model: "m", Verdict: "pass", Reason: "r \u2028", TS: "t"}},
		Leakage:    []LeakageRun{{AgentID: "l1", Answer: "### LEAKAGE: 0", TS: "t"}},
		Overflowed: "o",
		Stopped:    map[string]Stop{"s": {Agent: "rodin:critic", Answer: "ans", TS: "t"}},
	}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	var want Log
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	got, err := decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decode differs from encoding/json (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", "[]", "{", `"x"`} {
		if _, err := decode([]byte(bad)); err == nil {
			t.Errorf("decode(%q) succeeded", bad)
		}
	}
	if got, err := decode([]byte("{}")); err != nil || got.Critics != nil {
		t.Errorf("decode({}) = %+v, %v", got, err)
	}
}
