package findingcmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/ocdx/gh-ocdx/converse"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/state"
)

// DismissOptions are the parsed arguments of dismiss.
type DismissOptions struct {
	PR     int    // 0: the open PR of Branch, else of the current branch
	Branch string // the PR's head branch, when named so
	Repo   repository.Repository
	IDs    []string
	// Reason is --reason: why, one line, said after the IDs.
	Reason string
	// Local is --branch: dismiss for the local review (gh ocdx review) of
	// this branch, in the state file, not on a pull request.
	Local string
}

const dismissUsage = "gh ocdx dismiss [<number> | <url> | <branch> | --branch NAME] <ID>... [--reason TEXT] [-R OWNER/REPO]"

const dismissHelp = `Tell gh-ocdx to stop raising findings on a pull request: review-loop
and fix leave a dismissed finding out of the findings they count and
fix, and their reports list it as dismissed. The IDs are those of the
reports (SEC-b0bf205b).

It posts one comment, "/ocdx dismiss <ID>...", which every machine that
runs gh-ocdx on the PR reads. Replying "/ocdx dismiss" on a finding's
inline comment does the same for that finding. A dismissal counts only
from someone with write permission on the repository, never from the PR's
author on their own PR unless an admin, and a SEC- finding only from an
admin; gh ocdx dismiss checks yours first and posts nothing that would not
count. An ID no review on the PR raised (gh-ocdx's latest report lists no
such finding or review thread) is refused, and an ID already dismissed is
not posted again. --reason says why,
after the IDs on the same line ("/ocdx dismiss <ID>... <reason>"); the
PR's ledger keeps who dismissed each finding and why.

--branch NAME dismisses for the local review (gh ocdx review) of that
branch instead: nothing is posted, the dismissal is kept in the state file
(gh ocdx state show --branch NAME), and the branch's next local reviews,
a pre-push hook's included, list the finding as dismissed and do not count
it. Given neither a pull request nor --branch, on a checked-out branch
with no open pull request (or in a clone with no GitHub repository),
dismiss does the same. A local dismissal never reaches a pull request:
dismiss there again once it is opened. A SEC- finding (a secret on an
added line) may be dismissed locally too, with a warning: it is your
machine, but the pull request's review will raise it again.

Examples:
  gh ocdx dismiss 24 SEC-b0bf205b
  gh ocdx dismiss 24 QUAL-0badf00d --reason "the size is bounded by the caller"
  gh ocdx dismiss QUAL-0badf00d PERF-12ab34cd
  gh ocdx dismiss --branch feature/cache QUAL-0badf00d`

// ParseDismiss reads dismiss's arguments.
func ParseDismiss(d *cmdutil.Deps, args []string) (*DismissOptions, error) {
	opts := &DismissOptions{}
	var repoFlag string
	fs := cmdutil.NewFlagSet("dismiss", dismissUsage, dismissHelp)
	fs.RepoFlag(&repoFlag)
	fs.StringVar(&opts.Local, "branch", "", "Dismiss for the local review (gh ocdx review) of this `branch`: nothing is posted")
	fs.StringVar(&opts.Reason, "reason", "", "Say why, in one line of `text` (a pull request's dismissal)")
	if err := fs.ParseArgs(d, args, -1); err != nil {
		return nil, err
	}
	opts.Reason = posts.LedgerReason(opts.Reason)
	for _, w := range strings.Fields(opts.Reason) {
		if posts.ValidLedgerID(w) {
			// Every ID on the command's line is dismissed.
			return nil, fs.UsageErr("--reason names the finding %s: name findings as arguments, and give the reason in other words", w)
		}
	}
	prText, ids, err := findingIDs(fs, fs.Args(), opts.Local != "", "findings to dismiss", "SEC-b0bf205b")
	if err != nil {
		return nil, err
	}
	opts.IDs = ids
	if opts.Local != "" {
		// --branch names a local review of this clone (as for state show).
		return opts, cmdutil.CheckBranchFlag(fs, opts.Local, 0, repoFlag)
	}
	pr, r, err := fs.PRFrom(prText, repoFlag)
	if err != nil {
		return nil, err
	}
	opts.PR, opts.Branch, opts.Repo = pr.Number, pr.Branch, r
	return opts, nil
}

