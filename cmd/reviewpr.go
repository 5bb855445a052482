package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/progress"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/reviewpr"
	"github.com/ocdx/gh-ocdx/state"
)

// ReviewPROptions are the parsed arguments of review-pr.
type ReviewPROptions struct {
	Number      int                   // 0: the open PR of Branch, else of the checked-out branch
	Branch      string                // the PR's head branch, when named so
	Repo        repository.Repository // resolved from the URL, -R, GH_REPO or git remotes
	Model       string                // --model; "" = the configured reviewPrModel
	ContextOnly bool
	Yes         bool // post without asking
	Print       bool // print the review, post nothing
	Full        bool // the whole diff, even when gh-ocdx reviewed the PR before
	// Event is the most the model's review may do (--event); "" leaves it
	// to the configuration's allowApprove.
	Event github.ReviewEvent
	// MaxTokens is the review's token budget (--max-tokens); 0: the
	// configuration's maxTokens, if any.
	MaxTokens int64
	Prompter  cmdutil.Prompter
}

// reviewEvents are the --event values, as gh pr review's -c, -r and -a.
var reviewEvents = map[string]github.ReviewEvent{
	"comment": github.CommentOnly, "request-changes": github.RequestChanges, "approve": github.Approve,
}

func runReviewPR(ctx context.Context, d *cmdutil.Deps, args []string) error {
	opts, err := parseReviewPR(d, args)
	if err != nil {
		return err
	}
	if !opts.ContextOnly && !opts.Yes && !opts.Print {
		opts.Prompter = d.NewPrompter(ctx)
	}
	return reviewPR(ctx, d, opts)
}

const reviewPRHelp = `Review a pull request with one model, with you in the loop.

gh-ocdx gathers the PR's deterministic context (title, body, state, author,
linked issues, the file summary and list, the diff capped at 50KB) and hands
it to the reviewPrModel as its task. The model then:
  Orient  asks for more context; you fetch as proposed, narrow it or refuse.
  Decide  proposes a review, each inline comment shown at its path:line and
          a suggestion as a diff; you post it (as it is, or as another
          event), edit it (the body and the inline comments, in your
          editor), discuss it (it revises), or abort.
The model reads the code through read-only tools: the files tracked at the
PR's head commit (from git when your clone has that commit, else through
the API; never untracked or ignored files such as a local .env), the PR's
per-file diffs, issues.

The model reads a file, a diff, an issue or searches only after you
confirmed its request (or only what you narrowed it to); --yes and --print
confirm every request as proposed, and say so on stderr.

When gh-ocdx reviewed the PR before (its reports carry the head they read)
at a commit the PR's head descends from, and this clone has both, the model
gets only what changed since, and reads the rest with its tools; --full
gives it the whole diff.

--max-tokens N (or maxTokens in the configuration) never lets the review
pass N tokens: it starts only when the model's answer fits, and a call that
could pass N is not made; it then exits 3 and posts nothing.

--event caps what the posted review may do: comment (every review is a
comment), request-changes (the default: an approval is posted as a comment,
and a line on stderr says so), approve (anything the model proposes, as does
allowApprove in the configuration). At the Decide prompt, "Post as…" posts
with the event you choose.

Without a terminal, pass --yes (post without asking) or --print (print the
review on stdout, post nothing). --context-only prints the task message and
calls no model.

Examples:
  gh ocdx review-pr 24
  gh ocdx review-pr 24 --model openai/gpt-4.1 --print
  gh ocdx review-pr 24 --yes --event request-changes
  gh ocdx review-pr https://github.com/OWNER/REPO/pull/24 --context-only`

