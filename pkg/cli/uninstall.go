package cli

import (
	"context"
	"flag"
	"fmt"
	"github.com/rodin-gate/rodin/pkg/safefile"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// runUninstall undoes `rodin install` and what rodin left on the machine:
// the plugin's registration with Claude Code, the link on PATH, the copy
// of the plugin install made (~/.local/share/rodin), rodin's data directories (evidence, run logs, waivers, seal key), its caches,
// the Claude Code releases the test suite installed, and the executables
// built into the checkout. It lists what it removes, with sizes; --dry-run
// lists and removes nothing. The checkout itself is the user's to delete.
func runUninstall(e *env, args []string) error {
	var dryRun bool
	pos, err := flags("uninstall", args, func(fs *flag.FlagSet) {
		fs.BoolVar(&dryRun, "dry-run", false, "list what would be removed, remove nothing")
	})
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{"uninstall takes no arguments"}
	}
	home := e.getenv("HOME")
	if home == "" {
		return withHint(fmt.Errorf("HOME is not set"), "run it as the user who installed rodin")
	}
	verb := "removed"
	if dryRun {
		verb = "would remove"
	}

	var targets []string
	binDir := e.getenv("XDG_BIN_HOME")
	if binDir == "" {
		binDir = filepath.Join(home, ".local", "bin")
	}
	var roots []string
	seenRoot := map[string]bool{}
	if link := filepath.Join(binDir, "rodin"); isRodinLink(link) {
		targets = append(targets, link)
		if exe, err := os.Readlink(link); err == nil {
			roots = append(roots, filepath.Dir(filepath.Dir(filepath.Dir(exe)))) // CHECKOUT/plugin/libexec/rodin-… (an older install)
		}
	}
	if copyDir := installHome(e.getenv); copyDir != "" {
		source, _, ok := installedFrom(copyDir)
		// A copy whose record a broken install never wrote is rodin's too
		// when it holds rodin's plugin.
		if ok || gjson.Get(readString(filepath.Join(copyDir, "plugin", ".claude-plugin", "plugin.json")), "name").String() == "rodin" {
			targets = append(targets, copyDir)
			seenRoot[copyDir] = true // its executables go with it
		}
		if ok {
			roots = append(roots, source) // the checkout it was installed from
		}
	}
	// Claude Code's own copy of the plugin, which its uninstall may keep.
	for _, d := range []string{filepath.Join(home, ".claude", "plugins", "cache", "rodin"), filepath.Join(home, ".claude", "plugins", "marketplaces", "rodin")} {
		if isRodinCopy(d) {
			targets = append(targets, d)
		}
	}
	// Claude Code names a plugin's data directory <plugin>-<marketplace>:
	// rodin's are those that hold what rodin keeps there (another plugin
	// may be called rodin-something).
	data, _ := filepath.Glob(filepath.Join(home, ".claude", "plugins", "data", "rodin-*"))
	for _, d := range data {
		for _, mark := range []string{"seal.key", "platform", filepath.Join("bin", "pretooluse")} {
			if _, err := os.Lstat(filepath.Join(d, mark)); err == nil {
				targets = append(targets, d)
				break
			}
		}
	}
	// The caches where the launcher and the test suite keep them
	// ($XDG_CACHE_HOME or ~/.cache), and the system's cache directory when
	// it is another (macOS: ~/Library/Caches).
	caches := []string{filepath.Dir(launcherCache(e.getenv))}
	if c, err := os.UserCacheDir(); err == nil && c != caches[0] {
		caches = append(caches, c)
	}
	testCache := false
	for _, c := range caches {
		targets = append(targets, filepath.Join(c, "rodin"), filepath.Join(c, "rodin-test"))
		if _, err := os.Stat(filepath.Join(c, "rodin-test")); err == nil {
			testCache = true
		}
	}
	if root, err := checkoutRoot(); err == nil {
		roots = append(roots, root)
	}
	for _, root := range roots {
		if seenRoot[root] {
			continue
		}
		seenRoot[root] = true
		built, _ := filepath.Glob(filepath.Join(root, "plugin", "libexec", "*"))
		for _, b := range built {
			if filepath.Base(b) != ".gitignore" && filepath.Base(b) != "README.md" {
				targets = append(targets, b)
			}
		}
	}

	// What is there now, before Claude Code's own uninstall removes some
	// of it: the real run lists what the dry run listed.
	sizes := map[string]int64{}
	var present []string
	for _, t := range targets {
		if fi, err := os.Lstat(t); err == nil {
			sizes[t] = treeSize(t, fi)
			present = append(present, t)
		}
	}

	// Claude Code's registration first: a plugin it still lists would fail
	// to load once its files are gone.
	if claude, err := exec.LookPath("claude"); err == nil {
		for _, a := range [][]string{{"plugin", "uninstall", "rodin@rodin"}, {"plugin", "marketplace", "remove", "rodin"}} {
			if dryRun {
				fmt.Fprintf(e.stdout, "would run: claude %s\n", strings.Join(a, " "))
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			out, err := boundedCommand(ctx, claude, a...).CombinedOutput()
			cancel()
			msg := strings.TrimSpace(string(out))
			switch {
			case err == nil:
				fmt.Fprintf(e.stdout, "ran: claude %s\n", strings.Join(a, " "))
			case strings.Contains(strings.ToLower(msg), "not found") || strings.Contains(strings.ToLower(msg), "not installed"):
				fmt.Fprintf(e.stdout, "claude %s: nothing to do (%s)\n", strings.Join(a, " "), firstLine(msg))
			default:
				fmt.Fprintf(e.stdout, "claude %s failed (%v): %s; run it yourself\n", strings.Join(a, " "), err, firstLine(msg))
			}
		}
	} else {
		fmt.Fprintln(e.stdout, "claude is not on PATH: if rodin is registered with Claude Code, run `claude plugin uninstall rodin@rodin` and `claude plugin marketplace remove rodin`")
	}

	var total int64
	for _, t := range present {
		size := sizes[t]
		if _, err := os.Lstat(t); err != nil {
			total += size
			fmt.Fprintf(e.stdout, "%s %s (%s, by claude plugin uninstall)\n", verb, t, humanSize(size))
			continue
		}
		if !dryRun {
			if err := os.RemoveAll(t); err != nil {
				fmt.Fprintf(e.stdout, "could not remove %s: %v\n", t, err)
				continue
			}
		}
		total += size
		fmt.Fprintf(e.stdout, "%s %s (%s)\n", verb, t, humanSize(size))
	}
	removeSealRule(e, home, dryRun)
	if testCache {
		fmt.Fprintln(e.stdout, "npm's own cache (~/.npm/_cacache) still holds the Claude Code packages the test suite installed; `npm cache clean --force` empties it.")
	}
	fmt.Fprintf(e.stdout, "%s %s in all. The checkout, if you cloned one, is yours to delete.\n", verb, humanSize(total))
	fmt.Fprintln(e.stdout, "Plan files and task files keep what rodin and the agent wrote into them (the <!-- rodin:… --> comment lines, the gaps block): they are plain Markdown comments, left for you to delete or keep.")
	return nil
}

// treeSize is what removing path frees: a file linked twice (npm's
// installs share files by hard links) counts once.
func treeSize(path string, fi fs.FileInfo) int64 {
	if !fi.IsDir() {
		return fi.Size()
	}
	var n int64
	seen := map[[2]uint64]bool{}
	filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if i, err := d.Info(); err == nil {
				if key, ok := fileID(i); ok {
					if seen[key] {
						return nil
					}
					seen[key] = true
				}
				n += i.Size()
			}
		}
		return nil
	})
	return n
}

