package github

import (
	"context"
	"fmt"
)

// DefaultBranch is a repository's default branch and one file at its tip,
// with the repository's node id, which a mutation names it by.
type DefaultBranch struct {
	RepoID string
	Name   string
	File   PolicyFile // Commit is the branch's tip
}

const defaultBranchQuery = `query DefaultBranchFile($owner: String!, $name: String!, $path: String!) {
  repository(owner: $owner, name: $name) {
    id
    defaultBranchRef { name target { oid ... on Commit {
      file(path: $path) { object { ... on Blob { text isTruncated } } }
    } } }
  }
}`

// DefaultBranchFile reads repo's default branch and the file at path on
// it, in one request: what gh ocdx learn changes, and where its pull
// request goes.
func (c *Client) DefaultBranchFile(ctx context.Context, repo Repo, path string) (DefaultBranch, error) {
	var resp struct {
		Repository *struct {
			ID      string `json:"id"`
			Default *struct {
				Name   string `json:"name"`
				Target *struct {
					OID  string    `json:"oid"`
					File *blobFile `json:"file"`
				} `json:"target"`
			} `json:"defaultBranchRef"`
		} `json:"repository"`
	}
	vars := map[string]any{"owner": repo.Owner, "name": repo.Name, "path": path}
	if err := c.gql.DoWithContext(ctx, defaultBranchQuery, vars, &resp); err != nil {
		return DefaultBranch{}, c.explain(err, "the default branch", repo)
	}
	r := resp.Repository
	if r == nil {
		return DefaultBranch{}, &notFoundError{What: "repository", Repo: repo}
	}
	if r.Default == nil || r.Default.Target == nil {
		return DefaultBranch{}, fmt.Errorf("%s has no default branch: push one first", repo)
	}
	t := r.Default.Target
	return DefaultBranch{RepoID: r.ID, Name: r.Default.Name, File: t.File.policyFile(t.OID)}, nil
}

const createPullRequest = `mutation CreatePullRequest($input: CreatePullRequestInput!) {
  createPullRequest(input: $input) { pullRequest { number url } }
}`

// CreatePullRequest opens a pull request from branch head into base of
// the repository whose node id is repoID. It is never retried (a
// mutation): its outcome unknown, the branch is there to open one by hand.
func (c *Client) CreatePullRequest(ctx context.Context, repo Repo, repoID, base, head, title, body string) (number int, url string, err error) {
	var resp struct {
		Create *struct {
			PullRequest *struct {
				Number int    `json:"number"`
				URL    string `json:"url"`
			} `json:"pullRequest"`
		} `json:"createPullRequest"`
	}
	input := map[string]any{"repositoryId": repoID, "baseRefName": base, "headRefName": head, "title": title, "body": capBody(body)}
	if err := c.gql.DoWithContext(ctx, createPullRequest, map[string]any{"input": input}, &resp); err != nil {
		return 0, "", c.explainWrite(err, "the pull request", repo)
	}
	if resp.Create == nil || resp.Create.PullRequest == nil {
		return 0, "", fmt.Errorf("GitHub opened no pull request from %s into %s of %s", head, base, repo)
	}
	return resp.Create.PullRequest.Number, resp.Create.PullRequest.URL, nil
}