func parseReviewPR(d *cmdutil.Deps, args []string) (*ReviewPROptions, error) {
	var repoFlag, event string
	opts := &ReviewPROptions{}
	fs := cmdutil.NewFlagSet("review-pr", "gh ocdx review-pr [<number> | <url> | <branch>] [--model P/M] [--context-only] [--yes] [--print] [--full] [--event E] [--max-tokens N] [-R OWNER/REPO]", reviewPRHelp)
	fs.StringVar(&opts.Model, "model", "", "Review with this provider/model instead of the configured reviewPrModel")
	fs.BoolVar(&opts.ContextOnly, "context-only", false, "Print the review context on stdout; call no model, post nothing")
	fs.BoolVar(&opts.Full, "full", false, "Give the model the whole diff, not only what changed since gh-ocdx's last review")
	fs.BoolVar(&opts.Yes, "yes", false, "Post the review without asking (context requests are confirmed too)")
	fs.BoolVar(&opts.Print, "print", false, "Print the review on stdout and post nothing")
	fs.StringVar(&event, "event", "", "The most the review may do: comment, request-changes or approve (default request-changes, or approve with allowApprove)")
	fs.MaxTokensFlag(&opts.MaxTokens, "Stop before a model call that could bring the review's tokens (in and out) past `N`")
	fs.RepoFlag(&repoFlag)
	if err := fs.ParseArgs(d, args, -1); err != nil {
		return nil, err
	}
	if event != "" {
		ev, ok := reviewEvents[strings.ToLower(event)]
		if !ok {
			return nil, fs.UsageErr("invalid --event %q: use comment, request-changes or approve", event)
		}
		opts.Event = ev
	}
	if opts.Yes && opts.Print {
		return nil, fs.UsageErr("--yes posts the review and --print does not: choose one")
	}
	if err := fs.CheckModel(opts.Model); err != nil {
		return nil, err
	}
	if !opts.ContextOnly && !opts.Yes && !opts.Print && !d.IO.CanPrompt() {
		return nil, fs.NeedsTerminal("review-pr asks before it posts", "pass --yes to post without asking, or --print to print the review instead")
	}
	pr, r, err := fs.PRArgument("", repoFlag)
	if err != nil {
		return nil, err
	}
	opts.Number, opts.Branch, opts.Repo = pr.Number, pr.Branch, r
	return opts, nil
}

// reviewPRModel is review-pr's model (--model, else reviewPrModel), its
// name, and the most its review may do (--event, else as allowApprove
// says). review-pr needs its own model's key only; with --model, not even
// a configuration file.
func reviewPRModel(d *cmdutil.Deps, opts *ReviewPROptions) (llm.Model, string, github.ReviewEvent, error) {
	cfg, err := cmdutil.LoadConfigForModel(d, opts.Model, "reviewPrModel")
	if err != nil {
		return nil, "", "", err
	}
	maxEvent := opts.Event
	if maxEvent == "" {
		maxEvent = github.RequestChanges
		if cfg.AllowApprove {
			maxEvent = github.Approve
		}
	}
	name := cmp.Or(opts.Model, cfg.ReviewPR.String())
	// Orient shows a context request (or --yes and --print say they fetch
	// it), and Decide or --print the proposed review: each is said there,
	// once. With --yes the review is listed as it goes.
	unlisted := func(m *progress.Model) {
		m.Unlisted = map[string]bool{"request_context": true, "submit_review": !opts.Yes}
	}
	model, err := cmdutil.NewRunModels(d, cfg, opts.MaxTokens).Model("review-pr", name, "reviewPrModel", cmdutil.WithTools, unlisted)
	return model, name, maxEvent, err
}

