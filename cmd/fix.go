package cmd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/fix"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/loop"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/preflight"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/state"
)

// FixOptions are the parsed arguments of fix.
type FixOptions struct {
	PR       int    // 0: the open PR whose head is Branch, else the current branch
	Branch   string // the PR's head branch, when named so
	Continue bool
	Findings string // a fix payload file (docs/architecture.md, Envelopes); "" takes the state file's latest review
	Yes      bool
	DryRun   bool
	// MaxTokens is the fix's token budget (--max-tokens); 0: the
	// configuration's maxTokens, if any.
	MaxTokens int64
	Export    *cmdutil.Exporter // --json, --jq, --template; nil: the summary in Markdown
	Repo      repository.Repository
	Prompter  cmdutil.Prompter // nil: survey on the terminal
	usage     string
}

const fixUsage = "gh ocdx fix [<number> | <url> | <branch>] [--continue] [--findings FILE] [--yes] [--dry-run] [--max-tokens N] [--json [fields]] [--jq EXPR | --template T] [-R OWNER/REPO]"

func parseFix(d *cmdutil.Deps, args []string) (*FixOptions, error) {
	var repoFlag string
	opts := &FixOptions{}
	fs := cmdutil.NewFlagSet("fix", fixUsage,
		`Fix the findings of a pull request with the prFixModel agent, on the checked-out
PR branch: the agent edits and commits; gh-ocdx runs the verify commands
(up to 3 attempts), shows the commits, pushes them without force, and posts a
fix report on the PR.

The findings are the P0, P1 and P2 findings of the latest round of the PR's
latest review-loop run, when that round reviewed the PR's current head (stuck
ones left out; P3 passed as optional; otherwise there is nothing to fix, and
fix says why); on a machine that recorded no review of the PR (a fresh CI
runner), the open findings of gh-ocdx's latest report on the PR, read from
its ledger and posts, when that review read the current head; or a fix payload
given with --findings: {"prNumber": N, "round": N, "issuesToFix": [findings],
"optionalIssues": [findings]}. An interrupted fix resumes with --continue.

With --max-tokens N (or maxTokens in the configuration) the fix never passes
N tokens: an attempt starts only when its answer fits in what is left, else
fix stops there with exit 3, saying what the attempt needed and what was
spent.

Examples:
  gh ocdx fix
  gh ocdx fix 24 --yes
  gh ocdx fix --findings payload.json --dry-run
  gh ocdx fix 24 --yes --json status,commits --jq '.commits[].sha'`)
	var prFlag string
	fs.StringVar(&prFlag, "pr", "", "The pull request, as the argument (an alias kept for scripts)")
	fs.BoolVar(&opts.Continue, "continue", false, "Resume an interrupted fix from its work in progress")
	fs.StringVar(&opts.Findings, "findings", "", "Read the findings to fix from `FILE` (a fix payload, JSON)")
	fs.BoolVar(&opts.Yes, "yes", false, "Push without asking (for scripts and CI)")
	fs.BoolVar(&opts.DryRun, "dry-run", false, "Run the agent and the verification; push nothing, post nothing")
	fs.MaxTokensFlag(&opts.MaxTokens, "Start no attempt that could bring the fix's tokens (in and out) past `N`")
	fs.RepoFlag(&repoFlag)
	jf := cmdutil.AddJSONFlags(fs, fixOutput{})
	jf.Positional = true
	if err := fs.ParseArgs(d, jf.Args(args), -1); err != nil {
		return nil, err
	}
	var err error
	if opts.Export, err = jf.Exporter(fs); err != nil {
		return nil, err
	}
	opts.usage = fs.ShortUsage()
	pr, r, err := fs.PRArgument(prFlag, repoFlag)
	if err != nil {
		return nil, err
	}
	opts.PR, opts.Branch, opts.Repo = pr.Number, pr.Branch, r
	if opts.Continue && opts.Findings != "" {
		return nil, fs.UsageErr("--continue resumes the earlier findings: drop --findings, or drop --continue to start over with the file")
	}
	if !opts.Yes && !opts.DryRun && !d.IO.CanPrompt() {
		return nil, fs.NeedsTerminal("fix asks before it pushes", "pass --yes to push without asking (CI), or --dry-run to push nothing")
	}
	return opts, nil
}

