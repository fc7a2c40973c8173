// Package artifacts is the artifacts executable's routing: hooks.json starts
// it, instead of pretooluse and posttooluse, for Writes and Edits of JSON
// files, where only artifact contracts have a say (plan and task files are
// Markdown). It links no Markdown parser, whose package set-up (goldmark's
// case-folding table and regular expressions, about 0.6 ms) every start of
// the other executables pays: a JSON handover file is checked at little
// more than the cost of starting a process (docs/speed.md).
package artifacts

import (
	"io"
	"os"

	"github.com/rodin-gate/rodin/pkg/configguard"
	"github.com/rodin-gate/rodin/pkg/contracts"
	"github.com/rodin-gate/rodin/pkg/hookio"
	"github.com/rodin-gate/rodin/pkg/route/table"
)

// The artifacts executable's tables, by event.
var (
	PreToolUse = []table.Route[hookio.PreOutcome]{
		{Match: "Write|Edit|MultiEdit", Run: configguard.PreWrite}, // the verify gate's configuration
		{Match: "Write|Edit|MultiEdit", Run: contracts.PreWrite},
	}
	PostToolUse = []table.Route[hookio.PostOutcome]{{Match: "Write|Edit|MultiEdit", Run: contracts.PostWrite}}
)

// Main is the artifacts executable: a PostToolUse input is recorded (exit
// 0); anything else is decided as a PreToolUse call (exit 0 or 2), so that
// an input it cannot read is denied, never let through.
func Main(stdin io.Reader, stdout, stderr io.Writer) int {
	hookio.TuneRuntime()
	in, err := hookio.Read(stdin) // once: a 10 KB input read twice costs a fresh process more than its check
	if err == nil && in.HookEventName() == "PostToolUse" {
		return hookio.RunPostOn(in, nil, stdout, func(in hookio.Input) hookio.PostOutcome {
			return table.Post(PostToolUse, in, os.Getenv)
		})
	}
	return hookio.RunPreOn(in, err, stdout, stderr, table.Deadline(os.Getenv), func(in hookio.Input) hookio.PreOutcome {
		return table.Pre(PreToolUse, in, os.Getenv)
	})
}
