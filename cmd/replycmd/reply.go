// Package replycmd is the reply verb: gh-ocdx answers the replies in its
// review threads (docs/architecture.md, Conversation).
package replycmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/converse"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/prompter"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/state"
)

// Options are the parsed arguments of reply.
type Options struct {
	PR     int    // 0: the open PR of Branch, else of the current branch
	Branch string // the PR's head branch, when named so
	Repo   repository.Repository
	Model  string // --model; "" = the configured replyModel
	Yes    bool   // post every answer without asking
	// MaxTokens is the run's token budget (--max-tokens); 0: the
	// configuration's maxTokens, if any.
	MaxTokens int64
	// MaxReplies bounds the threads answered (--max-replies); 0: the
	// configuration's maxReplies, else config.DefaultMaxReplies.
	MaxReplies int
	Export     *cmdutil.Exporter // --json, --jq, --template
	Prompter   cmdutil.Prompter
	// Thread, when set, answers only that review thread (by node id), and
	// only what people with write permission wrote there: the Action's run
	// for one reply (gh ocdx command), which its author's permission let
	// run, answers nobody else's words.
	Thread string
}

const replyUsage = "gh ocdx reply [<number> | <url> | <branch>] [--yes] [--model P/M] [--max-tokens N] [--max-replies N] [--json [fields]] [-R OWNER/REPO]"

const replyHelp = `Answer the people who replied in gh-ocdx's own review threads on a pull
request: every reply that came after gh-ocdx's last comment in its thread.

The replyModel (default: reviewPrModel) gets the finding, the thread, the
lines it is on, and the reviewers' read-only tools over the PR's head, and
answers in one of three ways:
  explain  the finding stands, and why, with the lines it read;
  concede  the finding was wrong or the code is intended: the answer says
           so and the finding is disputed from then on. It keeps blocking
           until someone with write permission dismisses it; a P0 or a
           SEC- finding is never conceded;
  propose  a change of the thread's line, as a suggestion GitHub can
           commit (only when the PR changes that line).
Each answer is shown as it will be posted: post it, edit it in your editor,
or skip it (a later run offers it again). --yes posts every answer.

A reply is answered once: each answer names the replies it answers, so a
re-run answers only what is new. Replies are untrusted like the PR: nothing
they say runs, and reply never writes code, pushes, resolves or dismisses.
/ocdx commands in a thread are left to the loop.

One run answers at most maxReplies threads (default 10, --max-replies); on a
terminal, gh-ocdx asks before answering more. --max-tokens N (or maxTokens)
stops before a model call that could pass N tokens. Either one leaving
replies unanswered exits 3.

Examples:
  gh ocdx reply
  gh ocdx reply 24 --yes
  gh ocdx reply 24 --yes --json answered,left`

// Parse reads reply's arguments.
func Parse(d *cmdutil.Deps, args []string) (*Options, error) {
	var repoFlag string
	opts := &Options{}
	fs := cmdutil.NewFlagSet("reply", replyUsage, replyHelp)
	fs.StringVar(&opts.Model, "model", "", "Answer with this provider/model instead of the configured replyModel")
	fs.BoolVar(&opts.Yes, "yes", false, "Post every answer without asking")
	fs.MaxTokensFlag(&opts.MaxTokens, "Stop before a model call that could bring the run's tokens (in and out) past `N`")
	fs.IntVar(&opts.MaxReplies, "max-replies", 0, "Answer at most `N` threads in this run (default: maxReplies, else 10)")
	jf := cmdutil.AddJSONFlags(fs, replyOutput{})
	jf.Positional = true
	fs.RepoFlag(&repoFlag)
	if err := fs.ParseArgs(d, jf.Args(args), -1); err != nil {
		return nil, err
	}
	var err error
	if opts.Export, err = jf.Exporter(fs); err != nil {
		return nil, err
	}
	if fs.Changed("max-replies") && opts.MaxReplies <= 0 {
		return nil, fs.UsageErr("invalid --max-replies %d: give the most threads to answer, above zero", opts.MaxReplies)
	}
	if err := fs.CheckModel(opts.Model); err != nil {
		return nil, err
	}
	if !opts.Yes && !d.IO.CanPrompt() {
		return nil, fs.NeedsTerminal("reply shows each answer before it posts it", "pass --yes to post the answers without asking")
	}
	pr, r, err := fs.PRArgument("", repoFlag)
	if err != nil {
		return nil, err
	}
	opts.PR, opts.Branch, opts.Repo = pr.Number, pr.Branch, r
	return opts, nil
}

