package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rodin-gate/rodin/pkg/contracts"
	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/planfile"
	"github.com/rodin-gate/rodin/pkg/project"
	"github.com/rodin-gate/rodin/pkg/verifygate"
)

// runContracts is `rodin contracts check FILE [--json]` and `rodin
// contracts init NAME`.
func runContracts(e *env, args []string) error {
	if len(args) == 0 {
		return usageError{"contracts takes check FILE or init NAME"}
	}
	switch args[0] {
	case "check":
		return contractsCheck(e, args[1:])
	case "init":
		return contractsInit(e, args[1:])
	}
	return usageError{fmt.Sprintf("unknown contracts command %q (check, init)", args[0])}
}

// contractsRoot is the nearest directory at or above dir that holds
// .rodin/contracts.json.
func contractsRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, contracts.File)); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", withHint(fmt.Errorf("no %s in %s or above", contracts.File, dir), "`rodin contracts init rlp-desk` writes rlp-desk's; see docs/contracts.md")
		}
	}
}

// contractCheck is what `rodin contracts check --json` prints.
type contractCheck struct {
	File       string                `json:"file"`
	Artifact   string                `json:"artifact,omitempty"`
	OK         bool                  `json:"ok"`
	Violations []contracts.Violation `json:"violations"`
	// Evidence is "checked", "not checked" (no --session given), or ""
	// for an artifact without an evidence rule.
	Evidence string `json:"evidence,omitempty"`
	Error    string `json:"error,omitempty"`
}

func contractsCheck(e *env, args []string) error {
	var asJSON bool
	var session, agent string
	pos, err := flags("contracts check", args, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "print the result as JSON")
		fs.StringVar(&session, "session", "", "check the commands an evidence rule cites against the runs rodin observed in this session")
		fs.StringVar(&agent, "agent", "", "with --session: the agent_id of the writer, for evidence at level independent (none: the main thread)")
	})
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"contracts check takes one file"}
	}
	if session != "" && !planfile.ValidSessionID(session) {
		return usageError{fmt.Sprintf("%q is not a session id", session)}
	}
	out := contractCheck{File: pos[0], Violations: []contracts.Violation{}}
	fail := func(err error) error {
		if asJSON {
			out.Error = err.Error()
			writeJSON(e.stdout, out)
			return errSilent
		}
		return err
	}
	cwd, _ := os.Getwd()
	abs := pos[0]
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, abs)
	}
	root, err := contractsRoot(filepath.Dir(abs))
	if err != nil {
		return fail(err)
	}
	c, err := contracts.Load(root)
	if err != nil {
		return fail(withHint(fmt.Errorf("%s: %v", filepath.Join(root, contracts.File), err), "fix the file; every problem is named with its place in it"))
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return fail(err)
	}
	realRoot, _ := filepath.EvalSymlinks(root)
	rel, err := filepath.Rel(realRoot, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fail(fmt.Errorf("%s is outside the project %s", pos[0], root))
	}
	c.Fold = contracts.FoldsCase(realRoot)
	a, vars := c.Match(rel)
	if a == nil {
		var paths []string
		for _, x := range c.Artifacts {
			paths = append(paths, x.Path)
		}
		return fail(withHint(fmt.Errorf("no contract covers %s", rel), "the artifacts' paths: %s", strings.Join(paths, ", ")))
	}
	out.Artifact = a.Name
	content, err := os.ReadFile(real)
	if err != nil {
		return fail(err)
	}
	if session != "" {
		if data := evidence.DataDir(e.getenv); data != "" {
			out.Violations = append(out.Violations, c.WriterViolation(data, session, filepath.ToSlash(rel), content)...)
		}
	}
	out.Violations = append(out.Violations, a.CheckContent(content, vars, realRoot)...)
	if a.Evidence != nil {
		out.Evidence = "not checked"
		if session != "" {
			data := evidence.DataDir(e.getenv)
			if data == "" {
				return fail(withHint(verifygate.ErrNoDataDir, "start a Claude Code session with rodin once"))
			}
			out.Evidence = "checked"
			out.Violations = append(out.Violations, a.CheckEvidence(content, c.Witnessed(data, session, realRoot, agent))...)
		}
	}
	out.OK = len(out.Violations) == 0
	if asJSON {
		writeJSON(e.stdout, out)
	} else if out.OK {
		fmt.Fprintf(e.stdout, "%s: keeps the %s contract\n", rel, a.Name)
	} else {
		fmt.Fprintf(e.stdout, "%s breaks the %s contract:\n", rel, a.Name)
		for _, v := range out.Violations {
			fmt.Fprintf(e.stdout, "  %s\n", v)
		}
	}
	if !asJSON && out.Evidence == "not checked" {
		fmt.Fprintf(e.stdout, "  (its evidence rule was not checked: --session ID checks the commands it cites against the runs rodin observed in that session)\n")
	}
	if !out.OK {
		return errSilent
	}
	return nil
}

func contractsInit(e *env, args []string) error {
	names := slices.Sorted(slices.Values(contracts.TemplateNames))
	if len(args) != 1 {
		return usageError{"contracts init takes one name: " + strings.Join(names, ", ")}
	}
	text, ok := contracts.Template(args[0])
	if !ok {
		return usageError{fmt.Sprintf("no contracts template %q (%s)", args[0], strings.Join(names, ", "))}
	}
	cwd, _ := os.Getwd()
	root := project.Root(e.getenv, cwd)
	path := filepath.Join(root, contracts.File)
	if _, err := os.Stat(path); err == nil {
		return withHint(fmt.Errorf("%s exists", path), "edit it, or remove it first")
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if _, err := contracts.Parse([]byte(text)); err != nil {
		return fmt.Errorf("the %s template is broken: %v", args[0], err) // a test keeps this from happening
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s (the %s contracts); check a file with `rodin contracts check FILE`\n", path, args[0])
	return nil
}
