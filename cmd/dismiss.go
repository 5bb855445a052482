package cmd

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/loop"
)

// DismissOptions are the parsed arguments of dismiss.
type DismissOptions struct {
	PR     int    // 0: the open PR of Branch, else of the current branch
	Branch string // the PR's head branch, when named so
	Repo   repository.Repository
	IDs    []string
}

const dismissUsage = "gh ocdx dismiss [<number> | <url> | <branch>] <ID>... [-R OWNER/REPO]"

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
count. An ID already dismissed is not posted again.

Examples:
  gh ocdx dismiss 24 SEC-b0bf205b
  gh ocdx dismiss QUAL-0badf00d PERF-12ab34cd`

func runDismiss(ctx context.Context, d *Deps, args []string) error {
	opts, err := parseDismiss(d, args)
	if err != nil {
		return err
	}
	return dismiss(ctx, d, opts)
}

func parseDismiss(d *Deps, args []string) (*DismissOptions, error) {
	opts := &DismissOptions{}
	var repoFlag string
	fs := newFlagSet("dismiss", dismissUsage, dismissHelp)
	fs.repoFlag(&repoFlag)
	if err := fs.parse(d, args, -1); err != nil {
		return nil, err
	}
	rest := fs.Args()
	var prText string
	if len(rest) > 0 && !finding.ValidLedgerID(rest[0]) {
		prText, rest = rest[0], rest[1:]
	}
	if len(rest) == 0 {
		return nil, fs.usageErr("name the findings to dismiss by their IDs, as the reports show them (SEC-b0bf205b)")
	}
	for _, id := range rest {
		if !finding.ValidLedgerID(id) {
			return nil, fs.usageErr("%q is not a finding ID: IDs look like SEC-b0bf205b, as the reports show them", id)
		}
		if !slices.Contains(opts.IDs, id) {
			opts.IDs = append(opts.IDs, id)
		}
	}
	pr, r, err := fs.prFrom(prText, repoFlag)
	if err != nil {
		return nil, err
	}
	opts.PR, opts.Branch, opts.Repo = pr.Number, pr.Branch, r
	return opts, nil
}

func dismiss(ctx context.Context, d *Deps, opts *DismissOptions) error {
	repo, client, err := repoClient(d, opts.Repo)
	if err != nil {
		return err
	}
	number := opts.PR
	if number == 0 {
		if number, err = openPRNumber(ctx, d, client, repo, opts.Branch, "Usage: "+dismissUsage); err != nil {
			return err
		}
	}
	pr, err := client.PullRequest(ctx, repo, number)
	if err != nil {
		return err
	}
	// Whose posts count needs the base branch's trustedLogins; a base policy
	// that cannot be read leaves only the viewer's and write permission.
	policy, _, perr := basePolicy(pr)
	if perr != nil {
		policy = nil
	}
	trust := loop.NewTrust(client, repo, policy)
	already := loop.DismissedIDs(trust.DismissedOn(ctx, pr))
	var ids []string
	for _, id := range opts.IDs {
		if !slices.Contains(already, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		fmt.Fprintf(d.IO.Out, "Already dismissed on PR #%d: %s; nothing posted.\n", pr.Number, strings.Join(opts.IDs, ", "))
		return nil
	}
	// The dismissal is judged as the loop will judge it: by the permission
	// of the token's user, gh-ocdx's own login included.
	perm, err := trust.Permission(ctx, pr.Viewer)
	if err != nil {
		return fmt.Errorf("could not check whether %s may dismiss findings on %s: %w; nothing was posted", pr.Viewer, repo, err)
	}
	var refused []string
	for _, id := range ids {
		if ok, why := loop.MayDismiss(repo, perm, pr.Viewer, pr.Author, id); !ok {
			refused = append(refused, fmt.Sprintf("%s: %s", id, why))
		}
	}
	if len(refused) > 0 {
		return fmt.Errorf("%s may not dismiss on PR #%d, so nothing was posted (gh-ocdx would not count it):\n  %s",
			pr.Viewer, pr.Number, strings.Join(refused, "\n  "))
	}
	body := "/ocdx dismiss " + strings.Join(ids, " ") + "\n\n" +
		"gh-ocdx no longer counts or fixes these findings on this pull request (dismissed with `gh ocdx dismiss`).\n\n" + finding.Marker
	c, err := client.PostComment(ctx, repo, pr.Number, body)
	if err != nil {
		return fmt.Errorf("posting the dismissal on PR #%d failed: %w; run the same command again: an ID already on the PR is not posted twice", pr.Number, err)
	}
	fmt.Fprintf(d.IO.Out, "Dismissed on PR #%d: %s\n%s\n", pr.Number, strings.Join(ids, ", "), c.URL)
	return nil
}