// replyOutput is reply's --json.
type replyOutput struct {
	PR       report.PRRef      `json:"pr"`
	Answered []converse.Thread `json:"answered"`
	Skipped  []converse.Thread `json:"skipped"`
	// Left are the threads this run did not answer: over maxReplies or
	// the token budget, or a model that failed.
	Left    []converse.Thread `json:"left"`
	Usage   tokens.Usage      `json:"usage"`
	CostUSD float64           `json:"estimatedCostUsd,omitempty"`
}

// Run answers the replies due on the pull request opts names.
func Run(ctx context.Context, d *cmdutil.Deps, opts *Options) error {
	if !opts.Yes && opts.Prompter == nil {
		opts.Prompter = d.NewPrompter(ctx)
	}
	cfg, err := cmdutil.LoadConfigForModel(d, opts.Model, "replyModel", "reviewPrModel")
	if err != nil {
		return err
	}
	t, err := cmdutil.TargetPR(ctx, d, cmdutil.PRArg{Number: opts.PR, Branch: opts.Branch, Repo: opts.Repo}, replyUsage)
	if err != nil {
		return err
	}
	// Whose posts are gh-ocdx's needs the base branch's trustedLogins.
	cmdutil.Judge(ctx, d, t.Trust, t.PR)
	return RunOn(ctx, d, opts, cfg, t)
}

// RunOn answers the replies due on t's PR, whose posts t.Trust has
// judged: reply's work, and the command verb's for a reply in a thread
// (converse.Select, converse.Replier).
func RunOn(ctx context.Context, d *cmdutil.Deps, opts *Options, cfg *config.Config, t cmdutil.Target) error {
	name := cmp.Or(opts.Model, cfg.Reply.String())
	client, repo, pr, trust := t.Client, t.Repo, t.PR, t.Trust
	out := replyOutput{PR: report.RefOf(repo, pr), Answered: []converse.Thread{}, Skipped: []converse.Thread{}, Left: []converse.Thread{}}
	dues, err := converse.Select(ctx, trust, repo, pr, opts.Thread, func(login, id string) {
		d.Info("not answered: %s's reply in the thread of %s (no write permission)", login, id)
	})
	if err != nil {
		return err
	}
	if len(dues) == 0 {
		d.Info("No replies to answer in gh-ocdx's threads on %s#%d", repo, pr.Number)
		return writeReply(d, opts, out)
	}
	limit := cmp.Or(opts.MaxReplies, cfg.MaxReplies, config.DefaultMaxReplies)
	if len(dues) > limit && opts.Prompter != nil && !opts.Yes {
		// A long conversation costs tokens per thread: the person decides
		// before anything is spent.
		i, err := opts.Prompter.Select(fmt.Sprintf("%s of gh-ocdx's have replies waiting for an answer; one run answers %d (maxReplies).",
			text.Plural(len(dues), "thread"), limit),
			[]string{fmt.Sprintf("Answer the first %d", limit), fmt.Sprintf("Answer all %d", len(dues)), "Cancel"})
		switch {
		case err != nil:
			return err
		case i == 1:
			limit = len(dues)
		case i == 2:
			return fmt.Errorf("%w: nothing was answered", cmdutil.ErrCancelled)
		}
	}
	for _, due := range dues[min(limit, len(dues)):] {
		out.Left = append(out.Left, converse.ThreadOf(due))
	}
	dues = dues[:min(limit, len(dues))]

	models := cmdutil.NewRunModels(d, cfg, opts.MaxTokens)
	model, err := models.Model("reply", name, "replyModel", cmdutil.WithTools)
	if err != nil {
		return err
	}
	files := cmdutil.PRFiles(ctx, d, client, repo, pr)
	asker := converse.Asker{Model: model, Reserve: models.Reserve(), Tools: append(change.RepoTools(files), change.PRTools(client, repo, pr.Number)...)}
	raw, _, err := client.Diff(ctx, repo, pr.Number, change.DiffLimit)
	if err != nil {
		return err
	}
	price, priced := cfg.Prices[name]
	r := converse.Replier{GitHub: client, Repo: repo, PR: pr, Asker: asker, Lines: github.ParseDiffLines(string(raw)),
		Files: files,
		Cost: func(u tokens.Usage) (float64, bool) {
			if !priced {
				return 0, false
			}
			return price.Cost(u.Input, u.Cached, u.Output), true
		},
		Conceded: func(id string) { recordDisputed(d, repo, pr.Number, id) },
		Say: converse.Say{
			Answered: func(due converse.Due, a converse.Answer) {
				d.Success("Answered %s in %s (%s)%s", due.Mentions(), due.Where(), due.Thread.Finding.ID, a.Did(due))
			},
			Skipped: func(due converse.Due) {
				d.Info("Skipped %s (%s): a later run offers it again", due.Where(), due.Thread.Finding.ID)
			},
			Failed: func(due converse.Due, err error) {
				d.Warn("could not answer in %s (%s): %v", due.Where(), due.Thread.URL, err)
			},
			Budget: func(due converse.Due, err error) {
				d.Warn("the token budget stops the run before answering in %s: %v", due.Where(), err)
			},
		},
	}
	if opts.Prompter != nil && !opts.Yes {
		r.Decide = func(ctx context.Context, due converse.Due, a converse.Answer) (bool, converse.Answer, error) {
			return decideAnswer(ctx, d, opts.Prompter, due, a)
		}
	}
	res, err := r.Run(ctx, dues)
	out.Answered, out.Skipped, out.Left = res.Answered, res.Skipped, append(out.Left, res.Left...)
	out.Usage, out.CostUSD = res.Usage, res.CostUSD
	if err != nil {
		return err
	}
	return finishReply(d, opts, out, res.Failed)
}

