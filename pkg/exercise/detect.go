package exercise

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Component is one skill or agent of a plugin.
type Component struct {
	Plugin    string `json:"plugin"`     // the plugin's name (plugin.json)
	PluginDir string `json:"plugin_dir"` // absolute
	Kind      string `json:"kind"`       // skill or agent
	Name      string `json:"name"`
	File      string `json:"file"` // relative to the repository root
}

// ID is how Claude Code names the component: plugin:name.
func (c Component) ID() string { return c.Plugin + ":" + c.Name }

// Plugins finds the plugin directories under root: those with
// .claude-plugin/plugin.json, and the local entries of a root
// .claude-plugin/marketplace.json. The result maps directory to name.
func Plugins(root string) (map[string]string, error) {
	out := map[string]string{}
	add := func(dir string) {
		data, err := os.ReadFile(filepath.Join(dir, ".claude-plugin", "plugin.json"))
		if err != nil {
			return
		}
		var m struct{ Name string }
		if json.Unmarshal(data, &m) != nil || m.Name == "" {
			m.Name = filepath.Base(dir)
		}
		out[dir] = m.Name
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules":
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, ".claude-plugin", "plugin.json")); err == nil {
				add(p)
			}
		}
		return nil
	})
	if data, err := os.ReadFile(filepath.Join(root, ".claude-plugin", "marketplace.json")); err == nil {
		var m struct {
			Plugins []struct {
				Name   string
				Source json.RawMessage
			}
		}
		if json.Unmarshal(data, &m) == nil {
			for _, p := range m.Plugins {
				var src string
				if json.Unmarshal(p.Source, &src) != nil || !strings.HasPrefix(src, ".") {
					continue // a remote source: not in this repository
				}
				dir := filepath.Join(root, filepath.FromSlash(src))
				if _, ok := out[dir]; !ok {
					if _, err := os.Stat(dir); err == nil {
						out[dir] = p.Name
						add(dir) // plugin.json's name wins when there is one
					}
				}
			}
		}
	}
	return out, err
}

// component maps a repository path to the skill or agent it defines, if
// any: <plugin>/skills/<name>/SKILL.md or <plugin>/agents/<name>.md.
// Other files (a skill's templates/, references/) do not count.
func component(root, rel string, plugins map[string]string) (Component, bool) {
	abs := filepath.Join(root, filepath.FromSlash(rel))
	for dir, name := range plugins {
		r, err := filepath.Rel(dir, abs)
		if err != nil || strings.HasPrefix(r, "..") {
			continue
		}
		parts := strings.Split(filepath.ToSlash(r), "/")
		switch {
		case len(parts) == 3 && parts[0] == "skills" && parts[2] == "SKILL.md":
			return Component{Plugin: name, PluginDir: dir, Kind: "skill", Name: parts[1], File: rel}, true
		case len(parts) == 2 && parts[0] == "agents" && strings.HasSuffix(parts[1], ".md"):
			return Component{Plugin: name, PluginDir: dir, Kind: "agent", Name: AgentName(abs, strings.TrimSuffix(parts[1], ".md")), File: rel}, true
		}
	}
	return Component{}, false
}

// AgentName is the name Claude Code gives the agent defined in the file at
// path: its frontmatter's `name:` (issue 34: `api-scaffolding-backend-
// architect.md` may name `backend-architect`), else the file's stem (a
// deleted file, one without frontmatter or name).
func AgentName(path, stem string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return stem
	}
	text := strings.ReplaceAll(string(b), "\r\n", "\n")
	head, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return stem
	}
	end := strings.Index(head, "\n---")
	if end < 0 {
		return stem
	}
	for _, line := range strings.Split(head[:end], "\n") {
		if v, ok := strings.CutPrefix(line, "name:"); ok {
			v = strings.Trim(strings.TrimSpace(v), `"'`)
			if v != "" && !strings.ContainsAny(v, " \t/") {
				return v
			}
		}
	}
	return stem
}

