package converse

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/posts"
)

// FindingCommand is a /ocdx command on findings (dismiss, restore) that
// gh ocdx posts for its user.
type FindingCommand struct {
	// Verb is posts.CmdDismiss or CmdRestore: the comment starts "/ocdx
	// dismiss", and posts.MayOverrule says whom it counts from.
	Verb string
	// Says is the line the comment adds for people.
	Says string
}

// CommentPoster posts a comment on a pull request.
type CommentPoster interface {
	PostComment(ctx context.Context, repo github.Repo, number int, body string) (*github.Comment, error)
}

// Post posts c for ids on pr and returns the comment's URL, unless the
// token's user is one the loop would not heed for any of them: then
// nothing is posted.
func (c FindingCommand) Post(ctx context.Context, gh CommentPoster, trust *posts.Trust, repo github.Repo, pr *github.PullRequest, ids []string, reason string) (string, error) {
	// The command is judged as the loop will judge it: by the permission
	// of the token's user, gh-ocdx's own login included.
	perm, err := trust.Permission(ctx, pr.Viewer)
	if err != nil {
		return "", fmt.Errorf("could not check whether %s may %s findings on %s: %w; nothing was posted", pr.Viewer, c.Verb, repo, err)
	}
	var refused []string
	for _, id := range ids {
		if ok, why := posts.MayOverrule(c.Verb, repo, perm, pr.Viewer, pr.Author, id); !ok {
			refused = append(refused, fmt.Sprintf("%s: %s", id, why))
		}
	}
	if len(refused) > 0 {
		return "", fmt.Errorf("%s may not %s on PR #%d, so nothing was posted (gh-ocdx would not count it):\n  %s",
			pr.Viewer, c.Verb, pr.Number, strings.Join(refused, "\n  "))
	}
	body := posts.CommandLine(c.Verb, ids, reason) + "\n\n" + c.Says + "\n\n" + posts.Marker
	posted, err := gh.PostComment(ctx, repo, pr.Number, body)
	if err != nil {
		return "", fmt.Errorf("posting the %s on PR #%d failed: %w; run the same command again: an ID already on the PR is not posted twice", c.Verb, pr.Number, err)
	}
	return posted.URL, nil
}

// Unraised are those of ids no review on pr raised for verb to act on, by
// gh-ocdx's latest trusted report (its ledger): for a dismissal, a finding
// it lists whatever its status, or a review thread's; for a restore, one
// the verifier refuted. Nothing is posted, or answered as done, for them.
// A PR with no trusted ledger yet has raised none but its review threads;
// a ledger that left closed findings out to fit in a comment cannot say,
// and then none is.
func Unraised(ctx context.Context, trust *posts.Trust, pr *github.PullRequest, verb string, ids []string) []string {
	led, _, _, ok := trust.Ledger(ctx, pr)
	if ok && led.Dropped > 0 {
		// The ledger left findings out to keep within its size: it cannot
		// say which were never raised.
		return nil
	}
	var known []string
	switch verb {
	case "restore":
		known = led.With(finding.StatusRefuted)
	default:
		for _, e := range led.Findings {
			known = append(known, e.ID)
		}
		threads, _ := consensus.ThreadFindings(pr, trust.Resolution(ctx, pr))
		for _, f := range threads {
			known = append(known, f.ID)
		}
	}
	var not []string
	for _, id := range ids {
		if !slices.Contains(known, id) {
			not = append(not, id)
		}
	}
	return not
}
