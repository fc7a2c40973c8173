# Conveniences only: every recipe is a plain command you can run without just.

# Build the hook executables into plugin/libexec for this machine.
build:
    go run ./hooks/rodin build

# The whole test suite (the README's test command).
test:
    go test ./...

# What CI checks: formatting, vet, tests.
lint:
    test -z "$(gofmt -l $(git ls-files '*.go'))"
    go vet ./...

# Release archives for every platform, their SHA256SUMS, and the plugin's copy.
release:
    go run ./hooks/rodin release

# Whole-process benchmarks against the floor and the shell design.
bench:
    go test -run '^$' -bench Table -benchtime 1x ./bench

# Build and register the plugin with Claude Code.
install:
    go run ./hooks/rodin install

# Run each fuzz target for a while (default 60s each).
fuzz time="60s":
    go test -run '^$' -fuzz '^FuzzParseRender$' -fuzztime {{time}} ./pkg/planfile
    go test -run '^$' -fuzz '^FuzzEncode$' -fuzztime {{time}} ./pkg/planfile
    go test -run '^$' -fuzz '^FuzzPreToolUse$' -fuzztime {{time}} ./pkg/route
    go test -run '^$' -fuzz '^FuzzPostToolUse$' -fuzztime {{time}} ./pkg/route
    go test -run '^$' -fuzz '^FuzzSplitParse$' -fuzztime {{time}} ./pkg/planfile
    go test -run '^$' -fuzz '^FuzzSeal$' -fuzztime {{time}} ./pkg/planfile
    go test -run '^$' -fuzz '^FuzzLookup$' -fuzztime {{time}} ./pkg/hookio
    go test -run '^$' -fuzz '^FuzzStringField$' -fuzztime {{time}} ./pkg/hookio
    go test -run '^$' -fuzz '^FuzzParse$' -fuzztime {{time}} ./pkg/contracts
    go test -run '^$' -fuzz '^FuzzCheckArtifact$' -fuzztime {{time}} ./pkg/contracts
    go test -run '^$' -fuzz '^FuzzMarshalRun$' -fuzztime {{time}} ./pkg/ledger
    go test -run '^$' -fuzz '^FuzzDecodeRun$' -fuzztime {{time}} ./pkg/ledger
    go test -run '^$' -fuzz '^FuzzDecodeBaseline$' -fuzztime {{time}} ./pkg/ledger

# Capture the hook inputs of a real session on each pinned Claude Code
# release into testdata/fixtures/claude-code-<version> (replayed by the tests).
capture:
    RODIN_CAPTURE="$PWD/testdata/fixtures" go test -count=1 -run TestCapture -v ./e2e

# Update testscript golden files after an intended change.
update:
    go test -run TestScript . -u

ci:
    bash .ci/run
