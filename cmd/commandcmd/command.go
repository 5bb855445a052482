// Package commandcmd is the command verb: it acts on one /ocdx command or
// reply in a PR's comments (docs/architecture.md, Commands). The verbs a
// command runs are given the argv it stands for (Argv) and parse it with
// their own flag set, so that /ocdx review, /ocdx fix and a reply get the
// defaults and the checks the same verbs get on the command line.
package commandcmd

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/cmd/replycmd"
	"github.com/ocdx/gh-ocdx/converse"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/llm"
)

// Options are the parsed arguments of command.
type Options struct {
	PR        int
	Branch    string
	Repo      repository.Repository
	CommentID int64 // --comment-id: the comment to act on
	MaxTokens int64
}

const commandUsage = "gh ocdx command [<number> | <url> | <branch>] --comment-id N [--max-tokens N] [-R OWNER/REPO]"

const commandHelp = `Act on one comment of a pull request, as the GitHub Action does on its
issue_comment and pull_request_review_comment events: an /ocdx command,
or a reply in one of gh-ocdx's review threads.

  /ocdx review        a review-loop round; it fixes only when the base
                      branch's .ocdx.json says "commands": {"fix": true}
  /ocdx fix           fix the open findings (the same key)
  /ocdx ask QUESTION  an answer as a comment: read tools only, nothing pushed
  /ocdx dismiss ID    stop raising a finding
  /ocdx restore ID    overrule the verifier
  a reply in gh-ocdx's thread   gh ocdx reply --yes

On a pull request from a fork, /ocdx review and /ocdx fix are answered
with one line and run nothing: they would run the fork's code where the
workflow keeps a write token and the model keys.

Every command, and every reply that would start a model, counts only from
someone with write permission on the repository; anyone else gets a one-line
answer saying who may, and no model is called. A comment is answered once:
the answer carries a tag naming it. Nothing a comment says runs but its
command's verb and IDs.

Examples:
  gh ocdx command 24 --comment-id 1234567890`

// Parse reads command's arguments.
func Parse(d *cmdutil.Deps, args []string) (*Options, error) {
	var repoFlag string
	opts := &Options{}
	fs := cmdutil.NewFlagSet("command", commandUsage, commandHelp)
	fs.Int64Var(&opts.CommentID, "comment-id", 0, "The comment to act on, by its `id` (github.event.comment.id)")
	fs.MaxTokensFlag(&opts.MaxTokens, "Stop before a model call that could bring the command's tokens past `N`")
	fs.RepoFlag(&repoFlag)
	if err := fs.ParseArgs(d, args, -1); err != nil {
		return nil, err
	}
	if opts.CommentID <= 0 {
		return nil, fs.UsageErr("name the comment to act on with --comment-id N (the Action passes github.event.comment.id)")
	}
	pr, r, err := fs.PRArgument("", repoFlag)
	if err != nil {
		return nil, err
	}
	opts.PR, opts.Branch, opts.Repo = pr.Number, pr.Branch, r
	return opts, nil
}

// Verbs are the verbs an /ocdx command runs, each given the argv the
// command stands for and parsing it as its own command line: review-loop
// and fix, which live in cmd.
type Verbs struct {
	// Review runs review-loop; reviewOnly, when set, says why it fixes
	// nothing (a repository that does not let /ocdx fix).
	Review func(ctx context.Context, d *cmdutil.Deps, args []string, reviewOnly string) error
	Fix    func(ctx context.Context, d *cmdutil.Deps, args []string) error
}

// Argv is what an /ocdx command asks of a verb, as the person would type
// it: the PR by number on its own host (HOST/OWNER/NAME, whatever GH_HOST
// says), --yes (no one is at a terminal), and the command's token budget.
// Every verb an /ocdx command runs is parsed from it, so that none builds
// its options by hand (docs/architecture.md, Commands).
func Argv(repo github.Repo, pr int, maxTokens int64) []string {
	args := []string{strconv.Itoa(pr), "-R", repo.Host + "/" + repo.String(), "--yes"}
	if maxTokens > 0 {
		args = append(args, "--max-tokens", strconv.FormatInt(maxTokens, 10))
	}
	return args
}

