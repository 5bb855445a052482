package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/cmd/describecmd"
	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/loop"
	"github.com/ocdx/gh-ocdx/preflight"
	"github.com/ocdx/gh-ocdx/repofs"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/roles"
	"github.com/ocdx/gh-ocdx/state"
)

// ReviewLoopOptions are the parsed arguments of review-loop.
type ReviewLoopOptions struct {
	PR       int    // 0: the open PR of Branch, else of the current branch
	Branch   string // the PR's head branch, when named so
	RepoFlag string // -R, validated
	Yes      bool
	DryRun   bool
	Export   *cmdutil.Exporter // --json, --jq, --template; nil: Markdown
	Full     bool              // review every round in full, never only what changed
	// MaxTokens is the run's token budget (--max-tokens); 0: the
	// configuration's maxTokens, if any.
	MaxTokens int64
	// Verifier is the verifier's provider/model for this run (--verifier);
	// "": the configuration's verifierModel, if any.
	Verifier string
	// Effort is the tier asked for by --effort; "": the configuration's
	// effort, else auto.
	Effort   effort.Tier
	Prompter cmdutil.Prompter // nil: survey on the terminal
	// ReviewOnly, when set, says why this run reviews and fixes nothing
	// (an /ocdx review the repository does not let fix: gh ocdx command).
	ReviewOnly string
	// CheckRun publishes the run's verdict as the gh-ocdx check run on the
	// head it reviewed (--check-run).
	CheckRun bool
	// Evidence are the tool result files of --evidence
	// (docs/architecture.md, Evidence).
	Evidence []evidenceSpec
}

const reviewLoopHelp = `Review a pull request with every configured reviewer model and the comments
analyzer side by side, post the review report, fix what they found (P0–P2)
with the fix model, verify, push, and review again: at most 3 rounds, until
the reviewers approve with no P0/P1/P2 finding and no unresolved review
thread.

Run it in a clean checkout of the PR's head branch. Without an argument it takes
the open PR of the current branch. Each push is confirmed first; --yes pushes
without asking (CI). A PR you cannot push to (a fork, READ permission) is
reviewed once and not fixed. An interrupted run resumes where it stopped and
never posts the same report twice.

Once gh-ocdx has reviewed the PR (an earlier round, or an earlier run at a
head the PR's head descends from), the reviewers get only what changed
since, with the findings of that review to cmdutil.Judge as still present or
resolved; their tools still read the whole PR. A force-push or a rebase
means a full review; --full asks for one every round. A head already
reviewed to convergence is not reviewed or posted on again (it says
"already reviewed at <sha>"): --full reviews it anyway. Killed inside its
fix, the same command resumes the fix.

With a verifier (verifierModel in the configuration, or --verifier for one
run), each P1–P3 finding only one reviewer raised is checked against the
code; one it refutes is listed with the evidence, not posted inline,
counted or fixed. "gh ocdx restore" overrules it.

Each round runs at an effort tier (--effort, or effort in the
configuration): quick is the first reviewer alone, without the verifier,
and without the comments analyzer unless the PR has unresolved review
threads; standard is every configured role; deep also has the verifier
check every P1–P3 finding. auto, the default, chooses from the change it
reviews: documentation, tests and generated files alone get quick, a path
the base branch's .ocdx.json marks "effort": "deep", a change of more than
1,000 lines or a PR with an earlier security finding get deep, the rest
standard; a secret in the change is never reviewed at quick. The report
and --json say which tier ran and why. A tier changes who reviews, never
what converges.

With --evidence FILE|DIR (repeatable), or the evidence globs of the base
branch's .ocdx.json (files git does not track at the PR's head), round 1
reads the repository's own tool results: SARIF, rdjson, rdjsonl,
checkstyle or errorformat lines (file:line:col: message), detected or
named as FORMAT:FILE. A result on a line the PR adds is a finding named
for its tool (error P1, warning P2, note P3; security severity 7+ P1, 9+
P0) and is shown to the reviewers; a reviewer's finding that names its
rule there is the same finding. Results on other lines are counted, not
raised. Round 1 also reads the annotations of the head's check runs and
the PR's open code-scanning alerts (a token that may not read them costs
one line). The "analyzers" of .ocdx.json or of your configuration run on
the head of a PR from this repository (never a fork's) at the standard
and deep tiers, and again after each fix as part of its verification.

With --max-tokens (or maxTokens in the configuration) the run never passes
the budget: a round starts only when every role's answer (input estimate
plus output cap) fits in what is left, and a fix attempt likewise;
otherwise the run ends there and says what the round needed.

With --check-run (the GitHub Action passes it), the verdict is also the
gh-ocdx check run on the head the last round reviewed, which a branch
ruleset can require: success when converged, failure when blocked or
failed, neutral for a review-only run; its summary lists the findings and
its annotations put the open ones on their lines. A rerun on the same
commit updates that check run. Check runs need a GitHub App's token (a
workflow's GITHUB_TOKEN with checks: write); another token gets one "!"
line, and the run goes on. --dry-run publishes none.

Exit codes: 0 converged, 1 error, 2 usage, 3 finished without converging
(max rounds, stuck findings, unresolved threads, review only, verification
failed, token budget reached), 130 cancelled.

Examples:
  gh ocdx review-loop
  gh ocdx review-loop 24 --yes
  gh ocdx review-loop '#24' --dry-run --json
  gh ocdx review-loop 24 --yes --json outcome,rounds --jq '.rounds[].counts'`

