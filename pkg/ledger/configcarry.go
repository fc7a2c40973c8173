package ledger

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"github.com/rodin-gate/rodin/pkg/safefile"
)

// ConfigCarry is the verify gate's configuration of a project as it was
// in force before an agent changed .rodin/config.json (through Bash: the
// file tools are denied it): the next sessions keep it in force while the
// file is as the agent left it (After, the SHA-256 of its bytes), until
// the user accepts the change (`rodin waive --config`). A change of the
// file by anyone else drops it.
type ConfigCarry struct {
	Root   string          `json:"root"`
	Before json.RawMessage `json:"before"` // project.Config as JSON
	After  string          `json:"after"`
	Time   int64           `json:"t"`
}

func configCarryPath(data string) string { return filepath.Join(Dir(data), "config-carried.json") }

// ConfigCarries are the projects' carried configurations.
func ConfigCarries(data string) ([]ConfigCarry, error) {
	return readList[ConfigCarry](configCarryPath(data))
}

// SetConfigCarry keeps c in place of root's, or drops root's when c is nil.
func SetConfigCarry(data, root string, c *ConfigCarry) error {
	return setForRoot(data, configCarryPath(data), root, c, func(o ConfigCarry) string { return o.Root })
}

// setForRoot keeps item in place of root's in the list at path, or drops
// root's when item is nil; a damaged list starts again from what is known
// now, and the list holds MaxCarried projects at most.
func setForRoot[T any](data, path, root string, item *T, rootOf func(T) string) error {
	all, err := readList[T](path)
	if err != nil {
		all = nil // damaged: start again from what is known now
	}
	all = slices.DeleteFunc(all, func(o T) bool { return rootOf(o) == root })
	if item == nil && err == nil && !exists(path) {
		return nil
	}
	if item != nil {
		all = append(all, *item)
	}
	if len(all) > MaxCarried {
		all = all[len(all)-MaxCarried:]
	}
	if err := os.MkdirAll(Dir(data), 0o700); err != nil {
		return err
	}
	js, err := json.Marshal(all)
	if err != nil {
		return err
	}
	return safefile.WriteAtomic(path, js, 0o600)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// GitignoreCarry is a project's root .gitignore as it was before an
// agent changed it (through Bash): the next sessions judge a check's
// freshness with it while the file is as the agent left it (After, the
// SHA-256 of its bytes, "" for no file), until the user accepts the
// change (`rodin waive --config`). A change of the file by anyone else
// drops it.
type GitignoreCarry struct {
	Root   string `json:"root"`
	Before string `json:"before"`
	After  string `json:"after"`
	Time   int64  `json:"t"`
}

func gitignoreCarryPath(data string) string {
	return filepath.Join(Dir(data), "gitignore-carried.json")
}

// GitignoreCarries are the projects' carried .gitignore files.
func GitignoreCarries(data string) ([]GitignoreCarry, error) {
	return readList[GitignoreCarry](gitignoreCarryPath(data))
}

// SetGitignoreCarry keeps c in place of root's, or drops root's when c is
// nil.
func SetGitignoreCarry(data, root string, c *GitignoreCarry) error {
	return setForRoot(data, gitignoreCarryPath(data), root, c, func(o GitignoreCarry) string { return o.Root })
}

// UserGitignorePath is where the verify gate keeps the root .gitignore as
// someone else (the user in an editor) last left it during a session: an
// agent's change is measured from it, and a command of the agent's that
// brings it back (`git stash pop`) changes nothing.
func UserGitignorePath(data, session string) string {
	return filepath.Join(Dir(data), session+".gitignore-user")
}

// GitignorePath is where the verify gate keeps the root .gitignore a
// session began with (empty when there was none).
func GitignorePath(data, session string) string {
	return filepath.Join(Dir(data), session+".gitignore")
}

// ReadConfig is a project's configuration as the last session that could
// read its .rodin/config.json found it: a file the user left unreadable
// (a typo in a key) leaves this one in force, not the defaults, whose
// task files may not be the user's.
type ReadConfig struct {
	Root   string          `json:"root"`
	Config json.RawMessage `json:"config"` // project.Config as JSON
}

func readConfigPath(data string) string { return filepath.Join(Dir(data), "config-read.json") }

// LastReadConfig is root's configuration as last read; false when none was.
func LastReadConfig(data, root string) (json.RawMessage, bool) {
	all, err := readList[ReadConfig](readConfigPath(data))
	if err != nil {
		return nil, false
	}
	for _, c := range all {
		if c.Root == root {
			return c.Config, true
		}
	}
	return nil, false
}

// SetLastReadConfig keeps cfg as root's configuration as last read; it
// writes only when that changed.
func SetLastReadConfig(data, root string, cfg json.RawMessage) error {
	if last, ok := LastReadConfig(data, root); ok && string(last) == string(cfg) {
		return nil
	}
	return setForRoot(data, readConfigPath(data), root, &ReadConfig{Root: root, Config: cfg}, func(o ReadConfig) string { return o.Root })
}
