package exercise

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Plugin is one plugin Claude Code would load from the repository, with
// what defines its components (docs/exercise.md, "How Claude Code names
// a component", has the rules and the real CLI's listings behind them).
type Plugin struct {
	Name string // as Claude Code names it
	Dir  string // absolute: its paths are relative to it
	// From is where it is defined: a plugin.json, or a marketplace entry
	// ("<marketplace.json>: <entry>").
	From string
	// Skills, Commands and Agents are the manifest's own lists (strings or
	// arrays of "./" paths), nil when it has none.
	Skills, Commands, Agents []string
	// ReplaceSkills is true when the listed skills are all its skills: a
	// marketplace entry that defines the plugin (strict: false) and lists
	// them. A plugin.json's list adds to skills/.
	ReplaceSkills bool
	// Manifest, when set, is what Claude Code makes of a marketplace entry
	// that --plugin-dir of Dir would not load as it is (no plugin.json,
	// strict: false, or lists of its own): the run loads a copy of Dir
	// with it as the plugin.json.
	Manifest map[string]json.RawMessage
	// ExtraCommands and ExtraAgents are a marketplace entry's lists, which
	// add to the plugin's commands and agents (where a plugin.json's
	// replace the default folders).
	ExtraCommands, ExtraAgents []string
	// manifest is plugin.json as read.
	manifest map[string]json.RawMessage
	refused  string
}

// Plugins finds the plugins of the repository at root: every directory
// with .claude-plugin/plugin.json, and the local entries of a root
// .claude-plugin/marketplace.json (several entries may share a source;
// each is a plugin of its own).
func Plugins(root string) ([]*Plugin, error) {
	var out []*Plugin
	byDir := map[string]*Plugin{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules":
				return filepath.SkipDir
			}
			if pl, ok := readPluginJSON(p, root); ok {
				out = append(out, pl)
				byDir[p] = pl
			}
		}
		return nil
	})
	mp := filepath.Join(root, ".claude-plugin", "marketplace.json")
	data, rerr := os.ReadFile(mp)
	if rerr != nil {
		return out, err
	}
	var m struct {
		Metadata struct {
			PluginRoot string `json:"pluginRoot"`
		} `json:"metadata"`
		Plugins []map[string]json.RawMessage `json:"plugins"`
	}
	if json.Unmarshal(data, &m) != nil {
		return out, err
	}
	covered := map[string]bool{}
	var entries []*Plugin
	for _, e := range m.Plugins {
		var name, src string
		var strict *bool
		json.Unmarshal(e["name"], &name)
		if json.Unmarshal(e["source"], &src) != nil || name == "" {
			continue // a remote source: not in this repository
		}
		if s, ok := e["strict"]; ok {
			var b bool
			if json.Unmarshal(s, &b) == nil {
				strict = &b
			}
		}
		if !strings.HasPrefix(src, ".") && m.Metadata.PluginRoot != "" {
			src = filepath.Join(m.Metadata.PluginRoot, src)
		}
		dir := filepath.Join(root, filepath.FromSlash(src))
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		covered[dir] = true
		pl := &Plugin{Name: name, Dir: dir, From: ".claude-plugin/marketplace.json: " + name}
		own, hasJSON := byDir[dir]
		skills, commands, agents := paths(e["skills"]), paths(e["commands"]), paths(e["agents"])
		lists := skills != nil || commands != nil || agents != nil
		switch {
		case hasJSON && (strict == nil || *strict):
			// plugin.json is the plugin (its name too, as the CLI lists
			// it); the entry's lists add to its components.
			pl.Name, pl.From = own.Name, own.From+" + "+pl.From
			pl.Skills = append(append([]string{}, own.Skills...), skills...)
			pl.Commands, pl.Agents = own.Commands, own.Agents
			pl.ExtraCommands, pl.ExtraAgents = commands, agents
			if lists {
				pl.Manifest = own.manifest
			}
		case hasJSON && lists:
			// The CLI installs it but loads nothing: conflicting manifests.
			pl.refused = pl.From + ": strict: false with lists of its own beside " + own.From + " (conflicting manifests)"
		default:
			// The entry is the whole manifest: its skills replace skills/,
			// its commands and agents add to the default folders.
			pl.Manifest = map[string]json.RawMessage{}
			for k, v := range e {
				switch k {
				case "source", "strict", "category", "tags":
				default:
					pl.Manifest[k] = v
				}
			}
			pl.Skills, pl.ReplaceSkills = skills, skills != nil
			pl.ExtraCommands, pl.ExtraAgents = commands, agents
		}
		entries = append(entries, pl)
	}
	// A plugin directory the marketplace lists is its entries' plugin.
	kept := out[:0]
	for _, p := range out {
		if !covered[p.Dir] {
			kept = append(kept, p)
		}
	}
	return append(kept, entries...), err
}