// Run acts on the comment opts names.
func (v Verbs) Run(ctx context.Context, d *cmdutil.Deps, opts *Options) error {
	t, err := cmdutil.TargetPR(ctx, d, cmdutil.PRArg{Number: opts.PR, Branch: opts.Branch, Repo: opts.Repo}, commandUsage)
	if err != nil {
		return err
	}
	client, repo, pr, trust := t.Client, t.Repo, t.PR, t.Trust
	cmdutil.Judge(ctx, d, trust, pr)
	argv := Argv(repo, pr.Number, opts.MaxTokens)
	m := converse.Commander{GitHub: client, Repo: repo, PR: pr, Trust: trust, FixOn: t.Policy != nil && t.Policy.CommandsFix, Info: d.Info, Warn: d.Warn,
		Reply: func(ctx context.Context, thread string) error {
			ro, err := replycmd.Parse(d, argv)
			if err != nil {
				return err
			}
			// Only this thread, and only what people with write permission
			// wrote there: the comment's author's permission let it run.
			ro.Thread = thread
			cfg, err := cmdutil.LoadConfigForModel(d, ro.Model, "replyModel", "reviewPrModel")
			if err != nil {
				return err
			}
			return replycmd.RunOn(ctx, d, ro, cfg, t)
		},
		Ask: func(ctx context.Context, c converse.Comment, tag, question string) error {
			return ask(ctx, d, opts, client, repo, pr, c, tag, question)
		},
		Review: func(ctx context.Context, reviewOnly string) error { return v.Review(ctx, d, argv, reviewOnly) },
		Fix:    func(ctx context.Context) error { return v.Fix(ctx, d, argv) },
	}
	return m.Run(ctx, opts.CommentID)
}

// ask answers /ocdx ask with the replyModel and read tools only.
func ask(ctx context.Context, d *cmdutil.Deps, opts *Options, client *github.Client, repo github.Repo, pr *github.PullRequest, c converse.Comment, tag, question string) error {
	if strings.TrimSpace(question) == "" {
		return converse.PostAnswer(ctx, client, repo, pr.Number, c, converse.Post(tag, c.Author, "ask a question after /ocdx ask."))
	}
	cfg, err := cmdutil.LoadConfigFor(d, cmdutil.UsesRole("replyModel", "reviewPrModel"))
	if err != nil {
		return err
	}
	name := cfg.Reply.String()
	models := cmdutil.NewRunModels(d, cfg, opts.MaxTokens)
	model, err := models.Model("ask", name, "replyModel", cmdutil.WithTools)
	if err != nil {
		return err
	}
	asker := converse.Asker{Model: model, Reserve: models.Reserve()}
	files := cmdutil.PRFiles(ctx, d, client, repo, pr)
	asker.Tools = append(change.RepoTools(files), change.PRTools(client, repo, pr.Number)...)
	a, err := asker.AskQuestion(ctx, pr, question)
	var be *llm.BudgetError
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &be) || errors.Is(err, llm.ErrBudget):
		return &cmdutil.IncompleteError{Reason: err.Error() + "; the question was not answered. Raise maxTokens (or --max-tokens)"}
	case err != nil:
		return err
	}
	p, priced := cfg.Prices[name]
	if priced {
		a.Cost = p.Cost(a.Usage.Input, a.Usage.Cached, a.Usage.Output)
	}
	if err := converse.PostAnswer(ctx, client, repo, pr.Number, c, converse.AnswerBody(tag, c.Author, a, priced)); err != nil {
		return err
	}
	d.Success("Answered the question of %s on %s#%d (%s tokens)", c.Author, repo, pr.Number, a.Usage)
	return nil
}
