package release

import (
	"bytes"
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func moduleRoot(t *testing.T) string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// The patched goldmark computes what the original does: the plan-file
// model's and the subagent parsers' own tests pass against it.
func TestPatchedGoldmarkKeepsBehaviour(t *testing.T) {
	if testing.Short() {
		t.Skip("builds goldmark twice")
	}
	root := moduleRoot(t)
	work, err := Workspace(root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "-count=1", "./pkg/planfile", "./pkg/assess", "./pkg/cli")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK="+work)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tests against the patched goldmark: %v\n%s", err, out)
	}
}

var initLine = regexp.MustCompile(`(?m)^init github\.com/yuin/goldmark/(util|parser) @[^,]+, [^,]+, \d+ bytes, (\d+) allocs$`)

// initAllocs builds pretooluse (patched or not) and returns the allocations
// goldmark's util and parser packages make at init, which do not depend on
// the machine's speed.
func initAllocs(t *testing.T, patched bool) (allocs map[string]int, trace string) {
	root := moduleRoot(t)
	out := t.TempDir()
	bin := filepath.Join(out, BinaryName("pretooluse", runtime.GOOS, runtime.GOARCH))
	if patched {
		if err := Build(root, out, []string{"./hooks/pretooluse"}, [][2]string{{runtime.GOOS, runtime.GOARCH}}, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		info, err := buildinfo.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, s := range info.Settings {
			if s.Key == "GOEXPERIMENT" {
				got = s.Value
			}
		}
		if want := Experiments(runtime.Version(), os.Getenv("GOEXPERIMENT")); got != want {
			t.Errorf("the release build has GOEXPERIMENT=%q, want %q", got, want)
		}
	} else {
		cmd := exec.Command("go", "build", "-o", bin, "./hooks/pretooluse")
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, b)
		}
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	cmd.Stdin = bytes.NewReader([]byte(`{"tool_name":"Read"}`)) // a tool the hook gives no decision on
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.Bytes())
	}
	allocs = map[string]int{}
	for _, m := range initLine.FindAllStringSubmatch(stderr.String(), -1) {
		allocs[m[1]], _ = strconv.Atoi(m[2])
	}
	return allocs, stderr.String()
}

// The patch moves goldmark's init work out of init: a hook that never
// parses Markdown no longer builds the case-folding map or compiles the
// regexps. The unpatched build is the control.
func TestPatchDefersGoldmarkInit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the hook twice")
	}
	plain, plainTrace := initAllocs(t, false)
	patched, patchedTrace := initAllocs(t, true)
	t.Logf("goldmark init allocations: unpatched %v, patched %v", plain, patched)
	// net/url, whose one use in goldmark the patch replaces, brings
	// net/netip and its init.
	if !strings.Contains(plainTrace, "init net/netip ") {
		t.Fatalf("control: the unpatched hook does not initialize net/netip; the test no longer measures the patch")
	}
	if strings.Contains(patchedTrace, "init net/netip ") {
		t.Errorf("the patched hook still initializes net/netip")
	}
	// rodin's own packages do nothing at init (maps become switches, lazy
	// values stay zero until used): inittrace lists none of them.
	for _, l := range strings.Split(patchedTrace, "\n") {
		if strings.HasPrefix(l, "init github.com/rodin-gate/rodin/") {
			t.Errorf("a rodin package works at init: %s", l)
		}
	}
	for _, pkg := range []string{"util", "parser"} {
		if plain[pkg] < 200 {
			t.Fatalf("control: unpatched goldmark/%s made only %d allocations at init; the test no longer measures the patch", pkg, plain[pkg])
		}
		if patched[pkg] > 50 {
			t.Errorf("patched goldmark/%s still makes %d allocations at init", pkg, patched[pkg])
		}
	}
}

// TestQueryEscapeAsNetURL: the QueryEscape the patch adds to goldmark's
// util escapes every byte, and the UTF-8 of runes, as net/url does.
func TestQueryEscapeAsNetURL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go")
	}
	dir := t.TempDir()
	prog := strings.Replace(queryEscape, "package util", "package main", 1) + `
func main() {
	var in []string
	for c := 0; c < 256; c++ {
		in = append(in, string([]byte{byte(c)}))
	}
	in = append(in, "é", "✓", "\U0001F600", "a b+c&d=e/f?g#h%i", "\uFFFD")
	for _, s := range in {
		if got, want := queryEscape(s), url.QueryEscape(s); got != want {
			fmt.Printf("%q: %q, net/url %q\n", s, got, want)
			os.Exit(1)
		}
	}
}
`
	prog = strings.Replace(prog, "\nfunc queryEscape", "\nimport (\n\t\"fmt\"\n\t\"net/url\"\n\t\"os\"\n)\n\nfunc queryEscape", 1)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "main.go")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GO111MODULE=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestExperiments: Go 1.26 builds opt out of the Green Tea collector, other
// releases (which may not know the switch) are left alone, and a
// GOEXPERIMENT the builder set is kept.
func TestExperiments(t *testing.T) {
	for _, c := range []struct{ version, set, want string }{
		{"go1.26.8", "", "nogreenteagc"},
		{"go1.26", "", "nogreenteagc"},
		{"go1.26.0", "jsonv2", "jsonv2,nogreenteagc"},
		{"go1.26.8", "greenteagc", "greenteagc"},
		{"go1.26.8", "nogreenteagc", "nogreenteagc"},
		{"go1.25.4", "", ""},
		{"go1.27.0", "", ""},
		{"go1.260.1", "", ""},
		{"devel go1.27-abc", "jsonv2", "jsonv2"},
		{"", "", ""},
	} {
		if got := Experiments(c.version, c.set); got != c.want {
			t.Errorf("Experiments(%q, %q) = %q, want %q", c.version, c.set, got, c.want)
		}
	}
}

// TestHooksStartNoMaxprocsUpdater: the hooks (and the bench's floor, built
// the same way) are built with updatemaxprocs=0, so the runtime does not
// start the goroutine that follows the container's CPU limit: a thread
// fewer in a process that lives milliseconds. The CLI, which can run for
// minutes, keeps the default.
func TestHooksStartNoMaxprocsUpdater(t *testing.T) {
	root := moduleRoot(t)
	var pkgs []string
	for _, name := range Executables {
		pkgs = append(pkgs, "./hooks/"+name)
	}
	cmd := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}} {{.DefaultGODEBUG}}"}, append(pkgs, "./bench/floor")...)...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(pkgs)+1 {
		t.Fatalf("go list gave %d packages, want %d:\n%s", len(lines), len(pkgs)+1, out)
	}
	for _, l := range lines {
		path, godebug, _ := strings.Cut(l, " ")
		set := strings.Contains(","+godebug+",", ",updatemaxprocs=0,")
		if want := !strings.HasSuffix(path, "/hooks/rodin"); set != want {
			t.Errorf("%s: updatemaxprocs=0 in its GODEBUG is %v, want %v (%q)", path, set, want, godebug)
		}
	}
}

func TestBinaryName(t *testing.T) {
	if got := BinaryName("rodin", "windows", "arm64"); got != "rodin-windows-arm64.exe" {
		t.Errorf("windows: %s", got)
	}
	if got := BinaryName("pretooluse", "linux", "amd64"); got != "pretooluse-linux-amd64" {
		t.Errorf("linux: %s", got)
	}
}
