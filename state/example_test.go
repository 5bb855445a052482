package state_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/state"
)

// A review loop claims its PR, records each phase as it completes, and skips
// what a resumed run already did.
func Example() {
	dir, _ := os.MkdirTemp("", "state-example-")
	defer os.RemoveAll(dir)
	st := state.New(filepath.Join(dir, "state.db"), nil) // path: state.Path(os.Getenv)

	key := state.NewKey("github.com", "owner", "repo", 42)
	run, err := st.Begin(key, "review-loop") // *state.leaseError if another run holds the PR
	if err != nil {
		fmt.Println(err)
		return
	}
	defer run.Release() // on error or Ctrl-C: the run stays resumable

	round, _ := run.StartRound(1, "0123abc") // a resumed run gets the recorded round back
	if !round.Done(state.PhaseReviewed) {
		_ = run.Complete(1, state.PhaseReviewed, func(r *state.Round) {
			r.Findings = []finding.Finding{} // reviewed, nothing found
			r.Consensus = "approve"
		})
	}
	if !round.Done(state.PhaseCommented) {
		// post the report (unless its tag is already on the PR), then:
		_ = run.Complete(1, state.PhaseCommented, func(r *state.Round) {
			r.Comments = append(r.Comments, state.Comment{Kind: "review", Tag: "ocdx:run=" + run.ID() + " round=1 kind=review", URL: "https://github.com/owner/repo/pull/42#issuecomment-1"})
		})
	}
	_ = run.End(state.OutcomeConverged, "approved") // decays the full reports

	pr, _ := st.PR(key)
	fmt.Println(pr.Key, pr.Runs[0].Outcome, pr.Runs[0].Rounds[0].Phases[1].Phase, pr.Runs[0].Compacted)
	// Output: github.com/owner/repo#42 converged commented true
}
