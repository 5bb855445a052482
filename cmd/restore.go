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

// RestoreOptions are the parsed arguments of restore.
type RestoreOptions struct {
	PR     int    // 0: the open PR of Branch, else of the current branch
	Branch string // the PR's head branch, when named so
	Repo   repository.Repository
	IDs    []string
}

const restoreUsage = "gh ocdx restore [<number> | <url> | <branch>] <ID>... [-R OWNER/REPO]"

const restoreHelp = `Overrule the verifier on a pull request: a finding it refuted (the review
lists it under "Refuted by the verifier") counts again, is posted, fixed
and blocks like any other from the next run of review-loop. The IDs are
those of the reports (QUAL-1a2b3c4d).

It posts one comment, "/ocdx restore <ID>...", which every machine that
runs gh-ocdx on the PR reads. A restore counts only from someone with
write permission on the repository, never from the PR's author on their
own PR unless an admin; gh ocdx restore checks yours first and posts
nothing that would not count. An ID already restored is not posted again.

Examples:
  gh ocdx restore 24 QUAL-1a2b3c4d
  gh ocdx restore PERF-12ab34cd`

func runRestore(ctx context.Context, d *Deps, args []string) error {
	opts, err := parseRestore(d, args)
	if err != nil {
		return err
	}
	return restore(ctx, d, opts)
}

func parseRestore(d *Deps, args []string) (*RestoreOptions, error) {
	opts := &RestoreOptions{}
	var repoFlag string
	fs := newFlagSet("restore", restoreUsage, restoreHelp)
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
		return nil, fs.usageErr("name the refuted findings to restore by their IDs, as the review shows them (QUAL-1a2b3c4d)")
	}
	for _, id := range rest {
		if !finding.ValidLedgerID(id) {
			return nil, fs.usageErr("%q is not a finding ID: IDs look like QUAL-1a2b3c4d, as the reports show them", id)
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

func restore(ctx context.Context, d *Deps, opts *RestoreOptions) error {
	repo, client, err := repoClient(d, opts.Repo)
	if err != nil {
		return err
	}
	number := opts.PR
	if number == 0 {
		if number, err = openPRNumber(ctx, d, client, repo, opts.Branch, "Usage: "+restoreUsage); err != nil {
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
	trust.Judge(ctx, pr)
	done, _, _ := trust.Restores(ctx, pr)
	led, _, _, hasLedger := trust.Ledger(ctx, pr)
	already := append(loop.RestoredIDs(done), led.Restored()...)
	var ids []string
	for _, id := range opts.IDs {
		if !slices.Contains(already, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		fmt.Fprintf(d.IO.Out, "Already restored on PR #%d: %s; nothing posted.\n", pr.Number, strings.Join(opts.IDs, ", "))
		return nil
	}
	// Only what the verifier refuted can be restored: the PR's ledger says
	// which (unless it left closed findings out to fit in a comment).
	if hasLedger && led.Dropped == 0 {
		refuted := led.With(finding.StatusRefuted)
		var not []string
		for _, id := range ids {
			if !slices.Contains(refuted, id) {
				not = append(not, id)
			}
		}
		if len(not) > 0 {
			return fmt.Errorf("%s: not refuted by the verifier on PR #%d (gh-ocdx's latest report lists it under no \"Refuted by the verifier\"), so there is nothing to restore and nothing was posted", strings.Join(not, ", "), pr.Number)
		}
	}
	// The restore is judged as the loop will judge it: by the permission
	// of the token's user, gh-ocdx's own login included.
	perm, err := trust.Permission(ctx, pr.Viewer)
	if err != nil {
		return fmt.Errorf("could not check whether %s may restore findings on %s: %w; nothing was posted", pr.Viewer, repo, err)
	}
	var refused []string
	for _, id := range ids {
		if ok, why := loop.MayRestore(repo, perm, pr.Viewer, pr.Author, id); !ok {
			refused = append(refused, fmt.Sprintf("%s: %s", id, why))
		}
	}
	if len(refused) > 0 {
		return fmt.Errorf("%s may not restore on PR #%d, so nothing was posted (gh-ocdx would not count it):\n  %s",
			pr.Viewer, pr.Number, strings.Join(refused, "\n  "))
	}
	body := "/ocdx restore " + strings.Join(ids, " ") + "\n\n" +
		"gh-ocdx counts these findings again on this pull request, overruling its verifier (restored with `gh ocdx restore`).\n\n" + finding.Marker
	c, err := client.PostComment(ctx, repo, pr.Number, body)
	if err != nil {
		return fmt.Errorf("posting the restore on PR #%d failed: %w; run the same command again: an ID already on the PR is not posted twice", pr.Number, err)
	}
	fmt.Fprintf(d.IO.Out, "Restored on PR #%d: %s (they count again from the next run)\n%s\n", pr.Number, strings.Join(ids, ", "), c.URL)
	return nil
}
