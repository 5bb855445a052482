package loop

import (
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/finding"
)

// The verifier (docs/architecture.md, The verifier): an optional role that
// reads the PR's head to confirm or refute the findings only one reviewer
// raised. A refuted finding is shown with the verifier's evidence, not
// posted inline, counted, fixed or blocking, until someone with write
// permission restores it.

// Verdict is the verifier's word on one finding: refuted or not, and the
// lines it read that show it.
type Verdict struct {
	ID       string
	Refuted  bool
	Evidence string
}

// Judgeable reports whether the verifier may judge f at all: a P1–P3
// finding a reviewer raised. Never a P0 (a hostile file the verifier reads
// must not clear a blocker), gh-ocdx's own SEC- finding, or a thread.
func Judgeable(f finding.Finding) bool {
	switch {
	case f.Priority != "P1" && f.Priority != "P2" && f.Priority != "P3":
		return false
	case strings.HasPrefix(f.ID, "SEC-"), IsThread(f), ownFinding(f):
		return false
	}
	return true
}

// Verifiable are the findings of fs that go to the verifier: the
// judgeable ones raised by a single reviewer (every judgeable one when
// reviewers, the reviewers configured, is one), not already refuted.
func Verifiable(fs []finding.Finding, reviewers int) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if Judgeable(f) && f.Status != finding.StatusRefuted && (reviewers <= 1 || len(f.Reviewers) <= 1) {
			out = append(out, f)
		}
	}
	return out
}

// ApplyVerdicts returns a copy of fs with the findings vs refutes marked
// refuted, with their evidence. Only a judgeable finding is refuted; a
// verdict on an ID fs does not hold changes nothing, and an ID that is
// both confirmed and refuted is not refuted (a model's answer is as
// hostile as the files it read).
func ApplyVerdicts(fs []finding.Finding, vs []Verdict) []finding.Finding {
	out := slices.Clone(fs)
	for i, f := range out {
		if !Judgeable(f) {
			continue
		}
		refuted, confirmed, evidence := false, false, ""
		for _, v := range vs {
			if v.ID != f.ID {
				continue
			}
			if v.Refuted {
				refuted = true
				if evidence == "" {
					evidence = v.Evidence
				}
			} else {
				confirmed = true
			}
		}
		if refuted && !confirmed {
			out[i].Status, out[i].Evidence = finding.StatusRefuted, evidence
		}
	}
	return out
}

// splitRefuted takes the refuted findings out of fs.
func splitRefuted(fs []finding.Finding) (kept, refuted []finding.Finding) {
	kept = []finding.Finding{}
	for _, f := range fs {
		if f.Status == finding.StatusRefuted {
			refuted = append(refuted, f)
		} else {
			kept = append(kept, f)
		}
	}
	return kept, refuted
}
