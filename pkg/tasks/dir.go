package tasks

import (
	"os"
	"path/filepath"
	"strings"
)

// manifests are the files that make a directory a project of its own in a
// monorepo (a package with its own scripts and checks).
var manifests = []string{"package.json", "go.mod", "Cargo.toml", "pyproject.toml", "setup.py", "pom.xml",
	"build.gradle", "build.gradle.kts", "composer.json", "Gemfile", "deno.json", "Makefile", "mix.exs"}

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
	w := strings.Fields(c)
	prog := FirstWord(c)
	if prog == "" {
		return false
	}
	exists := func(p string) bool {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		_, err := os.Stat(p)
		return err == nil
	}
	if strings.ContainsRune(prog, '/') {
		return exists(prog)
	}
	if interpreter(filepath.Base(prog)) {
		for i, x := range w {
			if x != prog {
				continue
			}
			for _, a := range w[i+1:] {
				if strings.HasPrefix(a, "-") {
					continue
				}
				if strings.ContainsAny(a, "=$`") {
					return true
				}
				return exists(a)
			}
			break
		}
	}
	return true
}

// RunDir is where a task's command runs and where a run of it counts: the
// project root, or the task file's package (PackageDir) when the command's
// files are not found from the root and are from there.
func RunDir(root, file, c string) string {
	if FoundIn(root, c) {
		return root
	}
	if pkg := PackageDir(root, file); pkg != root && FoundIn(pkg, c) {
		return pkg
	}
	return root
}
