// Package hookio reads Claude Code hook input and writes hook output.
//
// It has two runners, one per policy: RunPost never blocks and never fails
// (PostToolUse is fail-open), RunPre turns every failure, a panic included,
// into a deny (PreToolUse is fail-closed). Neither ever says "allow": that
// would skip the user's approval dialog.
package hookio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// MaxInput caps the hook input. Write and ExitPlanMode inputs carry a whole
// plan, so it is a few times planfile.MaxSize; larger input is malformed.
const MaxInput = 64 << 20

// Input is one hook input, validated JSON. It is kept as a string so that
// gjson reads fields from it without copying: inputs carry whole plans.
type Input struct {
	raw  string
	path string // for a part of an input (Object): where it sits, for messages
}

// Read reads and validates a hook input.
func Read(r io.Reader) (Input, error) {
	b, err := readAll(r)
	if err != nil {
		return Input{}, fmt.Errorf("cannot read the hook input: %v", err)
	}
	return parseInput(b)
}

// parseInput is Read's check of the bytes it read.
func parseInput(b []byte) (Input, error) {
	// b is never written again, so a string view of it is safe and saves a
	// copy of what can be megabytes.
	raw := unsafe.String(unsafe.SliceData(b), len(b))
	trimmed := strings.TrimSpace(raw)
	switch {
	case len(b) > MaxInput:
		return Input{}, fmt.Errorf("the hook input is larger than %d MiB", MaxInput>>20)
	case trimmed == "":
		return Input{}, errors.New("the hook input is empty")
	case !gjson.Valid(raw):
		return Input{}, errors.New("the hook input is not valid JSON")
	case trimmed[0] != '{':
		return Input{}, errors.New("the hook input is not a JSON object")
	}
	return Input{raw: raw}, nil
}

// readAll reads r to the end, or to one byte past MaxInput. It doubles its
// buffer as it fills, where io.ReadAll grows large buffers by a quarter: for
// an input that carries a whole plan that is a few copies, and a few
// megabytes of fresh memory to fault in, fewer. It starts at 16 KiB, the
// largest buffer the runtime hands out from its small size classes (a
// larger one costs a fresh page for the runtime's own books).
func readAll(r io.Reader) ([]byte, error) {
	b := make([]byte, 0, 16<<10)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF || len(b) > MaxInput {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			grown := make([]byte, len(b), min(2*cap(b), MaxInput+1))
			copy(grown, b)
			b = grown
		}
	}
}

// NewInput wraps JSON that the caller has validated (tests, benchmarks).
func NewInput(raw []byte) Input { return Input{raw: string(raw)} }

// Field returns the string at a dotted path of keys. ok is false when the
// field is absent or null; err is set when it is present with another type.
func (in Input) Field(path string) (s string, ok bool, err error) {
	js, ok, err := in.StringField(path)
	return js.String(), ok, err
}

// JSONString is a string value as the input spells it, decoded on demand:
// a plan of megabytes need not be copied to be compared.
type JSONString struct{ lit string }

// String is the decoded value.
func (s JSONString) String() string {
	if s.lit == "" {
		return ""
	}
	return gjson.Parse(s.lit).String()
}

// Equals reports whether the value is b, decoding as it compares.
func (s JSONString) Equals(b []byte) bool { return s.lit != "" && jsonStringEquals(s.lit, b) }

// StringField is Field without decoding the string.
func (in Input) StringField(path string) (s JSONString, ok bool, err error) {
	raw := lookup(in.raw, path)
	switch {
	case raw == "" || raw == "null":
		return s, false, nil
	case raw[0] != '"':
		return s, false, fmt.Errorf("%s%s is %s, not a string", in.path, path, typeName(gjson.Parse(raw)))
	}
	return JSONString{raw}, true, nil
}

// Object is the object at a dotted path, as an Input of its own: several
// fields of it are then found without walking the whole input again (it
// holds the plan, megabytes of it). ok is false when it is absent or null;
// err is set when it is of another type.
func (in Input) Object(path string) (obj Input, ok bool, err error) {
	raw := lookup(in.raw, path)
	switch {
	case raw == "" || raw == "null":
		return obj, false, nil
	case raw[0] != '{':
		return obj, false, fmt.Errorf("%s%s is not an object", in.path, path)
	}
	return Input{raw: raw, path: in.path + path + "."}, true, nil
}

