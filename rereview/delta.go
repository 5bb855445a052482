package rereview

import (
	"context"
	"slices"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/posts"
)

// Checkout is where a re-review reads its diffs: the user's clone, no
// GitHub request.
type Checkout struct {
	// Since is the diff from one commit to a later one, without what
	// merging base (the base branch's tip) brought in; ok is false when
	// from is not an ancestor of to, or either is unknown there.
	Since func(ctx context.Context, from, to, base string) (diff string, ok bool)
	// Whole is the whole diff between two commits, base merges included:
	// previous findings' lines are followed through it (nil: through the
	// since-diff).
	Whole func(ctx context.Context, from, to string) (diff string, ok bool)
}

// Of is the incremental basis of a review of pr's head over the review b,
// or nil for a full review: the same head, or a head that does not
// descend from the reviewed one (a force-push, a rebase), which Since
// reports. fixedOnPR are the findings the PR's newest ledger says a fix
// pushed since: a fix any verb pushed (fix, review-loop, /ocdx fix)
// counts, on every machine.
func Of(ctx context.Context, co Checkout, b Basis, pr *github.PullRequest, policy *config.Policy, fixedOnPR []string) *Delta {
	if co.Since == nil || b.Head == pr.HeadRefOid {
		return nil
	}
	changed, ok := co.Since(ctx, b.Head, pr.HeadRefOid, pr.BaseRefOid)
	if !ok {
		return nil
	}
	rc := change.NewContext(pr, []byte(changed), true, policy)
	re := &Delta{Since: b.Head, Diff: rc.Diff, Changed: map[string]bool{}}
	// Its files are the since-diff's, not the PR's.
	var since []github.ChangedFile
	files, _ := diff.Parse([]byte(changed)) // bytes cannot fail to read
	for _, f := range files {
		since = append(since, github.ChangedFile{Path: f.Path()})
	}
	re.Coverage = change.DiffCoverage(change.OfFiles(since), rc.Diff, rc.DiffTruncated, rc.Ignored)
	// What the review built on did not see stays unseen (docs/architecture.md,
	// Re-reviews): a sampled basis makes every review on it sampled.
	re.Coverage.SampledBefore = b.Sampled
	for _, f := range co.followed(ctx, b, pr.HeadRefOid, files) {
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

// Earlier are the code findings of the review b, dismissed and refuted
// ones included, at head, for a full review to give their ID when raised
// again (consensus.Identify): lines followed where the checkout has the
// diff (after a rebase they stay where they were).
func Earlier(ctx context.Context, co Checkout, b Basis, head string) []finding.Finding {
	var out []finding.Finding
	for _, f := range co.followed(ctx, b, head, nil) {
		out = append(out, f.Finding)
	}
	return out
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
func (co Checkout) followed(ctx context.Context, b Basis, head string, since []*diff.File) []moved {
	moves := since
	if len(b.Findings)+len(b.Dismissed) > 0 && co.Whole != nil && b.Head != head {
		if whole, ok := co.Whole(ctx, b.Head, head); ok {
			moves, _ = diff.Parse([]byte(whole))
		}
	}
	var out []moved
	for i, f := range slices.Concat(b.Findings, b.Dismissed) {
		if !consensus.IsThread(f) {
			f, changed := Follow(moves, f)
			out = append(out, moved{f, changed, i >= len(b.Findings)})
		}
	}
	return out
}

// FromLedger is the basis the PR's ledger seed names, for a run this
// machine knows only from it: the same decisions as on the machine that
// ran it. Its findings have the category and description gh-ocdx's own
// posts on pr show of them (posts.Describe): carried into this run, they
// reach its reports and the fix agent as the machine that raised them
// would have them.
func FromLedger(seed posts.Ledger, pr *github.PullRequest) (Basis, bool) {
	fs, ok := seed.BasisFindings()
	if !ok {
		return Basis{}, false
	}
	if pr != nil {
		for i, f := range fs {
			if e := seed.Entry(f.ID); fs[i].Description == "" {
				fs[i].Category, fs[i].Description = posts.Describe(pr, f.ID, e.At)
			}
		}
	}
	b := Basis{Head: seed.Basis, Findings: fs, Sampled: seed.Sampled, Dismissed: seed.BasisWith(finding.StatusDismissed)}
	for _, f := range seed.BasisWith(finding.StatusRefuted) {
		f.Status = finding.StatusRefuted // as a recorded round keeps it
		b.Findings = append(b.Findings, f)
	}
	for _, e := range seed.Findings {
		if e.Status == finding.StatusFixed {
			b.Fixed = append(b.Fixed, e.ID)
		}
	}
	return b, true
}
