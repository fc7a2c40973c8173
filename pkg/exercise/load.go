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
// skills are all its skills, skills/ is moved aside (kept reachable by a
// link, which the CLI does not load from) so that its other skills are
// not loaded.
func loadCopy(p *Plugin, dir string) (string, error) {
	if err := copyTree(p.Dir, dir, "node_modules", ".claude-plugin"); err != nil {
		return "", err
	}
	m := p.Manifest
	if p.ReplaceSkills && isDir(filepath.Join(dir, "skills")) {
		if err := os.Rename(filepath.Join(dir, "skills"), filepath.Join(dir, ".rodin-skills")); err != nil {
			return "", err
		}
		if err := os.Symlink(".rodin-skills", filepath.Join(dir, "skills")); err != nil {
			return "", err
		}
		var moved []string
		for _, s := range p.Skills {
			t := strings.TrimPrefix(s, "./")
			if t == "skills" || strings.HasPrefix(t, "skills/") {
				s = "./.rodin-skills" + strings.TrimPrefix(t, "skills")
			}
			moved = append(moved, s)
		}
		m = with(m, "skills", moved)
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

// ErrLoad is a plugin Claude Code would not load as rodin would run it.
var ErrLoad = errors.New("the plugin does not load")

// CheckLoads asks the CLI, before any paid session, whether each plugin
// loads (claude plugin validate: its own errors) and offers the
// components under the names rodin would ask for (the CLI's listing,
// which calls no model). It needs no network and costs nothing. A CLI
// that cannot list (no control protocol) is noted, not refused: the
// session's own init event is then the only check.
func CheckLoads(ctx context.Context, claude string, env []string, dir string, comps []Component) (notes []string, err error) {
	checked := map[string]*headless.Listing{}
	for _, c := range comps {
		load := c.LoadDir()
		l, ok := checked[load]
		if !ok {
			if msg := validate(ctx, claude, env, load); msg != "" {
				return notes, fmt.Errorf("%w: claude plugin validate %s (%s):\n%s", ErrLoad, load, c.From(), msg)
			}
			listing, err := headless.List(ctx, claude, []string{"--plugin-dir", load}, dir, env)
			if err != nil {
				if ctx.Err() != nil {
					return notes, ctx.Err()
				}
				notes = append(notes, fmt.Sprintf("could not ask claude what %s offers before the sessions (%v): its names are checked by the sessions only", c.Plugin, err))
			} else {
				l = &listing
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
		if !listed {
			offers := l.Prefixed(c.Plugin + ":")
			what := "nothing under that name"
			if len(offers) > 0 {
				what = strings.Join(offers, ", ")
			}
			return notes, fmt.Errorf("%w: claude lists no %s %s with --plugin-dir %s; it lists %s", ErrLoad, c.Kind, c.ID(), load, what)
		}
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
	cmd := exec.CommandContext(ctx, claude, "plugin", "validate", "--json", dir)
	cmd.Env = env
	out, _ := cmd.Output()
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
