package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rodin-gate/rodin/internal/claudecli"
)

// rodin exercise answers AskUserQuestion by returning the tool's input
// with an answers map (question text to label), as the SDK's types say.
// The types ship with the npm package: a release that renames the field
// fails here before it silently leaves questions unanswered.
func TestAskUserQuestionAnswersField(t *testing.T) {
	for _, rel := range claudecli.Releases(t) {
		t.Run(rel.Version, func(t *testing.T) {
			// node_modules/.bin/claude → node_modules/@anthropic-ai/claude-code/sdk-tools.d.ts
			types := filepath.Join(filepath.Dir(filepath.Dir(rel.Path)), "@anthropic-ai", "claude-code", "sdk-tools.d.ts")
			data, err := os.ReadFile(types)
			if err != nil {
				t.Skipf("no SDK types next to %s: %v", rel.Path, err)
			}
			src := string(data)
			start := strings.Index(src, "export interface AskUserQuestionInput {")
			if start < 0 {
				t.Fatalf("%s has no AskUserQuestionInput", types)
			}
			body := src[start:]
			if end := strings.Index(body, "\n}\n"); end > 0 {
				body = body[:end]
			}
			for _, want := range []string{"questions:", "question: string;", "label: string;", "answers?: {\n    [k: string]: string;\n  };"} {
				if !strings.Contains(body, want) {
					t.Errorf("AskUserQuestionInput in %s lacks %q", types, want)
				}
			}
		})
	}
}
