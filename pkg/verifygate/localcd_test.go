package verifygate

import "testing"

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
