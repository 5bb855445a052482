package github_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// learn's two requests: the default branch with its learnings file, in
// one query, and a pull request opened by a mutation, which GitHub
// refuses a second time for the same branch.
func TestDefaultBranchFileAndCreatePullRequest(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	r := testkit.NewRepo(t, "main", "learnings", map[string]string{".ocdx/learnings.md": "# Learnings\n"}, map[string]string{"x": "x\n"})
	gh.SetRemote("octo/widgets", r.Remote)
	c := newClient(t, gh)
	ctx := context.Background()

	b, err := c.DefaultBranchFile(ctx, repo, ".ocdx/learnings.md")
	if err != nil {
		t.Fatal(err)
	}
	if b.Name != "main" || b.RepoID == "" || !b.File.Found || b.File.Text != "# Learnings\n" || b.File.Commit != r.RemoteOID(t, "main") {
		t.Errorf("default branch %+v", b)
	}
	if b, err := c.DefaultBranchFile(ctx, repo, "none.md"); err != nil || b.File.Found {
		t.Errorf("a file the branch lacks: %+v, %v", b.File, err)
	}
	n, url, err := c.CreatePullRequest(ctx, repo, b.RepoID, "main", "learnings", "learnings: 1 proposed", "body")
	if err != nil || n == 0 || !strings.HasSuffix(url, "/pull/1") {
		t.Fatalf("created #%d %s, %v", n, url, err)
	}
	if _, _, err := c.CreatePullRequest(ctx, repo, b.RepoID, "main", "learnings", "again", "body"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a second pull request of the branch: %v", err)
	}
	if n := gh.Count("graphql"); n != 4 {
		t.Errorf("%d requests, want 4 (no retry of a mutation)", n)
	}
}
