package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/pretty"
	"github.com/tidwall/sjson"

	"github.com/rodin-gate/rodin/pkg/project"
	"github.com/rodin-gate/rodin/pkg/safefile"
	"github.com/rodin-gate/rodin/pkg/sandbox"
)

// runSandbox reports what this project's settings let Bash do, and with
// --enable turns Claude Code's sandbox on, with no way out, in the user's
// settings: the one setting that keeps a same-user Bash command from
// writing rodin's evidence.
func runSandbox(e *env, args []string) error {
	var enable, asJSON bool
	pos, err := flags("sandbox", args, func(fs *flag.FlagSet) {
		fs.BoolVar(&enable, "enable", false, `add "sandbox": {"enabled": true, "allowUnsandboxedCommands": false} to ~/.claude/settings.json`)
		fs.BoolVar(&asJSON, "json", false, "print the status as JSON")
	})
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{"sandbox takes no arguments"}
	}
	home := e.getenv("HOME")
	cwd, _ := os.Getwd()
	root := project.Root(e.getenv, cwd)
	if enable {
		if err := enableSandbox(e, home); err != nil {
			return err
		}
	}
	st := sandbox.Detect(e.getenv, root, "")
	if asJSON {
		return writeJSON(e.stdout, map[string]any{"sandbox": st, "missing": sandbox.MissingTools()})
	}
	fmt.Fprintf(e.stdout, "sandbox: %s\n", st.Summary())
	for _, m := range sandbox.MissingTools() {
		fmt.Fprintf(e.stdout, "missing: %s (Claude Code's sandbox needs it on Linux; e.g. `sudo apt-get install bubblewrap socat`)\n", m)
	}
	return nil
}

// enableSandbox writes the setting into ~/.claude/settings.json, keeping
// everything else in the file as it is.
func enableSandbox(e *env, home string) error {
	if home == "" {
		return withHint(fmt.Errorf("HOME is not set"), "run it as the user who runs Claude Code")
	}
	p := filepath.Join(home, ".claude", "settings.json")
	b, err := safefile.ReadFile(p, 4<<20)
	switch {
	case os.IsNotExist(err):
		b = []byte("{}\n")
	case err != nil:
		return err
	case !gjson.ValidBytes(b):
		return withHint(fmt.Errorf("%s is not valid JSON, so rodin does not touch it", p), `add "sandbox": {"enabled": true, "allowUnsandboxedCommands": false} by hand`)
	}
	if b, err = sjson.SetBytes(b, "sandbox.enabled", true); err == nil {
		b, err = sjson.SetBytes(b, "sandbox.allowUnsandboxedCommands", false)
	}
	// The seal key, unreadable to every tool: a Read deny rule holds for
	// the Read tool in every mode, and Claude Code enforces it on sandboxed
	// commands too (no `cat seal.key`). Only the hooks, outside the
	// sandbox, need it.
	if err == nil && !slices.Contains(stringsOf(gjson.GetBytes(b, "permissions.deny")), sealKeyRule) {
		b, err = sjson.SetBytes(b, "permissions.deny.-1", sealKeyRule)
	}
	if err != nil {
		return err
	}
	// sjson appends a new key after the last one's line ("]\n ,\"deny\""):
	// the file is laid out again, in the indent it had.
	b = relayout(b, b)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := safefile.WriteAtomic(p, b, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s and the deny rule %q into %s; they take effect in new sessions.\n", sandbox.FixSetting, sealKeyRule, p)
	fmt.Fprintln(e.stdout, "what it costs: Bash commands run in Claude Code's sandbox (bubblewrap on Linux, Seatbelt on macOS): they cannot write outside the project and the temporary directory, a host not allowed asks before the network is used, and a command cannot ask to run outside it.")
	return nil
}

// relayout lays an sjson-edited settings file out again, in the indent the
// original had.
func relayout(edited, original []byte) []byte {
	return pretty.PrettyOptions(edited, &pretty.Options{Width: 80, Indent: indentOf(original)})
}

// indentOf is the indent of the first indented line of a JSON document,
// two spaces when it has none.
func indentOf(b []byte) string {
	for _, line := range strings.Split(string(b), "\n")[1:] {
		if n := len(line) - len(strings.TrimLeft(line, " \t")); n > 0 && n < len(line) {
			return line[:n]
		}
	}
	return "  "
}

// sealKeyRule keeps every tool from reading rodin's seal key.
const sealKeyRule = "Read(~/.claude/plugins/data/rodin*/seal.key)"

func stringsOf(r gjson.Result) []string {
	var out []string
	r.ForEach(func(_, v gjson.Result) bool {
		out = append(out, v.String())
		return true
	})
	return out
}
