package cli

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rodin-gate/rodin/pkg/contracts"
	"github.com/rodin-gate/rodin/pkg/evidence"
	"github.com/rodin-gate/rodin/pkg/planfile"
)

// runEvents is `rodin events [--follow] [--json] [--session ID]`: what
// rodin recorded for unattended loops (permission dialogs it answered for
// a worker, Claude Code's notifications), so that a leader sees them within
// its turn instead of scraping panes.
func runEvents(e *env, args []string) error {
	var follow, asJSON bool
	var session string
	timeout := time.Minute
	pos, err := flags("events", args, func(fs *flag.FlagSet) {
		fs.BoolVar(&follow, "follow", false, "keep printing new events until --timeout")
		fs.BoolVar(&asJSON, "json", false, "one JSON object per line")
		fs.StringVar(&session, "session", "", "this session's events only (default: the Claude Code session rodin runs in, else all)")
		fs.DurationVar(&timeout, "timeout", time.Minute, "how long --follow waits for new events")
	})
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{"events takes no arguments"}
	}
	if session == "" {
		session = e.getenv("CLAUDE_CODE_SESSION_ID")
	}
	if session != "" && !planfile.ValidSessionID(session) {
		return usageError{fmt.Sprintf("%q is not a session id", session)}
	}
	data := evidence.DataDir(e.getenv)
	if data == "" {
		return withHint(fmt.Errorf("rodin's data directory is unknown"), "start a Claude Code session with the plugin once; its SessionStart hook records where it is")
	}
	dir := contracts.EventsDir(data)
	offsets := map[string]int64{}
	print := func(ev contracts.Event, raw []byte) {
		if asJSON {
			e.stdout.Write(append(raw, '\n'))
			return
		}
		at := time.Unix(0, ev.Time).UTC().Format(time.RFC3339)
		who := ev.Agent
		if ev.AgentID != "" {
			who += " (" + ev.AgentID + ")"
		}
		switch ev.Kind {
		case "permission_denied":
			fmt.Fprintf(e.stdout, "%s  permission denied  %s  %s %s\n", at, who, ev.Tool, ev.Subject)
		default:
			fmt.Fprintf(e.stdout, "%s  %s  %s  %s  %s\n", at, ev.Kind, who, ev.Type, strings.Join(strings.Fields(ev.Message), " "))
		}
	}
	// read prints the events added to the files since the last read, in
	// time order.
	read := func() int {
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if session != "" {
			files = []string{filepath.Join(dir, session+".jsonl")}
		}
		type line struct {
			ev  contracts.Event
			raw []byte
		}
		var lines []line
		for _, f := range files {
			fh, err := os.Open(f)
			if err != nil {
				continue
			}
			fh.Seek(offsets[f], 0)
			r := bufio.NewReader(fh)
			for {
				b, err := r.ReadBytes('\n')
				if err != nil {
					break // a line not yet ended is read next time
				}
				offsets[f] += int64(len(b))
				b = b[:len(b)-1]
				var ev contracts.Event
				if json.Unmarshal(b, &ev) == nil {
					lines = append(lines, line{ev, b})
				}
			}
			fh.Close()
		}
		sort.SliceStable(lines, func(i, j int) bool { return lines[i].ev.Time < lines[j].ev.Time })
		for _, l := range lines {
			print(l.ev, l.raw)
		}
		return len(lines)
	}
	n := read()
	if !follow {
		if n == 0 && !asJSON {
			fmt.Fprintln(e.stderr, "rodin: no events recorded")
		}
		return nil
	}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		time.Sleep(250 * time.Millisecond)
		read()
	}
	fmt.Fprintf(e.stderr, "rodin: stopped following after %v (--timeout)\n", timeout)
	return nil
}
