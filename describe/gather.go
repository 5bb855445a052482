package describe

import (
	"context"
	"fmt"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/tokens"
)

// GitHub is what Gather reads and Post writes.
type GitHub interface {
	change.PRSource
	Commits(ctx context.Context, repo github.Repo, number int) ([]github.Commit, error)
	Issue(ctx context.Context, repo github.Repo, number int) (*github.Issue, error)
	Comments(ctx context.Context, repo github.Repo, number int) ([]github.Comment, error)
	UpdateComment(ctx context.Context, repo github.Repo, id int64, body string) (*github.Comment, error)
	PostComment(ctx context.Context, repo github.Repo, number int, body string) (*github.Comment, error)
}

// Gather reads what the description is written from: the PR and its diff
// as a review reads them (change.Gather, with policy the base branch's
// policy), its commits and its linked issues' text; warn says which issues
// are left out.
func Gather(ctx context.Context, client GitHub, repo github.Repo, number int, diagram bool, policy func(*github.PullRequest) (*config.Policy, error), warn func(format string, a ...any)) (Input, error) {
	rc, err := change.Gather(ctx, client, repo, number, policy)
	if err != nil {
		return Input{}, err
	}
	in := Input{Review: rc, Diagram: diagram}
	if in.Commits, err = client.Commits(ctx, repo, number); err != nil {
		return Input{}, err
	}
	for i, ref := range rc.PR.ClosingIssues {
		if i == MaxIssues {
			warn("%s#%d links %d issues: the description checks the first %d", repo, number, len(rc.PR.ClosingIssues), MaxIssues)
			break
		}
		is, err := client.Issue(ctx, repo, ref.Number)
		if err != nil {
			return Input{}, err
		}
		in.Issues = append(in.Issues, *is)
	}
	return in, nil
}

// Post posts md as gh-ocdx's description comment on pr, or edits the one
// a previous run posted (by the login gh-ocdx posts as: a copy by anyone
// else is theirs), and returns its URL and whether it was edited.
func Post(ctx context.Context, client GitHub, repo github.Repo, pr *github.PullRequest, md, footer string) (url string, updated bool, err error) {
	comments, err := client.Comments(ctx, repo, pr.Number)
	if err != nil {
		return "", false, err
	}
	body := Comment(md, pr.HeadRefOid, footer)
	if id := FindOwn(comments, pr.ByViewer); id != 0 {
		c, err := client.UpdateComment(ctx, repo, id, body)
		if err != nil {
			return "", false, err
		}
		return c.URL, true, nil
	}
	c, err := client.PostComment(ctx, repo, pr.Number, body)
	if err != nil {
		return "", false, err
	}
	return c.URL, false, nil
}

// Footer is the posted description's last line: the verb, the
// model, what it cost.
func Footer(model string, u tokens.Usage, cost float64) string {
	return fmt.Sprintf("<sub>gh-ocdx describe · %s · %s</sub>", model, tokens.Spent(u, cost))
}
