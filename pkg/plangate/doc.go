// Package plangate is the plan gate: ExitPlanMode is denied until a
// passing verdict, backed by critic and validator runs rodin observed,
// matches the plan as it stands (SPEC.md). Its routes (pkg/route says which
// hook event and tool reaches each):
//
//   - Gate (PreToolUse, ExitPlanMode): the decision; fails closed.
//   - Guard (PreToolUse, Write/Edit/MultiEdit): the lines the hooks own in
//     a plan file are theirs alone.
//   - Keep (PostToolUse, Write/Edit/MultiEdit in plan mode): the metadata
//     at the end of the plan file stays true.
//   - RecordAgent (PostToolUse, Agent/Task) and RecordStop (SubagentStop):
//     the critic, validator and leakage-detector runs, the verdict's
//     evidence (pkg/provenance).
package plangate
