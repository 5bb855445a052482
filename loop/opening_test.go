package loop

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/review"
)

// The reviewers read the author's words as the PR's body, never gh-ocdx's
// description that describe --edit-body wrote into it.
func TestReviewerTaskLeavesGhOcdxsDescriptionOut(t *testing.T) {
	pr := &github.PullRequest{Number: 3, Title: "t", Body: "Author's words.\n\n" + posts.BodyStart + "\nThe old description.\n" + posts.BodyEnd}
	task, _, err := reviewerTask("reviewer-1", review.NewContext(pr, nil, true, &config.Policy{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(task, "Author's words.") || strings.Contains(task, "The old description.") {
		t.Errorf("task:\n%s", task)
	}
}

// The opening goes above round 1's report only.
func TestOpeningOnlyOpensRoundOne(t *testing.T) {
	o := Options{Opening: "### What PR #3 does\n"}
	if got := opening(o, 1); got != "### What PR #3 does\n\n---\n\n" {
		t.Errorf("round 1: %q", got)
	}
	if opening(o, 2) != "" || opening(Options{}, 1) != "" {
		t.Error("an opening outside round 1, or without one")
	}
}
