package verifygate

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rodin-gate/rodin/pkg/ledger"
)

func TestRepoName(t *testing.T) {
	for url, want := range map[string]string{
		"git@github.com:ana/awesome-site.git":      "awesome-site",
		"https://github.com/ana/awesome-site":      "awesome-site",
		"https://github.com/ana/awesome-site.git/": "awesome-site",
		"ssh://git@host:22/srv/repos/kernel.git":   "kernel",
		"../upstream":                              "upstream",
		"/":                                        "",
		"..":                                       "",
	} {
		if got := repoName(url); got != want {
			t.Errorf("repoName(%q) = %q, want %q", url, got, want)
		}
	}
}

func TestRootNamesDownload(t *testing.T) {
	root := filepath.Join(t.TempDir(), "shop-main")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := rootNames(root); !slices.Contains(got, "shop") || !slices.Contains(got, "shop-main") {
		t.Errorf("rootNames(%q) = %q, want shop-main and shop", root, got)
	}
}

func TestWinCdThen(t *testing.T) {
	for c, want := range map[string]string{
		`cd F:\Projects\erp && make`:          "/Projects/erp|make",
		`cd F:/Projects/erp && make`:          "/Projects/erp|make",
		`cd "C:\Users\Ana Maria\erp" && make`: "/Users/Ana Maria/erp|make",
		`cd /d F:\erp\; make`:                 "/erp|make",
		`cd erp && make`:                      "",
		`cd F:\erp`:                           "",
	} {
		dir, rest, ok := winCdThen(c)
		got := ""
		if ok {
			got = dir + "|" + rest
		}
		if got != want {
			t.Errorf("winCdThen(%q) = %q, want %q", c, got, want)
		}
	}
}

func TestShellBeforeSameAgent(t *testing.T) {
	runs := []ledger.Run{
		{Kind: ledger.KindBash, Cwd: "/p/web"},
		{Kind: ledger.KindBash, Cwd: "/p"},
		{Kind: ledger.KindBash, Cwd: "/p/pkg", Agent: "a1"},
		{Kind: ledger.KindBash, Cwd: "/p/bg", Bg: "b1"},
		{Kind: ledger.KindBash, Cwd: "/p"},
	}
	if got := shellBefore(runs, 4, "/p"); got != "/p" {
		t.Errorf("shellBefore = %q, want the main agent's foreground /p (attack 67)", got)
	}
	if cdLeadsTo("..", shellBefore(runs, 4, "/p"), "/p") {
		t.Error("cd .. from the root counted as the root")
	}
	for _, d := range []string{"[w]eb", "-", "{web,x}", "w*"} {
		if cdLeadsTo(d, "/p", "/p/web") {
			t.Errorf("cdLeadsTo(%q) counted a folder the shell expands", d)
		}
	}
	if !cdLeadsTo("web", "/p", "/p/web") || !cdLeadsTo("..", "/p/web", "/p") {
		t.Error("honest cds not counted")
	}
}