// jsonStringEquals reports whether the JSON string literal lit (valid, with
// its quotes) decodes to b, decoding as gjson does.
func jsonStringEquals(lit string, b []byte) bool {
	s := lit[1 : len(lit)-1]
	var buf [8]byte
	for {
		i := strings.IndexByte(s, '\\')
		if i < 0 {
			return string(b) == s
		}
		if len(b) < i || string(b[:i]) != s[:i] {
			return false
		}
		b, s = b[i:], s[i+1:]
		dec := buf[:1]
		switch s[0] {
		case 'b':
			buf[0] = '\b'
		case 'f':
			buf[0] = '\f'
		case 'n':
			buf[0] = '\n'
		case 'r':
			buf[0] = '\r'
		case 't':
			buf[0] = '\t'
		case 'u':
			r := hexRune(s[1:5])
			s = s[4:]
			if utf16.IsSurrogate(r) && len(s) >= 7 && s[1] == '\\' && s[2] == 'u' {
				r = utf16.DecodeRune(r, hexRune(s[3:7]))
				s = s[6:]
			}
			dec = buf[:utf8.EncodeRune(buf[:], r)]
		default: // '"', '\\', '/'
			buf[0] = s[0]
		}
		if !bytes.HasPrefix(b, dec) {
			return false
		}
		b, s = b[len(dec):], s[1:]
	}
}

// hexRune is the value of four hex digits (validated JSON has them).
func hexRune(h string) rune {
	n, _ := strconv.ParseUint(h, 16, 32)
	return rune(n)
}

// TopLevelCount is how many times key appears among the input's top-level
// keys: JSON allows a key twice, and parsers differ on which one counts.
func (in Input) TopLevelCount(key string) int {
	n := 0
	members(strings.TrimSpace(in.raw), func(k, _ string) bool {
		if keyIs(k, key) {
			n++
		}
		return true
	})
	return n
}

// str is Field for the fail-open side: anything but a string is "".
func (in Input) str(path string) string {
	s, _, _ := in.Field(path)
	return s
}

func typeName(r gjson.Result) string {
	switch {
	case r.IsObject():
		return "an object"
	case r.IsArray():
		return "an array"
	case r.IsBool():
		return "a boolean"
	case r.Type == gjson.Number:
		return "a number"
	}
	return "of another type"
}

// Accessors for the fields Claude Code sends (see the fixtures in
// shared/fixtures/claude-code-2.1.197). Missing or mistyped fields read "".
func (in Input) SessionID() string      { return in.str("session_id") }
func (in Input) HookEventName() string  { return in.str("hook_event_name") }
func (in Input) ToolName() string       { return in.str("tool_name") }
func (in Input) PermissionMode() string { return in.str("permission_mode") }
func (in Input) Cwd() string            { return in.str("cwd") }

// Get is the value at a gjson path, for inputs read as a whole (the guard
// reads tool_input). A path of plain keys ("tool_response.interrupted") is
// found as gjson finds it, by skipping the values before it with a search
// for their closing quote: gjson reads them a byte at a time, and a Bash
// call's output or a written file's content is tens of kilobytes, walked
// again at every Get (a Bash command with 30 KB of output cost its record
// 0.15 ms, 0.03 with a short one). FuzzGetAsGjson holds the two equal.
func (in Input) Get(path string) gjson.Result {
	if !plainPath(path) {
		return gjson.Get(in.raw, path)
	}
	raw := lookup(in.raw, path)
	if raw == "" {
		return gjson.Result{}
	}
	return gjson.Parse(raw)
}

// plainPath reports whether a gjson path is keys only: letters, digits,
// '_' and '-', none all digits (gjson reads those as array indexes), split
// by dots.
func plainPath(path string) bool {
	start, digits := 0, true
	for i := 0; i <= len(path); i++ {
		if i == len(path) || path[i] == '.' {
			if i == start || digits {
				return false // an empty key, or an index
			}
			start, digits = i+1, true
			continue
		}
		switch c := path[i]; {
		case c >= '0' && c <= '9':
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == '-':
			digits = false
		default:
			return false
		}
	}
	return true
}

// FilePath is the file a Write, Edit or MultiEdit touched:
// tool_input.file_path, else tool_response.filePath.
func (in Input) FilePath() string {
	if p := in.str("tool_input.file_path"); p != "" {
		return p
	}
	return in.str("tool_response.filePath")
}

