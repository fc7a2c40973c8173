package tasks

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/rodin-gate/rodin/pkg/safefile"
)

// manifests are the files that make a directory a project of its own in a
// monorepo (a package with its own scripts and checks).
var manifests = []string{"package.json", "go.mod", "Cargo.toml", "pyproject.toml", "setup.py", "pom.xml",
	"build.gradle", "build.gradle.kts", "composer.json", "Gemfile", "deno.json", "Makefile", "mix.exs"}

// CheckoutRoot is the root a task file's commands run from: the project's,
// or the worktree Claude Code made for a subagent that holds the file
// (`.claude/worktrees/NAME`, which git lists): a check of that file
// checks that worktree's code, never the main checkout's (its tasks, run
// from the main checkout, had passed on code the worktree broke). A `.git`
// planted anywhere else, or a submodule (the agent writes .gitmodules as
// any file), moves nothing (attack 62: a task file moved beside a planted
// one ran its checks in the agent's folder).
func CheckoutRoot(root, file string) string {
	rel := filepath.ToSlash(filepath.Clean(file))
	rest, ok := strings.CutPrefix(rel, ".claude/worktrees/")
	if !ok {
		return root
	}
	name, _, ok := strings.Cut(rest, "/")
	if !ok || name == "" {
		return root
	}
	wt := filepath.Join(root, ".claude", "worktrees", name)
	// git's own record of the worktree, both ways: its .git file names a
	// folder under the root's .git/worktrees/, whose gitdir names it back
	// (attack 63: a .git file planted in a folder made there).
	b, err := os.ReadFile(filepath.Join(wt, ".git"))
	if err != nil {
		return root
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	gitdir = strings.TrimSpace(gitdir)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(wt, gitdir) // git's worktree.useRelativePaths
	}
	gitdir = filepath.Clean(gitdir)
	if !ok || filepath.Dir(gitdir) != filepath.Join(root, ".git", "worktrees") {
		return root
	}
	back, err := os.ReadFile(filepath.Join(gitdir, "gitdir"))
	if err != nil {
		return root
	}
	named := strings.TrimSpace(string(back))
	if !filepath.IsAbs(named) {
		named = filepath.Join(gitdir, named)
	}
	if filepath.Clean(named) != filepath.Join(wt, ".git") {
		return root
	}
	return wt
}

// PackageDir is the directory a task file belongs to: the nearest
// directory at or above it, within root, that holds a project manifest;
// root when none does.
func PackageDir(root, file string) string {
	dir := filepath.Dir(filepath.Join(root, filepath.FromSlash(file)))
	for {
		rel, err := filepath.Rel(root, dir)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			return root
		}
		for _, m := range manifests {
			if fi, err := os.Stat(filepath.Join(dir, m)); err == nil && fi.Mode().IsRegular() {
				return dir
			}
		}
		dir = filepath.Dir(dir)
	}
}

// interpreters take a script file as their first argument.
func interpreter(prog string) bool {
	switch prog {
	case "sh", "bash", "zsh", "node", "python", "python3", "ruby", "perl", "deno", "bun", "tsx", "ts-node":
		return true
	}
	return false
}

// FoundIn reports whether a command's files are there when it runs in
// dir: a program named by a path, or an interpreter's script. A command
// that names no file of the project (`npm test`, `go test ./...`) is found
// anywhere.
func FoundIn(dir, c string) bool {
	prog, args := progArgs(c)
	if prog == "" {
		return false
	}
	f := fileOf(prog, args)
	if f == "" {
		return true
	}
	if !filepath.IsAbs(f) {
		f = filepath.Join(dir, f)
	}
	_, err := os.Stat(f)
	return err == nil
}

// progArgs are a command's program (after any variable assignments) and
// its words, up to where its first command ends (`bash t.sh; test $? -eq
// 0` names t.sh, not `t.sh;`).
func progArgs(c string) (string, []string) {
	w := strings.Fields(c)
	prog := FirstWord(c)
	i := slices.IndexFunc(w, func(x string) bool {
		return x == prog || strings.HasPrefix(x, prog) && strings.IndexByte(";&|", x[len(prog)]) >= 0
	})
	if prog == "" || i < 0 {
		return "", nil
	}
	if w[i] != prog {
		return prog, nil // `t.sh;`: its command ends with it
	}
	args := w[i+1:]
	for k, a := range args {
		switch {
		case a == ";" || a == "&&" || a == "||" || a == "|":
			return prog, args[:k]
		case strings.HasSuffix(a, ";") && !strings.HasSuffix(a, `\;`):
			return prog, append(args[:k:k], strings.TrimSuffix(a, ";"))
		}
	}
	return prog, args
}

