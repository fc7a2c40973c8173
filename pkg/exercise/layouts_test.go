package exercise

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
)

// TestRealLayouts names the components of real plugin repositories as
// Claude Code 2.1.332 named them in a session's listing (captured with the
// real CLI: --plugin-dir for each plugin.json, a marketplace add and
// install for each local entry). Each archive in
// testdata/exercise/layouts holds a repository's manifests and component
// files cut to their frontmatter, and want.txt: "slash plugin:name" for a
// skill or command (one slash command either way), "agent plugin:name".
// Skills with user-invocable: false are not in the listing, and a plugin
// the CLI refuses to load lists nothing: both are left out here too.
func TestRealLayouts(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "exercise", "layouts", "*.txtar"))
	if len(files) < 20 {
		t.Fatalf("%d layouts, want the 20 and more captured", len(files))
	}
	total := 0
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			root := t.TempDir()
			var want []string
			for _, file := range ar.Files {
				if file.Name == "want.txt" {
					want = strings.Fields(strings.ReplaceAll(string(file.Data), "\n", " "))
				}
				if strings.HasPrefix(file.Name, "want") { // want@<release>.txt: what an older release names
					continue
				}
				p := filepath.Join(root, filepath.FromSlash(file.Name))
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, file.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var wantNames []string
			for i := 0; i+1 < len(want); i += 2 {
				wantNames = append(wantNames, want[i]+" "+want[i+1])
			}
			plugins, err := Plugins(root)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			var got []string
			for _, c := range Inventory(root, plugins) {
				if c.Refused != "" || c.NotInvocable {
					continue
				}
				kind := "slash"
				if c.Kind == "agent" {
					kind = "agent"
				}
				if n := kind + " " + c.ID(); !seen[n] {
					seen[n] = true
					got = append(got, n)
				}
			}
			sort.Strings(got)
			sort.Strings(wantNames)
			if diff := cmp.Diff(wantNames, got); diff != "" {
				t.Errorf("names (-Claude Code +rodin):\n%s", diff)
			}
			total += len(wantNames)
		})
	}
	t.Logf("%d components in %d repositories", total, len(files))
}
