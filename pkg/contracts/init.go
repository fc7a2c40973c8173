package contracts

// TemplateNames are the contracts files `rodin contracts init NAME` writes.
var TemplateNames = []string{"rlp-desk"}

// Template is the contracts file `rodin contracts init NAME` writes.
func Template(name string) (string, bool) {
	switch name {
	case "rlp-desk":
		return RLPDesk, true
	}
	return "", false
}

// RLPDesk is rlp-desk's handover files as its 0.13 design and 0.14 sources
// describe them (docs/contracts.md): the worker's iteration signal and done
// claim, the verifier's verdict, the blocked and complete sentinels (its
// worker prompt also writes blocked). The fields its leader checks at read
// time (slug, signal_type, iteration, us_id) are checked at write time,
// absent or null ones passing as there; us_id is one of the PRD's stories
// (`## US-001:` or `### US-001:`) or ALL.
const RLPDesk = `{
  "version": 1,
  "roles": {
    "leader": ["main"],
    "worker": ["rlp-desk:worker", "worker"],
    "verifier": ["rlp-desk:verifier", "verifier"]
  },
  "unattended": ["worker", "verifier"],
  "artifacts": [
    {
      "name": "iter-signal",
      "path": ".rlp-desk/memos/{slug}-iter-signal.json",
      "writers": ["worker", "leader"],
      "fields": {
        "slug": {"eq": "{slug}"},
        "signal_type": {"const": "signal"},
        "iteration": {"type": "integer", "min": 1},
        "status": {"required": true, "enum": ["continue", "verify", "verify_partial", "blocked"]},
        "us_id": {"oneOf": ["ALL"], "oneOfFrom": {"file": ".rlp-desk/plans/prd-{slug}.md", "match": "^#{2,3} (US-\\d+)\\b"}}
      }
    },
    {
      "name": "done-claim",
      "path": ".rlp-desk/memos/{slug}-done-claim.json",
      "writers": ["worker"],
      "once": "first-writer",
      "fields": {
        "slug": {"eq": "{slug}"},
        "signal_type": {"const": "done_claim"},
        "execution_steps": {"required": true, "type": "array"}
      },
      "evidence": {"level": "observed", "each": "execution_steps", "when": {"exit_code": 0}, "command": "command"}
    },
    {
      "name": "verdict",
      "path": ".rlp-desk/memos/{slug}-verify-verdict.json",
      "writers": ["verifier"],
      "fields": {
        "slug": {"eq": "{slug}"},
        "signal_type": {"const": "verdict"},
        "us_id": {"oneOf": ["ALL"], "oneOfFrom": {"file": ".rlp-desk/plans/prd-{slug}.md", "match": "^#{2,3} (US-\\d+)\\b"}},
        "verdict": {"required": true, "enum": ["pass", "fail", "request_info", "blocked"]}
      }
    },
    {
      "name": "blocked",
      "path": ".rlp-desk/memos/{slug}-blocked.md",
      "writers": ["leader", "worker"],
      "once": "first-writer"
    },
    {
      "name": "complete",
      "path": ".rlp-desk/memos/{slug}-complete.md",
      "writers": ["leader"],
      "once": "first-writer"
    }
  ]
}
`
