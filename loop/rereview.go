package loop

import (
	"context"
	"slices"

	"github.com/ocdx/gh-ocdx/rereview"
	"github.com/ocdx/gh-ocdx/roles"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/state"
)

// Re-reviews (docs/architecture.md, Re-reviews): once gh-ocdx has reviewed
// a PR at a head that the new head descends from, the reviewers get what
// changed since, not the whole diff again, with the findings of that
// review to say, for each, whether it is still present.

// reReviewOf is the incremental basis of round n at pr's head
// (rereview.Of), or nil for a full review: --full, or no earlier review
// recorded.
func (l *loop) reReviewOf(ctx context.Context, n int, pr *github.PullRequest) *rereview.Delta {
	if l.o.Full || l.o.Since == nil {
		return nil
	}
	b, ok := l.previousReview(n)
	if !ok {
		return nil
	}
	return rereview.Of(ctx, l.checkout(), b, pr, l.o.Policy, l.seed.With(finding.StatusFixed))
}

// checkout is where the re-reviews read their diffs.
func (l *loop) checkout() rereview.Checkout {
	return rereview.Checkout{Since: l.o.Since, Whole: l.o.Whole}
}

// earlier are the code findings of the review round n follows, dismissed
// and refuted ones included, at head: those of re, a re-review; else
// rereview.Earlier's.
func (l *loop) earlier(ctx context.Context, n int, head string, re *rereview.Delta) []finding.Finding {
	if re != nil {
		return slices.Concat(re.Previous, re.Closed)
	}
	b, ok := l.previousReview(n)
	if !ok {
		return nil
	}
	return rereview.Earlier(ctx, l.checkout(), b, head)
}

// previousReview is the review round n follows: round n-1 of this run, or
// for a run's first round the last reviewed round of the PR's earlier
// runs (their findings recorded), or the basis the ledger names of a run
// this machine knows only from the ledger.
func (l *loop) previousReview(n int) (rereview.Basis, bool) {
	if l.run != nil {
		for _, rd := range l.run.Run().Rounds {
			if rd.N == n-1 && reviewed(rd) {
				return rereview.BasisOf(rd), true
			}
		}
		if n > 1 {
			return rereview.Basis{}, false
		}
	}
	rec, err := l.o.Store.PR(l.key)
	if err != nil {
		return rereview.FromLedger(l.seed, l.o.PR)
	}
	for i := len(rec.Runs) - 1; i >= 0; i-- {
		r := rec.Runs[i]
		if l.run != nil && r.ID == l.run.ID() {
			continue
		}
		if r.Outcome == state.OutcomeElsewhere {
			// Another machine's run, and none of this machine's since
			// reviewed anything (their ledgers passed its basis on): the
			// ledger's basis, or none (a run older than it would bring back
			// findings that run settled).
			return rereview.FromLedger(l.seed, l.o.PR)
		}
		for j := len(r.Rounds) - 1; j >= 0; j-- {
			if rd := r.Rounds[j]; reviewed(rd) && rd.Findings != nil {
				return rereview.BasisOf(rd), true
			}
		}
	}
	return rereview.Basis{}, false
}

// reviewed reports whether round rd reviewed its head: its reviews are
// recorded and at least one reviewer answered. A round where every
// reviewer failed read nothing, and its head is no basis for a re-review.
func reviewed(rd state.Round) bool {
	if !rd.Done(state.PhaseReviewed) {
		return false
	}
	for _, r := range rd.Reports {
		if r.Role != roles.AnalyzerName && !slices.Contains(rd.FailedRoles, r.Role) {
			return true
		}
	}
	return false
}
