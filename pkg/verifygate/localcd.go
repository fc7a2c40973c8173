package verifygate

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/rodin-gate/rodin/pkg/tasks"
)

// localCd is a command that opens by changing to another machine's copy of
// the project (`cd /Users/ana/src/kernel/gpu-search && cargo test`, as its
// author wrote it on theirs) as a careful reader runs it here: the folder
// of this project that path names, `cd gpu-search && cargo test`. Only when
// the written folder is not on this machine (on the author's, it runs as
// written) and the longest tail of its path is a folder of the project
// (the project's own name, or a folder under the root): otherwise the
// command stays as written, and fails as "could not run".
func (s *Session) localCd(c string) string {
	dir, rest, ok := tasks.CdThen(c)
	if !ok || !filepath.IsAbs(dir) || s.Root == "" {
		return c
	}
	if _, err := os.Stat(dir); err == nil {
		return c
	}
	parts := strings.Split(strings.Trim(filepath.Clean(dir), "/"), "/")
	for i := range parts {
		tail := filepath.Join(parts[i:]...)
		if parts[i] == filepath.Base(s.Root) {
			// The project's own folder, and what lies under it.
			sub := filepath.Join(parts[i+1:]...)
			if sub == "" {
				return rest
			}
			if isDir(filepath.Join(s.Root, sub)) {
				return "cd " + filepath.ToSlash(sub) + " && " + rest
			}
			continue
		}
		if i > 0 && isDir(filepath.Join(s.Root, tail)) {
			return "cd " + filepath.ToSlash(tail) + " && " + rest
		}
	}
	return c
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
