// Package release builds rodin's executables the way users get them:
// static (CGO_ENABLED=0), trimmed paths, no symbol tables, and with
// goldmark's package initialization made lazy.
//
// Every hook runs on every tool call, and Go runs every linked package's
// init before main. goldmark builds a Unicode case-folding map and compiles
// ten regular expressions at init, about half a millisecond on every hook
// call, though rodin needs neither on the paths that decide most calls.
// The build therefore compiles a patched goldmark: Workspace copies the
// pinned release's sources from the module cache into a temporary
// directory, checks that the files it edits are exactly the released ones,
// makes that work lazy, and points a throwaway go.work at the copy (GOWORK).
// No goldmark code is kept in this repository. The patch changes when the
// work happens, not what it computes (tests run the plan-file model against
// the patched build).
package release

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Executables are the programs the plugin ships, built from hooks/<name>.
var Executables = []string{"pretooluse", "posttooluse", "stop", "artifacts", "rodin"}

// Platforms are the release targets.
var Platforms = [][2]string{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// BinaryName is the file name the launcher (plugin/bin/rodin) runs for an
// executable on a platform, in plugin/libexec.
func BinaryName(name, goos, goarch string) string {
	n := name + "-" + goos + "-" + goarch
	if goos == "windows" {
		n += ".exe"
	}
	return n
}

// Build compiles pkgs (import paths relative to the module root, such as
// "./hooks/pretooluse") for each target into out, named by BinaryName of the
// package's last element. Progress goes to log.
func Build(root, out string, pkgs []string, targets [][2]string, log io.Writer) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("go is not on PATH")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "rodin-build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	work, err := Workspace(root, tmp)
	if err != nil {
		return err
	}
	ldflags := "-s -w"
	if c := sourceCommit(root); c != "" {
		ldflags += " -X github.com/rodin-gate/rodin/internal/buildid.Commit=" + c
	}
	experiments := Experiments(goVersion(goBin), os.Getenv("GOEXPERIMENT"))
	for _, t := range targets {
		for _, pkg := range pkgs {
			dst := filepath.Join(out, BinaryName(filepath.Base(pkg), t[0], t[1]))
			cmd := exec.Command(goBin, "build", "-trimpath", "-ldflags", ldflags, "-o", dst, pkg)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "GOWORK="+work, "GOOS="+t[0], "GOARCH="+t[1], "CGO_ENABLED=0", "GOEXPERIMENT="+experiments)
			if b, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("building %s for %s/%s: %v\n%s", pkg, t[0], t[1], err, b)
			}
			fmt.Fprintf(log, "built %s\n", dst)
		}
	}
	return nil
}

// Experiments is the GOEXPERIMENT a release is built with, given the Go
// version and the GOEXPERIMENT already set. Go 1.26's Green Tea collector
// keeps each span's mark bits inside the span, so every size class a hook
// touches costs it a page more: about 0.07 ms of a 2 ms hook that never
// collects (TuneRuntime keeps the collector off), measured interleaved on
// the verify rows (docs/speed.md). Go 1.26 lets a build opt out; later
// releases are expected to drop the switch, so it is set for 1.26 only and
// never over a GOEXPERIMENT that already names the collector.
func Experiments(goVersion, set string) string {
	if !strings.HasPrefix(goVersion+".", "go1.26.") || strings.Contains(set, "greenteagc") {
		return set
	}
	if set == "" {
		return "nogreenteagc"
	}
	return set + ",nogreenteagc"
}

