// Package checks finds a project's quality commands (lint, typecheck,
// test, build) from the files that declare them, deterministically: the
// same tree gives the same commands in the same order. A verification task
// that names no command runs these.
package checks

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/rodin-gate/rodin/internal/lazy"
	"github.com/rodin-gate/rodin/pkg/safefile"
)

// Check is one discovered command.
type Check struct {
	Type    string `json:"type"` // lint, typecheck, test, build, ci
	Command string `json:"command"`
	Source  string `json:"source"` // the file it came from, relative to the root
}

// Types are the kinds of quality command, in the order a verification runs
// them; "ci" (a workflow's run: step) is listed but never run for a task.
var Types = []string{"lint", "typecheck", "test", "build"}

// Discover lists every quality command the project declares, source by
// source: package.json, justfile, Makefile, go.mod, Cargo.toml,
// pyproject.toml, tox.ini, noxfile.py, then .github/workflows.
func Discover(root string) []Check {
	var out []Check
	out = append(out, packageJSON(root)...)
	out = append(out, recipes(root, "justfile", "just")...)
	out = append(out, recipes(root, "Makefile", "make")...)
	if exists(root, "go.mod") {
		out = append(out, Check{"lint", "go vet ./...", "go.mod"}, Check{"test", "go test ./...", "go.mod"}, Check{"build", "go build ./...", "go.mod"})
	}
	if exists(root, "Cargo.toml") {
		out = append(out, Check{"lint", "cargo clippy", "Cargo.toml"}, Check{"test", "cargo test", "Cargo.toml"}, Check{"build", "cargo build", "Cargo.toml"})
	}
	out = append(out, python(root)...)
	out = append(out, workflows(root)...)
	return out
}

// Quality is what a verification task with no commands of its own runs:
// for each type, the first command found.
func Quality(all []Check) []string {
	var out []string
	for _, t := range Types {
		for _, c := range all {
			if c.Type == t {
				out = append(out, c.Command)
				break
			}
		}
	}
	return out
}

func exists(root, name string) bool {
	fi, err := os.Stat(filepath.Join(root, name))
	return err == nil && fi.Mode().IsRegular()
}

func read(root, name string) []byte {
	b, err := safefile.ReadFile(filepath.Join(root, name), 1<<20)
	if err != nil {
		return nil
	}
	return b
}

// scriptTypes maps package.json script names to types, in preference
// order.
var scriptTypes = []struct{ name, typ string }{
	{"lint", "lint"},
	{"typecheck", "typecheck"}, {"type-check", "typecheck"}, {"check-types", "typecheck"},
	{"test", "test"},
	{"build", "build"},
}

func packageJSON(root string) []Check {
	b := read(root, "package.json")
	if b == nil {
		return nil
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(b, &pkg) != nil {
		return nil
	}
	pm := packageManager(root, "")
	var out []Check
	seen := map[string]bool{}
	for _, s := range scriptTypes {
		if _, ok := pkg.Scripts[s.name]; !ok || seen[s.typ] {
			continue
		}
		seen[s.typ] = true
		cmd := pm + " " + s.name
		if (pm == "npm" || pm == "bun") && s.name != "test" {
			cmd = pm + " run " + s.name
		}
		out = append(out, Check{s.typ, cmd, "package.json"})
	}
	return out
}

// packageManager is the program that runs the scripts of the package.json
// in dir (relative to root; "" for the root): by the lockfile beside it,
// else the root's (a workspace's lockfile is its root's), else npm.
func packageManager(root, dir string) string {
	dirs := []string{dir}
	if dir != "" {
		dirs = append(dirs, "")
	}
	for _, d := range dirs {
		switch {
		case exists(root, filepath.Join(d, "pnpm-lock.yaml")):
			return "pnpm"
		case exists(root, filepath.Join(d, "yarn.lock")):
			return "yarn"
		case exists(root, filepath.Join(d, "bun.lockb")), exists(root, filepath.Join(d, "bun.lock")):
			return "bun"
		}
	}
	return "npm"
}

// recipeTypes maps make targets and just recipes to types.
var recipeTypes = []struct{ name, typ string }{
	{"lint", "lint"}, {"vet", "lint"},
	{"typecheck", "typecheck"},
	{"test", "test"}, {"check", "test"},
	{"build", "build"},
}

// The patterns are compiled on first use: the hooks link this package but
// seldom discover anything.
var recipeLineRe lazy.Value[*regexp.Regexp]

func recipeLine() *regexp.Regexp {
	return recipeLineRe.Get(func() *regexp.Regexp {
		return regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*)\s*(?:[A-Za-z0-9_ -]*)?:([^=]|$)`)
	})
}

func recipes(root, file, tool string) []Check {
	names := map[string]bool{}
	for _, f := range []string{file, strings.ToLower(file), "GNUmakefile"} {
		if tool == "just" && f == "GNUmakefile" {
			continue
		}
		b := read(root, f)
		if b == nil {
			continue
		}
		file = f
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		for sc.Scan() {
			if m := recipeLine().FindStringSubmatch(sc.Text()); m != nil {
				names[m[1]] = true
			}
		}
		break
	}
	var out []Check
	seen := map[string]bool{}
	for _, r := range recipeTypes {
		if names[r.name] && !seen[r.typ] {
			seen[r.typ] = true
			out = append(out, Check{r.typ, tool + " " + r.name, file})
		}
	}
	return out
}

func python(root string) []Check {
	var out []Check
	if b := string(read(root, "pyproject.toml")); b != "" {
		if strings.Contains(b, "[tool.ruff") {
			out = append(out, Check{"lint", "ruff check .", "pyproject.toml"})
		}
		if strings.Contains(b, "[tool.mypy") {
			out = append(out, Check{"typecheck", "mypy .", "pyproject.toml"})
		}
		if strings.Contains(b, "[tool.pytest") || strings.Contains(b, "pytest") {
			out = append(out, Check{"test", "pytest", "pyproject.toml"})
		}
	}
	if exists(root, "tox.ini") {
		out = append(out, Check{"test", "tox", "tox.ini"})
	}
	if exists(root, "noxfile.py") {
		out = append(out, Check{"test", "nox", "noxfile.py"})
	}
	return out
}

var runLineRe lazy.Value[*regexp.Regexp]

func runLine() *regexp.Regexp {
	return runLineRe.Get(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(?:-\s+)?run:\s*(.+?)\s*$`) })
}