// RunDir is where a task's command runs and where a run of it counts,
// decided by the task file's place, never by where a command was run
// (docs/verify-gate.md). A command that names a file runs in the nearest
// folder above the task file that holds it, else at the root. A command a
// manifest runs (`npm test`, `make test`, `pytest`) runs in the nearest
// folder whose manifest runs it, or at the root when the root's manifest
// runs it too, unless that folder is a go module of its own or one of the
// root's npm or pnpm workspaces (a docs site's package.json or Sphinx
// Makefile under docs/ does not take the app's checks of a plan in
// docs/plans). Any other command, and one that names its folder itself
// (`--workspace`, `-C`), runs at the root.
func RunDir(root, file, c string) string {
	d, _ := runDir(root, file, c)
	return d
}

// RunDirFound is RunDir, and whether the command's place is settled by
// the files as they are: false for a command that names a file found in
// no folder from the task file's up to the root (a build may make it),
// and for one a manifest runs that the root's cannot (`npm test` with no
// test script at the root: a package made since may have it), which run
// at the root until then.
func RunDirFound(root, file, c string) (string, bool) { return runDir(root, file, c) }

func runDir(root, file, c string) (string, bool) {
	root = CheckoutRoot(root, file)
	prog, args := progArgs(c)
	named := ""
	if prog != "" {
		named = fileOf(prog, args)
	}
	atRoot := func() (string, bool) {
		if named != "" {
			return root, FoundIn(root, c)
		}
		return root, prog == "" || !manifestRun(prog, args) || runsIn(root, prog, args)
	}
	if PackageDir(root, file) == root {
		return atRoot()
	}
	if prog == "" {
		return atRoot()
	}
	// The directories from the task file's up to the root's (excluded):
	// the nearest whose files or manifest are the command's is its
	// package (an empty Makefile beside a spec's tasks.md does not take
	// the package's `npm test`).
	var dirs []string
	for dir := filepath.Dir(filepath.Join(root, filepath.FromSlash(file))); ; dir = filepath.Dir(dir) {
		rel, err := filepath.Rel(root, dir)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			break
		}
		dirs = append(dirs, dir)
	}
	if f := named; f != "" {
		for _, d := range dirs {
			p := f
			if !filepath.IsAbs(p) {
				p = filepath.Join(d, f)
			}
			if _, err := os.Stat(p); err == nil {
				return d, true
			}
		}
		return atRoot()
	}
	for _, d := range dirs {
		if !runsIn(d, prog, args) {
			continue
		}
		// The root's own manifest, when it runs the command too, has it,
		// unless the folder is a module of its own (go) or one of the
		// root's workspaces (npm): a docs site under docs/ is neither.
		if filepath.Base(prog) == "go" || !runsIn(root, prog, args) || workspaceOf(root, d) {
			return d, true
		}
		return root, true
	}
	return atRoot()
}

// workspaceOf reports whether dir is one of the npm workspaces the root's
// package.json names ("workspaces": ["packages/*"], or {"packages": [...]}).
func workspaceOf(root, dir string) bool { return InWorkspaces(WorkspaceGlobs(root), root, dir) }

// InWorkspaces reports whether dir matches one of the workspace globs
// (WorkspaceGlobs) of root.
func InWorkspaces(globs []string, root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return false
	}
	rel = filepath.ToSlash(rel)
	for _, g := range globs {
		g = strings.TrimSuffix(strings.TrimPrefix(g, "./"), "/")
		if ok, _ := path.Match(g, rel); ok {
			return true
		}
	}
	return false
}

// WorkspaceGlobs are the workspaces the root's package.json and
// pnpm-workspace.yaml name, as written.
func WorkspaceGlobs(root string) []string {
	var globs []string
	b, _ := safefile.ReadFile(filepath.Join(root, "package.json"), 1<<20)
	ws := gjson.GetBytes(b, "workspaces")
	if ws.IsObject() {
		ws = ws.Get("packages")
	}
	ws.ForEach(func(_, g gjson.Result) bool {
		globs = append(globs, g.String())
		return true
	})
	// pnpm names them in pnpm-workspace.yaml: `packages:` and a list of
	// quoted or bare globs under it.
	if y, err := safefile.ReadFile(filepath.Join(root, "pnpm-workspace.yaml"), 1<<20); err == nil {
		in := false
		for _, l := range strings.Split(string(y), "\n") {
			t := strings.TrimSpace(l)
			switch {
			case strings.HasPrefix(l, "packages:"):
				in = true
			case in && strings.HasPrefix(t, "- "):
				globs = append(globs, strings.Trim(strings.TrimSpace(t[2:]), `'"`))
			case in && t != "" && !strings.HasPrefix(t, "#"):
				in = false
			}
		}
	}
	return globs
}