func runReviewLoop(ctx context.Context, d *cmdutil.Deps, args []string) error {
	opts, err := parseReviewLoop(d, args)
	if err != nil {
		return err
	}
	return reviewLoop(ctx, d, opts)
}

const reviewLoopUsage = "gh ocdx review-loop [<number> | <url> | <branch>] [--yes] [--dry-run] [--json [fields]] [--jq EXPR | --template T] [--full] [--effort TIER] [--max-tokens N] [--verifier PROVIDER/MODEL] [--evidence FILE|DIR]... [--check-run] [-R OWNER/REPO]"

func parseReviewLoop(d *cmdutil.Deps, args []string) (*ReviewLoopOptions, error) {
	opts := &ReviewLoopOptions{}
	var prFlag string
	fs := cmdutil.NewFlagSet("review-loop", reviewLoopUsage, reviewLoopHelp)
	fs.StringVar(&prFlag, "pr", "", "The pull request, as the argument (an alias kept for scripts)")
	fs.BoolVar(&opts.Yes, "yes", false, "Push fixes without asking (for CI)")
	fs.BoolVar(&opts.DryRun, "dry-run", false, "Review once and print what would be posted and fixed; post, push and record nothing. The outcome and exit code are the run's after that round (would-fix: it would fix and review again)")
	fs.BoolVar(&opts.Full, "full", false, "Review the whole PR every round, not only what changed since gh-ocdx's last review, even on a head it already approved")
	fs.MaxTokensFlag(&opts.MaxTokens, "Start no round or fix that could bring the run's tokens (in and out) past `N`")
	fs.StringVar(&opts.Verifier, "verifier", "", "Check the findings a single reviewer raised with `PROVIDER/MODEL` for this run (instead of the configuration's verifierModel)")
	fs.EffortFlag(&opts.Effort, "How much review each round gets: `TIER` quick, standard, deep or auto (default: the configuration's effort, else auto)")
	fs.BoolVar(&opts.CheckRun, "check-run", false, "Publish the verdict as the gh-ocdx check run on the reviewed head, with the open findings as annotations (needs a GitHub App's token, such as a workflow's with checks: write)")
	var evidenceFlag []string
	fs.StringArrayVar(&evidenceFlag, "evidence", nil, "Read tool results from `FILE|DIR` (SARIF, rdjson, rdjsonl, checkstyle or errorformat lines; FORMAT:FILE names the format): those on changed lines become findings (repeatable)")
	fs.RepoFlag(&opts.RepoFlag)
	jf := cmdutil.AddJSONFlags(fs, report.Result{})
	jf.Positional = true
	if err := fs.ParseArgs(d, jf.Args(args), -1); err != nil {
		return nil, err
	}
	var err error
	if opts.Export, err = jf.Exporter(fs); err != nil {
		return nil, err
	}
	if fs.Changed("verifier") {
		if _, err := llm.ParseModel(opts.Verifier); err != nil {
			return nil, fs.UsageErr("invalid --verifier: %v", err)
		}
	}
	if opts.Evidence, err = parseEvidence(evidenceFlag); err != nil {
		return nil, fs.UsageErr("%v", err)
	}
	pr, r, err := fs.PRArgument(prFlag, opts.RepoFlag)
	if err != nil {
		return nil, err
	}
	opts.PR, opts.Branch = pr.Number, pr.Branch
	if pr.Repo.Name != "" {
		opts.RepoFlag = cmdutil.RepoString(r)
	}
	if !opts.Yes && !opts.DryRun && !d.IO.CanPrompt() {
		return nil, fs.NeedsTerminal("review-loop asks before each push", "pass --yes to push without asking (CI), or --dry-run to post and push nothing")
	}
	return opts, nil
}