func fixPR(ctx context.Context, d *cmdutil.Deps, opts *FixOptions) error {
	// Preflight: configuration, GitHub auth, the checkout, the PR, then the
	// verify commands (a repository's are approved here, in a terminal).
	check := preflight.Local
	if opts.Continue {
		check = preflight.Resuming
	}
	p, err := prepare(ctx, d, opts.Repo, cmdutil.PRArg{Number: opts.PR, Branch: opts.Branch}, opts.usage, cmdutil.UsesRole("prFixModel"), check)
	if err != nil {
		return err
	}
	cfg, client, repo, co, pr := p.cfg, p.client, p.repo, p.co, p.pr
	if !p.canPush && !opts.DryRun {
		return &cmdutil.IncompleteError{Reason: preflight.ReviewOnlyReason(pr) + "; nothing was changed (--dry-run still runs the fix locally)"}
	}
	if !opts.DryRun {
		if err := requireVerify(d, p); err != nil {
			return err
		}
	}
	if opts.Prompter == nil {
		opts.Prompter = d.NewPrompter(ctx)
	}
	if !opts.Yes && d.IO.CanPrompt() {
		if err := approveVerify(d, p.cfg, p.repo, p.pr.BaseRefName, p.pr.BasePolicy.Commit, opts.Prompter); err != nil {
			return err
		}
	}

	st, err := d.OpenStore()
	if err != nil {
		return err
	}
	key := state.NewKey(repo.Host, repo.Owner, repo.Name, pr.Number)
	recorded, err := st.PR(key)
	if err != nil && !errors.Is(err, state.ErrNotFound) {
		return err
	}

	resume, err := chooseResume(d, opts, recorded)
	if err != nil {
		return err
	}
	if err := dirtyFromWIP(co, resume); err != nil {
		return err
	}
	trust := posts.NewTrust(client, repo, cfg.Policy.Trusted())
	payload, note, err := fix.Select(ctx, trust, opts.Findings, pr, recorded, resume, d.Info)
	if err != nil {
		return err
	}
	if len(payload.IssuesToFix) == 0 {
		if opts.Export != nil {
			d.Info("nothing to fix on PR #%d: %s", pr.Number, note)
			return opts.Export.Write(d, fixOutput{PR: report.RefOf(repo, pr), FixResult: &state.FixResult{Status: state.FixNothingToFix,
				Fixed: []finding.FixedIssue{}, Rejected: []finding.RejectedIssue{}, Commits: []finding.Commit{}}})
		}
		fmt.Fprintf(d.IO.Out, "Nothing to fix on PR #%d: %s.\n", pr.Number, note)
		return nil
	}
	if note != "" {
		d.Info("%s", note)
	}

	models := cmdutil.NewRunModels(d, cfg, opts.MaxTokens)
	model, err := models.Model("pr-fix", cfg.PRFix.String(), "prFixModel")
	if err != nil {
		return err
	}
	run, err := loop.BeginFix(st, key, pr.HeadRefOid, resume != nil, recorded.WIP != nil, payload)
	if err != nil {
		return err
	}

	o := fix.Options{Repo: repo, Change: change.OfPR(pr), PR: pr, Git: co.Repo,
		Model: model, ModelName: cfg.PRFix.String(),
		Verify: cfg.Verify, Policy: cfg.Policy, Price: priceOf(cfg, cfg.PRFix.String()), Payload: payload, Run: run, Round: 1, Resume: resume,
		DryRun: opts.DryRun, GitHub: client, Progress: d.ProgressOut(), Source: fix.Source(opts.Findings, resume, payload)}
	// The report ends with the PR's ledger, as a loop's would.
	led, _, _, _ := posts.PRLedger(pr)
	led.Run, led.Kind, led.Round, led.Head = run.ID(), loop.FixKind, 1, pr.HeadRefOid
	led.Tokens = nil // another run's: the fix report counts its own (fix.Run)
	o.Ledger = &led
	if !opts.Yes {
		o.Confirm = confirmPush(d, opts.Prompter)
	}
	d.Log.Debug("fix", "pr", fmt.Sprintf("%s#%d", repo, pr.Number), "findings", len(payload.IssuesToFix), "optional", len(payload.OptionalIssues),
		"model", cfg.PRFix.String(), "resume", resume != nil, "dry-run", opts.DryRun)
	out, err := fix.Run(ctx, o)
	return finishFix(ctx, d, run, opts, models, report.RefOf(repo, pr), pr, out, err)
}

// fixOutput is fix's --json: the pull request, how the fix ended, and
// whether it was a dry run.
type fixOutput struct {
	PR report.PRRef `json:"pr"`
	*state.FixResult
	DryRun bool                 `json:"dryRun"`
	Budget *report.BudgetStatus `json:"budget,omitempty"` // with a token budget
}

// dirtyFromWIP accepts uncommitted changes only when the interrupted fix
// being continued made them.
func dirtyFromWIP(co *preflight.Checkout, resume *state.WIP) error {
	var foreign []string
	for _, p := range co.Dirty {
		if resume == nil || !slices.Contains(resume.FilesModified, p) {
			foreign = append(foreign, p)
		}
	}
	if len(foreign) > 0 {
		return fmt.Errorf("%w in %s that the interrupted fix did not make (%s): commit or stash them, then re-run",
			preflight.ErrDirty, co.Repo.Dir, strings.Join(foreign, ", "))
	}
	return nil
}