// TuneRuntime sets the runtime up for a process that lives milliseconds.
// Called first in Main (not at init), on the goroutine that decides.
//
// The garbage collector is off below a soft memory limit: collecting before
// the hook exits is wasted work, while the limit still bounds a pathological
// input. And the stack is grown once, while it is shallow, to the size a
// hook's deep paths (goldmark's recursion, a tick's judgement) reach: grown
// a doubling at a time on the way down, the runtime copied ever deeper
// stacks, each copy walking every frame's tables, about 0.1 ms of a 2 ms
// tick (docs/speed.md). A stack shrinks only in a collection, which the
// hook does not run.
func TuneRuntime() {
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(128 << 20)
	growStack(0)
}

// stackReserve is the frame growStack asks for: the stack then holds 64 KiB.
const stackReserve = 32 << 10

// growStack has a frame of stackReserve bytes, so calling it grows the
// stack to fit. The array is indexed by a variable so that it is kept, and
// declared past a return the call takes, so that it is never zeroed: the
// 32 KiB of fresh stack stay untouched (eight page faults fewer).
//
//go:noinline
func growStack(i int) byte {
	if i >= 0 {
		return 0
	}
	var frame [stackReserve]byte
	frame[-i] = 1
	return frame[-i/2]
}

// AgentAnswer is the text a completed subagent returned to the Agent (or
// Task) tool: the text parts of tool_response.content, or tool_response
// itself when it is a string.
func (in Input) AgentAnswer() string {
	r := gjson.Get(in.raw, "tool_response")
	if r.Type == gjson.String {
		return r.String()
	}
	var parts []string
	r.Get("content").ForEach(func(_, part gjson.Result) bool {
		if part.Get("type").String() == "text" {
			parts = append(parts, part.Get("text").String())
		}
		return true
	})
	return strings.Join(parts, "\n")
}

// PreOutcome is what a PreToolUse hook tells Claude Code: no decision (the
// zero value: Claude Code shows its usual approval dialog) or a deny.
type PreOutcome struct {
	Deny          bool
	Reason        string // with Deny: what is wrong and how to fix it
	SystemMessage string // without Deny: a note shown to the user
	// Allow answers the permission question for the call (no dialog).
	// Only a Read of rodin's own input file by rodin's own agent is ever
	// allowed (plangate.PreReadInput); a deny of any route wins over it.
	Allow bool
}

// NoDecision lets Claude Code carry on as it would without the hook.
var NoDecision = PreOutcome{}

// Denial is a deny with the given reason.
func Denial(reason string) PreOutcome { return PreOutcome{Deny: true, Reason: reason} }

// PostOutcome is what a PostToolUse hook tells Claude Code; the zero value
// says nothing.
type PostOutcome struct {
	Context       string // additionalContext: read by the model
	SystemMessage string // shown to the user
	// Block tells the model, in its own turn, that what the tool did broke
	// a rule (Reason says which and how to fix it); the call has happened.
	Block  bool
	Reason string
	// DenyPermission answers a PermissionRequest (a dialog that would wait
	// for a person) with a deny and this message; "" leaves the dialog be.
	DenyPermission string
}

// RunPre reads the input, asks decide, and writes the outcome: exit 0 with
// nothing on stdout (or only a systemMessage) for no decision, or the JSON
// deny on stdout, the reason on stderr and exit 2. Unreadable input, a
// panic and a decision not made within deadline (when it is positive) all
// deny: Claude Code would otherwise wait for the hook's timeout, and a
// release without `onFailure: "block"` lets the tool through after it.
func RunPre(stdin io.Reader, stdout, stderr io.Writer, deadline time.Duration, decide func(Input) PreOutcome) int {
	return runPre(func() (Input, error) { return Read(stdin) }, stdout, stderr, deadline, decide)
}

// decideSafely reads the input and decides: a panic, or an input that
// cannot be read, is a denial.
func decideSafely(read func() (Input, error), decide func(Input) PreOutcome) (out PreOutcome) {
	defer func() {
		if v := recover(); v != nil {
			out = Denial(fmt.Sprintf("[rodin] The gate failed (internal error: %v), so it denies. To fix: report this with `rodin doctor` output; make the call again meanwhile.", v))
		}
	}()
	in, err := read()
	if err != nil {
		return Denial(fmt.Sprintf("[rodin] The gate cannot decide: %v. To fix: update rodin to a version that reads this Claude Code's hook input (`rodin doctor`).", err))
	}
	return decide(in)
}

