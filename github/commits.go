package github

import (
	"context"
	"fmt"
	"net/http"
)

// maxCommits is how many of a PR's commits Commits reads: one page.
const maxCommits = 100

// Commit is one commit of a PR.
type Commit struct {
	OID     string `json:"oid"`
	Message string `json:"message"`
}

// Commits lists the PR's first maxCommits commits, oldest first (one
// request).
func (c *Client) Commits(ctx context.Context, repo Repo, number int) ([]Commit, error) {
	var page []struct {
		SHA    string `json:"sha"`
		Commit struct {
			Message string `json:"message"`
		} `json:"commit"`
	}
	path := fmt.Sprintf("repos/%s/%s/pulls/%d/commits?per_page=%d", repo.Owner, repo.Name, number, maxCommits)
	if err := c.rest.DoWithContext(ctx, http.MethodGet, path, nil, &page); err != nil {
		return nil, c.explain(err, fmt.Sprintf("the commits of PR #%d", number), repo)
	}
	out := make([]Commit, 0, len(page))
	for _, p := range page {
		out = append(out, Commit{OID: p.SHA, Message: p.Commit.Message})
	}
	return out, nil
}
