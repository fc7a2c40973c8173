package release

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Package writes an archive per platform holding the three executables and
// a SHA256SUMS that sha256sum itself accepts; the same inputs give the same
// bytes.
func TestPackage(t *testing.T) {
	bin := t.TempDir()
	targets := [][2]string{{"linux", "amd64"}, {"windows", "arm64"}}
	for _, tg := range targets {
		for _, exe := range Executables {
			os.WriteFile(filepath.Join(bin, BinaryName(exe, tg[0], tg[1])), []byte("binary "+exe+tg[0]), 0o755)
		}
	}
	out := t.TempDir()
	sums, err := Package(bin, out, "1.2.3", targets)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "rodin_1.2.3_windows_arm64.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		if h.Mode != 0o755 {
			t.Errorf("%s has mode %o", h.Name, h.Mode)
		}
		names = append(names, h.Name)
	}
	f.Close()
	if got := strings.Join(names, " "); got != "pretooluse-windows-arm64.exe posttooluse-windows-arm64.exe stop-windows-arm64.exe artifacts-windows-arm64.exe rodin-windows-arm64.exe" {
		t.Errorf("archive holds %s", got)
	}
	if _, err := exec.LookPath("sha256sum"); err == nil {
		cmd := exec.Command("sha256sum", "-c", sums)
		cmd.Dir = out
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("sha256sum -c: %v\n%s", err, b)
		}
	}
	first, _ := os.ReadFile(sums)
	again := t.TempDir()
	sums2, err := Package(bin, again, "1.2.3", targets)
	if err != nil {
		t.Fatal(err)
	}
	if second, _ := os.ReadFile(sums2); string(first) != string(second) {
		t.Errorf("packaging twice gave other bytes:\n%s\n%s", first, second)
	}
}
