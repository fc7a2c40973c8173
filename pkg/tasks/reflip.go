package tasks

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
)

// Reflip is the reading of next, given old and its reading prev, when the
// two differ only in the marks of boxes prev read (`[ ]` ticked to `[x]`,
// `[x]` back, `[-]`): what an agent's tick or untick is. ok is false for
// any other change, and the caller parses next. A tick then costs no
// Markdown parse of the whole file (a 127 KB task file parses in about 6
// ms; docs/speed.md). FuzzReflip and TestReflipEveryBox check it against
// ParseFile.
func Reflip(prev File, old, next []byte) (f File, ok bool) {
	old, next = LineEnds(bytesTrimBOM(old)), LineEnds(bytesTrimBOM(next))
	if len(old) != len(next) || len(old) > MaxRead {
		return File{}, false
	}
	ts := prev.Tasks
	for _, t := range ts {
		if t.stop > len(old) || t.start > t.stop {
			return File{}, false // not old's reading
		}
	}
	f = File{Tasks: append([]Task(nil), ts...), Quality: prev.Quality, Boxless: prev.Boxless, probes: prev.probes}
	// The boxes by mark, and the verification tasks, gathered at the
	// first difference: a tick of one box in a file of thousands looks up
	// one mark, and an edit of many boxes costs no more than a parse.
	var marks []int // indexes of ts with a mark, in mark order
	var verifies []int
	flips := 0
	for i := 0; ; i++ {
		d := firstDiff(old[i:], next[i:])
		if d < 0 {
			break
		}
		i += d
		if flips++; flips > maxFlips {
			return File{}, false
		}
		if marks == nil {
			marks = make([]int, 0, len(ts))
			for j, t := range ts {
				if t.mark >= 0 {
					marks = append(marks, j)
				}
				if t.Verify {
					verifies = append(verifies, j)
				}
			}
			slices.SortFunc(marks, func(a, b int) int { return ts[a].mark - ts[b].mark })
		}
		n, found := slices.BinarySearchFunc(marks, i, func(j, i int) int { return ts[j].mark - i })
		if !found || !isBoxMark(old[i]) || !isBoxMark(next[i]) {
			return File{}, false
		}
		k := marks[n]
		for _, j := range verifies {
			// A verification task reads its sub-items: one whose text
			// holds the box is read again.
			if j != k && ts[j].start <= i && i < ts[j].stop {
				return File{}, false
			}
		}
		t := &f.Tasks[k]
		t.Checked = next[i] == 'x' || next[i] == 'X'
		t.InProgress = next[i] == '-' || next[i] == '/'
	}
	text := string(next)
	for j := range f.Tasks {
		t := &f.Tasks[j]
		t.Text = text[t.start:t.stop]
	}
	return f, true
}

// maxFlips is the most boxes Reflip reads changed in one edit; an edit of
// more is parsed (its cost then grows with the file, not with the file
// times the boxes).
const maxFlips = 256

// isBoxMark reports whether c is a mark checkboxParser reads between the
// brackets.
func isBoxMark(c byte) bool {
	return c == ' ' || c == '\t' || c == 'x' || c == 'X' || c == '-' || c == '/'
}

// firstDiff is the first index where a and b (of one length) differ, -1
// when they are equal.
func firstDiff(a, b []byte) int {
	n := 0
	for len(a) >= 64 && bytes.Equal(a[:64], b[:64]) {
		a, b, n = a[64:], b[64:], n+64
	}
	for i := range a {
		if a[i] != b[i] {
			return n + i
		}
	}
	return -1
}

// readingVersion changes whenever the encoding below does.
const readingVersion = 5

