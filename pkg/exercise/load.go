package exercise

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rodin-gate/rodin/pkg/headless"
)

// Prepare makes what the sessions load: a plugin that a marketplace entry
// defines (Plugin.Manifest) is loaded from a copy of its directory with
// that manifest as its plugin.json, in a directory of the same name (a
// plugin that is a skill is named after it), so that the session names it
// as an installed marketplace would. cleanup removes the copies.
func Prepare(comps []Component) (out []Component, cleanup func(), err error) {
	made := map[*Plugin]string{}
	var tops []string
	cleanup = func() {
		for _, t := range tops {
			os.RemoveAll(t)
		}
	}
	out = append([]Component{}, comps...)
	for i, c := range out {
		p := c.plugin
		if p == nil || p.Manifest == nil {
			continue
		}
		dir, ok := made[p]
		if !ok {
			top, err := os.MkdirTemp("", "rodin-plugin-")
			if err != nil {
				cleanup()
				return nil, nil, err
			}
			tops = append(tops, top)
			if dir, err = loadCopy(p, filepath.Join(top, filepath.Base(p.Dir))); err != nil {
				cleanup()
				return nil, nil, fmt.Errorf("cannot make the copy of %s that loads it as %s: %w", p.Dir, p.From, err)
			}
			made[p] = dir
		}
		out[i].loadDir = dir
	}
	return out, cleanup, nil
}

// loadCopy copies p's directory to dir with p's manifest. When the entry's
// skills are all its skills, the copy's skills/ keeps only those (a
// plugin.json adds skills/ to its list, and the CLI follows links there),
// and a listed skill whose frontmatter names it otherwise than its folder
// moves to .rodin-skills/ (in skills/ it would be named by its folder).
func loadCopy(p *Plugin, dir string) (string, error) {
	if err := copyTree(p.Dir, dir, "node_modules", ".claude-plugin"); err != nil {
		return "", err
	}
	m := p.Manifest
	if p.ReplaceSkills {
		keep := map[string]bool{}
		var listed []string
		for _, s := range p.Skills {
			t := strings.TrimSuffix(strings.TrimPrefix(s, "./"), "/")
			first, rest, _ := strings.Cut(t, "/")
			if first != "skills" || rest == "" || strings.Contains(rest, "/") {
				listed = append(listed, s)
				if t == "skills" {
					keep["*"] = true
				}
				continue
			}
			file := filepath.Join(dir, "skills", rest, "SKILL.md")
			if frontmatterName(file, skillName(rest)) == skillName(rest) {
				keep[rest] = true
				listed = append(listed, "./skills/"+rest)
				continue
			}
			if err := os.MkdirAll(filepath.Join(dir, ".rodin-skills"), 0o755); err != nil {
				return "", err
			}
			if err := os.Rename(filepath.Join(dir, "skills", rest), filepath.Join(dir, ".rodin-skills", rest)); err != nil {
				return "", err
			}
			listed = append(listed, "./.rodin-skills/"+rest)
		}
		if entries, err := os.ReadDir(filepath.Join(dir, "skills")); err == nil && !keep["*"] {
			for _, e := range entries {
				if !keep[e.Name()] {
					os.RemoveAll(filepath.Join(dir, "skills", e.Name()))
				}
			}
		}
		m = with(m, "skills", listed)
	}
	// In a plugin.json, lists of commands or agents replace the default
	// folders; the entry's add to them: the copy lists both.
	if p.ExtraCommands != nil {
		base := p.Commands
		if base == nil && isDir(filepath.Join(dir, "commands")) {
			base = []string{"./commands"}
		}
		m = with(m, "commands", append(append([]string{}, base...), p.ExtraCommands...))
	}
	if p.ExtraAgents != nil {
		base := p.Agents
		if base == nil {
			files, _ := filepath.Glob(filepath.Join(dir, "agents", "*.md"))
			for _, f := range files {
				base = append(base, "./agents/"+filepath.Base(f))
			}
		}
		m = with(m, "agents", append(append([]string{}, base...), p.ExtraAgents...))
	}
	if p.Skills != nil && !p.ReplaceSkills {
		m = with(m, "skills", p.Skills)
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(dir, ".claude-plugin"), 0o755); err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, ".claude-plugin", "plugin.json"), data, 0o644)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// validateTimeout bounds claude plugin validate (it answers in 0.2 s).
const validateTimeout = 60 * time.Second

// ErrLoad is a plugin Claude Code would not load as rodin would run it.
var ErrLoad = errors.New("the plugin does not load")

