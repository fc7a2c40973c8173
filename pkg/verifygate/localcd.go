package verifygate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/rodin-gate/rodin/pkg/safefile"
	"github.com/rodin-gate/rodin/pkg/tasks"
)

// localCd is a command written on its author's machine, as a careful reader
// runs it here: a `cd` to their copy of the project (`cd
// /Users/ana/src/kernel/gpu-search && cargo test`) goes to the folder of
// this project the path names (`cd gpu-search && cargo test`), and a file
// of their copy named in the command (`bats
// /Users/ana/src/kernel/tests/unit/hooks.bats`) is this project's. Only
// where the written path is not on this machine (on the author's, the
// command runs as written) and the longest tail of it is in the project
// (or what lies under the project's own name); a worktree of their copy
// (`cd …/.claude/worktrees/zazzy-raven && bash plugins/x/hook.sh`) is the
// root when the command's own relative paths are there. Otherwise the
// command stays as written, and fails as "could not run".
func (s *Session) localCd(c string) string {
	if !namesAbsPath(c) {
		return c // every NeedOf asks: most commands name none
	}
	// As the session began: a folder made since (a decoy holding a longer
	// tail of the path) does not move a check (attack 62).
	if s.Baseline != nil {
		if m, ok := s.Baseline.Dirs[LocalKey][c]; ok {
			return m
		}
	}
	return mapLocal(s.Root, c)
}

// LocalKey keys, in ledger.Baseline.Dirs, the commands localCd mapped as
// the session began (to themselves when it mapped none).
const LocalKey = ":local"

// mapLocal is localCd as the files under root are now.
func mapLocal(root, c string) string {
	if root == "" || !namesAbsPath(c) {
		return c
	}
	// The names the project goes by, read once for every path of the
	// command (its origin from .git/config), and only if one is mapped.
	names := sync.OnceValue(func() []string { return rootNames(root) })
	written := c
	dir, rest, ok := winCdThen(c)
	if !ok {
		dir, rest, ok = tasks.CdThen(c)
	}
	// `cd F:\Projects\erp && python -m py_compile erp/api.py` reads as
	// the same path here (winCdThen), as a Unix one does.
	if ok && filepath.Clean(dir) == "/" {
		// `cd / && npx tool status --strict` in a task list of the
		// project: its root, as the list's other steps run there; no
		// check runs at the machine's root.
		return localFiles(root, names, rest, true)
	}
	if ok && filepath.IsAbs(dir) {
		if _, err := os.Stat(dir); err == nil {
			return written
		}
		local := localFiles(root, names, rest, false)
		switch sub, ok := hereOf(root, names, dir, true); {
		case ok && sub == "":
			return local
		case ok:
			return "cd " + sub + " && " + local
		case namesProjectPaths(root, rest):
			return local // another checkout of the project: the root here
		}
		return written
	}
	return localFiles(root, names, c, true)
}

// namesAbsPath reports whether a command has a word that is an absolute
// path, or an assignment of one: what mapLocal may map.
func namesAbsPath(c string) bool {
	return strings.HasPrefix(c, "/") || strings.Contains(c, " /") || strings.Contains(c, "=/") || strings.Contains(c, ":\\") || drivePath(c) >= 0
}

// drivePath is where the first word of c that is a Windows drive's path
// written with forward slashes starts (`C:/projects/app`, `"C:/…"`), -1
// when there is none: a URL's `https://` is no drive.
func drivePath(c string) int {
	for i := 1; i+1 < len(c); i++ {
		if c[i] != ':' || c[i+1] != '/' || !(c[i-1] >= 'A' && c[i-1] <= 'Z' || c[i-1] >= 'a' && c[i-1] <= 'z') {
			continue
		}
		if i+2 < len(c) && c[i+2] == '/' {
			continue // a URL's scheme
		}
		if i-1 == 0 || strings.ContainsRune(" \"'=", rune(c[i-2])) {
			return i - 1
		}
	}
	return -1
}

// unixPath is a Windows drive's path as a Unix one (`C:/projects/app` →
// /projects/app), "" for any other word.
func unixPath(w string) string {
	if len(w) < 4 || w[1] != ':' || w[2] != '/' && w[2] != '\\' || !(w[0] >= 'A' && w[0] <= 'Z' || w[0] >= 'a' && w[0] <= 'z') {
		return ""
	}
	return "/" + strings.ReplaceAll(w[3:], "\\", "/")
}

