package github

import (
	"context"
	"fmt"
	"net/http"
)

// commentsPerPage is GitHub's largest page of issue comments.
const commentsPerPage = 100

// maxCommentPages bounds the listing (10,000 comments): a PR with more is
// not one gh-ocdx can keep track of anyway.
const maxCommentPages = 100

// Comments lists every comment of the PR's conversation, oldest first (one
// request per 100 comments). gh-ocdx reads them to find its own tags before
// posting, so that a retried or resumed run never posts a report twice.
func (c *Client) Comments(ctx context.Context, repo Repo, number int) ([]Comment, error) {
	var all []Comment
	for page := 1; page <= maxCommentPages; page++ {
		var batch []struct {
			Comment
			User *struct {
				Login string `json:"login"`
			} `json:"user"`
		}
		path := fmt.Sprintf("repos/%s/%s/issues/%d/comments?per_page=%d&page=%d", repo.Owner, repo.Name, number, commentsPerPage, page)
		if err := c.rest.DoWithContext(ctx, http.MethodGet, path, nil, &batch); err != nil {
			return nil, c.explain(err, fmt.Sprintf("the comments of PR #%d", number), repo)
		}
		for _, b := range batch {
			cm := b.Comment
			if b.User != nil {
				cm.Author = b.User.Login
			}
			all = append(all, cm)
		}
		if len(batch) < commentsPerPage {
			return all, nil
		}
	}
	return nil, fmt.Errorf("PR #%d in %s has more than %d comments: too many to check for gh-ocdx's own reports", number, repo, maxCommentPages*commentsPerPage)
}
