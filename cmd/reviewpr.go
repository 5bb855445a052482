package cmd

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/review"
)

// ReviewPROptions are the parsed arguments of review-pr.
type ReviewPROptions struct {
	Number      int
	Repo        repository.Repository // resolved from the URL, -R, GH_REPO or git remotes
	ContextOnly bool
}

func runReviewPR(ctx context.Context, d *Deps, args []string) error {
	opts, err := parseReviewPR(d, args)
	if err != nil {
		return err
	}
	return reviewPR(ctx, d, opts)
}

func parseReviewPR(d *Deps, args []string) (*ReviewPROptions, error) {
	var repoFlag string
	opts := &ReviewPROptions{}
	fs := newFlagSet("review-pr", "gh ocdx review-pr <number|url> --context-only [-R OWNER/REPO]",
		`Gather the deterministic context of a pull request for a review (seeds/000):
title, body, state, author, linked issues (titles and URLs), the file summary
and file list, and the diff truncated at 50KB. With --context-only it prints
the task message a reviewing model would receive, and calls no model.

Examples:
  gh ocdx review-pr 24 --context-only
  gh ocdx review-pr https://github.com/OWNER/REPO/pull/24 --context-only`)
	fs.BoolVar(&opts.ContextOnly, "context-only", false, "Print the review context on stdout; call no model, post nothing")
	fs.repoFlag(&repoFlag)
	if err := fs.parse(d, args, 1); err != nil {
		return nil, err
	}
	if !opts.ContextOnly {
		return nil, fs.usageErr("review-pr needs --context-only: the model review is not available in this version")
	}
	arg := fs.Arg(0)
	if n, err := strconv.Atoi(arg); err == nil && n > 0 {
		opts.Number = n
		r, err := resolveRepo(repoFlag)
		if ue, ok := err.(*UsageError); ok {
			ue.Usage = fs.usage()
		}
		if err != nil {
			return nil, err
		}
		opts.Repo = r
		return opts, nil
	}
	r, n, ok := parsePRURL(arg)
	if !ok {
		return nil, fs.usageErr("invalid pull request %q: give its number (24) or URL (https://github.com/OWNER/REPO/pull/24)", arg)
	}
	if repoFlag != "" {
		return nil, fs.usageErr("give either a pull request URL or --repo, not both")
	}
	opts.Repo, opts.Number = r, n
	return opts, nil
}

// parsePRURL reads https://HOST/OWNER/REPO/pull/N (anything after N is ignored).
func parsePRURL(s string) (repository.Repository, int, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return repository.Repository{}, 0, false
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 4 || parts[2] != "pull" {
		return repository.Repository{}, 0, false
	}
	n, err := strconv.Atoi(parts[3])
	if err != nil || n <= 0 {
		return repository.Repository{}, 0, false
	}
	return repository.Repository{Host: u.Host, Owner: parts[0], Name: parts[1]}, n, true
}

func reviewPR(ctx context.Context, d *Deps, opts *ReviewPROptions) error {
	repo := github.Repo{Host: opts.Repo.Host, Owner: opts.Repo.Owner, Name: opts.Repo.Name}
	client, err := github.New(repo.Host, github.Options{})
	if err != nil {
		return err
	}
	d.Log.Debug("gathering review context", "repo", repo.String(), "pr", opts.Number, "host", repo.Host)
	rc, err := review.Gather(ctx, client, repo, opts.Number)
	if err != nil {
		return err
	}
	msg, err := rc.TaskMessage()
	if err != nil {
		return err
	}
	fmt.Fprint(d.IO.Out, msg)
	return nil
}