// resumesItsFix allows a dirty work tree only as the uncommitted work of
// this PR's interrupted run, killed inside its fix: the same command then
// resumes it (docs/architecture.md, A round of review-loop). Anything else
// is refused as a dirty tree is.
func resumesItsFix(ctx context.Context, d *cmdutil.Deps, repo github.Repo, pr *github.PullRequest, co *preflight.Checkout) error {
	_, dirty := preflight.Local(ctx, co.Repo.Dir)
	if dirty == nil {
		return nil // cleaned in between
	}
	st, err := d.OpenStore()
	if err != nil {
		return dirty
	}
	rec, err := st.PR(state.NewKey(repo.Host, repo.Owner, repo.Name, pr.Number))
	if err != nil || rec.WIP == nil || len(rec.Runs) == 0 {
		return interruptedFix(d, repo, pr.Number, dirty)
	}
	last := rec.Runs[len(rec.Runs)-1]
	if last.ID != rec.WIP.RunID || last.Kind != loop.Kind || last.Outcome != "" || !last.Describes(pr.HeadRefOid) {
		return interruptedFix(d, repo, pr.Number, dirty)
	}
	if err := dirtyFromWIP(co, rec.WIP); err != nil {
		return err
	}
	d.Info("resuming run %s, interrupted inside its fix: the uncommitted changes (%s) are its own", last.ID, strings.Join(co.Dirty, ", "))
	return nil
}

func reviewLoop(ctx context.Context, d *cmdutil.Deps, opts *ReviewLoopOptions) error {
	p, reason, canPush, err := startLoop(ctx, d, opts)
	if err != nil {
		return err
	}
	cfg, client, repo, co, pr := p.cfg, p.client, p.repo, p.co, p.pr

	tools, err := loopEvidence(ctx, d, opts, p)
	if err != nil {
		return err
	}
	models := cmdutil.NewRunModels(d, cfg, opts.MaxTokens)
	am, err := models.Model("comments-analyzer", cfg.CommentsAnalyzer.String(), "commentsAnalyzerModel")
	if err != nil {
		return err
	}
	fm, err := models.Model("pr-fix", cfg.PRFix.String(), "prFixModel")
	if err != nil {
		return err
	}
	reviewers, verifier, err := models.Crew(opts.Verifier)
	if err != nil {
		return err
	}
	st, err := d.OpenStore()
	if err != nil {
		return err
	}

	progress := d.ProgressOut()
	fixer := &loop.FixRunner{Repo: repo, Git: co.Repo, Model: fm, ModelName: cfg.PRFix.String(),
		Verify: cfg.Verify, Analyzers: tools.fixAnalyzers(), Policy: cfg.Policy, Price: priceOf(cfg, cfg.PRFix.String()), GitHub: client, Progress: progress}
	if !opts.Yes {
		fixer.Confirm = confirmPush(d, opts.Prompter)
	}
	files := headFiles(ctx, d, co.Repo, client, repo, pr.Number)
	opening, notMet := describecmd.Opening(ctx, d, cfg, models, client, repo, pr)
	d.Log.Debug("review-loop", "pr", fmt.Sprintf("%s#%d", repo, pr.Number), "reviewers", len(reviewers), "push", canPush, "dry-run", opts.DryRun)
	res, err := loop.Run(ctx, loop.Options{
		Repo: repo, PR: pr, CanPush: canPush, ReviewOnlyReason: reason, InlinePriorities: cfg.InlinePriorities, MaxInlineComments: cfg.MaxInlineComments,
		GitHub: client, Store: st,
		Reviewers: reviewers, Analyzer: roles.Role{Name: "comments-analyzer", Key: "commentsAnalyzerModel", Model: cfg.CommentsAnalyzer.String(), LLM: am},
		ReviewerTools: func(head string) []llm.Tool {
			return append(change.RepoTools(files(head)), change.PRTools(client, repo, pr.Number)...)
		},
		AnalyzerTools: func(head string) []llm.Tool { return change.RepoTools(files(head)) },
		Fixer:         fixer,
		Policy:        cfg.Policy,
		Budget:        models.Budget,
		Prices:        cfg.Prices,
		DryRun:        opts.DryRun,
		Progress:      progress,
		Since:         co.Repo.DiffSince,
		Whole: func(ctx context.Context, from, to string) (string, bool) {
			return co.Repo.DiffSince(ctx, from, to, "") // no base: nothing left out
		},
		PRDiff:     co.Repo.PRDiff,
		LocalDiff:  co.Repo.OpenPRDiff,
		History:    co.Repo,
		Full:       opts.Full,
		Verifier:   verifier,
		Effort:     cmp.Or(opts.Effort, cfg.Effort),
		Summarized: summarized(d, opts.Export),
		Opening:    opening,
		Evidence:   tools.gather,
		Compliance: notMet,
	})
	return endLoop(ctx, d, opts, p, reason, res, err)
}

