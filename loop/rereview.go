package loop

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/fix"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/review"
	"github.com/ocdx/gh-ocdx/state"
)

// Re-reviews (docs/architecture.md, Re-reviews): once gh-ocdx has reviewed
// a PR at a head that the new head descends from, the reviewers get what
// changed since, not the whole diff again, with the findings of that
// review to say, for each, whether it is still present.

// reReview is what a round reviews incrementally from.
type reReview struct {
	Since    string            // the head the previous review read
	Diff     string            // from Since to the round's head, as the policy leaves it
	Previous []finding.Finding // that review's code findings
	Fixed    []finding.Finding // those a fix since reported fixed
	Coverage review.Coverage   // how much of the diff since the reviewers are given
}

// previous is a finding as a re-review's task lists it.
type previous struct {
	ID, Priority, Where, Title string
}

func (re *reReview) list() []previous {
	var out []previous
	for _, f := range re.Previous {
		where := f.File
		if f.Line != nil {
			where = fmt.Sprintf("%s:%d", where, *f.Line)
		}
		out = append(out, previous{ID: f.ID, Priority: f.Priority, Where: where, Title: f.Title})
	}
	return out
}

// reReviewOf is the incremental basis of round n at pr's head, or nil for
// a full review: --full, no earlier review recorded, the same head, or a
// head that does not descend from the reviewed one (a force-push, a
// rebase), which Since reports.
func (l *loop) reReviewOf(ctx context.Context, n int, pr *github.PullRequest) *reReview {
	if l.o.Full || l.o.Since == nil {
		return nil
	}
	rd, ok := l.previousReview(n)
	if !ok || rd.HeadOID == pr.HeadRefOid {
		return nil
	}
	fs := rd.Findings
	changed, ok := l.o.Since(ctx, rd.HeadOID, pr.HeadRefOid, pr.BaseRefOid)
	if !ok {
		return nil
	}
	rc := review.NewContext(pr, []byte(changed), true, l.o.Policy)
	re := &reReview{Since: rd.HeadOID, Diff: rc.Diff}
	// Its files are the since-diff's, not the PR's.
	since := &github.PullRequest{}
	files, _ := diff.Parse([]byte(changed)) // bytes cannot fail to read
	for _, f := range files {
		since.Files = append(since.Files, github.ChangedFile{Path: f.Path()})
	}
	since.ChangedFiles = len(since.Files)
	re.Coverage = review.DiffCoverage(since, rc.Diff, rc.DiffTruncated, rc.Ignored)
	// What the review built on did not see stays unseen (docs/architecture.md,
	// Re-reviews): a sampled basis makes every review on it sampled.
	var basis review.Coverage
	if rd.Coverage != nil && json.Unmarshal(rd.Coverage, &basis) == nil && basis.Sampled() {
		re.Coverage.SampledBefore = cmp.Or(basis.SampledBefore, rd.HeadOID)
	}
	// A fix counts only once pushed: one that failed verification, was
	// declined or interrupted fixed nothing on the PR.
	var fixed []string
	if res, ok := fix.Recorded(rd); ok && res.Pushed {
		fixed = res.FixedIDs()
	}
	for _, f := range fs {
		if IsThread(f) || f.Status == finding.StatusRefuted {
			continue // a refuted finding raised again is verified again
		}
		re.Previous = append(re.Previous, f)
		if slices.Contains(fixed, f.ID) {
			re.Fixed = append(re.Fixed, f)
		}
	}
	return re
}

// previousReview is the review round n follows: round n-1 of this run, or
// for a run's first round the last reviewed round of the PR's earlier
// runs (their findings recorded: a run rebuilt from a ledger has none).
func (l *loop) previousReview(n int) (state.Round, bool) {
	if l.run != nil {
		for _, rd := range l.run.Run().Rounds {
			if rd.N == n-1 && reviewed(rd) {
				return rd, true
			}
		}
		if n > 1 {
			return state.Round{}, false
		}
	}
	rec, err := l.o.Store.PR(l.key)
	if err != nil {
		return state.Round{}, false
	}
	for i := len(rec.Runs) - 1; i >= 0; i-- {
		r := rec.Runs[i]
		if l.run != nil && r.ID == l.run.ID() {
			continue
		}
		for j := len(r.Rounds) - 1; j >= 0; j-- {
			if rd := r.Rounds[j]; reviewed(rd) && rd.Findings != nil {
				return rd, true
			}
		}
	}
	return state.Round{}, false
}

// reviewed reports whether round rd reviewed its head: its reviews are
// recorded and at least one reviewer answered. A round where every
// reviewer failed read nothing, and its head is no basis for a re-review.
func reviewed(rd state.Round) bool {
	if !rd.Done(state.PhaseReviewed) {
		return false
	}
	for _, r := range rd.Reports {
		if r.Role != analyzerName && !slices.Contains(rd.FailedRoles, r.Role) {
			return true
		}
	}
	return false
}

// carry adds to a re-review's findings the previous ones still open: a
// reviewer said still_present, or no reviewer judged it and no fix
// reported it fixed. One a reviewer reported again keeps the new copy.
func carry(fs []finding.Finding, re *reReview, v Verdicts) []finding.Finding {
	for _, p := range re.Previous {
		if slices.ContainsFunc(fs, func(f finding.Finding) bool { return f.ID == p.ID }) {
			continue
		}
		c, judged := v[p.ID]
		fixed := slices.ContainsFunc(re.Fixed, func(f finding.Finding) bool { return f.ID == p.ID })
		if c.Still > 0 || !judged && !fixed {
			fs = append(fs, p)
		}
	}
	return fs
}
