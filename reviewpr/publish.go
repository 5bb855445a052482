package reviewpr

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/rereview"
	"github.com/ocdx/gh-ocdx/state"
)

// ReviewPoster is the GitHub a review is posted to.
type ReviewPoster interface {
	PostReviewComments(ctx context.Context, repo github.Repo, number int, event github.ReviewEvent, body string, comments []github.ReviewComment) (*github.PostedReview, error)
}

// PRPublisher posts the review on the pull request (review-pr without
// --print).
type PRPublisher struct {
	GitHub ReviewPoster
	Repo   github.Repo
	Number int
	RunID  string       // for the tag
	Head   string       // the PR's head the review read
	Ledger posts.Ledger // the PR's newest, carried on (docs/architecture.md, The ledger)
	// Sampled is the head before which the review's coverage was sampled
	// ("" when it saw all it reviewed).
	Sampled string
	// Whole is the diff from a commit to head, from this clone.
	Whole func(from string) (string, bool)
	// posted is the review once posted, for the state file (Run).
	posted *postedReview
}

// postedReview is what review-pr posted, as its run records it.
type postedReview struct {
	url, tag string
	comments int
	basis    []finding.Finding // the review's findings as a basis; nil: none
}

// Publish posts the review with the marker and a tag, and its inline
// comments as gh-ocdx's own threads, as every post gh-ocdx makes:
// review-loop then knows the review as its own, never counts it as a
// maintainer's change request, and reviews from its head
// (docs/architecture.md, review-pr).
func (p *PRPublisher) Publish(ctx context.Context, r Proposal) (string, error) {
	// The comments and the ledger follow the same basis: its diff to the
	// head is read once.
	whole := onceDiff(p.Whole)
	earlier, _ := rereview.Carried(p.Ledger, p.Head, whole)
	comments, fs := Comments(r.Comments, earlier)
	led, basis := Ledger(p.Ledger, p.RunID, p.Head, p.Sampled, fs, whole)
	tag := posts.RunTag(p.RunID, 1, "review-pr")
	body := github.CapBodyWith(posts.Marker+"\n"+tag+"\n"+r.Body, "\n"+led.Block())
	posted, err := p.GitHub.PostReviewComments(ctx, p.Repo, p.Number, r.Event, body, comments)
	if err != nil {
		return "", err
	}
	p.posted = &postedReview{url: posted.URL, tag: tag, comments: len(comments), basis: basis}
	return posted.URL, nil
}

// Run is the posted review as a run of its own in the state file, so this
// machine knows it as the PR's ledger tells others (docs/architecture.md,
// The ledger); false when nothing was posted.
func (p *PRPublisher) Run(model string, event github.ReviewEvent, usage tokens.Usage, now time.Time) (state.Run, bool) {
	if p.posted == nil {
		return state.Run{}, false
	}
	rd := state.Round{N: 1, HeadOID: p.Head, Started: now, Findings: p.posted.basis,
		Phases:   []state.PhaseMark{{Phase: state.PhaseReviewed, At: now}, {Phase: state.PhaseCommented, At: now}},
		Reports:  []state.Report{{Role: "review-pr", Model: model, Summary: fmt.Sprintf("%s, %s", PostedAs(event), text.Plural(p.posted.comments, "inline comment"))}},
		Comments: []state.Comment{{Kind: "review-pr", Tag: p.posted.tag, URL: p.posted.url}},
		Usage:    []state.Usage{{Role: "review-pr", Model: model, Usage: usage}}}
	for _, f := range p.posted.basis {
		rd.FindingIDs = append(rd.FindingIDs, f.ID)
	}
	if p.Sampled != "" {
		rd.Coverage = &diff.Coverage{SampledBefore: p.Sampled}
	}
	return state.Run{ID: p.RunID, Kind: "review-pr", Started: now, Ended: now, Outcome: state.OutcomeConverged,
		Reason: "review posted: " + p.posted.url, Rounds: []state.Round{rd}}, true
}

// PostedAs names a review by its event, as gh pr review's lines do.
func PostedAs(e github.ReviewEvent) string {
	switch e {
	case github.Approve:
		return "an approving review"
	case github.RequestChanges:
		return "a review requesting changes"
	}
	return "review"
}

// SampledBefore is the head before which rc's review saw only part of the
// PR: its own head when its diff was cut, the basis's when it re-reviews
// from a sampled one (docs/architecture.md, Re-reviews).
func SampledBefore(rc *change.Context, led posts.Ledger) string {
	sampled := ""
	if rc.Since != "" {
		sampled = led.Sampled
	}
	if rc.DiffTruncated {
		sampled = cmp.Or(sampled, rc.PR.HeadRefOid)
	}
	return sampled
}

// onceDiff is whole asking git once per commit it is given.
func onceDiff(whole func(from string) (string, bool)) func(from string) (string, bool) {
	type answer struct {
		diff string
		ok   bool
	}
	seen := map[string]answer{}
	return func(from string) (string, bool) {
		a, done := seen[from]
		if !done {
			a.diff, a.ok = whole(from)
			seen[from] = a
		}
		return a.diff, a.ok
	}
}