// startLoop is review-loop's preflight: the configuration, GitHub auth,
// the checkout, the PR and the verify commands, with no PR action before;
// reason is why the run reviews and fixes nothing ("" when it fixes), and
// canPush whether it may push.
func startLoop(ctx context.Context, d *cmdutil.Deps, opts *ReviewLoopOptions) (p *prepared, reason string, canPush bool, err error) {
	r, _ := cmdutil.ParseRepoFlag(opts.RepoFlag, d.DefaultHost()) // checked when parsed
	if err := cmdutil.VerifierCredential(d, opts.Verifier); err != nil {
		return nil, "", false, err
	}
	p, err = prepare(ctx, d, r, cmdutil.PRArg{Number: opts.PR, Branch: opts.Branch}, "Usage: "+reviewLoopUsage,
		cmdutil.UsesRole("reviewerModels", "commentsAnalyzerModel", "prFixModel", "verifierModel"), preflight.Resuming)
	if err != nil {
		return nil, "", false, err
	}
	cfg, repo, co, pr, canPush := p.cfg, p.repo, p.co, p.pr, p.canPush
	if opts.ReviewOnly != "" {
		canPush = false
	}
	if canPush && !opts.DryRun {
		if err := requireVerify(d, p); err != nil {
			return nil, "", false, err
		}
	}
	if len(co.Dirty) > 0 {
		if err := resumesItsFix(ctx, d, repo, pr, co); err != nil {
			return nil, "", false, err
		}
	}
	if n := co.Repo.Ahead(ctx, pr.HeadRefOid, co.Head); n > 0 {
		// Unpushed commits, such as a fix whose push was declined: the
		// run's push question offers them again.
		d.Warn("your checkout is %s ahead of PR #%d's head %s: the reviewers read the PR's head, and the next push includes them (git log --oneline %s..HEAD)", text.Plural(n, "commit"), pr.Number, text.ShortOID(pr.HeadRefOid), text.ShortOID(pr.HeadRefOid))
	} else if pr.HeadRefOid != co.Head {
		d.Warn("your checkout is at %s but PR #%d's head on GitHub is %s: the reviewers read the PR's head, the fix works on your checkout; pull first (gh pr checkout %d)", text.ShortOID(co.Head), pr.Number, text.ShortOID(pr.HeadRefOid), pr.Number)
	}
	reason = opts.ReviewOnly
	if !canPush && reason == "" {
		reason = preflight.ReviewOnlyReason(pr)
		d.Warn("%s", reason)
	}
	if opts.Prompter == nil {
		opts.Prompter = d.NewPrompter(ctx)
	}
	// The verify commands run only when a fix is made and pushed; the
	// repository's analyzers on any same-repository head.
	if (canPush && !opts.DryRun || cfg.AnalyzersFrom != "" && !pr.IsCrossRepository) && !opts.Yes && d.IO.CanPrompt() {
		if err := approveVerify(d, p.cfg, p.repo, p.pr.BaseRefName, p.pr.BasePolicy.Commit, opts.Prompter); err != nil {
			return nil, "", false, err
		}
	}
	return p, reason, canPush, nil
}

