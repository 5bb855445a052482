package github

import (
	"context"
	"fmt"
)

// PRRef is a pull request found by its head branch.
type PRRef struct {
	Number         int    `json:"number"`
	Title          string `json:"title"`
	URL            string `json:"url"`
	HeadRepository string `json:"headRepository"` // OWNER/REPO; "" when the fork was deleted
}

// maxFound bounds the PRs listed for one branch: more than one already
// means the user has to choose.
const maxFound = 10

const findQuery = `query PullRequestsForBranch($owner: String!, $name: String!, $head: String!, $first: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequests(headRefName: $head, states: [OPEN], first: $first, orderBy: {field: CREATED_AT, direction: DESC}) {
      nodes { number title url headRepository { nameWithOwner } }
    }
  }
}`

// OpenPullRequests lists the open PRs of repo whose head branch is named
// branch (as `gh pr list --head` does; forks with a branch of that name
// are included), newest first, at most 10. One request.
func (c *Client) OpenPullRequests(ctx context.Context, repo Repo, branch string) ([]PRRef, error) {
	var resp struct {
		Repository *struct {
			PullRequests struct {
				Nodes []struct {
					Number         int    `json:"number"`
					Title          string `json:"title"`
					URL            string `json:"url"`
					HeadRepository *struct {
						NameWithOwner string `json:"nameWithOwner"`
					} `json:"headRepository"`
				} `json:"nodes"`
			} `json:"pullRequests"`
		} `json:"repository"`
	}
	vars := map[string]any{"owner": repo.Owner, "name": repo.Name, "head": branch, "first": maxFound}
	what := fmt.Sprintf("the pull requests of branch %q", branch)
	if err := c.gql.DoWithContext(ctx, findQuery, vars, &resp); err != nil {
		return nil, c.explain(err, what, repo)
	}
	if resp.Repository == nil {
		return nil, &notFoundError{What: "repository", Repo: repo}
	}
	out := []PRRef{}
	for _, n := range resp.Repository.PullRequests.Nodes {
		ref := PRRef{Number: n.Number, Title: n.Title, URL: n.URL}
		if n.HeadRepository != nil {
			ref.HeadRepository = n.HeadRepository.NameWithOwner
		}
		out = append(out, ref)
	}
	return out, nil
}