// readPluginJSON reads dir's .claude-plugin/plugin.json; a manifest
// without a name is named by its directory, as the CLI names it.
func readPluginJSON(dir, root string) (*Plugin, bool) {
	file := filepath.Join(dir, ".claude-plugin", "plugin.json")
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, false
	}
	var m map[string]json.RawMessage
	json.Unmarshal(data, &m)
	var name string
	json.Unmarshal(m["name"], &name)
	if name == "" {
		name = filepath.Base(dir)
	}
	rel, _ := filepath.Rel(root, file)
	return &Plugin{Name: name, Dir: dir, From: filepath.ToSlash(rel), manifest: m,
		Skills: paths(m["skills"]), Commands: paths(m["commands"]), Agents: paths(m["agents"])}, true
}

// with is a copy of m with key set to v.
func with(m map[string]json.RawMessage, key string, v any) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for k, x := range m {
		out[k] = x
	}
	out[key], _ = json.Marshal(v)
	return out
}

// paths reads a manifest's component field: a string or a list of them;
// nil when absent.
func paths(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		if list == nil {
			list = []string{}
		}
		return list
	}
	return nil
}

// Components lists every skill, command and agent of the plugin, named
// as Claude Code names them:
//   - a skill in a folder of skills (skills/, or a listed folder) by its
//     directory, spaces made hyphens; a listed skill directory, or the
//     plugin's own SKILL.md (a plugin that is a skill), by its
//     frontmatter name, else its directory;
//   - a command by its path under its folder (commands/, or a listed
//     folder), folders joined with ":"; a listed file by its name;
//   - an agent by its folders under agents/ joined with ":" and its
//     frontmatter name, else its file name; a listed file likewise.
//
// Listed commands or agents replace the default folder; listed skills add
// to skills/ unless ReplaceSkills.
func (p *Plugin) Components(root string) []Component {
	var out []Component
	seen := map[string]bool{}
	add := func(kind, name, abs string) {
		if seen[kind+"\x00"+abs] {
			return
		}
		seen[kind+"\x00"+abs] = true
		rel, _ := filepath.Rel(root, abs)
		real := rel
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			if rr, err := filepath.Rel(root, r); err == nil && !strings.HasPrefix(rr, "..") {
				real = rr
			}
		}
		out = append(out, Component{Real: filepath.ToSlash(real), Plugin: p.Name, PluginDir: p.Dir, Kind: kind, Name: name, File: filepath.ToSlash(rel), Abs: abs, plugin: p})
	}
	skillDir := func(dir string) { // a directory that is a skill
		if isFile(filepath.Join(dir, "SKILL.md")) {
			add("skill", frontmatterName(filepath.Join(dir, "SKILL.md"), skillName(filepath.Base(dir))), filepath.Join(dir, "SKILL.md"))
		}
	}
	skillFolder := func(dir string) { // a folder of skills
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			// isFile follows links: the CLI loads a linked skill folder,
			// named by the link.
			if isFile(filepath.Join(dir, e.Name(), "SKILL.md")) {
				add("skill", skillName(e.Name()), filepath.Join(dir, e.Name(), "SKILL.md"))
			}
		}
	}
	// The plugin's own SKILL.md (a plugin that is a skill) counts when it
	// has no skills/ folder, or lists itself ("./").
	if !isDir(filepath.Join(p.Dir, "skills")) || slices.Contains(p.Skills, "./") || slices.Contains(p.Skills, ".") {
		skillDir(p.Dir)
	}
	if !p.ReplaceSkills {
		skillFolder(filepath.Join(p.Dir, "skills"))
	}
	for _, s := range p.Skills {
		d := p.path(s)
		if isFile(filepath.Join(d, "SKILL.md")) {
			skillDir(d)
		} else {
			skillFolder(d)
		}
	}
	commandFolder := func(dir string) {
		// A listed folder may be a link (the CLI follows it); the files
		// keep the link's path.
		if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
			filepath.WalkDir(real, func(f string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(f, ".md") {
					rel, _ := filepath.Rel(real, strings.TrimSuffix(f, ".md"))
					add("command", strings.ReplaceAll(filepath.ToSlash(rel), "/", ":"), filepath.Join(dir, rel+".md"))
				}
				return nil
			})
			return
		}
		filepath.WalkDir(dir, func(f string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && f != dir && isFile(filepath.Join(f, "SKILL.md")) {
				// A folder of commands/ that holds a SKILL.md is a skill.
				add("skill", skillName(d.Name()), filepath.Join(f, "SKILL.md"))
				return filepath.SkipDir
			}
			if err == nil && !d.IsDir() && strings.HasSuffix(f, ".md") {
				rel, _ := filepath.Rel(dir, strings.TrimSuffix(f, ".md"))
				add("command", strings.ReplaceAll(filepath.ToSlash(rel), "/", ":"), f)
			}
			return nil
		})
	}
	if p.Commands == nil {
		commandFolder(filepath.Join(p.Dir, "commands"))
	}
	for _, c := range append(append([]string{}, p.Commands...), p.ExtraCommands...) {
		if f := p.path(c); isFile(f) && strings.HasSuffix(f, ".md") {
			add("command", strings.TrimSuffix(filepath.Base(f), ".md"), f)
		} else {
			commandFolder(f)
		}
	}
	agentFile := func(f, prefix string) {
		add("agent", prefix+AgentName(f, strings.TrimSuffix(filepath.Base(f), ".md")), f)
	}
	if p.Agents == nil {
		dir := filepath.Join(p.Dir, "agents")
		filepath.WalkDir(dir, func(f string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(f, ".md") {
				rel, _ := filepath.Rel(dir, filepath.Dir(f))
				prefix := ""
				if rel != "." {
					prefix = strings.ReplaceAll(filepath.ToSlash(rel), "/", ":") + ":"
				}
				agentFile(f, prefix)
			}
			return nil
		})
	}
	for _, a := range append(append([]string{}, p.Agents...), p.ExtraAgents...) {
		if f := p.path(a); isFile(f) && strings.HasSuffix(f, ".md") {
			agentFile(f, "")
		}
	}
	// A command and a skill of one name are one slash command, and the
	// command is what runs (the CLI lists the command's description).
	commands := map[string]bool{}
	for _, c := range out {
		if c.Kind == "command" {
			commands[c.Name] = true
		}
	}
	kept := out[:0]
	for _, c := range out {
		if c.Kind == "skill" && commands[c.Name] {
			continue
		}
		if c.Kind == "skill" {
			c.NotInvocable = !userInvocable(c.Abs)
		}
		c.Refused = p.Refused()
		kept = append(kept, c)
	}
	out = kept
	sortComponents(out)
	return out
}

