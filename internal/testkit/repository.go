package testkit

import (
	"fmt"
	"strings"
)

// DefaultBranch is the fake repositories' default branch.
const DefaultBranch = "main"

// SetRemote makes remote (a bare repository) repo's git repository: what
// its default branch and contents hold, where a pull request opened
// through the API takes its branches from.
func (g *GitHub) SetRemote(repo, remote string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.remotes == nil {
		g.remotes = map[string]string{}
	}
	g.remotes[repo] = remote
}

// repoID is repo's node id, as GraphQL's Repository.id.
func repoID(repo string) string { return "R_" + repo }

// defaultBranch is repo's defaultBranchRef: DefaultBranch of its remote;
// null when it has none.
func (g *GitHub) defaultBranch(repo string) any {
	remote := g.remoteOf(repo)
	if remote == "" || readRef(remote, "refs/heads/"+DefaultBranch) == "" {
		return nil
	}
	return g.refObject(remote, DefaultBranch, g.oid(remote, DefaultBranch, ""))
}

// createPullRequest is the createPullRequest mutation: a pull request of
// the repository the input names, from a branch its remote holds.
func (g *GitHub) createPullRequest(args map[string]any) any {
	in, _ := args["input"].(map[string]any)
	id, _ := in["repositoryId"].(string)
	head, _ := in["headRefName"].(string)
	base, _ := in["baseRefName"].(string)
	title, _ := in["title"].(string)
	body, _ := in["body"].(string)
	repo, ok := strings.CutPrefix(id, "R_")
	remote := g.remoteOf(repo)
	switch {
	case !ok || remote == "":
		return gqlError{Type: "NOT_FOUND", Message: fmt.Sprintf("Could not resolve to a node with the global id of '%s'", id)}
	case readRef(remote, "refs/heads/"+head) == "":
		return gqlError{Type: "UNPROCESSABLE", Message: "Head sha can't be blank, Base sha can't be blank, No commits between " + base + " and " + head}
	}
	g.mu.Lock()
	n := 0
	for key, pr := range g.prs {
		if !strings.HasPrefix(key, repo+"#") {
			continue
		}
		n = max(n, pr.Number)
		if pr.State == "OPEN" && pr.HeadRef == head && pr.BaseRef == base {
			g.mu.Unlock()
			return gqlError{Type: "UNPROCESSABLE", Message: fmt.Sprintf("A pull request already exists for %s:%s.", strings.Split(repo, "/")[0], head)}
		}
	}
	g.mu.Unlock()
	g.AddPR(repo, PR{Number: n + 1, Title: title, Body: body, Author: g.Login, HeadRef: head, BaseRef: base, Remote: remote})
	return map[string]any{"pullRequest": map[string]any{"number": n + 1, "url": fmt.Sprintf("https://%s/%s/pull/%d", g.Host(), repo, n+1)}}
}

// PR is pull request number of repo as the fake holds it; nil when none.
func (g *GitHub) PR(repo string, number int) *PR {
	pr := g.pr(repo, fmt.Sprint(number))
	if pr == nil {
		return nil
	}
	c := *pr
	return &c
}