// goVersion is the version the go command reports ("go1.26.8"), "" when
// it cannot say.
func goVersion(goBin string) string {
	out, err := exec.Command(goBin, "env", "GOVERSION").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// edit replaces old with new, which must occur exactly n times.
type edit struct {
	old, new string
	n        int
}

// patch is one goldmark file: its checksum in the pinned release, and the
// edits that defer its init work.
type patch struct {
	file   string
	sha256 string
	edits  []edit
}

// goldmarkVersion is the release the patches are written against; go.mod
// pins it, and the checksums below fail the build loudly if it moves.
const goldmarkVersion = "v1.8.7"

var patches = []patch{
	{
		file:   "util/unicode_case_folding.go",
		sha256: "9acc1c62029b8ae3d0dc9a84a9f33a880ddc2ac322e9dda3c1fa038121336e8d",
		edits: []edit{
			{"package util\n", "package util\n\nimport \"sync\"\n\n// rodin: the map is built on first use, not at init.\nvar unicodeCaseFoldingsOnce sync.Once\n", 1},
			{"func init() {", "func initUnicodeCaseFoldings() {", 1},
		},
	},
	{
		file:   "util/util.go",
		sha256: "eb2b864bce45937f0f3156110120dee36837ed18a5cf23e785a9a0a673abf946",
		edits: []edit{
			{"\t\tfolded, ok := unicodeCaseFoldings[r]", "\t\tunicodeCaseFoldingsOnce.Do(initUnicodeCaseFoldings)\n\t\tfolded, ok := unicodeCaseFoldings[r]", 1},
			{"regexp.MustCompile(", "lazyMustCompile(", 1},
			{"\t\"regexp\"\n", "", 1},
			{"url.QueryEscape(", "queryEscape(", 1},
			{"\t\"net/url\"\n", "", 1},
		},
	},
	{
		file:   "parser/html_block.go",
		sha256: "746f9b71f5c84e450d59a3fe1f324535ade26a335b1f2e2f8f166e6b3331ac9e",
		edits: []edit{
			{"regexp.MustCompile(", "lazyMustCompile(", 8},
			{"\t\"regexp\"\n", "", 1},
		},
	},
	{
		file:   "parser/raw_html.go",
		sha256: "0f64e54a8be0a125d465034e25c1714202d974e809392554cf9b1bcf04f6cb8e",
		edits: []edit{
			{"regexp.MustCompile(", "lazyMustCompile(", 2},
			{"parseMultiLineRegexp(openTagRegexp,", "parseMultiLineRegexp(openTagRegexp.get(),", 1},
			{"parseMultiLineRegexp(closeTagRegexp,", "parseMultiLineRegexp(closeTagRegexp.get(),", 1},
		},
	},
}

// lazyRegexp is added to goldmark's util and parser packages: a regexp
// compiled on first use, with the methods goldmark calls.
const lazyRegexp = `// Added by rodin's release build (internal/release): package-level
// regexps compiled on first use instead of at init.

package %s

import (
	"regexp"
	"sync"
)

type lazyRegexp struct {
	once sync.Once
	expr string
	re   *regexp.Regexp
}

func lazyMustCompile(expr string) *lazyRegexp { return &lazyRegexp{expr: expr} }

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

func (l *lazyRegexp) Match(b []byte) bool { return l.get().Match(b) }

func (l *lazyRegexp) FindSubmatchIndex(b []byte) []int { return l.get().FindSubmatchIndex(b) }
`

// queryEscape is added to goldmark's util package in place of net/url's
// QueryEscape, its one use of net/url: net/url brings net/netip, whose
// init every hook paid (about 20 µs of a 1.5 ms hook, issue 31). It is
// QueryEscape's rule (TestQueryEscapeAsNetURL).
const queryEscape = `// Added by rodin's release build (internal/release): net/url's
// QueryEscape without net/url.

package util

func queryEscape(s string) string {
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, 3*len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~':
			b = append(b, c)
		case c == ' ':
			b = append(b, '+')
		default:
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}
`

// Workspace writes a patched copy of goldmark into dir and a go.work that
// uses it, and returns the go.work path for GOWORK. root is the rodin module.
func Workspace(root, dir string) (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}} {{.Version}}", "github.com/yuin/goldmark")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("finding goldmark: %v", err)
	}
	modDir, version, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if version != goldmarkVersion {
		return "", fmt.Errorf("goldmark is %s, but the release patch is written for %s: update internal/release", version, goldmarkVersion)
	}
	copyDir := filepath.Join(dir, "goldmark")
	if err := copySources(modDir, copyDir); err != nil {
		return "", err
	}
	for _, p := range patches {
		path := filepath.Join(copyDir, p.file)
		src, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		if sum := sha256.Sum256(src); hex.EncodeToString(sum[:]) != p.sha256 {
			return "", fmt.Errorf("%s is not the file the release patch was written for: update internal/release", filepath.Join(modDir, p.file))
		}
		text := string(src)
		for _, e := range p.edits {
			if got := strings.Count(text, e.old); got != e.n {
				return "", fmt.Errorf("%s: %q occurs %d times, the patch expects %d", p.file, e.old, got, e.n)
			}
			text = strings.ReplaceAll(text, e.old, e.new)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	for _, pkg := range []string{"util", "parser"} {
		if err := os.WriteFile(filepath.Join(copyDir, pkg, "rodin_lazy.go"), []byte(fmt.Sprintf(lazyRegexp, pkg)), 0o644); err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(filepath.Join(copyDir, "util", "rodin_escape.go"), []byte(queryEscape), 0o644); err != nil {
		return "", err
	}
	goVersion, err := exec.Command("go", "list", "-m", "-f", "{{.GoVersion}}").Output()
	if err != nil {
		return "", err
	}
	work := fmt.Sprintf("go %s\n\nuse %s\n\nreplace github.com/yuin/goldmark %s => %s\n",
		strings.TrimSpace(string(goVersion)), strconv.Quote(root), goldmarkVersion, strconv.Quote(copyDir))
	path := filepath.Join(dir, "go.work")
	return path, os.WriteFile(path, []byte(work), 0o644)
}

// copySources copies a module's go.mod and non-test Go files.
func copySources(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			if name := d.Name(); rel != "." && (name == "testdata" || strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if rel != "go.mod" && (!strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go")) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}

// CopyTree copies src to dst, files with their modes, leaving out the
// top-level entries named in skip (a plugin is copied without libexec,
// whose executables are built for each target).
func CopyTree(src, dst string, skip ...string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		for _, s := range skip {
			if rel == s {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, fi.Mode().Perm())
	})
}

// sourceCommit is the commit the checkout at root is at, with "-modified"
// when it has uncommitted changes, for `rodin --version`; "" when root is
// not a git checkout (a release archive) or git is not installed. The Go
// toolchain's own stamp is off wherever GOFLAGS has -buildvcs=false.
func sourceCommit(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return ""
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		c += "-modified"
	}
	return c
}
