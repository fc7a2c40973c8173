package project

import "testing"

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		glob, rel string
		want      bool
	}{
		{"**/tasks.md", "tasks.md", true},
		{"**/tasks.md", "specs/x/tasks.md", true},
		{"**/tasks.md", "specs/x/tasks.md.bak", false},
		{"specs/*/tasks.md", "specs/x/tasks.md", true},
		{"specs/*/tasks.md", "specs/x/y/tasks.md", false},
		{".kiro/specs/**", ".kiro/specs/a/b/tasks.md", true},
		{"**/*.progress.md", "a/b.progress.md", true},
		{"dist/**", "src/dist/x", false},
	} {
		if got := Match(c.glob, c.rel); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.glob, c.rel, got, c.want)
		}
	}
}

func TestRel(t *testing.T) {
	for _, c := range []struct{ root, p, want string }{
		{"/p", "/p/a/b.md", "a/b.md"},
		{"/p", "/p", ""},
		{"/p", "/q/a.md", ""},
		{"/p", "/p/../q/a.md", ""},
		{"/p", "a.md", ""},
	} {
		if got := Rel(c.root, c.p); got != c.want {
			t.Errorf("Rel(%q, %q) = %q, want %q", c.root, c.p, got, c.want)
		}
	}
}