// winCdThen splits a command that opens with `cd` to a Windows drive's
// path (`cd F:\Dropbox\erp && …`) into that path as a Unix one
// (/Dropbox/erp) and the rest. A path with quotes, spaces or shell
// characters is not read.
func winCdThen(c string) (dir, rest string, ok bool) {
	after, found := strings.CutPrefix(strings.TrimSpace(c), "cd ")
	if !found {
		return "", "", false
	}
	after = strings.TrimLeft(after, " ")
	if a, ok := strings.CutPrefix(after, "/d "); ok {
		after = strings.TrimLeft(a, " ") // cmd.exe's `cd /d F:\…`
	}
	var d string
	if after != "" && (after[0] == '"' || after[0] == '\'') {
		// A quoted path: spaces are the path's.
		j := strings.IndexByte(after[1:], after[0])
		if j < 0 {
			return "", "", false
		}
		d, rest = after[1:j+1], after[j+2:]
	} else {
		i := strings.IndexAny(after, " ;")
		if i < 0 {
			return "", "", false
		}
		d, rest = after[:i], after[i:]
	}
	rest = strings.TrimLeft(rest, " ")
	switch {
	case strings.HasPrefix(rest, "&& "):
		rest = rest[3:]
	case strings.HasPrefix(rest, "; "), strings.HasPrefix(rest, ";"):
		rest = strings.TrimPrefix(rest, ";") // PowerShell's separator
	default:
		return "", "", false
	}
	rest = strings.TrimSpace(rest)
	u := unixPath(d)
	if u == "" || strings.ContainsAny(d, "'\"$`;|&") || rest == "" {
		return "", "", false
	}
	if t := strings.TrimRight(u, "/"); t != "" {
		u = t
	} else {
		u = "/" // `C:\`: the drive's root
	}
	return u, rest, true
}

// localFiles replaces the words of c that are absolute paths of another
// machine's copy of the project by this project's files: relative to the
// root when c runs there (atRoot), else absolute.
func localFiles(root string, names func() []string, c string, atRoot bool) string {
	words := strings.Split(c, " ")
	changed := false
	for i, w := range words {
		// A path as a word, or as an assignment's value (`DB=/Users/…/x.db`),
		// or before the `;` that ends a command.
		pre, p := "", w
		if k := strings.IndexByte(w, '='); k > 0 && (strings.HasPrefix(w[k+1:], "/") || unixPath(w[k+1:]) != "") {
			pre, p = w[:k+1], w[k+1:]
		}
		post := ""
		if t := strings.TrimRight(p, ";"); t != p {
			p, post = t, p[len(t):]
		}
		// A path in double quotes (`"C:/projects/app/docs/README.md"`):
		// the quotes stay around the project's path.
		if len(p) > 2 && p[0] == '"' && p[len(p)-1] == '"' {
			pre, p, post = pre+`"`, p[1:len(p)-1], `"`+post
		}
		if u := unixPath(p); u != "" {
			p = u // a Windows checkout's path, as the Unix one it names
		}
		// A glob in the last part (`…/docs/schemas/*.md`): its folder is
		// the path mapped, the pattern stays.
		glob := ""
		if j := strings.LastIndexByte(p, '/'); j > 0 && strings.ContainsAny(p[j:], "*?") && !strings.ContainsAny(p[:j], "*?") {
			p, glob = p[:j], p[j:]
		}
		if !strings.HasPrefix(p, "/") || strings.ContainsAny(p+glob, "'\"`$;&|<>(){}\\") || strings.ContainsAny(p, "*?") {
			continue
		}
		if _, err := os.Lstat(p); err == nil {
			continue
		}
		sub, ok := hereOf(root, names, p, glob != "")
		if !ok || sub == "" {
			continue
		}
		if !atRoot {
			sub = filepath.Join(root, filepath.FromSlash(sub))
		}
		words[i], changed = pre+sub+glob+post, true
	}
	if !changed {
		return c
	}
	return strings.Join(words, " ")
}

