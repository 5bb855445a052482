package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/preflight"
	"github.com/ocdx/gh-ocdx/state"
)

// prepared is what the preflight of a verb that changes a PR established.
type prepared struct {
	cfg     *config.Config // with the repository's .ocdx.json applied
	client  *github.Client
	repo    github.Repo
	co      *preflight.Checkout
	pr      *github.PullRequest
	canPush bool
}

// prepare runs the preflight that review-loop and fix share, in seeds/004's
// order: configuration, the repository (r, or GH_REPO's or the remotes'), GitHub auth, the checkout and verify commands (with
// check), then the PR (number, or the one whose head is the current branch;
// usage is shown when that fails) and whether it can be pushed.
func prepare(ctx context.Context, d *Deps, r repository.Repository, number int, usage string,
	check func(ctx context.Context, dir string, verify []string) (*preflight.Checkout, error)) (*prepared, error) {
	cfg, err := loadConfig(d)
	if err != nil {
		return nil, err
	}
	if r, err = currentRepo(r); err != nil {
		return nil, err
	}
	p := &prepared{cfg: cfg, repo: github.Repo{Host: r.Host, Owner: r.Owner, Name: r.Name}}
	if p.client, err = newGitHub(d, p.repo.Host); err != nil {
		return nil, err
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if g, err := git.Open(ctx, wd); err == nil {
		if err := cfg.ApplyRepo(g.Dir); err != nil {
			return nil, err
		}
	}
	if p.co, err = check(ctx, wd, cfg.Verify); err != nil {
		if errors.Is(err, preflight.ErrDirty) {
			err = interruptedFix(d, p.repo, number, err)
		}
		return nil, err
	}
	if number == 0 {
		if number, err = branchPR(ctx, p.client, p.repo, p.co.Branch, usage); err != nil {
			return nil, err
		}
	}
	if p.pr, err = p.client.PullRequest(ctx, p.repo, number); err != nil {
		return nil, err
	}
	if p.canPush, err = preflight.PR(p.pr, p.co.Branch); err != nil {
		return nil, err
	}
	return p, nil
}

// interruptedFix adds to a dirty-tree error the way back when the changes
// are likely an interrupted fix's: the state file holds a fix work in
// progress for a PR of this repository (number, when known).
func interruptedFix(d *Deps, repo github.Repo, number int, dirty error) error {
	path, err := state.Path(d.Getenv)
	if err != nil {
		return dirty
	}
	sums, err := state.New(path, nil).List()
	if err != nil {
		return dirty
	}
	want := state.NewKey(repo.Host, repo.Owner, repo.Name, 1)
	var hints []string
	for _, s := range sums {
		k := s.Key
		if s.WIP != "" && k.Host == want.Host && k.Owner == want.Owner && k.Repo == want.Repo && (number == 0 || k.Number == number) {
			hints = append(hints, fmt.Sprintf("'gh ocdx fix --pr %d --continue'", k.Number))
		}
	}
	if len(hints) == 0 {
		return dirty
	}
	return fmt.Errorf("%w; if they are an interrupted fix's, %s resumes it", dirty, strings.Join(hints, " or "))
}

// branchPR finds the one open PR whose head is branch; none or several is a
// usage problem, solved with --pr (usage is shown when there is none).
func branchPR(ctx context.Context, gh *github.Client, repo github.Repo, branch, usage string) (int, error) {
	prs, err := gh.OpenPullRequests(ctx, repo, branch)
	if err != nil {
		return 0, err
	}
	switch len(prs) {
	case 1:
		return prs[0].Number, nil
	case 0:
		return 0, &UsageError{Msg: fmt.Sprintf("no open pull request in %s has the branch %q as its head: push the branch and open one (gh pr create), or name it with --pr N", repo, branch),
			Usage: usage}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d open pull requests in %s have the branch %q as their head; choose one with --pr:\n", len(prs), repo, branch)
	for _, p := range prs {
		fmt.Fprintf(&b, "  #%d  %s  %s\n", p.Number, p.Title, p.URL)
	}
	return 0, &UsageError{Msg: strings.TrimRight(b.String(), "\n")}
}