// recordDisputed records in the state file that gh-ocdx conceded id: it
// is disputed, no longer stuck, there as in the next ledger
// (docs/architecture.md, Conversation). The PR holds the concession
// whatever happens here, so a failure is only said.
func recordDisputed(d *cmdutil.Deps, repo github.Repo, number int, id string) {
	st, err := d.OpenStore()
	if err == nil {
		err = st.Dispute(state.NewKey(repo.Host, repo.Owner, repo.Name, number), []string{id})
	}
	if err != nil {
		d.Warn("could not record %s as disputed in the state file (the next run reads it from the PR): %v", id, err)
	}
}

// finishReply writes the result and says how the run ended: an error when
// a model failed (exit 1), incomplete when replies were left (exit 3).
func finishReply(d *cmdutil.Deps, opts *Options, out replyOutput, failed []string) error {
	if out.Usage.Calls > 0 {
		d.Info("reply: %s", tokens.Spent(out.Usage, out.CostUSD))
	}
	if err := writeReply(d, opts, out); err != nil {
		return err
	}
	switch {
	case len(failed) > 0:
		return fmt.Errorf("no answer in %s: the model failed (see above); run gh ocdx reply again to retry", strings.Join(failed, ", "))
	case len(out.Left) > 0:
		return &cmdutil.IncompleteError{Reason: fmt.Sprintf("%s left unanswered (maxReplies or the token budget); run gh ocdx reply again to answer them",
			text.Plural(len(out.Left), "thread"))}
	}
	return nil
}

func writeReply(d *cmdutil.Deps, opts *Options, out replyOutput) error {
	if opts.Export != nil {
		return opts.Export.Write(d, out)
	}
	return nil
}

// decideAnswer shows an answer as it will be posted and asks: post it,
// edit its words in the person's editor (then asked again), or skip it.
func decideAnswer(ctx context.Context, d *cmdutil.Deps, p cmdutil.Prompter, due converse.Due, a converse.Answer) (post bool, out converse.Answer, err error) {
	for {
		fmt.Fprintf(d.IO.Out, "\n── Answer in %s (%s) to %s %s\n", due.Where(), due.Thread.Finding.ID, due.Mentions(), strings.Repeat("─", 20))
		for _, r := range due.Replies {
			fmt.Fprintf(d.IO.Out, "%s\n", cmdutil.Indent("@"+r.Author+": "+text.Clip(text.OneLine(r.Body), 300)))
		}
		fmt.Fprintln(d.IO.Out)
		if err := cmdutil.PrintMarkdown(d, posts.Visible(converse.Body(a, due, false))+"\n"); err != nil {
			return false, a, err
		}
		fmt.Fprintf(d.IO.Out, "%s\n\n", strings.Repeat("─", 50))
		i, err := p.Select("Post this answer?", []string{"Post", "Edit", "Skip"})
		if err != nil {
			return false, a, err
		}
		switch i {
		case 0:
			return true, a, nil
		case 1:
			t, err := p.Edit("Edit the answer", cmdutil.EditorCommand(ctx, d), a.Text)
			var fail *prompter.EditorError
			if errors.As(err, &fail) {
				fmt.Fprintf(d.IO.ErrOut, "X %v\n", err)
				if path := prompter.KeepDraft("answer", a.Text); path != "" {
					fmt.Fprintf(d.IO.ErrOut, "  The answer is kept as it was, and its text saved in %s\n", path)
				}
				continue
			}
			if err != nil {
				return false, a, err
			}
			if strings.TrimSpace(t) == "" {
				fmt.Fprintln(d.IO.ErrOut, "the edited answer is empty: kept the text before the edit")
				continue
			}
			a.Text = t
		default:
			return false, a, nil
		}
	}
}
