package verifygate

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"

	"github.com/rodin-gate/rodin/internal/buildid"
	"github.com/rodin-gate/rodin/pkg/ledger"
	"github.com/rodin-gate/rodin/pkg/safefile"
	"github.com/rodin-gate/rodin/pkg/tasks"
)

// The edit gate reads a task file twice at every edit of it, as it is and
// as the edit leaves it: two Markdown parses, 6 ms each for a 127 KB file.
// What it read is kept for the session's next edit of the file (the file
// as this edit leaves it is the next one's file as it is), and a tick
// changes only a box's mark, which tasks.Reflip reads without a parse. A
// kept reading is used only for the exact bytes it was read from, by the
// same build, with the same PATH, while the machine answers as it did
// what the parse asked it (tasks.File.Holds: a word is a command when it
// names a program on PATH); anything else, damage included, is parsed
// again.

// readings are a task file's kept readings: at most two, the file as an
// edit found it and as the edit left it.
type readings struct {
	path    string
	stamp   string // the build and PATH a key is made with; "" keeps nothing
	entries []reading
}

type reading struct {
	key  [sha256.Size]byte
	data []byte // tasks.AppendReading
}

const readingsMagic = "rodin readings 1\n"

func readingsPath(data, session, rel string) string {
	h := fnv.New64a()
	h.Write([]byte(rel))
	return filepath.Join(ledger.Dir(data), session+"."+strconv.FormatUint(h.Sum64(), 16)+".readings")
}

// loadReadings reads what the session keeps for a task file; nothing when
// it keeps nothing, or what it keeps is damaged.
func loadReadings(data, session, rel string) *readings {
	r := &readings{path: readingsPath(data, session, rel)}
	if id := buildid.Identity(); id != "" {
		r.stamp = id + "\x00" + os.Getenv("PATH") + "\x00" // what tasks.LookPath looks in
	}
	if r.stamp == "" {
		return r // nothing is kept without a build identity: no read
	}
	b, err := safefile.ReadFile(r.path, 2*tasks.MaxSize)
	if err != nil || !bytes.HasPrefix(b, []byte(readingsMagic)) {
		return r
	}
	b = b[len(readingsMagic):]
	for len(b) > 0 {
		if len(b) < sha256.Size {
			return r
		}
		var e reading
		copy(e.key[:], b)
		n, w := binary.Uvarint(b[sha256.Size:])
		b = b[sha256.Size:]
		if w <= 0 || n > uint64(len(b)-w) {
			return &readings{path: r.path, stamp: r.stamp}
		}
		e.data, b = b[w:w+int(n)], b[w+int(n):]
		r.entries = append(r.entries, e)
	}
	return r
}

func (r *readings) key(src []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(r.stamp))
	h.Write(src)
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// read is src's reading: the kept one, or a parse.
func (r *readings) read(src []byte) (tasks.File, [sha256.Size]byte) {
	f, k, ok := r.lookup(src)
	if !ok {
		f = tasks.ParseFile(src)
	}
	return f, k
}

// lookup is the reading kept for src, if one is.
func (r *readings) lookup(src []byte) (f tasks.File, k [sha256.Size]byte, ok bool) {
	if r.stamp == "" {
		return tasks.File{}, k, false
	}
	k = r.key(src)
	for _, e := range r.entries {
		if e.key == k {
			// Read with these bytes; used while the machine answers what
			// the parse asked it as it did then.
			if f, err := tasks.DecodeReading(e.data, src); err == nil && f.Holds() {
				return f, k, true
			}
		}
	}
	return tasks.File{}, k, false
}

// parseKept is src's tasks, src being the task file rel as read now: the
// reading the edit gate kept when the last edit left it so (a stop, or the
// look after an edit, then parses nothing), else a parse within
// parseBudget.
func (s *Session) parseKept(rel string, src []byte) ([]tasks.Task, bool) {
	f, ok := s.parseKeptFile(rel, src)
	return f.Tasks, ok
}

// parseKeptFile is parseKept's file: its tasks and its Quality Commands.
func (s *Session) parseKeptFile(rel string, src []byte) (tasks.File, bool) {
	if f, _, ok := loadReadings(s.Data, s.ID, rel).lookup(src); ok {
		return f, true
	}
	return parseWithin(src, parseBudget)
}

// keep makes the two readings given the ones kept, unless they are.
func (r *readings) keep(ks [2][sha256.Size]byte, fs [2]tasks.File) {
	if r.stamp == "" || len(r.entries) == 2 && r.entries[0].key == ks[0] && r.entries[1].key == ks[1] {
		return
	}
	b := []byte(readingsMagic)
	for i := range ks {
		if i == 1 && ks[1] == ks[0] {
			break
		}
		b = append(b, ks[i][:]...)
		data := tasks.AppendReading(nil, fs[i])
		b = binary.AppendUvarint(b, uint64(len(data)))
		b = append(b, data...)
	}
	// A reader sees the old readings or the new; losing them costs a parse.
	safefile.WriteAtomicNoSync(r.path, b, 0o600)
}