// finishFix ends the run as the error says and prints the summary (or
// --json's result, also when verification failed).
func finishFix(ctx context.Context, d *cmdutil.Deps, run *state.Active, opts *FixOptions, models *cmdutil.RunModels, ref report.PRRef, pr *github.PullRequest, out *state.FixResult, err error) error {
	var ve *fix.VerifyError
	var re *fix.ResultError
	var pe *git.PushError
	overBudget := errors.Is(err, llm.ErrBudget)
	if opts.Export != nil && out != nil && (err == nil || errors.As(err, &ve) || overBudget) {
		o := fixOutput{PR: ref, FixResult: out, DryRun: opts.DryRun}
		if b := models.Budget; b != nil {
			o.Budget = &report.BudgetStatus{MaxTokens: b.Max, Spent: b.Spent(), Reached: overBudget}
		}
		if jerr := opts.Export.Write(d, o); jerr != nil {
			return jerr
		}
	}
	switch {
	case err == nil:
		if opts.Export == nil {
			if perr := cmdutil.PrintMarkdown(d, fix.Summary(pr, out, opts.DryRun, models.Spent())); perr != nil {
				return perr
			}
		}
		if opts.DryRun {
			if cerr := run.ClearWIP(); cerr != nil {
				return cerr
			}
			return run.End(state.OutcomeBlocked, "dry run: verified, not pushed")
		}
		return run.End(state.OutcomeConverged, "fix pushed and reported")
	case overBudget && ctx.Err() == nil:
		// Stopped before a model call, as review-loop stops: the work in
		// progress stays for a later fix (--continue) with more tokens.
		reason := fmt.Sprintf("%v; %s", err, models.Spent())
		_ = run.End(state.OutcomeBlocked, reason)
		return &cmdutil.IncompleteError{Reason: reason + "; raise maxTokens (or --max-tokens) to fix"}
	case errors.Is(err, fix.ErrDeclined):
		_ = run.Release()
		return fmt.Errorf("%w: %v; 'gh ocdx fix --continue' pushes them later", cmdutil.ErrCancelled, err)
	case ctx.Err() != nil:
		_ = run.Release()
		return fmt.Errorf("%w; 'gh ocdx fix --continue' resumes", cmdutil.ErrCancelled)
	case errors.As(err, &ve):
		_ = run.End(state.OutcomeBlocked, ve.Error())
		reason := ve.Error()
		if out != nil && out.CommentURL != "" {
			reason += "\nfix report: " + out.CommentURL
		}
		return &cmdutil.IncompleteError{Reason: reason}
	case llm.AsConfigError("prFixModel", err) != nil:
		_ = run.End(state.OutcomeFailed, err.Error())
		return llm.AsConfigError("prFixModel", err)
	case errors.As(err, &re), errors.As(err, &pe):
		_ = run.End(state.OutcomeFailed, err.Error())
		return err
	default:
		// Resumable: a --continue picks the run up where it stopped.
		_ = run.Release()
		return fmt.Errorf("%w\n(the work in progress is saved: 'gh ocdx fix --pr %d --continue' resumes)", err, pr.Number)
	}
}

// chooseResume decides between continuing an interrupted fix and starting
// over: --continue continues; otherwise a terminal asks, and --yes
// continues (it keeps the work, and says so). opts.Prompter is set: fixPR
// defaults it before calling.
func chooseResume(d *cmdutil.Deps, opts *FixOptions, recorded state.PR) (*state.WIP, error) {
	wip := recorded.WIP
	if opts.Continue {
		if wip == nil {
			return nil, fmt.Errorf("there is no interrupted fix to continue for %s: run gh ocdx fix without --continue", recorded.Key)
		}
		return wip, nil
	}
	if wip == nil || opts.Findings != "" {
		return nil, nil
	}
	where := wip.Phase
	if where == "" {
		where = "an early step"
	}
	if opts.Yes || opts.DryRun || !d.IO.CanPrompt() {
		d.Info("continuing the interrupted fix (stopped at: %s); run 'gh ocdx state clear --pr %d' to start over", where, recorded.Key.Number)
		return wip, nil
	}
	i, err := opts.Prompter.Select(fmt.Sprintf("An earlier fix of PR #%d stopped at: %s. What now?", recorded.Key.Number, where),
		[]string{"Continue it", "Start over (local commits stay)", "Abort"})
	if err != nil {
		return nil, err
	}
	switch i {
	case 0:
		return wip, nil
	case 1:
		return nil, nil
	}
	return nil, fmt.Errorf("%w: nothing was changed; the interrupted fix is still recorded", cmdutil.ErrCancelled)
}
