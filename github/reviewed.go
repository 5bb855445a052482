package github

import "context"

// ReviewedPage is one page of a repository's pull requests, the most
// recently updated first, each with what tells whether gh-ocdx reviewed it
// and how it went: its reports (reviews and the conversation's last 50
// comments, with who last wrote each) and the base branch's .ocdx.json,
// whose trustedLogins say whose reports count (docs/architecture.md,
// Whose posts count).
type ReviewedPage struct {
	PRs    []ReviewedPR
	Viewer string
	Next   string // the cursor of the next page; "" when this is the last
}

// ReviewedPR is a pull request of a ReviewedPage: a PullRequest holding
// Number, URL, State, Author, BaseRefName, Reviews, Comments, Viewer and
// BasePolicy, and when it last changed.
type ReviewedPR struct {
	*PullRequest
	UpdatedAt string // RFC 3339
}

// MaxReviewedPage is the most pull requests a page holds: each brings up
// to 150 posts, and gh-ocdx's reports are long.
const MaxReviewedPage = 25

const reviewedQuery = `query ReviewedPullRequests($owner: String!, $name: String!, $first: Int!, $after: String) {
  viewer { login }
  repository(owner: $owner, name: $name) {
    pullRequests(first: $first, after: $after, orderBy: {field: UPDATED_AT, direction: DESC}) {
      pageInfo { hasNextPage endCursor }
      nodes {
        number url state updatedAt baseRefName
        author { login }
        reviews(last: 100) { nodes { state author { __typename login } editor { __typename login } authorAssociation submittedAt body url } }
        comments(last: 50) { nodes { fullDatabaseId author { __typename login } editor { __typename login } authorAssociation body url createdAt } }
        baseRef { target { oid ... on Commit {
          policy: file(path: ".ocdx.json") { object { ... on Blob { text isTruncated } } }
        } } }
      }
    }
  }
}`

// ReviewedPRs reads one page of repo's pull requests, the most recently
// updated first: first of them (at most MaxReviewedPage) after the cursor
// after ("" for the first page). One request.
func (c *Client) ReviewedPRs(ctx context.Context, repo Repo, first int, after string) (ReviewedPage, error) {
	var resp struct {
		Viewer     *login `json:"viewer"`
		Repository *struct {
			PullRequests struct {
				PageInfo pageInfo `json:"pageInfo"`
				Nodes    []struct {
					Number      int          `json:"number"`
					URL         string       `json:"url"`
					State       string       `json:"state"`
					UpdatedAt   string       `json:"updatedAt"`
					BaseRefName string       `json:"baseRefName"`
					Author      *login       `json:"author"`
					Reviews     reviewNodes  `json:"reviews"`
					Comments    commentNodes `json:"comments"`
					BaseRef     *struct {
						Target *struct {
							OID    string    `json:"oid"`
							Policy *blobFile `json:"policy"`
						} `json:"target"`
					} `json:"baseRef"`
				} `json:"nodes"`
			} `json:"pullRequests"`
		} `json:"repository"`
	}
	vars := map[string]any{"owner": repo.Owner, "name": repo.Name, "first": min(max(first, 1), MaxReviewedPage), "after": nil}
	if after != "" {
		vars["after"] = after
	}
	if err := c.gql.DoWithContext(ctx, reviewedQuery, vars, &resp); err != nil {
		return ReviewedPage{}, c.explain(err, "the pull requests", repo)
	}
	if resp.Repository == nil {
		return ReviewedPage{}, &notFoundError{What: "repository", Repo: repo}
	}
	var page ReviewedPage
	if resp.Viewer != nil {
		page.Viewer = resp.Viewer.Login
	}
	conn := resp.Repository.PullRequests
	for _, n := range conn.Nodes {
		pr := &PullRequest{Number: n.Number, URL: n.URL, State: n.State, BaseRefName: n.BaseRefName, Viewer: page.Viewer,
			Reviews: n.Reviews.list(), Comments: n.Comments.list()}
		if n.Author != nil {
			pr.Author = n.Author.Login
		}
		if n.BaseRef != nil && n.BaseRef.Target != nil {
			pr.BasePolicy = n.BaseRef.Target.Policy.policyFile(n.BaseRef.Target.OID)
		}
		page.PRs = append(page.PRs, ReviewedPR{PullRequest: pr, UpdatedAt: n.UpdatedAt})
	}
	if conn.PageInfo.HasNextPage {
		page.Next = conn.PageInfo.EndCursor
	}
	return page, nil
}
