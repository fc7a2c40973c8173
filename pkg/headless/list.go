package headless

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/rodin-gate/rodin/pkg/procgroup"
	"github.com/tidwall/gjson"
)

// Listing is what a session of the CLI would offer: its slash commands
// (skills among them) and its agent types. It is the CLI's answer to the
// control protocol's initialize request, which comes before any prompt:
// no model is called, nothing is paid, and it takes about 0.3 s.
type Listing struct {
	Commands []ListedCommand `json:"commands"`
	Agents   []string        `json:"agents"`
}

// ListedCommand is a slash command or skill with the other names it
// answers to (2.1.332 names a skill by its frontmatter and keeps its
// directory name, the name the session's init event lists, as an alias).
type ListedCommand struct {
	Name    string   `json:"name"`
	Aliases []string `json:"aliases,omitempty"`
}

// HasCommand reports whether name is a listed command or an alias of one.
func (l Listing) HasCommand(name string) bool {
	for _, c := range l.Commands {
		if c.Name == name {
			return true
		}
		for _, a := range c.Aliases {
			if a == name {
				return true
			}
		}
	}
	return false
}

// HasAgent reports whether name is a listed agent type.
func (l Listing) HasAgent(name string) bool {
	for _, a := range l.Agents {
		if a == name {
			return true
		}
	}
	return false
}

// Prefixed are the listed names (commands, aliases and agents) that start
// with prefix, for saying what a plugin does provide.
func (l Listing) Prefixed(prefix string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		if strings.HasPrefix(n, prefix) && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, c := range l.Commands {
		add(c.Name)
		for _, a := range c.Aliases {
			add(a)
		}
	}
	for _, a := range l.Agents {
		add(a)
	}
	return out
}

// listTimeout bounds how long List waits for the CLI's answer.
const listTimeout = 60 * time.Second

// List starts the CLI with args in dir, asks it what it offers, and stops
// it before any prompt is sent.
func List(ctx context.Context, claude string, args []string, dir string, env []string) (Listing, error) {
	full := append([]string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
		"--permission-prompt-tool", "stdio", "--no-session-persistence"}, args...)
	cmd := exec.Command(claude, full...)
	cmd.Dir = dir
	cmd.Env = env
	procgroup.Own(cmd)
	stderr := &tail{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return Listing{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Listing{}, err
	}
	if err := cmd.Start(); err != nil {
		return Listing{}, err
	}
	defer func() {
		stdin.Close()
		procgroup.Kill(cmd)
		cmd.Wait()
	}()
	req, _ := json.Marshal(map[string]any{"type": "control_request", "request_id": "rodin-list",
		"request": map[string]any{"subtype": "initialize", "hooks": nil}})
	if _, err := stdin.Write(append(req, '\n')); err != nil {
		return Listing{}, fmt.Errorf("claude did not take the initialize request: %w", err)
	}
	found := make(chan gjson.Result, 1)
	go func() {
		defer close(found)
		br := bufio.NewReaderSize(stdout, 64<<10)
		for {
			line, err := br.ReadBytes('\n')
			if gjson.ValidBytes(line) {
				ev := gjson.ParseBytes(line)
				if ev.Get("type").String() == "control_response" && ev.Get("response.request_id").String() == "rodin-list" {
					found <- ev.Get("response")
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	t := time.NewTimer(listTimeout)
	defer t.Stop()
	select {
	case resp, ok := <-found:
		if !ok {
			return Listing{}, fmt.Errorf("claude ended without listing what it offers: %s", lastLine(stderr.String()))
		}
		if resp.Get("subtype").String() != "success" {
			return Listing{}, fmt.Errorf("claude refused the initialize request: %s", resp.Get("error").String())
		}
		return parseListing(resp.Get("response")), nil
	case <-t.C:
		return Listing{}, fmt.Errorf("claude did not list what it offers within %s", listTimeout)
	case <-ctx.Done():
		return Listing{}, ctx.Err()
	}
}

// parseListing reads the initialize response's commands (with their
// aliases, 2.1.332) and agents (objects with a name).
func parseListing(r gjson.Result) Listing {
	var l Listing
	r.Get("commands").ForEach(func(_, c gjson.Result) bool {
		lc := ListedCommand{Name: c.Get("name").String()}
		for _, a := range c.Get("aliases").Array() {
			lc.Aliases = append(lc.Aliases, a.String())
		}
		l.Commands = append(l.Commands, lc)
		return true
	})
	r.Get("agents").ForEach(func(_, a gjson.Result) bool {
		l.Agents = append(l.Agents, a.Get("name").String())
		return true
	})
	return l
}