// Refused says why Claude Code would not load the plugin at all, "" when
// nothing rodin knows of stops it: an agents entry that is not a .md file
// (the CLI refuses the manifest: agents.0 must end with ".md"). The run's
// load check asks the CLI itself (claude plugin validate).
func (p *Plugin) Refused() string {
	if p.refused != "" {
		return p.refused
	}
	for i, a := range append(append([]string{}, p.Agents...), p.ExtraAgents...) {
		if !strings.HasSuffix(a, ".md") {
			return fmt.Sprintf("%s: agents.%d (%s) must name a .md file", p.From, i, a)
		}
	}
	for kind, list := range map[string][]string{"skills": p.Skills, "commands": append(append([]string{}, p.Commands...), p.ExtraCommands...), "agents": p.Agents} {
		for i, x := range list {
			if !strings.HasPrefix(x, "./") {
				return fmt.Sprintf("%s: %s.%d (%s) must start with \"./\"", p.From, kind, i, x)
			}
		}
	}
	m := p.manifest
	if p.Manifest != nil {
		m = p.Manifest
	}
	if d, ok := m["dependencies"]; ok && len(d) > 0 && d[0] != '[' {
		return fmt.Sprintf("%s: dependencies must be a list", p.From)
	}
	// The default hooks file: one Claude Code cannot read drops the plugin
	// whole, hooks disabled or not.
	if data, err := os.ReadFile(filepath.Join(p.Dir, "hooks", "hooks.json")); err == nil {
		var h struct {
			Hooks json.RawMessage `json:"hooks"`
		}
		if json.Unmarshal(data, &h) != nil || (len(h.Hooks) > 0 && h.Hooks[0] != '{') {
			return fmt.Sprintf("%s: hooks/hooks.json's \"hooks\" must be an object", p.From)
		}
	}
	return ""
}