// hereOf is the project's own path for an absolute path p of another
// machine: the longest tail of p that is in the project (a folder when
// dir), or what lies under a component named as the project is (its
// folder, or its repository: rootNames).
// "" with ok for the root itself.
func hereOf(root string, rootNames func() []string, p string, dir bool) (string, bool) {
	parts := strings.Split(strings.Trim(filepath.Clean(p), "/"), "/")
	names := rootNames()
	for i := range parts {
		// As macOS compares names (case aside), and a download's folder
		// (`repo-main`) for the repository's.
		if slices.ContainsFunc(names, func(n string) bool { return sameProject(n, parts[i]) }) {
			rest := parts[i+1:]
			// A worktree of their copy (`…/sower/.worktrees/mobile-table`,
			// `…/worktrees/x`, `…/.claude/worktrees/x`): its files are the
			// project's, as a checkout of another branch.
			switch {
			case len(rest) >= 2 && (rest[0] == ".worktrees" || rest[0] == "worktrees"):
				rest = rest[2:]
			case len(rest) >= 3 && rest[0] == ".claude" && rest[1] == "worktrees":
				rest = rest[3:]
			}
			sub := filepath.Join(rest...)
			if sub == "" {
				if dir {
					return "", true
				}
				continue
			}
			if exists(filepath.Join(root, sub), dir) {
				return filepath.ToSlash(sub), true
			}
			continue
		}
		if i > 0 && exists(filepath.Join(root, filepath.Join(parts[i:]...)), dir) {
			return filepath.ToSlash(filepath.Join(parts[i:]...)), true
		}
	}
	return "", false
}

// sameProject reports whether an author's folder name is the project's
// name n: the same, case aside (macOS compares so), or its first words
// (`lattice` for the repository lattice-protocol, `lattice-protocol` for
// the folder lattice-protocol-v2; corpus fourteen): a clone named short,
// or the repository named long. Four letters at least, whole words only.
func sameProject(n, folder string) bool {
	if strings.EqualFold(n, folder) {
		return true
	}
	short, long := strings.ToLower(n), strings.ToLower(folder)
	if len(short) > len(long) {
		short, long = long, short
	}
	return len(short) >= 4 && strings.HasPrefix(long, short) && strings.ContainsRune("-_.", rune(long[len(short)]))
}

// namesProjectPaths reports whether a command names a relative path with a
// folder in it that is in the project (`bash plugins/x/hook.sh`).
func namesProjectPaths(root, c string) bool {
	for _, w := range strings.Fields(c) {
		w = strings.TrimRight(strings.Trim(w, `'"`), ";)")
		if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "/") || !strings.Contains(strings.TrimSuffix(w, "/"), "/") || strings.Contains(w, "..") {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(w))); err == nil {
			return true
		}
	}
	return false
}

func exists(p string, dir bool) bool {
	fi, err := os.Stat(p)
	return err == nil && (!dir || fi.IsDir())
}

// rootNames are the names the project goes by on its authors' machines:
// its folder's, and its repository's as this clone's origin names it (a
// clone in a folder named otherwise, `cd /Users/ana/Desktop/awesome-site
// && npm run lint` in a checkout at ~/src/site; corpus twelve). Read only
// for a path that is not on this machine.
func rootNames(root string) []string {
	names := []string{filepath.Base(root)}
	for _, suffix := range []string{"-main", "-master"} {
		if n, ok := strings.CutSuffix(names[0], suffix); ok && n != "" {
			names = append(names, n) // GitHub's "Download ZIP" folder
		}
	}
	gitDir := filepath.Join(root, ".git")
	if b, err := safefile.ReadFile(gitDir, 4096); err == nil {
		// A worktree's .git file: its config is the main checkout's.
		d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return names
		}
		d = strings.TrimSpace(d)
		if !filepath.IsAbs(d) {
			d = filepath.Join(root, d)
		}
		gitDir = d
		if c, err := safefile.ReadFile(filepath.Join(d, "commondir"), 4096); err == nil {
			if cd := strings.TrimSpace(string(c)); filepath.IsAbs(cd) {
				gitDir = cd
			} else {
				gitDir = filepath.Join(d, cd)
			}
		}
	}
	cfg, err := safefile.ReadFile(filepath.Join(gitDir, "config"), 64<<10)
	if err != nil {
		return names
	}
	// The origin's only: a remote the agent adds under another name
	// (`git remote add mirror …/Desktop.git`) names no folder of the
	// author's path (attack 64).
	origin := false
	for _, line := range strings.Split(string(cfg), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			origin = strings.ReplaceAll(line, " ", "") == `[remote"origin"]`
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !origin || strings.TrimSpace(k) != "url" {
			continue
		}
		if n := repoName(strings.TrimSpace(v)); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// repoName is the repository's name in a remote's URL
// (`git@github.com:ana/awesome-site.git`, `https://…/awesome-site`).
func repoName(url string) string {
	url = strings.TrimSuffix(strings.TrimRight(url, "/"), ".git")
	if i := strings.LastIndexAny(url, "/:"); i >= 0 {
		url = url[i+1:]
	}
	if url == "" || url == "." || url == ".." {
		return ""
	}
	return url
}