// isRodinCopy reports whether d holds a copy of rodin's plugin (Claude
// Code's cache or marketplace clone of it).
func isRodinCopy(d string) bool {
	found := false
	filepath.WalkDir(d, func(p string, de fs.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipDir
		}
		if de.Name() == "plugin.json" && gjson.Get(readString(p), "name").String() == "rodin" {
			found = true
		}
		return nil
	})
	return found
}

// removeSealRule takes back the deny rule `rodin sandbox --enable` wrote;
// the sandbox setting stays, as it guards more than rodin.
func removeSealRule(e *env, home string, dryRun bool) {
	p := filepath.Join(home, ".claude", "settings.json")
	b, err := os.ReadFile(p)
	if err != nil || !gjson.ValidBytes(b) {
		return
	}
	deny := gjson.GetBytes(b, "permissions.deny").Array()
	for i, r := range deny {
		if r.String() != sealKeyRule {
			continue
		}
		if dryRun {
			fmt.Fprintf(e.stdout, "would remove the deny rule %q from %s\n", sealKeyRule, p)
			return
		}
		out, err := sjson.DeleteBytes(b, fmt.Sprintf("permissions.deny.%d", i))
		if err == nil {
			out = relayout(out, b)
			err = safefile.WriteAtomic(p, out, 0o644)
		}
		if err != nil {
			fmt.Fprintf(e.stdout, "could not remove the deny rule %q from %s: %v\n", sealKeyRule, p, err)
			return
		}
		fmt.Fprintf(e.stdout, "removed the deny rule %q from %s (the sandbox setting stays: it guards more than rodin)\n", sealKeyRule, p)
		return
	}
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