// RunPreOn is RunPre on an input already read (Read's result and error):
// for an executable that looks at the input before it picks its table.
func RunPreOn(in Input, readErr error, stdout, stderr io.Writer, deadline time.Duration, decide func(Input) PreOutcome) int {
	return runPre(func() (Input, error) { return in, readErr }, stdout, stderr, deadline, decide)
}

func runPre(read func() (Input, error), stdout, stderr io.Writer, deadline time.Duration, decide func(Input) PreOutcome) int {
	guard := startDeadline(deadline, func() int {
		return WriteDeny(stdout, stderr, fmt.Sprintf("[rodin] The gate did not decide within %v, so it denies. To fix: make the call again; if it keeps happening, see what the gates wait for with `rodin status` and report it with `rodin doctor` output.", deadline))
	})
	out := decideSafely(read, decide)
	if code, ok := guard.answer(); !ok {
		return code // the deadline denied
	}
	if out.Deny {
		return WriteDeny(stdout, stderr, out.Reason)
	}
	if out.Allow {
		b, _ := sjson.SetBytes([]byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`), "systemMessage", out.SystemMessage)
		if out.SystemMessage == "" {
			b = []byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`)
		}
		stdout.Write(append(b, '\n'))
		return 0
	}
	writeObject(stdout, "systemMessage", out.SystemMessage)
	return 0
}

