package headless

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// The initialize response as the releases give it (shapes read off 2.1.332
// and 2.1.295 for a plugin p with a skill in skills/dir named fm by its
// frontmatter, a nested command and an agent; builtins beside them).
func TestParseListing(t *testing.T) {
	for name, resp := range map[string]string{
		"2.1.332": `{"commands":[{"name":"design","description":"x","argumentHint":"","builtin":true},
			{"name":"p:review:chain","description":"(p) chain","argumentHint":""},
			{"name":"p:fm","description":"(p) a skill","argumentHint":"","aliases":["fm","p:dir"]}],
			"agents":[{"name":"Explore","description":"d"},{"name":"p:ag"}],"models":[],"pid":1}`,
		"2.1.295": `{"commands":[{"name":"p:review:chain","description":"(p) chain"},{"name":"p:fm","description":"(p) a skill"}],
			"agents":[{"name":"p:ag","description":"d"}]}`,
	} {
		l := parseListing(gjson.Parse(resp))
		if !l.HasCommand("p:review:chain") || !l.HasCommand("p:fm") || !l.HasAgent("p:ag") || l.HasAgent("p:fm") || l.HasCommand("p:ag") {
			t.Errorf("%s: %+v", name, l)
		}
		if name == "2.1.332" {
			if !l.HasCommand("p:dir") {
				t.Errorf("%s: the directory alias is not a name of the skill: %+v", name, l)
			}
			if diff := cmp.Diff([]string{"p:review:chain", "p:fm", "p:dir", "p:ag"}, l.Prefixed("p:")); diff != "" {
				t.Errorf("%s: Prefixed (-want +got):\n%s", name, diff)
			}
		}
	}
}