// workflows are the one-line run: steps of the GitHub workflows, as "ci".
func workflows(root string) []Check {
	files, _ := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.y*ml"))
	sort.Strings(files)
	var out []Check
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		sc := bufio.NewScanner(strings.NewReader(string(read(root, rel))))
		for sc.Scan() {
			m := runLine().FindStringSubmatch(sc.Text())
			if m == nil || m[1] == "|" || m[1] == ">" || strings.HasPrefix(m[1], "|") || strings.HasPrefix(m[1], ">") {
				continue
			}
			out = append(out, Check{"ci", strings.Trim(m[1], `"'`), filepath.ToSlash(rel)})
		}
	}
	return out
}

// Sub is a package of the project below its root whose package.json runs
// tests: the command of its unit tests and of its browser (end-to-end)
// tests, "" when it has none, each to run from the root.
type Sub struct {
	Dir       string // relative to the root, slash-separated
	Test, E2E string
}

// Subprojects are the packages one or two folders below the root (`web/`,
// `packages/api/`) whose package.json has a test script, in a stable
// order: where a task's tests in words run when the root's checks run no
// test ("Run frontend unit tests (Vitest)" beside a root that only builds).
func Subprojects(root string) []Sub {
	var out []Sub
	var dirs []string
	top, _ := os.ReadDir(root)
	for _, e := range top {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || e.Name() == "node_modules" {
			continue
		}
		dirs = append(dirs, e.Name())
		if n := e.Name(); n == "packages" || n == "apps" || n == "services" || n == "libs" {
			sub, _ := os.ReadDir(filepath.Join(root, n))
			for _, s := range sub {
				if s.IsDir() && !strings.HasPrefix(s.Name(), ".") {
					dirs = append(dirs, n+"/"+s.Name())
				}
			}
		}
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		b := read(root, filepath.Join(filepath.FromSlash(d), "package.json"))
		if b == nil {
			continue
		}
		var pkg struct {
			Scripts map[string]string `json:"scripts"`
		}
		if json.Unmarshal(b, &pkg) != nil {
			continue
		}
		pm := packageManager(root, d)
		run := func(name string) string {
			if (pm == "npm" || pm == "bun") && name != "test" {
				return "cd " + d + " && npm run " + name
			}
			return "cd " + d + " && " + pm + " " + name
		}
		s := Sub{Dir: d}
		// The run that ends (`vitest --run`), before the one that may
		// watch (`vitest` at a terminal).
		for _, name := range []string{"test:run", "test:unit", "test:ci", "test"} {
			if v, ok := pkg.Scripts[name]; ok && !strings.Contains(v, "echo ") {
				s.Test = run(name)
				break
			}
		}
		for _, name := range []string{"test:e2e", "e2e", "test:playwright", "playwright"} {
			if _, ok := pkg.Scripts[name]; ok {
				s.E2E = run(name)
				break
			}
		}
		if s.Test != "" || s.E2E != "" {
			out = append(out, s)
		}
	}
	return out
}
