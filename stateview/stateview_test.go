package stateview

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/state"
)

// state show reads as gh's lists do: the newest first (pull requests by
// their last run, a pull request's runs), commits by their short SHA.
func TestStateShowNewestFirstWithShortSHAs(t *testing.T) {
	dir := t.TempDir()
	st := state.New(filepath.Join(dir, "state.db"), nil)
	// The newer sorts after the older by name: the order is by time.
	older, newer := state.NewKey("github.com", "a", "older", 1), state.NewKey("github.com", "o", "newer", 2)
	const sha = "0123456789abcdef0123456789abcdef01234567"
	for _, run := range []struct {
		key  state.Key
		kind string
	}{{older, "review-loop"}, {newer, "review-loop"}, {newer, "fix"}} {
		a, err := st.Begin(run.key, run.kind)
		if err != nil {
			t.Fatal(err)
		}
		_, err = a.StartRound(1, sha)
		err = errors.Join(err, a.Complete(1, state.PhaseFixed, func(r *state.Round) {
			r.Fix = &state.FixResult{Status: state.FixPushed, Fixed: []finding.FixedIssue{}, Rejected: []finding.RejectedIssue{},
				Commits: []finding.Commit{{Sha: sha, Message: "fix"}}, Verified: true, Pushed: true}
		}), a.End(state.OutcomeConverged, run.kind+" done"))
		if err != nil {
			t.Fatal(err)
		}
	}

	list, err := st.List()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	List(&out, st, list)
	if list := out.String(); strings.Index(list, newer.String()) > strings.Index(list, older.String()) {
		t.Errorf("want the PR run last first:\n%s", list)
	}

	out.Reset()
	rec, err := st.PR(newer)
	if err != nil {
		t.Fatal(err)
	}
	PR(&out, st, rec)
	pr := out.String()
	if fix, loop := strings.Index(pr, ": fix, converged"), strings.Index(pr, ": review-loop, converged"); fix < 0 || loop < 0 || fix > loop {
		t.Errorf("want the fix run (the newer) before the review-loop run:\n%s", pr)
	}
	if strings.Contains(pr, sha) || !strings.Contains(pr, "Commits: 0123456\n") || !strings.Contains(pr, "head 0123456") {
		t.Errorf("want short SHAs:\n%s", pr)
	}
}
