package project

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestStoredConfigAsJSON: StoredConfig reads what encoding/json reads of a
// Config, and refuses what it refuses.
func TestStoredConfigAsJSON(t *testing.T) {
	for _, c := range []Config{Defaults(), {TaskFiles: []string{"specs/**/tasks.md"}, Ignore: []string{}, Timeout: "10m"}, {}} {
		b, _ := json.Marshal(c)
		got, ok := StoredConfig(b)
		var want Config
		json.Unmarshal(b, &want)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: StoredConfig %+v %v, json %+v", b, got, ok, want)
		}
	}
	for _, bad := range []string{`{"taskFiles":"x"}`, `{"ignore":[1]}`, `{"timeout":5}`, `[]`, `{`} {
		var want Config
		if json.Unmarshal([]byte(bad), &want) == nil {
			t.Fatalf("%s: encoding/json reads it", bad)
		}
		if _, ok := StoredConfig([]byte(bad)); ok {
			t.Errorf("%s: StoredConfig reads it", bad)
		}
	}
}
