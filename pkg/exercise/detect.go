package exercise

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Component is one skill, command or agent of a plugin.
type Component struct {
	Plugin    string `json:"plugin"`     // the plugin's name, as Claude Code names it
	PluginDir string `json:"plugin_dir"` // absolute
	Kind      string `json:"kind"`       // skill, command or agent
	Name      string `json:"name"`
	File      string `json:"file"` // relative to the repository root
	Abs       string `json:"-"`    // File, absolute
	// Real is File with links resolved (a linked skill folder's SKILL.md is
	// changed where it really is), relative to the repository root.
	Real string `json:"-"`
	// NotInvocable is a skill with `user-invocable: false`: no slash
	// command, the model runs it through the Skill tool.
	NotInvocable bool `json:"not_invocable,omitempty"`
	// Refused says why Claude Code would not load the plugin (Plugin.Refused).
	Refused string `json:"refused,omitempty"`

	plugin *Plugin
	// loadDir, when set, is the copy of the plugin a session loads
	// (a marketplace entry's plugin, with its manifest).
	loadDir string
}

// ID is how Claude Code names the component: plugin:name.
func (c Component) ID() string { return c.Plugin + ":" + c.Name }

// LoadDir is the directory the session loads with --plugin-dir.
func (c Component) LoadDir() string {
	if c.loadDir != "" {
		return c.loadDir
	}
	return c.PluginDir
}

// AgentName is the name Claude Code gives the agent defined in the file at
// path: its frontmatter's `name:` (issue 34: `api-scaffolding-backend-
// architect.md` may name `backend-architect`), else the file's stem (a
// deleted file, one without frontmatter or name).
func AgentName(path, stem string) string { return frontmatterName(path, stem) }

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

// Changed lists the components changed on this branch: committed since
// it left base (git diff base...HEAD), staged, unstaged and untracked. A
// file that defines a component of several plugins (marketplace entries
// sharing a source) is each of them.
func Changed(root, base string, plugins []*Plugin) ([]Component, error) {
	changed := map[string]bool{}
	for _, args := range [][]string{
		{"diff", "--name-only", "--no-renames", base + "...HEAD"},
		{"diff", "--name-only", "--no-renames", "HEAD"},
		{"ls-files", "--others", "--exclude-standard"},
	} {
		out, err := git(root, args...)
		if err != nil {
			return nil, err
		}
		for _, f := range strings.Split(strings.TrimSpace(out), "\n") {
			if f != "" {
				changed[f] = true
			}
		}
	}
	var out []Component
	for _, c := range Inventory(root, plugins) {
		if changed[c.File] || changed[c.Real] {
			out = append(out, c)
		}
	}
	sortComponents(out)
	return out, nil
}

// Named finds the components the user named: name or plugin:name (a
// command's name may hold colons itself: review:chain), a skill before a
// command before an agent of the same name.
func Named(root string, names []string, plugins []*Plugin) ([]Component, error) {
	inv := Inventory(root, plugins)
	var out []Component
	for _, n := range names {
		var found, exact []Component
		for _, c := range inv {
			switch {
			case c.ID() == n:
				exact = append(exact, c)
			case c.Name == n:
				found = append(found, c)
			}
		}
		if len(exact) > 0 {
			found = exact
		}
		sortComponents(found)
		switch {
		case len(found) == 0:
			return nil, fmt.Errorf("no skill, command or agent %q in the plugins here", n)
		case len(found) > 1 && found[0].Plugin != found[1].Plugin:
			return nil, fmt.Errorf("%q is in more than one plugin (%s, %s): name it plugin:name", n, found[0].Plugin, found[1].Plugin)
		}
		out = append(out, found[0])
	}
	return out, nil
}

var kindOrder = map[string]int{"skill": 0, "command": 1, "agent": 2}

func sortComponents(cs []Component) {
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].Plugin != cs[j].Plugin {
			return cs[i].Plugin < cs[j].Plugin
		}
		if cs[i].Kind != cs[j].Kind {
			return kindOrder[cs[i].Kind] < kindOrder[cs[j].Kind]
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
