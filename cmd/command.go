package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/ocdx/gh-ocdx/converse"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/review"
)

// CommandOptions are the parsed arguments of command.
type CommandOptions struct {
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

func runCommand(ctx context.Context, d *Deps, args []string) error {
	opts, err := parseCommand(d, args)
	if err != nil {
		return err
	}
	return runComment(ctx, d, opts)
}

func parseCommand(d *Deps, args []string) (*CommandOptions, error) {
	var repoFlag string
	opts := &CommandOptions{}
	fs := newFlagSet("command", commandUsage, commandHelp)
	fs.Int64Var(&opts.CommentID, "comment-id", 0, "The comment to act on, by its `id` (github.event.comment.id)")
	fs.maxTokensFlag(&opts.MaxTokens, "Stop before a model call that could bring the command's tokens past `N`")
	fs.repoFlag(&repoFlag)
	if err := fs.parse(d, args, -1); err != nil {
		return nil, err
	}
	if opts.CommentID <= 0 {
		return nil, fs.usageErr("name the comment to act on with --comment-id N (the Action passes github.event.comment.id)")
	}
	pr, r, err := fs.prArgument("", repoFlag)
	if err != nil {
		return nil, err
	}
	opts.PR, opts.Branch, opts.Repo = pr.Number, pr.Branch, r
	return opts, nil
}

// theComment is the comment a command run acts on.
type theComment struct {
	ID, Author, Body, URL string
	Thread                *posts.OwnThread // a reply in one of gh-ocdx's threads
	ThreadID              string           // the review thread it is in, if any
}

func runComment(ctx context.Context, d *Deps, opts *CommandOptions) error {
	t, err := commandPR(ctx, d, prArgs{Repo: opts.Repo, PR: opts.PR, Branch: opts.Branch}, commandUsage)
	if err != nil {
		return err
	}
	client, repo, pr, trust := t.client, t.repo, t.pr, t.trust
	policy := t.policy
	judge(ctx, d, trust, pr)
	conv, err := client.Comments(ctx, repo, pr.Number)
	if err != nil {
		return err
	}
	id := strconv.FormatInt(opts.CommentID, 10)
	c, err := findComment(pr, conv, id)
	if err != nil {
		return err
	}
	tag := posts.CommandTag(id)
	if posts.CommandAnswered(pr, conv, id, c.URL) {
		d.info("gh-ocdx already answered comment %s on %s#%d: nothing to do", id, repo, pr.Number)
		return nil
	}
	if posts.Own(pr, c.Body, c.Author) {
		d.info("comment %s is gh-ocdx's own: nothing to do", id)
		return nil
	}
	cmd, isCmd := posts.ParseCommand(c.Body)
	if !isCmd && c.Thread == nil {
		d.info("comment %s is neither an /ocdx command nor a reply in gh-ocdx's threads: nothing to do", id)
		return nil
	}
	if !isCmd && !dueIn(pr, c.ThreadID) {
		d.info("comment %s needs no answer: nothing to do", id)
		return nil
	}
	// The one permission check, before any model (docs/architecture.md,
	// Who may dismiss).
	perm, err := trust.Permission(ctx, c.Author)
	if err != nil {
		return fmt.Errorf("could not check whether %s may run /ocdx commands on %s: %w; nothing was run", c.Author, repo, err)
	}
	answer := func(words string) error {
		return postAnswer(ctx, client, repo, pr.Number, c, converse.Post(tag, c.Author, words))
	}
	if ok, why := posts.MayCommand(repo, perm, c.Author); !ok {
		d.warn("not run: comment %s by %s: %s", id, c.Author, why)
		return answer(why + "; someone with write permission can run it.")
	}
	if !isCmd {
		d.info("answering the replies in gh-ocdx's threads (comment %s by %s)", id, c.Author)
		cfg, err := loadConfigForModel(d, "", "replyModel", "reviewPrModel")
		if err != nil {
			return err
		}
		return replyOn(ctx, d, &ReplyOptions{PR: pr.Number, Repo: opts.Repo, Yes: true, MaxTokens: opts.MaxTokens, Thread: c.ThreadID}, cfg, t)
	}
	fixOK := policy != nil && policy.CommandsFix
	if (cmd.Verb == posts.CmdReview || cmd.Verb == posts.CmdFix) && pr.IsCrossRepository {
		// Both would run the fork's code (its verify commands, the fix
		// agent's) where the comment's workflow keeps a write token and the
		// model keys (docs/architecture.md, Commands).
		return answer(fmt.Sprintf("/ocdx review and /ocdx fix do not run on a pull request from a fork (%s): its code would run next to this repository's write token and model keys; a maintainer reviews it with `gh ocdx review-pr %d`.",
			cmp.Or(pr.HeadRepository, "deleted"), pr.Number))
	}
	switch cmd.Verb {
	case posts.CmdAsk:
		return ask(ctx, d, opts, client, repo, pr, c, tag, cmd.Question)
	case posts.CmdDismiss, posts.CmdRestore:
		return dismissOrRestore(ctx, client, repo, pr, t.trust, c, tag, cmd, perm)
	case posts.CmdReview:
		why := ""
		if !fixOK {
			why = "fixes from a comment are off on this repository (the base branch's .ocdx.json has no \"commands\": {\"fix\": true})"
		}
		note := "reviewing now; the report follows."
		if why != "" {
			note = "reviewing now, without fixing: " + why + "; the report follows."
		}
		if err := answer(note); err != nil {
			return err
		}
		// HOST/OWNER/NAME: the review goes to this PR's host, whatever GH_HOST says.
		o := &ReviewLoopOptions{PR: pr.Number, RepoFlag: repo.Host + "/" + repo.String(), Yes: true, MaxTokens: opts.MaxTokens, ReviewOnly: why}
		return reviewLoop(ctx, d, o)
	case posts.CmdFix:
		if !fixOK {
			return answer("fixing from a comment is off on this repository: the base branch's .ocdx.json must say \"commands\": {\"fix\": true}.")
		}
		if err := answer("fixing the open findings now; the fix report follows."); err != nil {
			return err
		}
		return fixPR(ctx, d, &FixOptions{PR: pr.Number, Repo: opts.Repo, Yes: true, MaxTokens: opts.MaxTokens, usage: "Usage: " + fixUsage})
	}
	// An unknown verb is answered once on the PR, then the run fails: the
	// Action's log and its exit code say the comment did nothing.
	known := "/ocdx " + strings.Join(posts.Verbs, ", /ocdx ")
	if err := answer(fmt.Sprintf("gh-ocdx knows %s.", known)); err != nil {
		return err
	}
	what := "an /ocdx command without a verb"
	if cmd.Verb != "" {
		what = fmt.Sprintf("/ocdx %s is not a command of gh-ocdx", text.Clip(text.OneLine(cmd.Verb), 40))
	}
	return fmt.Errorf("comment %s: %s; it knows %s (the comment was answered so)", id, what, known)
}

// dueIn reports whether the review thread has replies due an answer.
func dueIn(pr *github.PullRequest, thread string) bool {
	for _, due := range converse.DueReplies(pr) {
		if due.Thread.ID == thread {
			return true
		}
	}
	return false
}

// findComment is the comment with the database id on pr: in its
// conversation, or in a review thread.
func findComment(pr *github.PullRequest, conv []github.Comment, id string) (theComment, error) {
	for _, c := range conv {
		if strconv.FormatInt(c.ID, 10) == id {
			return theComment{ID: id, Author: c.Author, Body: c.Body, URL: c.URL}, nil
		}
	}
	own := posts.OwnThreads(pr)
	for _, th := range pr.Threads {
		for _, tc := range th.Comments {
			if tc.DatabaseID != id {
				continue
			}
			out := theComment{ID: id, Author: tc.Author, Body: tc.Body, URL: tc.URL, ThreadID: th.ID}
			for i := range own {
				if own[i].ID == th.ID {
					out.Thread = &own[i]
				}
			}
			return out, nil
		}
	}
	return theComment{}, fmt.Errorf("no comment %s on PR #%d (its conversation or review threads): check --comment-id", id, pr.Number)
}

// postAnswer answers c where it was written: in its review thread, else
// in the conversation.
func postAnswer(ctx context.Context, client *github.Client, repo github.Repo, number int, c theComment, body string) error {
	if c.ThreadID != "" {
		return client.ResolveThreads(ctx, repo, []github.ThreadReply{{ThreadID: c.ThreadID, Body: body, Open: true}})
	}
	_, err := client.PostComment(ctx, repo, number, body)
	return err
}

// ask answers /ocdx ask with the replyModel and read tools only.
func ask(ctx context.Context, d *Deps, opts *CommandOptions, client *github.Client, repo github.Repo, pr *github.PullRequest, c theComment, tag, question string) error {
	if strings.TrimSpace(question) == "" {
		return postAnswer(ctx, client, repo, pr.Number, c, converse.Post(tag, c.Author, "ask a question after /ocdx ask."))
	}
	cfg, err := loadConfigFor(d, usesRole("replyModel", "reviewPrModel"))
	if err != nil {
		return err
	}
	name := cfg.Reply.String()
	models := newRunModels(d, cfg, opts.MaxTokens)
	model, err := models.model("ask", name, "replyModel", withTools)
	if err != nil {
		return err
	}
	asker := converse.Asker{Model: model, Reserve: models.reserve()}
	files := prFiles(ctx, d, client, repo, pr)
	asker.Tools = append(review.RepoTools(files), review.PRTools(client, repo, pr.Number)...)
	a, err := asker.AskQuestion(ctx, pr, question)
	var be *llm.BudgetError
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &be) || errors.Is(err, llm.ErrBudget):
		return &IncompleteError{Reason: err.Error() + "; the question was not answered. Raise maxTokens (or --max-tokens)"}
	case err != nil:
		return err
	}
	p, priced := cfg.Prices[name]
	if priced {
		a.Cost = p.Cost(a.Usage.Input, a.Usage.Cached, a.Usage.Output)
	}
	if err := postAnswer(ctx, client, repo, pr.Number, c, converse.AnswerBody(tag, c.Author, a, priced)); err != nil {
		return err
	}
	d.success("Answered the question of %s on %s#%d (%s tokens)", c.Author, repo, pr.Number, a.Usage)
	return nil
}

