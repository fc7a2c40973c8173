package claudecode

import "testing"

func TestVersion(t *testing.T) {
	for env, want := range map[string]string{
		"claude-code_2-1-330_harness": "2.1.330",
		"claude-code_2-1-197_agent":   "2.1.197",
		"claude-code/2.1.295/agent":   "2.1.295",
		"claude-code_2-1_harness":     "",
		"cursor":                      "",
		"":                            "",
	} {
		got := Version(func(string) string { return env })
		if got != want {
			t.Errorf("Version(AI_AGENT=%q) = %q, want %q", env, got, want)
		}
	}
}

func TestSupported(t *testing.T) {
	for v, want := range map[string]bool{
		"2.1.330": true, "2.1.295": true, "2.1.294": false, "2.1.197": false,
		"2.2.0": true, "3.0.0": true, "1.9.999": false, "": true,
	} {
		if got := Supported(v); got != want {
			t.Errorf("Supported(%q) = %v, want %v", v, got, want)
		}
	}
}