// RootCannotRun reports whether c is a command a manifest runs (npm, go,
// make, pytest, …) that the root's manifest does not run.
func RootCannotRun(root, c string) bool {
	prog, args := progArgs(c)
	return prog != "" && fileOf(prog, args) == "" && manifestRun(prog, args) && !runsIn(root, prog, args)
}

// WorkspaceOf reports whether dir is one of the npm or pnpm workspaces
// the root names (workspaceOf).
func WorkspaceOf(root, dir string) bool { return workspaceOf(root, dir) }

// progBase is the program a command runs, by name: `python -m pytest` is
// pytest.
func progBase(prog string, args []string) string {
	base := filepath.Base(prog)
	if (base == "python" || base == "python3") && len(args) > 1 && args[0] == "-m" {
		base = args[1]
	}
	return base
}

// manifestRun reports whether a project's manifest is what runs the
// program (runsIn knows its manifest): npm, go, make, pytest and the like.
func manifestRun(prog string, args []string) bool {
	switch progBase(prog, args) {
	case "npm", "pnpm", "yarn", "bun", "npx", "pnpx", "bunx", "go", "cargo", "make", "pytest", "tox", "ruff", "mypy", "poetry", "uv", "hatch", "mvn", "gradle", "composer", "bundle", "rake", "rspec", "deno", "mix":
		return true
	}
	return false
}

// runsIn reports whether dir's manifest is what runs c, a command that
// names no file: a package.json that has the script, a go.mod, a
// Makefile, a pyproject.toml, and so on.
func runsIn(dir, prog string, args []string) bool {
	has := func(names ...string) bool {
		for _, n := range names {
			if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && fi.Mode().IsRegular() {
				return true
			}
		}
		return false
	}
	base := progBase(prog, args)
	for _, a := range args {
		// It names its folder itself (`npm test --workspace=packages/api`,
		// `make -C docs`, `npm --prefix web test`): run from the root.
		if a == "-C" || a == "-w" || a == "--workspace" || a == "--prefix" || a == "--dir" || a == "--cwd" || a == "--filter" ||
			strings.HasPrefix(a, "--workspace=") || strings.HasPrefix(a, "--prefix=") || strings.HasPrefix(a, "--dir=") || strings.HasPrefix(a, "--cwd=") || strings.HasPrefix(a, "--filter=") || strings.HasPrefix(a, "-C") && len(a) > 2 {
			return false
		}
	}
	switch base {
	case "npm", "pnpm", "yarn", "bun":
		return hasScript(filepath.Join(dir, "package.json"), scriptOf(base, args))
	case "npx", "pnpx", "bunx":
		return has("package.json")
	case "go":
		return has("go.mod")
	case "cargo":
		return has("Cargo.toml")
	case "make":
		return makeRuns(dir, args)
	case "pytest", "tox", "ruff", "mypy", "poetry", "uv", "hatch":
		return has("pyproject.toml", "setup.py", "setup.cfg", "tox.ini")
	case "mvn":
		return has("pom.xml")
	case "gradle":
		return has("build.gradle", "build.gradle.kts")
	case "composer":
		return has("composer.json")
	case "bundle", "rake", "rspec":
		return has("Gemfile")
	case "deno":
		return has("deno.json", "deno.jsonc")
	case "mix":
		return has("mix.exs")
	}
	return false
}

// fileOf is the file a command names: its program when that is a path,
// or an interpreter's script; "" when it names none.
// ScriptOf is the file a command runs (`sh .ci/check.sh`, `./run.py`,
// `node scripts/lint.mjs`), "" when it names none.
func ScriptOf(c string) string {
	prog, args := progArgs(c)
	if prog == "" {
		return ""
	}
	return fileOf(prog, args)
}

func fileOf(prog string, args []string) string {
	if strings.ContainsRune(prog, '/') {
		return prog
	}
	if p := searchPath(prog, args); p != "" {
		return p
	}
	if interpreter(filepath.Base(prog)) {
		for _, a := range args {
			if a == "-m" || a == "-c" || a == "-e" || a == "--eval" || a == "-p" {
				return "" // a module or code given inline (`python3 -m pytest`), no file
			}
			if strings.HasPrefix(a, "-") {
				continue
			}
			if strings.ContainsAny(a, "=$`") {
				return ""
			}
			return a
		}
	}
	return ""
}