// RepoRoot is the top of the git work tree around dir.
func RepoRoot(dir string) (string, error) {
	out, err := git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("not in a git repository (%s): %w", dir, err)
	}
	return filepath.EvalSymlinks(strings.TrimSpace(out))
}

// DefaultBranch is the branch changes are compared with: origin's HEAD,
// else main, else master.
func DefaultBranch(root string) (string, error) {
	if out, err := git(root, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"); err == nil {
		return strings.TrimSpace(out), nil
	}
	for _, b := range []string{"main", "master"} {
		if _, err := git(root, "rev-parse", "--verify", "--quiet", b+"^{commit}"); err == nil {
			return b, nil
		}
	}
	return "", errors.New("found no default branch (no origin/HEAD, main or master)")
}

// Changed lists the skills and agents changed on this branch: committed
// since it left base (git diff base...HEAD), staged, unstaged and
// untracked.
func Changed(root, base string, plugins map[string]string) ([]Component, error) {
	var files []string
	for _, args := range [][]string{
		{"diff", "--name-only", "--no-renames", base + "...HEAD"},
		{"diff", "--name-only", "--no-renames", "HEAD"},
		{"ls-files", "--others", "--exclude-standard"},
	} {
		out, err := git(root, args...)
		if err != nil {
			return nil, err
		}
		files = append(files, strings.Split(strings.TrimSpace(out), "\n")...)
	}
	seen := map[string]bool{}
	var out []Component
	for _, f := range files {
		if f == "" || seen[f] {
			continue
		}
		seen[f] = true
		if c, ok := component(root, f, plugins); ok {
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(f))); err != nil {
				continue // deleted: nothing to run
			}
			out = append(out, c)
		}
	}
	sortComponents(out)
	return out, nil
}

// Named finds the components the user named: name or plugin:name, a skill
// before an agent of the same name.
func Named(root string, names []string, plugins map[string]string) ([]Component, error) {
	var out []Component
	for _, n := range names {
		plugin, name, qualified := strings.Cut(n, ":")
		if !qualified {
			name, plugin = plugin, ""
		}
		var found []Component
		for dir, pname := range plugins {
			if plugin != "" && pname != plugin {
				continue
			}
			candidates := []string{filepath.Join("skills", name, "SKILL.md"), filepath.Join("agents", name+".md")}
			// An agent is named by its frontmatter, whatever its file is
			// called.
			if files, _ := filepath.Glob(filepath.Join(dir, "agents", "*.md")); len(files) > 0 {
				for _, f := range files {
					if AgentName(f, strings.TrimSuffix(filepath.Base(f), ".md")) == name {
						candidates = append(candidates, filepath.Join("agents", filepath.Base(f)))
					}
				}
			}
			for _, rel := range candidates {
				if _, err := os.Stat(filepath.Join(dir, rel)); err == nil {
					r, _ := filepath.Rel(root, filepath.Join(dir, rel))
					if c, ok := component(root, filepath.ToSlash(r), map[string]string{dir: pname}); ok {
						found = append(found, c)
						break
					}
				}
			}
		}
		sortComponents(found)
		switch {
		case len(found) == 0:
			return nil, fmt.Errorf("no skill or agent %q in the plugins here", n)
		case len(found) > 1 && found[0].Plugin != found[1].Plugin:
			return nil, fmt.Errorf("%q is in more than one plugin (%s, %s): name it plugin:name", n, found[0].Plugin, found[1].Plugin)
		}
		out = append(out, found[0])
	}
	return out, nil
}

func sortComponents(cs []Component) {
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].Plugin != cs[j].Plugin {
			return cs[i].Plugin < cs[j].Plugin
		}
		if cs[i].Kind != cs[j].Kind {
			return cs[i].Kind > cs[j].Kind // skills first
		}
		return cs[i].Name < cs[j].Name
	})
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return string(out), nil
}
