package exercise

import (
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// defaultScaffold is the disposable project a skill runs in when the
// plugin brings none: a small Node.js project with steering documents,
// the layout of the exercise design this comes from.
var defaultScaffold = map[string]string{
	".claude/steering/product.md":   "# Product\n\nTest project. One persona: Developer.\n",
	".claude/steering/tech.md":      "# Tech\n\nStack: Node.js. Test: manual verification.\n",
	".claude/steering/structure.md": "# Structure\n\nFlat layout: src/ and tests/.\n",
	"src/index.js":                  "console.log(\"hello\");\n",
	"README.md":                     "# Test project\n\nA disposable project for rodin exercise: a plugin's skill runs here.\n",
	".gitignore":                    "node_modules/\n",
	"package.json":                  "{\n  \"name\": \"test-project\",\n  \"version\": \"1.0.0\",\n  \"private\": true\n}\n",
}

// Scaffold fills dir with the project a skill runs in: a copy of from
// (without its .git), or the default layout; then a git repository with
// one commit, as a user's project would have.
func Scaffold(dir, from string) error {
	if from != "" {
		if err := copyTree(from, dir); err != nil {
			return fmt.Errorf("copying the scaffold %s: %w", from, err)
		}
	} else {
		for name, text := range defaultScaffold {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				return err
			}
		}
	}
	for _, args := range [][]string{
		{"init", "--quiet", "--initial-branch=main"},
		{"add", "-A"},
		{"-c", "user.name=rodin exercise", "-c", "user.email=exercise@rodin.invalid", "-c", "commit.gpgsign=false",
			"commit", "--quiet", "--no-verify", "--allow-empty", "-m", "initial"},
	} {
		if _, err := git(dir, args...); err != nil {
			return err
		}
	}
	return nil
}

// copyTree copies from to to, without .git and the directories skip
// names, wherever they are.
func copyTree(from, to string, skip ...string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() && (d.Name() == ".git" || slices.Contains(skip, d.Name())) {
			return filepath.SkipDir
		}
		dst := filepath.Join(to, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			src, err := os.Open(p)
			if err != nil {
				return err
			}
			defer src.Close()
			out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, info.Mode().Perm())
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, src); err != nil {
				out.Close()
				return err
			}
			return out.Close()
		}
		return nil
	})
}

// Snapshot is a project's files (outside .git) and their digests.
type Snapshot map[string]string

// Take records every file under dir.
func Take(dir string) Snapshot {
	s := Snapshot{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		h := sha256.New()
		io.Copy(h, f)
		s[filepath.ToSlash(rel)] = fmt.Sprintf("%x", h.Sum(nil))
		return nil
	})
	return s
}

// FileChange is one file the run created, changed or deleted.
type FileChange struct {
	Path   string `json:"path"`
	Change string `json:"change"` // created, changed, deleted
}

// Diff lists what changed from before to after, by path.
func Diff(before, after Snapshot) []FileChange {
	var out []FileChange
	for p, sum := range after {
		switch old, ok := before[p]; {
		case !ok:
			out = append(out, FileChange{p, "created"})
		case old != sum:
			out = append(out, FileChange{p, "changed"})
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, FileChange{p, "deleted"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// lineCount is how many lines a file has, for the report.
func lineCount(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n := strings.Count(string(data), "\n")
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}