// AppendReading appends f in the form DecodeReading reads: a version, then
// every field, strings and numbers as uvarints; a task's Text is kept as
// its range of the source, which the reader is given again.
func AppendReading(b []byte, f File) []byte {
	b = append(b, readingVersion)
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	num := func(n int) { b = binary.AppendUvarint(b, uint64(n+1)) } // -1 is a mark not found
	cmds := func(cs []Command) {
		num(len(cs))
		for _, c := range cs {
			str(c.Run)
			str(string(c.Source))
		}
	}
	cmds(f.Quality)
	num(len(f.probes))
	for _, p := range f.probes {
		b = append(b, p.kind)
		if p.ok {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		str(p.name)
	}
	num(len(f.Tasks))
	for _, t := range f.Tasks {
		str(t.ID)
		str(t.Ref)
		str(t.Title)
		var flags byte
		for i, v := range []bool{t.Checked, t.InProgress, t.Optional, t.Verify, t.AC, t.Manual, t.Inspect} {
			if v {
				flags |= 1 << i
			}
		}
		b = append(b, flags)
		num(t.Line)
		str(t.Kind)
		cmds(t.Commands)
		str(t.Prose)
		num(len(t.Servers))
		for _, sv := range t.Servers {
			str(sv)
		}
		str(t.Section)
		num(t.mark)
		num(t.start)
		num(t.stop)
	}
	return b
}

var errReading = errors.New("a damaged reading of a task file")

// DecodeReading reads what AppendReading wrote of src's reading. Any
// damage is an error: the caller parses src instead.
func DecodeReading(b, src []byte) (File, error) {
	src = LineEnds(bytesTrimBOM(src))
	if len(b) == 0 || b[0] != readingVersion {
		return File{}, errReading
	}
	// One string holds every field: each is a slice of it.
	all := string(b)
	p := 1
	bad := false
	uv := func() uint64 {
		v, n := binary.Uvarint(b[p:])
		if n <= 0 {
			bad = true
			return 0
		}
		p += n
		return v
	}
	num := func() int {
		v := uv()
		if v > uint64(len(b))+uint64(len(src))+1 {
			bad = true
			return 0
		}
		return int(v) - 1
	}
	str := func() string {
		n := uv()
		if bad || n > uint64(len(b)-p) {
			bad = true
			return ""
		}
		s := all[p : p+int(n)]
		p += int(n)
		return s
	}
	cmds := func() []Command {
		n := num()
		if bad || n < 0 || n > (len(b)-p)/2 {
			bad = true
			return nil
		}
		var cs []Command
		if n > 0 {
			cs = make([]Command, n)
		}
		for i := range cs {
			cs[i] = Command{Run: str(), Source: Source(str())}
		}
		return cs
	}
	var f File
	f.Quality = cmds()
	n := num()
	if bad || n < 0 || n > (len(b)-p)/3 {
		return File{}, errReading
	}
	if n > 0 {
		f.probes = make([]probe, n)
	}
	for i := range f.probes {
		if p+2 > len(b) || b[p] != probeProgram && b[p] != probeRoot && b[p] != probeDir || b[p+1] > 1 {
			return File{}, errReading
		}
		f.probes[i] = probe{kind: b[p], ok: b[p+1] == 1}
		p += 2
		f.probes[i].name = str()
	}
	n = num()
	// A task takes at least 11 bytes: no count larger than that can be.
	if bad || n < 0 || n > (len(b)-p)/11 {
		return File{}, errReading
	}
	if n > 0 {
		f.Tasks = make([]Task, n)
	}
	text := string(src)
	for i := range f.Tasks {
		t := &f.Tasks[i]
		t.ID, t.Ref, t.Title = str(), str(), str()
		if bad || p >= len(b) {
			return File{}, errReading
		}
		flags := b[p]
		p++
		t.Checked, t.InProgress, t.Optional = flags&1 != 0, flags&2 != 0, flags&4 != 0
		t.Verify, t.AC, t.Manual, t.Inspect = flags&8 != 0, flags&16 != 0, flags&32 != 0, flags&64 != 0
		t.Line = num()
		t.Kind = str()
		t.Commands = cmds()
		t.Prose = str()
		if n := num(); bad || n < 0 || n > len(b)-p {
			return File{}, errReading
		} else if n > 0 {
			t.Servers = make([]string, n)
			for k := range t.Servers {
				t.Servers[k] = str()
			}
		}
		t.Section = str()
		t.mark, t.start, t.stop = num(), num(), num()
		if bad || t.start < 0 || t.start > t.stop || t.stop > len(src) || t.mark >= len(src) {
			return File{}, errReading
		}
		t.Text = text[t.start:t.stop]
	}
	if bad || p != len(b) {
		return File{}, errReading
	}
	return f, nil
}