// WriteDeny writes a PreToolUse deny and returns its exit code, 2. Claude
// Code blocks the tool on either signal; both are given so that a reason
// reaches the model whichever it reads.
func WriteDeny(stdout, stderr io.Writer, reason string) int {
	reason = oneLine(reason)
	b, err := sjson.SetBytes([]byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`),
		"hookSpecificOutput.permissionDecisionReason", reason)
	if err == nil {
		stdout.Write(append(b, '\n'))
	}
	io.WriteString(stderr, reason+"\n")
	return 2
}

// Clip is s on one line (its runs of white space one space), cut to max
// characters with an ellipsis: a command or an answer quoted in a message.
func Clip(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}

// oneLine makes a message safe to print: valid UTF-8 (each invalid byte
// becomes U+FFFD) on one line (control characters become spaces). Messages
// quote paths and values from the hook input, which may hold anything.
func oneLine(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s { // an invalid byte reads as U+FFFD, as in []rune(s)
		if unicode.IsControl(r) {
			r = ' '
		}
		b.WriteRune(r)
	}
	return b.String()
}

// RunPost reads the input, asks act, and writes what it says. It exits 0
// whatever happens: a PostToolUse hook must never fail the tool call.
func RunPost(stdin io.Reader, stdout io.Writer, act func(Input) PostOutcome) (code int) {
	in, err := Read(stdin)
	return RunPostOn(in, err, stdout, act)
}

// RunPostOn is RunPost on an input already read (Read's result and error).
func RunPostOn(in Input, readErr error, stdout io.Writer, act func(Input) PostOutcome) (code int) {
	defer func() {
		if recover() != nil {
			code = 0
		}
	}()
	if readErr != nil {
		return 0
	}
	out := act(in)
	out.Context, out.SystemMessage, out.Reason = oneLine(out.Context), oneLine(out.SystemMessage), oneLine(out.Reason)
	decision := ""
	if out.Block {
		decision = "block"
	}
	if out.DenyPermission != "" {
		writeObject(stdout,
			"hookSpecificOutput.hookEventName", "PermissionRequest",
			"hookSpecificOutput.decision.behavior", "deny",
			"hookSpecificOutput.decision.message", oneLine(out.DenyPermission),
			"systemMessage", out.SystemMessage)
		return 0
	}
	event := ""
	if out.Context != "" {
		if event = in.HookEventName(); event == "" {
			event = "PostToolUse"
		}
	}
	writeObject(stdout,
		"decision", decision,
		"reason", out.Reason,
		"hookSpecificOutput.hookEventName", event,
		"hookSpecificOutput.additionalContext", out.Context,
		"systemMessage", out.SystemMessage)
	return 0
}

// writeObject writes a JSON object of the given path/value pairs, those
// with a value, on one line; nothing when no pair has one.
func writeObject(w io.Writer, pairs ...string) {
	b := []byte(`{}`)
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			b, _ = sjson.SetBytes(b, pairs[i], pairs[i+1])
		}
	}
	if len(b) > 2 {
		w.Write(append(b, '\n'))
	}
}

// StopOutcome is what a Stop, SubagentStop or TaskCompleted hook tells
// Claude Code: nothing (the zero value), a note for the user, or a block
// whose reason goes to the model.
type StopOutcome struct {
	Block         bool
	Reason        string
	SystemMessage string
}

// stopHookActive reports whether raw, an input that does not parse, says
// `"stop_hook_active": true`.
func stopHookActive(raw []byte) bool {
	_, rest, ok := bytes.Cut(raw, []byte(`"stop_hook_active"`))
	rest = bytes.TrimLeft(rest, " \t\r\n")
	rest, ok2 := bytes.CutPrefix(rest, []byte(":"))
	return ok && ok2 && bytes.HasPrefix(bytes.TrimLeft(rest, " \t\r\n"), []byte("true"))
}

// RunStop reads the input, asks decide, and writes the outcome. A block is
// `{"decision":"block","reason":…}` on stdout for Stop and SubagentStop,
// and the reason on stderr with exit 2 for TaskCompleted, which reads no
// JSON decision. Unreadable input and a panic block once, as any state the
// gate cannot read does: when the input says the stop already follows a
// block (stop_hook_active), or cannot say, they let it through with a
// note, so that a session is never held in a loop.
func RunStop(stdin io.Reader, stdout, stderr io.Writer, decide func(Input) StopOutcome) (code int) {
	return RunStopWithin(stdin, stdout, stderr, 0, decide)
}

// RunStopWithin is RunStop with a deadline (when positive): a decision not
// made in time blocks the stop once, as a crash does. Claude Code ignores
// onFailure on Stop, SubagentStop and TaskCompleted (2.1.332): a hook
// killed at its timeout lets the stop through, so the hook must answer
// before it.
func RunStopWithin(stdin io.Reader, stdout, stderr io.Writer, deadline time.Duration, decide func(Input) StopOutcome) (code int) {
	var raw []byte
	var in Input
	fail := func(what string) int {
		again := in.Get("stop_hook_active").Bool()
		if in.raw == "" {
			again = !bytes.Contains(raw, []byte(`"stop_hook_active"`)) || stopHookActive(raw)
		}
		if again {
			writeObject(stdout, "systemMessage", "[rodin] rodin did not check this stop (task boxes, artifact contracts): "+what+". rodin blocked it once already, so it lets it through: any box ticked and any artifact written in this session is unverified. To fix: run `rodin doctor`.")
			return 0
		}
		reason := "[rodin] rodin cannot check this stop (task boxes, artifact contracts): " + what + ". To fix: run `rodin doctor`; this stop is blocked once."
		if in.HookEventName() == "TaskCompleted" {
			io.WriteString(stderr, reason+"\n")
			return 2
		}
		writeObject(stdout, "decision", "block", "reason", reason)
		return 0
	}
	defer func() {
		if v := recover(); v != nil {
			code = fail(fmt.Sprintf("it failed (internal error: %v)", v))
		}
	}()
	raw, err := readAll(stdin)
	if err == nil {
		in, err = parseInput(raw) // read once: Read would copy it
	}
	if err != nil {
		return fail(err.Error())
	}
	guard := startDeadline(deadline, func() int { return fail(fmt.Sprintf("it did not finish within %v", deadline)) })
	var out StopOutcome
	crash := func() (v any) {
		defer func() { v = recover() }()
		out = decide(in)
		return nil
	}()
	if code, ok := guard.answer(); !ok {
		return code // the deadline answered
	}
	if crash != nil {
		return fail(fmt.Sprintf("it failed (internal error: %v)", crash))
	}
	out.Reason, out.SystemMessage = oneLine(out.Reason), oneLine(out.SystemMessage)
	if out.Block && in.HookEventName() == "TaskCompleted" {
		io.WriteString(stderr, out.Reason+"\n")
		return 2
	}
	decision, reason := "", ""
	if out.Block {
		decision, reason = "block", out.Reason
	}
	writeObject(stdout, "decision", decision, "reason", reason, "systemMessage", out.SystemMessage)
	return 0
}

// ValidSessionID reports whether id can be written into a session marker:
// Claude Code's ids are UUIDs; anything that could end a comment or a line
// is refused.
func ValidSessionID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
