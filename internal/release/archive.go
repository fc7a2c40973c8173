package release

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ArchiveName is the release archive of a version for a platform: the three
// executables, named as the launcher runs them.
func ArchiveName(version, goos, goarch string) string {
	return fmt.Sprintf("rodin_%s_%s_%s.tar.gz", version, goos, goarch)
}

// Package writes, into out, one archive per platform with the executables
// built in bin (named by BinaryName), and SHA256SUMS over the archives, in
// the format of sha256sum. It returns the checksums file's path.
func Package(bin, out, version string, targets [][2]string) (string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	var sums []string
	for _, t := range targets {
		name := ArchiveName(version, t[0], t[1])
		path := filepath.Join(out, name)
		var files []string
		for _, exe := range Executables {
			files = append(files, filepath.Join(bin, BinaryName(exe, t[0], t[1])))
		}
		if err := writeArchive(path, files); err != nil {
			return "", fmt.Errorf("%s: %v", name, err)
		}
		sum, err := fileSHA256(path)
		if err != nil {
			return "", err
		}
		sums = append(sums, sum+"  "+name)
	}
	sort.Strings(sums)
	path := filepath.Join(out, "SHA256SUMS")
	return path, os.WriteFile(path, []byte(strings.Join(sums, "\n")+"\n"), 0o644)
}

// writeArchive writes a gzipped tar of files (flat, mode 0755, no owner or
// time: the same inputs give the same bytes).
func writeArchive(path string, files []string) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: filepath.Base(file), Mode: 0o755, Size: int64(len(b)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(b); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