// makeRuns reports whether dir's Makefile has the target make is asked
// for (its first word that is no flag nor variable; any Makefile runs the
// default target), by its rules' heads, or a pattern rule (`%:`).
func makeRuns(dir string, args []string) bool {
	var b []byte
	for _, n := range []string{"GNUmakefile", "makefile", "Makefile"} {
		if x, err := safefile.ReadFile(filepath.Join(dir, n), 1<<20); err == nil {
			b = x
			break
		}
	}
	if b == nil {
		return false
	}
	target := ""
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
			target = a
			break
		}
	}
	if target == "" {
		return true
	}
	for _, l := range strings.Split(string(b), "\n") {
		head, _, ok := strings.Cut(l, ":")
		if !ok || strings.HasPrefix(l, "\t") || strings.HasPrefix(strings.TrimSpace(l), "#") || strings.HasPrefix(l[len(head):], ":=") {
			continue
		}
		for _, w := range strings.Fields(head) {
			if w == target || w == "%" {
				return true
			}
		}
	}
	return false
}

// scriptOf is the package.json script a package manager's command runs:
// `npm test` test, `npm run lint` lint, `yarn build` build; "" for one
// that runs none of the package's scripts (`bun test`, `npm ci`: any
// package.json will do).
func scriptOf(pm string, args []string) string {
	var words []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			words = append(words, a)
		}
	}
	if len(words) == 0 {
		return ""
	}
	switch words[0] {
	case "run", "run-script", "rum", "urn":
		if len(words) > 1 {
			return words[1]
		}
		return ""
	case "test", "t", "tst":
		if pm == "bun" {
			return "" // bun's own test runner
		}
		return "test"
	case "start", "stop", "restart":
		return words[0]
	}
	if pm == "npm" {
		return "" // an npm command of its own (ci, install, exec)
	}
	return words[0] // pnpm lint, yarn build
}

// hasScript reports whether the package.json at path defines the script
// (any package.json when script is "").
func hasScript(path, script string) bool {
	b, err := safefile.ReadFile(path, 1<<20) // a manifest, not a FIFO or a giant
	if err != nil {
		return false
	}
	if script == "" {
		return true
	}
	found := false
	gjson.GetBytes(b, "scripts").ForEach(func(k, _ gjson.Result) bool {
		found = k.String() == script
		return !found
	})
	return found
}

// searchOptionArg are the options of grep, rg and ag whose value is the
// next word when it is not joined by `=` (attack 68: `--exclude-dir
// node_modules "api/v1" src/` had read the pattern as the path).
func searchOptionArg(a string) bool {
	switch a {
	case "-m", "-A", "-B", "-C", "-t", "-T", "-g", "-d", "-D", "-r", "-M", "-j", "-E", "-G", "-p", "--glob", "--iglob", "--type", "--type-not", "--type-add", "--type-clear", "--max-count", "--after-context", "--before-context", "--context", "--devices", "--directories", "--binary-files", "--label", "--exclude", "--include", "--exclude-dir", "--exclude-from", "--include-dir", "--replace", "--max-columns", "--threads", "--encoding", "--ignore-file", "--max-depth", "--maxdepth", "--depth", "--pre", "--pre-glob", "--sort", "--sortr", "--path-separator", "--colors", "--color", "--context-separator", "--field-match-separator", "--field-context-separator", "--engine", "--dfa-size-limit", "--regex-size-limit", "--max-filesize", "--ignore", "--ignore-dir", "--file-search-regex", "--path-to-ignore", "--pager", "--group-separator":
		return true
	}
	return false
}

// searchPath is the folder or file a search names (`grep -rn X src/`):
// the search runs where that path is, in a monorepo the task file's
// package (honest day 63: `src/` of packages/web, searched from the
// root). "" for another command, or a search of no relative path.
func searchPath(prog string, args []string) string {
	switch filepath.Base(prog) {
	case "grep", "egrep", "fgrep", "rg", "ag":
	default:
		return ""
	}
	pattern := true // the first operand is the pattern, unless -e or -f gave it
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			continue
		case a == "-e" || a == "-f" || a == "--regexp" || a == "--file":
			pattern = false
			i++
		case searchOptionArg(a):
			i++ // an option's value in the next word (`--exclude-dir node_modules`), no operand
		case strings.HasPrefix(a, "-"):
		case pattern:
			pattern = false
		default:
			p := strings.Trim(a, `"'`)
			if strings.Contains(p, "/") && !filepath.IsAbs(p) && !strings.ContainsAny(p, "*?[{$`") && !strings.HasPrefix(p, "..") {
				return p
			}
		}
	}
	return ""
}