// endLoop says how the run ended: the summary (or --json), the check run,
// and the error that gives the exit code.
func endLoop(ctx context.Context, d *cmdutil.Deps, opts *ReviewLoopOptions, p *prepared, reason string, res *report.Result, err error) error {
	client, repo, pr := p.client, p.repo, p.pr
	if ctx.Err() != nil || errors.Is(err, cmdutil.ErrCancelled) {
		// Stopped by the person: one line says so (cmdutil.EndMessage), not a
		// summary whose outcome is "context canceled".
		return fmt.Errorf("%w; run the same command to resume", cmdutil.ErrCancelled)
	}
	if opts.CheckRun && !opts.DryRun {
		publishCheck(ctx, d, client, repo, pr.Viewer, res, reason != "")
	}
	if res != nil && (len(res.Rounds) > 0 || res.Outcome != "") {
		if opts.Export != nil {
			if jerr := opts.Export.Write(d, res); jerr != nil {
				return jerr
			}
		} else if perr := cmdutil.PrintMarkdown(d, report.RenderSummary(res)); perr != nil {
			return perr
		}
	}
	switch {
	case errors.Is(err, loop.ErrDeclined):
		return fmt.Errorf("%w: %v; the commits stay local, and a re-run resumes", cmdutil.ErrCancelled, err)
	case err != nil && res != nil && summarized(d, opts.Export) && strings.Contains(res.Reason, err.Error()):
		return cmdutil.ShownError{Err: err} // the summary's outcome said it
	case err != nil:
		return err
	case res.Outcome == state.OutcomeBlocked:
		// A run said "run ended, blocked — …"; a dry run ends as it would, said here.
		return &cmdutil.IncompleteError{Reason: res.Reason, Shown: !res.DryRun}
	}
	return nil
}

// loopEvidence is a run's evidence source (docs/architecture.md,
// Evidence): the result files, read now, then each round's head's on
// GitHub and the analyzers', approved, never for a fork.
func loopEvidence(ctx context.Context, d *cmdutil.Deps, opts *ReviewLoopOptions, p *prepared) (*evidenceSource, error) {
	pr := p.pr
	results, err := readEvidence(ctx, d, opts.Evidence, p.cfg.Policy, p.co.Repo, pr.HeadRefOid)
	if err != nil {
		return nil, err
	}
	e := &evidenceSource{d: d, files: results, filesHead: pr.HeadRefOid, gh: p.client, repo: p.repo, number: pr.Number, git: p.co.Repo}
	switch {
	case pr.IsCrossRepository:
		e.runner = analyzersOf(d, p.cfg, p.co.Repo.Dir) // only for its line: never run
		e.never = fmt.Sprintf("PR #%d comes from a fork (%s), and gh-ocdx never runs a fork's code", pr.Number, cmp.Or(pr.HeadRepository, "deleted"))
	case analyzersApproved(d, p.cfg, p.repo, opts.Yes):
		e.runner = analyzersOf(d, p.cfg, p.co.Repo.Dir)
	}
	return e, nil
}

// summarized reports whether a run's Markdown summary goes to the terminal
// the progress lines are on: the summary then says how the run ended, once.
func summarized(d *cmdutil.Deps, export *cmdutil.Exporter) bool {
	return export == nil && d.IO.StdoutTTY && d.IO.StderrTTY
}

// priceOf is the configured price of model; nil when there is none.
func priceOf(cfg *config.Config, model string) *config.Price {
	if p, ok := cfg.Prices[model]; ok {
		return &p
	}
	return nil
}

// headFiles gives a round's roles the tracked files of the head it reviews:
// from git when the commit is here (it is after gh-ocdx's own push), else
// through the API. Never the work tree, whose ignored files (.env, .npmrc)
// are the user's, not the PR's.
func headFiles(ctx context.Context, d *cmdutil.Deps, g *git.Repo, gh *github.Client, repo github.Repo, number int) func(head string) change.Files {
	var last change.Files
	lastHead := ""
	return func(head string) change.Files {
		if last == nil || head != lastHead {
			if g.HasCommit(ctx, head) {
				last = repofs.NewTree(ctx, g, head)
			} else {
				d.Info("PR #%d's head %s is not in this clone: the reviewers read its files through the API, without search (fetch it to let them search)", number, text.ShortOID(head))
				last = change.NewAPIFiles(ctx, gh, repo, head)
			}
			lastHead = head
		}
		return last
	}
}
