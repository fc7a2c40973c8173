package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rodin-gate/rodin/internal/claudecli"
	"github.com/rodin-gate/rodin/pkg/exercise"
	"github.com/rogpeppe/go-internal/txtar"
)

// TestLayoutNames asks the real CLI what it names the components of each
// real plugin layout in testdata/exercise/layouts, and checks that it is
// what the archive's want.txt says (which TestRealLayouts holds rodin's
// names to): the naming rules stay those of the releases we support. Each
// plugin is loaded as Claude Code would load it: a plugin.json directory
// with --plugin-dir, a marketplace's local entries as the marketplace's
// plugins (a directory marketplace enabled in the session's settings, in a
// throwaway HOME). The names are the session's init event's, which comes
// before any model call (the API is a closed port on loopback).
func TestLayoutNames(t *testing.T) { eachRelease(t, testLayoutNames) }

func testLayoutNames(t *testing.T, rel claudecli.Release) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "exercise", "layouts", "*.txtar"))
	if len(files) == 0 {
		t.Fatal("no layouts")
	}
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		root := t.TempDir()
		var want []string
		wantSet := false
		for _, file := range ar.Files {
			if file.Name == "want@"+rel.Version+".txt" {
				// What this release names differs from the current one.
				want = nil
				for _, line := range strings.Split(strings.TrimSpace(string(file.Data)), "\n") {
					if line != "" {
						want = append(want, line)
					}
				}
				wantSet = true
				continue
			}
			if file.Name == "want.txt" && !wantSet {
				want = strings.Split(strings.TrimSpace(string(file.Data)), "\n")
			}
			if strings.HasPrefix(file.Name, "want") {
				continue
			}
			p := filepath.Join(root, "repo", filepath.FromSlash(file.Name))
			os.MkdirAll(filepath.Dir(p), 0o755)
			writeFile(t, p, string(file.Data))
		}
		repo := filepath.Join(root, "repo")
		plugins, err := exercise.Plugins(repo)
		if err != nil {
			t.Fatal(err)
		}
		// The marketplace gets a name of its own: the CLI refuses names
		// kept for official marketplaces from a directory source, and the
		// name names no component.
		var mkt string
		if mp := filepath.Join(repo, ".claude-plugin", "marketplace.json"); fileExists(mp) {
			var m map[string]any
			if err := json.Unmarshal([]byte(readFile(t, mp)), &m); err != nil {
				t.Fatal(err)
			}
			mkt = "rodin-layout"
			m["name"] = mkt
			data, _ := json.Marshal(m)
			writeFile(t, mp, string(data))
		}
		// One session per group of plugins with distinct names: a user
		// loads a plugin one way, not two of one name at once.
		type group struct {
			names   map[string]bool
			dirs    []string
			enabled map[string]bool
		}
		var groups []*group
		for _, p := range plugins {
			var g *group
			for _, h := range groups {
				if !h.names[p.Name] {
					g = h
					break
				}
			}
			if g == nil {
				g = &group{names: map[string]bool{}, enabled: map[string]bool{}}
				groups = append(groups, g)
			}
			g.names[p.Name] = true
			if strings.Contains(p.From, "marketplace.json: ") && mkt != "" {
				_, entry, _ := strings.Cut(p.From, "marketplace.json: ")
				g.enabled[entry+"@"+mkt] = true
			} else {
				g.dirs = append(g.dirs, p.Dir)
			}
		}
		seen := map[string]bool{}
		var got []string
		for _, g := range groups {
			args := []string{}
			for _, d := range g.dirs {
				args = append(args, "--plugin-dir", d)
			}
			settings := map[string]any{"disableAllHooks": true}
			if len(g.enabled) > 0 {
				settings["extraKnownMarketplaces"] = map[string]any{mkt: map[string]any{"source": map[string]any{"source": "directory", "path": repo}}}
				settings["enabledPlugins"] = g.enabled
			}
			data, _ := json.Marshal(settings)
			args = append(args, "--settings", string(data))
			for _, n := range initNames(t, rel.Path, filepath.Join(root, "home"), args) {
				if !seen[n] {
					seen[n] = true
					got = append(got, n)
				}
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: names (-want.txt +claude %s):\n%s", filepath.Base(f), rel.Version, diff)
		}

		// And as rodin exercise loads each plugin (a copy for a marketplace
		// entry): the CLI offers every component rodin names, and nothing
		// else under the plugin's name.
		wanted := map[string]bool{}
		for _, w := range want {
			_, id, _ := strings.Cut(w, " ")
			wanted[id] = true
		}
		env := []string{"HOME=" + filepath.Join(root, "home"), "PATH=" + os.Getenv("PATH"), "ANTHROPIC_API_KEY=" + apiKey,
			"ANTHROPIC_BASE_URL=http://127.0.0.1:9", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1"}
		for _, p := range plugins {
			var comps []exercise.Component
			listed := false
			for _, c := range exercise.Inventory(repo, []*exercise.Plugin{p}) {
				if c.Refused == "" {
					comps = append(comps, c)
					listed = listed || wanted[c.ID()]
				}
			}
			if len(comps) == 0 {
				continue
			}
			prepared, cleanup, err := exercise.Prepare(comps)
			if err != nil {
				t.Fatal(err)
			}
			notes, err := exercise.CheckLoads(context.Background(), rel.Path, env, root, prepared)
			cleanup()
			switch {
			case err != nil && listed:
				t.Errorf("%s: %s does not load as rodin loads it: %v", filepath.Base(f), p.Name, err)
			case err == nil && !listed:
				t.Errorf("%s: %s loads, but claude %s named none of it", filepath.Base(f), p.Name, rel.Version)
			case len(notes) > 0:
				t.Errorf("%s: %s: %s", filepath.Base(f), p.Name, strings.Join(notes, "; "))
			}
		}
	}
}

// initNames starts a session with args, sends a prompt, and returns the
// plugin components its init event lists ("slash plugin:name" for skills
// and commands, "agent plugin:name"), sorted; the session is killed then,
// before its model call could be answered.
func initNames(t *testing.T, claude, home string, args []string) []string {
	t.Helper()
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	cmd := exec.Command(claude, append([]string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--no-session-persistence"}, args...)...)
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ANTHROPIC_API_KEY=" + apiKey, "ANTHROPIC_BASE_URL=http://127.0.0.1:9",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1"}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	stdin.Write([]byte(`{"type":"user","session_id":"","message":{"role":"user","content":"hi"},"parent_tool_use_id":null}` + "\n"))
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var ev struct {
				Type, Subtype         string
				SlashCommands, Agents []string
			}
			var raw map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &raw) != nil {
				continue
			}
			json.Unmarshal(raw["type"], &ev.Type)
			json.Unmarshal(raw["subtype"], &ev.Subtype)
			if ev.Type != "system" || ev.Subtype != "init" {
				continue
			}
			json.Unmarshal(raw["slash_commands"], &ev.SlashCommands)
			json.Unmarshal(raw["agents"], &ev.Agents)
			var out []string
			for _, s := range ev.SlashCommands {
				if strings.Contains(s, ":") {
					out = append(out, "slash "+s)
				}
			}
			for _, a := range ev.Agents {
				if strings.Contains(a, ":") {
					out = append(out, "agent "+a)
				}
			}
			sort.Strings(out)
			found <- out
			return
		}
		close(found)
	}()
	select {
	case names, ok := <-found:
		if !ok {
			t.Fatalf("claude %v ended without an init event", args)
		}
		return names
	case <-time.After(90 * time.Second):
		t.Fatalf("no init event from claude within 90 s (args %v)", args)
	}
	return nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