func reviewPR(ctx context.Context, d *cmdutil.Deps, opts *ReviewPROptions) error {
	var model llm.Model
	var modelName string
	maxEvent := opts.Event
	if !opts.ContextOnly {
		var err error
		if model, modelName, maxEvent, err = reviewPRModel(d, opts); err != nil {
			return err
		}
	}
	repo, client, number, err := cmdutil.ResolvePR(ctx, d, cmdutil.PRArg{Number: opts.Number, Branch: opts.Branch, Repo: opts.Repo}, "gh ocdx review-pr [<number> | <url> | <branch>] [flags]")
	if err != nil {
		return err
	}
	opts.Number = number
	d.Log.Debug("gathering review context", "repo", repo.String(), "pr", opts.Number, "host", repo.Host)
	rc, err := change.Gather(ctx, client, repo, opts.Number, func(pr *github.PullRequest) (*config.Policy, error) {
		p, _, err := cmdutil.BasePolicy(pr)
		return p, err
	})
	if err != nil {
		return err
	}
	led, _, _, _ := posts.PRLedger(rc.PR)
	g := openClone(ctx, d)
	if !opts.Full {
		reReviewPR(ctx, d, g, rc, led.ReviewedHead())
	}
	if opts.ContextOnly {
		msg, err := rc.TaskMessage()
		if err != nil {
			return err
		}
		fmt.Fprint(d.IO.Out, msg)
		return nil
	}

	files := cmdutil.PRFiles(ctx, d, client, repo, rc.PR)
	tools := append(change.RepoTools(files), change.PRTools(client, repo, opts.Number)...)
	s := &reviewpr.Session{Model: model, Context: rc, Tools: tools, MaxEvent: maxEvent}
	post := &reviewpr.PRPublisher{GitHub: client, Repo: repo, Number: opts.Number, RunID: state.NewRunID(), Head: rc.PR.HeadRefOid, Ledger: led,
		Sampled: reviewpr.SampledBefore(rc, led), Whole: wholeDiff(ctx, g, rc.PR.HeadRefOid)}
	switch {
	case opts.Print:
		s.Confirmer, s.Publisher = autoConfirmer{d: d, why: "--print"}, printPublisher{d: d}
	case opts.Yes:
		s.Confirmer, s.Publisher = autoConfirmer{d: d, why: "--yes"}, post
	default:
		s.Confirmer, s.Publisher = &terminalConfirmer{d: d, p: opts.Prompter}, post
	}
	d.Log.Debug("reviewing", "pr", fmt.Sprintf("%s#%d", repo, opts.Number), "model", modelName)
	s.Confirmer = noteConfirmer{Confirmer: s.Confirmer, d: d}
	out, err := s.Run(ctx)
	if out != nil {
		d.Log.Debug("review done", "proposals", out.Rounds, "tokens", out.Usage.String())
		stopped := ctx.Err() != nil || errors.Is(err, cmdutil.ErrCancelled) || errors.Is(err, reviewpr.ErrAborted)
		if out.Usage.Calls > 0 && !stopped {
			d.Info("review-pr (%s): %s tokens", modelName, out.Usage)
		}
	}
	if out != nil {
		recordReviewPR(d, post, modelName, out.Proposal.Event, out.Usage)
	}
	var be *llm.BudgetError
	switch {
	case errors.Is(err, reviewpr.ErrAborted):
		return fmt.Errorf("%w: %v", cmdutil.ErrCancelled, err)
	case errors.As(err, &be):
		reason := be.Error()
		if be.For != "" { // a single call's refusal says its spend already
			reason += "; " + report.BudgetStatus{MaxTokens: be.Max, Spent: be.Spent}.String()
		}
		return &cmdutil.IncompleteError{Reason: reason + "; the review stopped there. Re-run with a larger --max-tokens (or maxTokens in the configuration)"}
	case err != nil && (errors.Is(err, cmdutil.ErrCancelled) || ctx.Err() != nil):
		// review-pr keeps nothing to resume: a new run starts over.
		return fmt.Errorf("%w: nothing was posted", cmdutil.ErrCancelled)
	case err != nil:
		return err
	}
	if out != nil && out.URL != "" {
		// As gh pr review: the line says what was done; the URL is the
		// result a script reads from stdout when it is not the terminal.
		d.Success("Posted %s on %s#%d: %s", reviewpr.PostedAs(out.Proposal.Event), repo, opts.Number, out.URL)
		if !d.IO.StdoutTTY {
			fmt.Fprintln(d.IO.Out, out.URL)
		}
	}
	return nil
}

