package learncmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/ocdx/gh-ocdx/cmd/statscmd"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/learn"
	"github.com/ocdx/gh-ocdx/learnings"
	"github.com/ocdx/gh-ocdx/posts"
)

// Options are the parsed arguments of learn.
type Options struct {
	statscmd.ReadOptions      // Export nil: the diff
	PR                   bool // open the change as a pull request
}

const learnUsage = "gh ocdx learn [-R OWNER/REPO] [--limit N] [--since DATE] [--pr] [--json [fields]] [--jq EXPR | --template T]"

const learnHelp = `Propose learnings from what people decided on a repository's recent pull
requests, as a change to its .ocdx/learnings.md for a person to review.

It reads the ledgers of gh-ocdx's reports as gh ocdx stats does (the same
requests and the same cache in the state file) and counts the decisions
that teach something: dismissals by people with write permission who are
not the pull request's author, concessions gh-ocdx made to such people's
replies (gh ocdx reply), and refutations nobody restored. Findings
that were fixed, resolved or restored count against a learning. It groups
the decisions by category and directory (narrowed to a word of their
titles when needed) and proposes a learning for each group of at least 2
decisions on at least 2 pull requests that nothing counts against: on 3
pull requests or more it leaves such findings out, on fewer it lowers them
to P3. Never a P0, SEC- or thread finding.

Each learning is a sentence the reviewers are given and a rule gh-ocdx
applies after consensus, once the change is merged: reviews read the file
from the base branch only. Without --pr the change is printed as a diff;
--pr commits it on a new branch (in this clone, without touching your work
tree), pushes it (never a force push) and opens a pull request.

Examples:
  gh ocdx learn
  gh ocdx learn --since 2026-01-01 --pr
  gh ocdx learn --json proposed --jq '.proposed[].sentence'`

// Parse reads learn's arguments.
func Parse(d *cmdutil.Deps, args []string) (*Options, error) {
	opts := &Options{}
	fs := cmdutil.NewFlagSet("learn", learnUsage, learnHelp)
	pr := func(fs *cmdutil.FlagSet) {
		fs.BoolVar(&opts.PR, "pr", false, "Commit the change on a new branch, push it and open a pull request")
	}
	if err := statscmd.ParseRead(d, fs, args, learn.Report{}, pr, &opts.ReadOptions); err != nil {
		return nil, err
	}
	return opts, nil
}

// Run proposes the learnings of the pull requests opts reads.
func Run(ctx context.Context, d *cmdutil.Deps, opts *Options) error {
	repo, client, res, err := statscmd.ReadReviewed(ctx, d, opts.Repo, opts.Limit, opts.Since)
	if err != nil {
		return err
	}
	branch, err := client.DefaultBranchFile(ctx, repo, learnings.File)
	if err != nil {
		return err
	}
	if branch.File.Found && (branch.File.NotText || branch.File.Truncated) {
		return fmt.Errorf("%s on %s cannot be read whole: it is not text, or too large; fix it by hand", learnings.File, branch.Name)
	}
	r, file, err := learn.Learn(ctx, learn.Options{Repository: repo.String(), PRs: res.PRs,
		Perms: posts.NewTrust(client, repo, nil), File: branch.File.Text})
	if err != nil {
		return err
	}
	for _, w := range r.Warnings {
		d.Warn("%s", w)
	}
	d.Info("%s", learnSaid(r, res.Pages, branch.Name))
	if opts.PR && r.Diff != "" {
		if r.PullRequest, err = openLearnings(ctx, d, repo, client, branch, file, r); err != nil {
			return err
		}
		d.Info("Opened %s", r.PullRequest)
	}
	if opts.Export != nil {
		return opts.Export.Write(d, r)
	}
	_, err = io.WriteString(d.IO.Out, r.Diff)
	return err
}

// learnSaid is learn's one line on stderr: what it read and proposes.
func learnSaid(r learn.Report, pages int, branch string) string {
	d := r.Decisions
	persons := text.Plural(d[learn.Dismissed], "dismissal")
	if n := d[learn.Conceded]; n > 0 {
		persons += ", " + text.Plural(n, "concession")
	}
	s := fmt.Sprintf("Read %s of %s in %s: %s and %s to learn from, %s fixed, resolved or restored against",
		text.Plural(r.PRs, "pull request"), r.Repository, text.Plural(pages, "request"), persons,
		text.Plural(d[learn.Refuted], "refutation"), text.Plural(d[learn.Fixed]+d[learn.Resolved]+d[learn.Restored], "finding"))
	if n := r.Ignored.Total(); n > 0 {
		s += fmt.Sprintf(" (%s ignored: %d by the PR's author, %d without write permission, %d naming nobody)", text.Plural(n, "decision"), r.Ignored.Author, r.Ignored.NoWrite, r.Ignored.Unnamed)
	}
	if len(r.Proposed) == 0 {
		return s + fmt.Sprintf("; no new learning for %s on %s", learnings.File, branch)
	}
	return s + fmt.Sprintf("; %s proposed for %s on %s", text.Plural(len(r.Proposed), "learning"), learnings.File, branch)
}

// openLearnings commits file on a new branch off the default branch's
// tip, in the clone of the working directory, pushes it and opens a pull
// request; it returns the pull request's URL. The branch is named by the
// change, so a second run with the same proposal finds it there.
func openLearnings(ctx context.Context, d *cmdutil.Deps, repo github.Repo, client *github.Client, base github.DefaultBranch, file string, r learn.Report) (string, error) {
	wd, err := d.Dir()
	if err != nil {
		return "", err
	}
	g, err := git.Open(ctx, wd)
	if err != nil {
		return "", fmt.Errorf("--pr commits in a clone of %s: %w", repo, err)
	}
	const remote = "origin"
	if !g.HasCommit(ctx, base.File.Commit) {
		if err := g.FetchBranch(ctx, remote, base.Name); err != nil {
			return "", err
		}
	}
	sum := sha256.Sum256([]byte(file))
	branch := "ocdx/learnings-" + hex.EncodeToString(sum[:4])
	msg := fmt.Sprintf("learnings: %s proposed by gh ocdx learn", text.Plural(len(r.Proposed), "learning"))
	commit, err := g.CommitFile(ctx, base.File.Commit, learnings.File, []byte(file), msg)
	if err != nil {
		return "", err
	}
	if err := g.PushBranch(ctx, remote, branch, commit); err != nil {
		return "", fmt.Errorf("%w (a pull request of these learnings may be open already, from %s)", err, branch)
	}
	_, url, err := client.CreatePullRequest(ctx, repo, base.RepoID, base.Name, branch, msg, learnBody(r))
	if err != nil {
		return "", fmt.Errorf("%w; the branch %s is pushed: open its pull request by hand", err, branch)
	}
	return url, nil
}

// learnBody is the pull request's description: each learning proposed,
// and what a reviewer of it decides.
func learnBody(r learn.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "`gh ocdx learn` proposes %s for `%s`, from the decisions on %s of %s.\n\n",
		text.Plural(len(r.Proposed), "learning"), learnings.File, text.Plural(r.PRs, "pull request"), r.Repository)
	for _, l := range r.Proposed {
		fmt.Fprintf(&b, "- **%s**: %s\n", text.InertMarkup(l.Title), text.InertMarkup(l.Sentence))
	}
	b.WriteString("\nEdit or delete any learning before merging: nothing applies until this is merged, and reviews read the file from the base branch only.\n")
	return b.String()
}
