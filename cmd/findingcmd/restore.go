package findingcmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/cli/go-gh/v2/pkg/repository"
	"github.com/ocdx/gh-ocdx/converse"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/posts"
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

// ParseRestore reads restore's arguments.
func ParseRestore(d *cmdutil.Deps, args []string) (*RestoreOptions, error) {
	opts := &RestoreOptions{}
	var repoFlag string
	fs := cmdutil.NewFlagSet("restore", restoreUsage, restoreHelp)
	fs.RepoFlag(&repoFlag)
	if err := fs.ParseArgs(d, args, -1); err != nil {
		return nil, err
	}
	prText, ids, err := findingIDs(fs, fs.Args(), false, "refuted findings to restore", "QUAL-1a2b3c4d")
	if err != nil {
		return nil, err
	}
	opts.IDs = ids
	pr, r, err := fs.PRFrom(prText, repoFlag)
	if err != nil {
		return nil, err
	}
	opts.PR, opts.Branch, opts.Repo = pr.Number, pr.Branch, r
	return opts, nil
}

// Restore posts /ocdx restore for the refuted findings opts names.
func Restore(ctx context.Context, d *cmdutil.Deps, opts *RestoreOptions) error {
	t, err := cmdutil.TargetPR(ctx, d, cmdutil.PRArg{Number: opts.PR, Branch: opts.Branch, Repo: opts.Repo}, restoreUsage)
	if err != nil {
		return err
	}
	client, repo, pr, trust := t.Client, t.Repo, t.PR, t.Trust
	cmdutil.Judge(ctx, d, trust, pr)
	done, _, _ := trust.Restores(ctx, pr)
	led, _, _, _ := trust.Ledger(ctx, pr)
	ids := notYet(d, opts.IDs, append(posts.IDs(done), led.Restored()...), "restored", pr.Number)
	if len(ids) == 0 {
		return nil
	}
	// Only what the verifier refuted can be restored.
	if not := converse.Unraised(ctx, trust, pr, "restore", ids); len(not) > 0 {
		return fmt.Errorf("%s: not refuted by the verifier on PR #%d (gh-ocdx's latest report lists it under no \"Refuted by the verifier\"), so there is nothing to restore, and nothing was posted", strings.Join(not, ", "), pr.Number)
	}
	return restoreCommand.post(ctx, d, client, repo, pr, trust, ids, "")
}

// restoreCommand is /ocdx restore.
var restoreCommand = findingCommand{done: "Restored", after: " (they count again from the next run)", FindingCommand: converse.FindingCommand{Verb: "restore",
	Says: "gh-ocdx counts these findings again on this pull request, overruling its verifier (restored with `gh ocdx restore`)."}}
