package finding

import (
	"fmt"
	"strings"
)

// The verifier's answers (docs/architecture.md, The verifier).
const (
	Confirmed = "confirmed"
	Refuted   = "refuted"
)

// VerifierResult is the verifier's envelope: one verdict per finding it
// was sent.
type VerifierResult struct {
	Agent    string           `json:"agent"`
	Verdicts []VerifierAnswer `json:"verdicts"`
}

// VerifierAnswer is the verifier's word on one finding, with the lines it
// read that show it.
type VerifierAnswer struct {
	ID       string `json:"id"`
	Verdict  string `json:"verdict"`
	Evidence string `json:"evidence"`
}

// Validate checks each verdict: confirmed or refuted, with evidence.
func (r *VerifierResult) Validate() error {
	for i, v := range r.Verdicts {
		switch {
		case v.Verdict != Confirmed && v.Verdict != Refuted:
			return fmt.Errorf("verdicts[%d]: verdict %q is not %s or %s", i, v.Verdict, Confirmed, Refuted)
		case strings.TrimSpace(v.Evidence) == "":
			return fmt.Errorf("verdicts[%d]: no evidence for %s: quote the lines read", i, v.ID)
		}
	}
	return nil
}