// path resolves a manifest path ("./x") against the plugin's directory;
// one that leaves it resolves to nothing.
func (p *Plugin) path(s string) string {
	f := filepath.Join(p.Dir, filepath.FromSlash(s))
	if r, err := filepath.Rel(p.Dir, f); err != nil || strings.HasPrefix(r, "..") {
		return filepath.Join(p.Dir, ".rodin-outside")
	}
	return f
}

// skillName is a skill directory's name as a command: each character
// other than a letter, digit, "_" or "-" becomes "-" ("My Skill" is
// /plugin:My-Skill).
func skillName(dir string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return '-'
	}, dir)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// frontmatterName is the `name:` of the file's YAML frontmatter, else
// fallback (a deleted file, one without frontmatter or name, or a name
// Claude Code would not take: spaces, slashes).
func frontmatterName(path, fallback string) string {
	block, ok := frontmatter(path)
	if !ok || !plausibleYAML(block) {
		return fallback // Claude Code reads no field of a frontmatter YAML refuses
	}
	if v, ok := field(block, "name"); ok && v != "" && !strings.ContainsAny(v, " \t/") {
		return v
	}
	return fallback
}

// frontmatter is the YAML block between the file's opening "---" lines;
// false when the file cannot be read or has none.
func frontmatter(path string) (string, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	head, ok := strings.CutPrefix(strings.ReplaceAll(string(b), "\r\n", "\n"), "---\n")
	if !ok {
		return "", false
	}
	end := strings.Index(head, "\n---")
	if end < 0 {
		return "", false
	}
	return head[:end], true
}

// field is the first top-level `key:` value of a frontmatter block, its
// quotes removed.
func field(block, key string) (string, bool) {
	for _, line := range strings.Split(block, "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			return strings.Trim(strings.TrimSpace(v), `"'`), true
		}
	}
	return "", false
}

// Inventory is every component of every plugin, in order. A SKILL.md two
// plugins reach (marketplace entries sharing a source) is the first one's:
// the CLI lists it once.
func Inventory(root string, plugins []*Plugin) []Component {
	var out []Component
	skills := map[string]bool{}
	for _, p := range plugins {
		for _, c := range p.Components(root) {
			if c.Kind == "skill" {
				if skills[c.Abs] {
					continue
				}
				skills[c.Abs] = true
			}
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Plugin < out[j].Plugin })
	return out
}

// plausibleYAML reports whether a frontmatter block would parse as the
// mapping Claude Code reads it as. Its reader forgives a plain value
// holding ": " (real agents' descriptions do), but not a line at the
// margin that is not a key, such as an <example> tag: then it ignores the
// frontmatter whole, and the file is named by its file name.
func plausibleYAML(block string) bool {
	for _, line := range strings.Split(block, "\n") {
		if strings.TrimSpace(line) == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' || strings.HasPrefix(line, "- ") {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok || key == "" || strings.ContainsAny(key, "\"'<>{}[]") {
			return false
		}
		value = strings.TrimSpace(value)
		if value == "" || strings.ContainsAny(value[:1], "\"'|>[{") {
			continue
		}
		if value[0] == '@' || value[0] == '`' {
			return false
		}
	}
	return true
}

// userInvocable is false for a skill whose frontmatter says
// `user-invocable: false`: it has no slash command, and only the model
// runs it (the Skill tool).
func userInvocable(path string) bool {
	block, ok := frontmatter(path)
	if !ok {
		return true
	}
	v, ok := field(block, "user-invocable")
	return !ok || v != "false"
}