// dismissOrRestore answers /ocdx dismiss and /ocdx restore: the loop acts
// on the command itself from its next run; this says whether it counts,
// by the rule the loop applies (MayDismiss, MayRestore).
func dismissOrRestore(ctx context.Context, client *github.Client, repo github.Repo, pr *github.PullRequest, trust *posts.Trust, c theComment, tag string, cmd posts.Command, perm github.Permission) error {
	// The answer names what the loop will act on, read as the loop reads
	// it: in one of gh-ocdx's threads a dismissal is of that thread's
	// finding, whatever IDs follow; a restore counts only in the
	// conversation; either only as written "/ocdx dismiss ID…".
	var ids []string
	var ok bool
	switch {
	case cmd.Verb == posts.CmdRestore && c.ThreadID != "":
		return postAnswer(ctx, client, repo, pr.Number, c, converse.Post(tag, c.Author, "a restore counts only in the pull request's conversation: write `/ocdx restore <ID>` there."))
	case cmd.Verb == posts.CmdRestore:
		ids, ok = cmd.IDs, cmd.AsWritten
	case c.Thread != nil:
		ok = cmd.AsWritten
		ids = []string{c.Thread.Finding.ID}
	case c.ThreadID != "":
		return postAnswer(ctx, client, repo, pr.Number, c, converse.Post(tag, c.Author, "a dismissal counts in one of gh-ocdx's threads or in the pull request's conversation: write `/ocdx dismiss <ID>` there."))
	default:
		ids, ok = cmd.IDs, cmd.AsWritten
	}
	if !ok {
		return postAnswer(ctx, client, repo, pr.Number, c, converse.Post(tag, c.Author, fmt.Sprintf("write the command as `/ocdx %s <ID>…` on the comment's first line: as written, gh-ocdx does not read it.", cmd.Verb)))
	}
	if len(ids) == 0 {
		return postAnswer(ctx, client, repo, pr.Number, c, converse.Post(tag, c.Author, fmt.Sprintf("name the findings to %s by their IDs (QUAL-1a2b3c4d), as the reports show them.", cmd.Verb)))
	}
	may := posts.MayDismiss
	if cmd.Verb == posts.CmdRestore {
		may = posts.MayRestore
	}
	var refused, whys []string
	for _, id := range ids {
		if ok, why := may(repo, perm, c.Author, pr.Author, id); !ok {
			refused = append(refused, id)
			whys = append(whys, why)
		}
	}
	if len(refused) > 0 {
		// Earlier versions' loops know the answer by this tag.
		extra := posts.RefusedTag(posts.Refusal{By: c.Author, URL: c.URL, IDs: refused})
		return postAnswer(ctx, client, repo, pr.Number, c, converse.Post(tag+"\n"+extra, c.Author,
			fmt.Sprintf("your /ocdx %s of %s does not count: %s.", cmd.Verb, strings.Join(refused, ", "), strings.Join(whys, "; "))))
	}
	if not := unraised(ctx, trust, pr, cmd.Verb, ids); len(not) > 0 {
		return postAnswer(ctx, client, repo, pr.Number, c, converse.Post(tag, c.Author,
			fmt.Sprintf("no review on this pull request raised %s for a %s (gh-ocdx's latest report does not list it so): there is nothing to %s.", strings.Join(not, ", "), cmd.Verb, cmd.Verb)))
	}
	done := "dismissed: gh-ocdx stops raising and fixing it from its next run."
	if cmd.Verb == posts.CmdRestore {
		done = "restored: it counts again from gh-ocdx's next run."
	}
	return postAnswer(ctx, client, repo, pr.Number, c, converse.Post(tag, c.Author, strings.Join(ids, ", ")+" "+done))
}
