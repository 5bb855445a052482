package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/repofs"
)

// ResolvePR is the repository a verb works on (RepoClient), a client for
// its host, and the pull request a names: its number, else the open one
// of its branch or of the checked-out branch (openPRNumber); usage is the
// verb's usage line.
func ResolvePR(ctx context.Context, d *Deps, a PRArg, usage string) (github.Repo, *github.Client, int, error) {
	repo, client, err := RepoClient(d, a.Repo)
	if err != nil || a.Number != 0 {
		return repo, client, a.Number, err
	}
	n, err := openPRNumber(ctx, d, client, repo, a.Branch, "Usage: "+usage)
	return repo, client, n, err
}

// openPRNumber finds the open PR whose head is branch, or the checked-out
// branch, as gh pr view does without an argument; usage is the verb's.
func openPRNumber(ctx context.Context, d *Deps, gh *github.Client, repo github.Repo, branch, usage string) (int, error) {
	if branch == "" {
		wd, err := d.Dir()
		if err != nil {
			return 0, err
		}
		g, err := git.Open(ctx, wd)
		if err == nil {
			branch, err = g.Branch(ctx)
		}
		if err != nil || branch == "" {
			return 0, &UsageError{Msg: "no pull request given and no branch checked out here: name one (24, a URL or a branch)", Usage: usage}
		}
	}
	return BranchPR(ctx, gh, repo, branch, usage)
}

// BranchPR finds the one open PR whose head is branch. None or several is
// an error (exit 1), not a usage error, as gh pr view's "no pull requests
// found for branch"; usage is the verb's usage line, for its name.
func BranchPR(ctx context.Context, gh *github.Client, repo github.Repo, branch, usage string) (int, error) {
	prs, err := gh.OpenPullRequests(ctx, repo, branch)
	if err != nil {
		return 0, err
	}
	verb := "gh ocdx " + usageVerb(usage)
	switch len(prs) {
	case 1:
		return prs[0].Number, nil
	case 0:
		return 0, fmt.Errorf("no open pull request in %s has the branch %q as its head: push the branch and open one (gh pr create), or name the pull request (%s <number>)", repo, branch, verb)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d open pull requests in %s have the branch %q as their head; name one (%s %d):\n", len(prs), repo, branch, verb, prs[0].Number)
	for _, p := range prs {
		fmt.Fprintf(&b, "  #%d  %s  %s\n", p.Number, p.Title, p.URL)
	}
	return 0, errors.New(strings.TrimRight(b.String(), "\n"))
}

// usageVerb is the verb a usage line is of: "review-pr" in "Usage: gh ocdx
// review-pr [<number>] …".
func usageVerb(usage string) string {
	f := strings.Fields(strings.TrimPrefix(usage, "Usage:"))
	if len(f) >= 3 && f[0] == "gh" && f[1] == "ocdx" {
		return f[2]
	}
	return "<command>"
}

// BasePolicy is the policy of .ocdx.json and REVIEW.md on the PR's base
// branch, as the PR query read them; where names the .ocdx.json. The
// reports of its trustedLogins then count as gh-ocdx's own for every verb
// (docs/architecture.md, Whose posts count); review-loop adds those with
// write permission.
func BasePolicy(pr *github.PullRequest) (*config.Policy, string, error) {
	where := fmt.Sprintf("%s on %s at %s", config.RepoFile, pr.BaseRefName, text.ShortOID(pr.BasePolicy.Commit))
	p, err := config.FromBase(where, pr.BasePolicy, pr.BaseGuide, pr.BaseLearnings)
	if err == nil {
		pr.Trusted = p.TrustedLogins
	}
	return p, where, err
}

// PRFiles gives the reviewer the tracked files at the PR's head: from git
// when this clone has that commit (search included), otherwise through the
// API (no search). Never the work tree: a git-ignored .env stays local.
func PRFiles(ctx context.Context, d *Deps, gh *github.Client, repo github.Repo, pr *github.PullRequest) change.Files {
	if wd, err := d.Dir(); err == nil {
		if g, err := git.Open(ctx, wd); err == nil && g.HasCommit(ctx, pr.HeadRefOid) {
			return repofs.NewTree(ctx, g, pr.HeadRefOid)
		}
	}
	d.Info("reading files through the API at the PR's head %s (run 'gh pr checkout %d' to let the reviewer search the code too)", text.ShortOID(pr.HeadRefOid), pr.Number)
	return change.NewAPIFiles(ctx, gh, repo, pr.HeadRefOid)
}

// Judge has trust Judge whose posts on pr are gh-ocdx's (the base branch's
// trustedLogins), saying what it could not tell.
func Judge(ctx context.Context, d *Deps, trust *posts.Trust, pr *github.PullRequest) {
	for _, w := range trust.Judge(ctx, pr) {
		d.Warn("%s", w)
	}
}

// Target is the pull request a command is for, with the trust that
// judges it and the base branch's policy (nil when it cannot be read:
// then only the viewer's posts and write permission count).
type Target struct {
	Client *github.Client
	Repo   github.Repo
	PR     *github.PullRequest
	Trust  *posts.Trust
	Policy *config.Policy
}

// TargetPR is the Target of a command given opts: the PR numbered, or the
// open one of the branch.
func TargetPR(ctx context.Context, d *Deps, opts PRArg, usage string) (Target, error) {
	repo, client, number, err := ResolvePR(ctx, d, opts, usage)
	if err != nil {
		return Target{}, err
	}
	pr, err := client.PullRequest(ctx, repo, number)
	if err != nil {
		return Target{}, err
	}
	policy, _, perr := BasePolicy(pr)
	if perr != nil {
		policy = nil
	}
	return Target{Client: client, Repo: repo, PR: pr, Trust: posts.NewTrust(client, repo, policy.Trusted()), Policy: policy}, nil
}
