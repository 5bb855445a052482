// Package preflight holds the checks gh ocdx fix and review-loop run before
// they touch a pull request: git work tree, clean tree, current branch; then,
// with the PR read, that it is open, checked out, and ours to push to, and
// that the verify commands (known only then: a repository's come from the
// PR's base branch) are on PATH. Configuration and GitHub auth are checked
// before, by cmd. Every failure says what is wrong and what to do.
package preflight

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/verify"
)

// Kinds of failure; test with errors.Is.
var (
	ErrDirty          = errors.New("the work tree has uncommitted changes")
	ErrDetached       = errors.New("HEAD is detached")
	ErrMissingCommand = errors.New("verification commands not found")
	ErrNotOpen        = errors.New("the pull request is not open")
	ErrWrongBranch    = errors.New("the checked-out branch is not the pull request's head")
)

// Checkout is the local state the checks found.
type Checkout struct {
	Repo   *git.Repo
	Branch string
	Head   string
	Dirty  []string // changed paths; only Resuming lets them through
}

// maxListed bounds the paths named in a dirty-tree message.
const maxListed = 5

// Local checks the checkout at dir: a git work tree, clean, on a branch.
func Local(ctx context.Context, dir string) (*Checkout, error) {
	return local(ctx, dir, false)
}

// Resuming is Local for a fix that continues an interrupted one, whose
// agent may have left edits uncommitted: a dirty tree passes, listed in
// Checkout.Dirty for the caller to match against the work in progress.
func Resuming(ctx context.Context, dir string) (*Checkout, error) {
	return local(ctx, dir, true)
}

func local(ctx context.Context, dir string, dirtyOK bool) (*Checkout, error) {
	repo, err := git.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	st, err := repo.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("could not read the state of the work tree: %w", err)
	}
	if dirty := st.Dirty; len(dirty) > 0 && !dirtyOK {
		list := dirty
		more := ""
		if len(list) > maxListed {
			list, more = list[:maxListed], fmt.Sprintf(" and %d more", len(dirty)-maxListed)
		}
		return nil, fmt.Errorf("%w in %s (%s%s): commit or stash them, then re-run", ErrDirty, repo.Dir, strings.Join(list, ", "), more)
	}
	if st.Head == "" {
		return nil, fmt.Errorf("could not tell the current branch and commit: branch %q has no commit yet", st.Branch)
	}
	if st.Branch == "" {
		return nil, fmt.Errorf("%w in %s: check out the pull request's branch (gh pr checkout <number>) and re-run", ErrDetached, repo.Dir)
	}
	return &Checkout{Repo: repo, Branch: st.Branch, Head: st.Head, Dirty: st.Dirty}, nil
}

// Commands checks that every verify command's executable is on PATH (the
// commands need not pass: the fix exists to make them pass). from says where
// the list came from, and so where to change it.
func Commands(commands []string, from string) error {
	if missing := verify.Missing(commands); len(missing) > 0 {
		return fmt.Errorf("%w on PATH: %s (verify, from %s); install them, or change that list",
			ErrMissingCommand, quoteAll(missing), from)
	}
	return nil
}

// PR checks the pull request against the checkout: it must be open and its
// head branch checked out. canPush says whether the viewer may push to the
// head repository (WRITE, MAINTAIN or ADMIN); without it the PR can only be
// reviewed, which is not an error here.
func PR(pr *github.PullRequest, branch string) (canPush bool, err error) {
	switch pr.State {
	case "OPEN":
	case "MERGED", "CLOSED":
		return false, fmt.Errorf("%w: PR #%d is %s; there is nothing to review or fix", ErrNotOpen, pr.Number, strings.ToLower(pr.State))
	default:
		return false, fmt.Errorf("%w: PR #%d is in state %q", ErrNotOpen, pr.Number, pr.State)
	}
	if pr.HeadRefName != branch {
		return false, fmt.Errorf("%w: you are on %q but PR #%d's head is %q; run 'gh pr checkout %d' (or 'git checkout %s') and re-run",
			ErrWrongBranch, branch, pr.Number, pr.HeadRefName, pr.Number, pr.HeadRefName)
	}
	return CanPush(pr), nil
}

// CanPush reports whether the viewer may push to the PR's head repository.
func CanPush(pr *github.PullRequest) bool {
	switch pr.ViewerPermission {
	case "WRITE", "MAINTAIN", "ADMIN":
		return pr.HeadRepository != ""
	}
	return false
}

// ReviewOnlyReason says why a PR cannot be pushed to, for messages.
func ReviewOnlyReason(pr *github.PullRequest) string {
	switch {
	case pr.HeadRepository == "":
		return fmt.Sprintf("PR #%d's head repository is gone (deleted fork), so nothing can be pushed to it", pr.Number)
	case pr.IsCrossRepository:
		perm := pr.ViewerPermission
		if perm == "" {
			perm = "no"
		}
		return fmt.Sprintf("PR #%d comes from the fork %s, where you have %s permission; fixes cannot be pushed (review only)", pr.Number, pr.HeadRepository, perm)
	default:
		perm := pr.ViewerPermission
		if perm == "" {
			perm = "no"
		}
		return fmt.Sprintf("you have %s permission on %s; pushing needs WRITE, MAINTAIN or ADMIN (review only)", perm, pr.HeadRepository)
	}
}

func quoteAll(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}