// noteConfirmer says on the terminal, never in the posted review, why a
// proposal's event was lowered and how to let it through; then the
// person (or --yes, --print) decides as before.
type noteConfirmer struct {
	reviewpr.Confirmer
	d *cmdutil.Deps
}

func (c noteConfirmer) Decide(ctx context.Context, p reviewpr.Proposal) (reviewpr.DecideReply, error) {
	switch p.Proposed {
	case github.Approve:
		c.d.Warn("the model approved; gh-ocdx posts model approvals as comments: pass --event approve or set allowApprove to let it approve%s", postAsHint(c.Confirmer))
	case github.RequestChanges:
		c.d.Warn("the model requested changes; gh-ocdx posts its review as a comment (--event comment)%s", postAsHint(c.Confirmer))
	}
	return c.Confirmer.Decide(ctx, p)
}

// postAsHint points at Decide's "Post as…" when a person is asked.
func postAsHint(c reviewpr.Confirmer) string {
	if _, ok := c.(*terminalConfirmer); ok {
		return ", or choose \"Post as…\" below"
	}
	return ""
}

// reReviewPR makes rc a re-review when gh-ocdx reviewed the PR at since
// (the newest ledger on it says so) and this clone has since as an ancestor
// of the PR's head: the diff is then only what changed since
// (docs/architecture.md, Re-reviews).
func reReviewPR(ctx context.Context, d *cmdutil.Deps, clone func() *git.Repo, rc *change.Context, since string) {
	pr := rc.PR
	if since == "" || since == pr.HeadRefOid {
		return
	}
	g := clone()
	if g == nil {
		return
	}
	if diff, ok := g.DiffSince(ctx, since, pr.HeadRefOid, pr.BaseRefOid); ok {
		rc.Diff, rc.Since = change.NewContext(pr, []byte(diff), true, rc.Policy).Diff, since
		d.Info("re-review: only what changed since %s, gh-ocdx's last review (--full for the whole PR)", text.ShortOID(since))
	}
}

// wholeDiff is the diff from a commit to head in this clone, base merges
// included, as review-loop follows its findings' lines with.
func wholeDiff(ctx context.Context, clone func() *git.Repo, head string) func(from string) (string, bool) {
	return func(from string) (string, bool) {
		g := clone()
		if g == nil {
			return "", false
		}
		return g.DiffSince(ctx, from, head, "") // no base: nothing left out
	}
}

// openClone is the clone review-pr runs in, opened when first needed (nil
// outside one): the re-review's since-diff and the whole diffs the posting
// follows findings through ask one git.Repo, which asks git each thing
// once (docs/architecture.md, The verbs and their tests).
func openClone(ctx context.Context, d *cmdutil.Deps) func() *git.Repo {
	return sync.OnceValue(func() *git.Repo {
		wd, err := d.Dir()
		if err != nil {
			return nil
		}
		g, err := git.Open(ctx, wd)
		if err != nil {
			return nil
		}
		return g
	})
}

// recordReviewPR keeps review-pr's posted review in the state file as a
// run of its own, so this machine knows it as the PR's ledger tells others
// (docs/architecture.md, The ledger). The review is posted: failing to
// record it is said, not fatal.
func recordReviewPR(d *cmdutil.Deps, p *reviewpr.PRPublisher, model string, event github.ReviewEvent, usage tokens.Usage) {
	run, ok := p.Run(model, event, usage, d.Clock())
	if !ok {
		return
	}
	st, err := d.OpenStore()
	if err == nil {
		err = st.Record(state.NewKey(p.Repo.Host, p.Repo.Owner, p.Repo.Name, p.Number), run)
	}
	if err != nil {
		d.Warn("the review is posted, but the state file could not record it: %v", err)
	}
}
