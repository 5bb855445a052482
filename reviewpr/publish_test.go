package reviewpr

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/state"
)

type fakePoster struct{ body string }

func (f *fakePoster) PostReviewComments(_ context.Context, _ github.Repo, _ int, _ github.ReviewEvent, body string, _ []github.ReviewComment) (*github.PostedReview, error) {
	f.body = body
	return &github.PostedReview{URL: "https://github.com/o/r/pull/7#pullrequestreview-1"}, nil
}

// review-pr's posted review is gh-ocdx's own (its marker and run tag, the
// ledger that makes its head the next basis), and the state file records it
// as a converged run of its own; nothing posted, nothing recorded.
func TestPRPublisherPostsItsOwnReviewAndRecordsIt(t *testing.T) {
	gh := &fakePoster{}
	p := &PRPublisher{GitHub: gh, Repo: github.Repo{Host: "github.com", Owner: "o", Name: "r"}, Number: 7, RunID: "run1",
		Head: "0123456789abcdef0123456789abcdef01234567", Ledger: posts.Ledger{}, Whole: func(string) (string, bool) { return "", false }}
	if _, ok := p.Run("m", github.RequestChanges, tokens.Usage{}, time.Now()); ok {
		t.Fatal("a review never posted is recorded")
	}
	url, err := p.Publish(t.Context(), Proposal{Event: github.RequestChanges, Body: "Looks risky."})
	if err != nil || url == "" {
		t.Fatal(url, err)
	}
	tag := posts.RunTag("run1", 1, "review-pr")
	if !strings.HasPrefix(gh.body, posts.Marker+"\n"+tag+"\nLooks risky.") {
		t.Errorf("posted body:\n%s", gh.body)
	}
	run, ok := p.Run("m", github.RequestChanges, tokens.Usage{Calls: 1}, time.Now())
	if !ok || run.Kind != "review-pr" || run.Outcome != state.OutcomeConverged || len(run.Rounds) != 1 ||
		run.Rounds[0].Comments[0].URL != url || run.Rounds[0].Comments[0].Tag != tag || run.Rounds[0].HeadOID != p.Head ||
		run.Rounds[0].Reports[0].Summary != "a review requesting changes, 0 inline comments" {
		t.Errorf("recorded %+v", run)
	}
}
