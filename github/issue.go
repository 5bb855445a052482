package github

import (
	"context"
	"fmt"
	"net/http"
)

// Issue is an issue (or PR) as the issue_view tool shows it.
type Issue struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	State  string `json:"state"`
	URL    string `json:"html_url"`
}

// Issue reads one issue.
func (c *Client) Issue(ctx context.Context, repo Repo, number int) (*Issue, error) {
	var out Issue
	err := c.rest.DoWithContext(ctx, http.MethodGet, fmt.Sprintf("repos/%s/%s/issues/%d", repo.Owner, repo.Name, number), nil, &out)
	if err != nil {
		return nil, c.explain(err, fmt.Sprintf("issue #%d", number), repo)
	}
	return &out, nil
}