// Dismiss dismisses the findings opts names, on their pull request or
// for a local review.
func Dismiss(ctx context.Context, d *cmdutil.Deps, opts *DismissOptions) error {
	if opts.Local != "" {
		return dismissLocal(ctx, d, opts.Local, opts.IDs, "", opts.Reason)
	}
	if opts.PR == 0 && opts.Branch == "" && opts.Repo.Name == "" {
		// The current branch: its pull request, or its local review when
		// it has none.
		branch, why, number := withoutPR(ctx, d)
		if why != "" {
			return dismissLocal(ctx, d, branch, opts.IDs, why, opts.Reason)
		}
		opts.PR = number
	}
	t, err := cmdutil.TargetPR(ctx, d, cmdutil.PRArg{Number: opts.PR, Branch: opts.Branch, Repo: opts.Repo}, dismissUsage)
	if err != nil {
		return err
	}
	client, repo, pr, trust := t.Client, t.Repo, t.PR, t.Trust
	// First whether a review raised it: an earlier "/ocdx dismiss" of an
	// ID no review raised dismissed nothing.
	if not := converse.Unraised(ctx, trust, pr, "dismiss", opts.IDs); len(not) > 0 {
		return fmt.Errorf("%s: no review on PR #%d raised it (gh-ocdx's latest report lists no such finding), so there is nothing to dismiss, and nothing was posted", strings.Join(not, ", "), pr.Number)
	}
	ids := notYet(d, opts.IDs, posts.IDs(trust.DismissedOn(ctx, pr)), "dismissed", pr.Number)
	if len(ids) == 0 {
		return nil
	}
	return dismissCommand.post(ctx, d, client, repo, pr, trust, ids, opts.Reason)
}

// dismissCommand is /ocdx dismiss.
var dismissCommand = findingCommand{done: "Dismissed", FindingCommand: converse.FindingCommand{Verb: "dismiss",
	Says: "gh-ocdx no longer counts or fixes these findings on this pull request (dismissed with `gh ocdx dismiss`)."}}

// withoutPR is the checked-out branch when it has no pull request to
// dismiss on, with why; else the number of its one open pull request, or
// 0 when that is not clear (the pull request's path asks again and says
// what is wrong).
func withoutPR(ctx context.Context, d *cmdutil.Deps) (branch, why string, number int) {
	wd, err := d.Dir()
	if err != nil {
		return "", "", 0
	}
	g, err := git.Open(ctx, wd)
	if err != nil {
		return "", "", 0
	}
	if branch, err = g.Branch(ctx); err != nil || branch == "" {
		return "", "", 0
	}
	r, err := cmdutil.CurrentRepo(d, repository.Repository{})
	if err != nil {
		return branch, "this clone has no GitHub repository", 0
	}
	repo := github.Repo{Host: r.Host, Owner: r.Owner, Name: r.Name}
	client, err := d.GitHubClient(repo.Host)
	if err != nil {
		return "", "", 0
	}
	prs, err := client.OpenPullRequests(ctx, repo, branch)
	switch {
	case err != nil:
		return "", "", 0
	case len(prs) == 0:
		return branch, fmt.Sprintf("no open pull request in %s has %s as its head", repo, branch), 0
	case len(prs) == 1:
		return "", "", prs[0].Number
	}
	return "", "", 0
}

// dismissLocal records ids as dismissed for the local review of branch in
// the state file (docs/architecture.md, Local review); why says why it is
// not a pull request's dismissal when the user did not say --branch.
func dismissLocal(ctx context.Context, d *cmdutil.Deps, branch string, ids []string, why, reason string) error {
	if reason != "" {
		d.Info("--reason is kept with a pull request's dismissal only: the state file records none for a local one")
	}
	wd, err := d.Dir()
	if err != nil {
		return err
	}
	g, err := git.Open(ctx, wd)
	if err != nil {
		return fmt.Errorf("--branch names a local review of the current repository: %w", err)
	}
	if _, err := g.Run(ctx, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err != nil {
		return fmt.Errorf("no branch %q in %s: name a local branch (git branch --list), the one gh ocdx review reviews", branch, g.Dir)
	}
	by, _ := g.Run(ctx, "config", "user.name")
	st, err := d.OpenStore()
	if err != nil {
		return err
	}
	key := state.LocalKey(g.OriginID(ctx), branch)
	added, err := st.Dismiss(key, ids, strings.TrimSpace(by))
	if err != nil {
		return err
	}
	if why != "" {
		fmt.Fprintf(d.IO.ErrOut, "%s: dismissing for the local review of %s (gh ocdx review); nothing is posted\n", why, branch)
	}
	for _, id := range added {
		if strings.HasPrefix(id, "SEC-") {
			// The user's own machine and branch: their call, said out loud.
			fmt.Fprintf(d.IO.ErrOut, "! %s is a secret gh-ocdx found on an added line: dismissed for the local review of %s only; remove the secret before you push it, for the pull request's review raises it again and only an admin can dismiss it there\n", id, branch)
		}
	}
	if len(added) == 0 {
		d.Warn("Already dismissed for the local review of %s: %s", branch, strings.Join(ids, ", "))
		return nil
	}
	d.Success("Dismissed for the local review of %s: %s", branch, strings.Join(added, ", "))
	return nil
}
