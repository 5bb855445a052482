package loop

import (
	"context"
	"slices"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/rereview"
	"github.com/ocdx/gh-ocdx/roles"

	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/review"
	"github.com/ocdx/gh-ocdx/state"
)

// Re-reviews (docs/architecture.md, Re-reviews): once gh-ocdx has reviewed
// a PR at a head that the new head descends from, the reviewers get what
// changed since, not the whole diff again, with the findings of that
// review to say, for each, whether it is still present.

// reReviewOf is the incremental basis of round n at pr's head, or nil for
// a full review: --full, no earlier review recorded, the same head, or a
// head that does not descend from the reviewed one (a force-push, a
// rebase), which Since reports.
func (l *loop) reReviewOf(ctx context.Context, n int, pr *github.PullRequest) *rereview.Delta {
	if l.o.Full || l.o.Since == nil {
		return nil
	}
	b, ok := l.previousReview(n)
	if !ok || b.Head == pr.HeadRefOid {
		return nil
	}
	changed, ok := l.o.Since(ctx, b.Head, pr.HeadRefOid, pr.BaseRefOid)
	if !ok {
		return nil
	}
	rc := review.NewContext(pr, []byte(changed), true, l.o.Policy)
	re := &rereview.Delta{Since: b.Head, Diff: rc.Diff, Changed: map[string]bool{}}
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
	re.Coverage.SampledBefore = b.Sampled
	// A fix any verb pushed since (fix, review-loop, /ocdx fix) counts:
	// the PR's newest ledger says so on every machine.
	fixedOnPR := l.seed.With(finding.StatusFixed)
	for _, f := range l.followed(ctx, b, pr.HeadRefOid, files) {
		if f.Status == finding.StatusRefuted || f.dismissed {
			// Neither judged nor carried: raised again, a refuted finding
			// is verified again, a dismissed one stays dismissed.
			re.Closed = append(re.Closed, f.Finding)
			continue
		}
		re.Previous, re.Changed[f.ID] = append(re.Previous, f.Finding), f.changed
		if slices.Contains(b.Fixed, f.ID) || slices.Contains(fixedOnPR, f.ID) {
			re.Fixed = append(re.Fixed, f.Finding)
		}
	}
	return re
}

// moved is an earlier finding followed to a later head.
type moved struct {
	finding.Finding
	changed   bool // the diff removed or rewrote its line, or deleted its file
	dismissed bool // one of the review's dismissed findings
}

// followed are the code findings of the review b, its dismissed ones
// included, their lines followed to head: through the whole diff from the
// reviewed head (the since-diff leaves out what merging the base brought,
// and starts from a tree whose lines are not the reviewed head's), else
// through since.
func (l *loop) followed(ctx context.Context, b rereview.Basis, head string, since []*diff.File) []moved {
	moves := since
	if len(b.Findings)+len(b.Dismissed) > 0 && l.o.Whole != nil && b.Head != head {
		if whole, ok := l.o.Whole(ctx, b.Head, head); ok {
			moves, _ = diff.Parse([]byte(whole))
		}
	}
	var out []moved
	for i, f := range slices.Concat(b.Findings, b.Dismissed) {
		if !consensus.IsThread(f) {
			f, changed := rereview.Follow(moves, f)
			out = append(out, moved{f, changed, i >= len(b.Findings)})
		}
	}
	return out
}

// earlier are the code findings of the review round n follows, dismissed
// and refuted ones included, at head: those of re, a re-review; else those
// a full review gives their ID when raised again (consensus.Identify), lines
// followed where the checkout has the diff (after a rebase they stay
// where they were).
func (l *loop) earlier(ctx context.Context, n int, head string, re *rereview.Delta) []finding.Finding {
	if re != nil {
		return slices.Concat(re.Previous, re.Closed)
	}
	b, ok := l.previousReview(n)
	if !ok {
		return nil
	}
	var out []finding.Finding
	for _, f := range l.followed(ctx, b, head, nil) {
		out = append(out, f.Finding)
	}
	return out
}

// ledgerBasis is the basis the PR's ledger names, for a run this machine
// knows only from it: the same decisions as on the machine that ran it.
func (l *loop) ledgerBasis() (rereview.Basis, bool) {
	fs, ok := l.seed.BasisFindings()
	if !ok {
		return rereview.Basis{}, false
	}
	l.describeSeeded(fs)
	b := rereview.Basis{Head: l.seed.Basis, Findings: fs, Sampled: l.seed.Sampled, Dismissed: l.seed.BasisWith(finding.StatusDismissed)}
	for _, f := range l.seed.BasisWith(finding.StatusRefuted) {
		f.Status = finding.StatusRefuted // as a recorded round keeps it
		b.Findings = append(b.Findings, f)
	}
	for _, e := range l.seed.Findings {
		if e.Status == finding.StatusFixed {
			b.Fixed = append(b.Fixed, e.ID)
		}
	}
	return b, true
}

// describeSeeded gives the findings fs, taken from the PR's ledger, the
// category and description gh-ocdx's own posts show of them (describe):
// carried into this run, they reach its reports and the fix agent as
// the machine that raised them would have them.
func (l *loop) describeSeeded(fs []finding.Finding) {
	if l.o.PR == nil {
		return
	}
	for i, f := range fs {
		for _, e := range l.seed.Findings {
			if e.ID == f.ID && fs[i].Description == "" {
				fs[i].Category, fs[i].Description = posts.Describe(l.o.PR, f.ID, e.At)
			}
		}
	}
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
		return l.ledgerBasis()
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
			return l.ledgerBasis()
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
