package tasks

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRunDir: where a task's command runs, and counts, decided by the task
// file's place and the manifests above it (docs/verify-gate.md).
func TestRunDir(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package.json", `{"workspaces": ["./packages/api"], "scripts": {"test": "echo root", "build": "vite build"}}`)
	write("Makefile", "lint:\n\t@true\ntest:\n\t@true\n")
	write("packages/api/package.json", `{"scripts": {"test": "node --test"}}`)
	write("packages/api/Makefile", "check:\n\t@true\n")
	write("packages/api/check.sh", "exit 0\n")
	write("packages/api/specs/001/Makefile", "")
	write("packages/web/package.json", `{"scripts": {"test": "vitest"}}`)
	write("services/billing/go.mod", "module billing\n")
	write("docs/package.json", `{"scripts": {"build": "docusaurus build"}}`)
	write("docs/Makefile", "%: Makefile\n\tsphinx-build -M $@ . _build\n")
	write("check.sh", "exit 0\n")
	api := filepath.Join(root, "packages/api")
	for _, c := range []struct {
		file, cmd, want string
	}{
		{"tasks.md", "npm test", root},
		{"packages/api/tasks.md", "npm test", api},                           // a workspace of the root's (./ written)
		{"packages/api/specs/001/tasks.md", "npm test", api},                 // an empty Makefile is no package of npm's
		{"packages/web/tasks.md", "npm test", root},                          // not a workspace: the root's test runs it
		{"packages/api/tasks.md", "sh check.sh", api},                        // its file is there (and at the root too)
		{"packages/api/tasks.md", "npm test --workspace=packages/api", root}, // names its folder itself
		{"packages/api/tasks.md", "make check", api},                         // the root's Makefile has no check
		{"packages/api/tasks.md", "make test", root},                         // the root's has test
		{"services/billing/tasks.md", "go test ./...", filepath.Join(root, "services/billing")},
		{"docs/plans/x.md", "npm run build", root}, // a docs site under docs/ takes not the app's build
		{"docs/plans/x.md", "make test", root},
		{"docs/plans/x.md", "unit-tests", root},
	} {
		if got := RunDir(root, c.file, c.cmd); got != c.want {
			t.Errorf("RunDir(%s, %q) = %s, want %s", c.file, c.cmd, got, c.want)
		}
	}
	// pnpm names its workspaces in pnpm-workspace.yaml.
	write("pnpm-workspace.yaml", "packages:\n  - 'packages/web'\n")
	if got, want := RunDir(root, "packages/web/tasks.md", "pnpm test"), filepath.Join(root, "packages/web"); got != want {
		t.Errorf("pnpm workspace: RunDir = %s, want %s", got, want)
	}
}

// TestRunDirFound: a command that names a file found in no folder from the
// task file's up to the root is not settled yet (a build may make it), nor
// one a manifest runs that the root's cannot; any other command's place is.
func TestRunDirFound(t *testing.T) {
	root := t.TempDir()
	for rel, text := range map[string]string{"packages/api/package.json": `{"scripts": {"test": "x"}}`, "packages/api/check.sh": "", "smoke.sh": "", "go.mod": "module x\n"} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		file, cmd string
		found     bool
	}{
		{"packages/api/tasks.md", "npm test", true},
		{"packages/api/tasks.md", "sh check.sh", true},
		{"packages/api/tasks.md", "sh smoke.sh", true}, // at the root
		{"packages/api/tasks.md", "sh dist/smoke.sh", false},
		{"specs/001/tasks.md", "sh dist/smoke.sh", false},
		{"specs/001/tasks.md", "go test ./...", true}, // the root's go.mod runs it
		{"specs/001/tasks.md", "npm test", false},     // no root package.json: a package made since may run it
		{"specs/001/tasks.md", "unit-tests", true},    // a program no manifest runs
		{"tasks.md", "sh smoke.sh", true},
	} {
		if _, found := RunDirFound(root, c.file, c.cmd); found != c.found {
			t.Errorf("RunDirFound(%s, %q) found = %v, want %v", c.file, c.cmd, found, c.found)
		}
	}
}

// The folder a search names, after options whose value is the next word.
func TestSearchPath(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{`grep -rn console.log src/widgets/`, "src/widgets/"},
		{`grep -rn --exclude-dir node_modules "api/v1" src/`, "src/"},
		{`grep -rn --include '*.ts' -e TODO src/app`, "src/app"},
		{`rg -g '!*.md' --max-depth 3 foo pkg/api`, "pkg/api"},
		{`rg -t go -M 200 "a/b" internal/x`, "internal/x"},
		{`grep -rn "a/b"`, ""},
		{`ls src/`, ""},
	} {
		prog, args := progArgs(c.cmd)
		if got := searchPath(prog, args); got != c.want {
			t.Errorf("searchPath(%s) = %q, want %q", c.cmd, got, c.want)
		}
	}
}