// CheckLoads asks the CLI, before any paid session, whether it loads each
// plugin and offers the components under the names rodin would ask for:
// the CLI's listing (its answer to the control protocol's initialize
// request, which calls no model, costs nothing and takes about half a
// second). A component it does not offer stops the run, with the errors of
// claude plugin validate when it has any: the CLI's own words for why.
// Validate alone decides nothing: it is the plugin directory's submission
// check, and refuses what the runtime loads (a name starting with
// "claude-", an agent's frontmatter YAML cannot parse). A CLI that cannot
// list (no control protocol) is noted: the session's own init event is
// then the only check.
func CheckLoads(ctx context.Context, claude string, env []string, dir string, comps []Component) (notes []string, err error) {
	checked := map[string]*headless.Listing{}
	for _, c := range comps {
		load := c.LoadDir()
		l, ok := checked[load]
		if !ok {
			listing, err := headless.List(ctx, claude, []string{"--plugin-dir", load}, dir, env)
			if err != nil {
				if ctx.Err() != nil {
					return notes, ctx.Err()
				}
				notes = append(notes, fmt.Sprintf("could not ask claude what %s offers before the sessions (%v): its names are checked by the sessions only", c.Plugin, err))
			} else {
				l = &listing
				if c.plugin != nil {
					if extra := unknownNames(listing, c.Plugin, c.plugin.Components(c.plugin.Dir)); len(extra) > 0 {
						notes = append(notes, fmt.Sprintf("claude also offers %s as %s, which rodin did not find in %s: rodin's naming may be behind this release of Claude Code", strings.Join(extra, ", "), c.Plugin, c.From()))
					}
				}
			}
			checked[load] = l
		}
		if l == nil || c.NotInvocable {
			continue // no listing, or nothing it would list (no slash command)
		}
		listed := l.HasCommand(c.ID())
		if c.Kind == "agent" {
			listed = l.HasAgent(c.ID())
		}
		if listed {
			continue
		}
		if msg := validate(ctx, claude, env, load); msg != "" {
			return notes, fmt.Errorf("%w: claude lists no %s %s; claude plugin validate %s (%s) says:\n%s", ErrLoad, c.Kind, c.ID(), load, c.From(), msg)
		}
		what := "nothing under that name"
		if offers := l.Prefixed(c.Plugin + ":"); len(offers) > 0 {
			what = strings.Join(offers, ", ")
		}
		return notes, fmt.Errorf("%w: claude lists no %s %s with --plugin-dir %s; it lists %s", ErrLoad, c.Kind, c.ID(), load, what)
	}
	return notes, nil
}

// NeedsCopy reports whether the session loads a copy of the plugin's
// directory with a manifest rodin writes (Prepare): a marketplace entry
// that --plugin-dir of its directory would not load as it is.
func (c Component) NeedsCopy() bool { return c.plugin != nil && c.plugin.Manifest != nil }

// From is where the component's plugin is defined.
func (c Component) From() string {
	if c.plugin == nil {
		return c.PluginDir
	}
	return c.plugin.From
}

// validate runs claude plugin validate --json on dir: "" when it passes
// (or the CLI has no such command), else the errors it names.
func validate(ctx context.Context, claude string, env []string, dir string) string {
	// Bounded like the listing: a claude that never answers gives no words.
	ctx, cancel := context.WithTimeout(ctx, validateTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "plugin", "validate", "--json", dir)
	cmd.Env = env
	out, _ := cmd.Output()
	return validateErrors(out)
}

// validateErrors reads claude plugin validate --json: "" when it passed or
// cannot be read, else its errors, one per line.
func validateErrors(out []byte) string {
	var r struct {
		Success  *bool `json:"success"`
		Manifest struct {
			Errors []struct{ Path, Message string } `json:"errors"`
		} `json:"manifest"`
		Contents []struct {
			File   string                           `json:"file"`
			Errors []struct{ Path, Message string } `json:"errors"`
		} `json:"contents"`
	}
	if json.Unmarshal(out, &r) != nil || r.Success == nil || *r.Success {
		return ""
	}
	var lines []string
	for _, e := range r.Manifest.Errors {
		lines = append(lines, "  "+strings.TrimPrefix(e.Path+": ", ": ")+e.Message)
	}
	for _, c := range r.Contents {
		for _, e := range c.Errors {
			lines = append(lines, "  "+c.File+": "+strings.TrimPrefix(e.Path+": ", ": ")+e.Message)
		}
	}
	if len(lines) == 0 {
		lines = append(lines, "  (it failed without naming an error; run it to see why)")
	}
	return strings.Join(lines, "\n")
}

// unknownNames are what the listing offers under the plugin's name that
// none of its components is called (a command by its name or an alias).
func unknownNames(l headless.Listing, plugin string, comps []Component) []string {
	known := map[string]bool{}
	for _, c := range comps {
		known[c.ID()] = true
	}
	var out []string
	for _, c := range l.Commands {
		if !strings.HasPrefix(c.Name, plugin+":") {
			continue
		}
		ok := known[c.Name]
		for _, a := range c.Aliases {
			ok = ok || known[a]
		}
		if !ok {
			out = append(out, c.Name)
		}
	}
	for _, a := range l.Agents {
		if strings.HasPrefix(a, plugin+":") && !known[a] {
			out = append(out, a)
		}
	}
	return out
}
