package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/fix"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/text"
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
	Export    *exporter // --json, --jq, --template; nil: the summary in Markdown
	Repo      repository.Repository
	Prompter  Prompter // nil: survey on the terminal
	usage     string
}

const fixUsage = "gh ocdx fix [<number> | <url> | <branch>] [--continue] [--findings FILE] [--yes] [--dry-run] [--max-tokens N] [--json [fields]] [--jq EXPR | --template T] [-R OWNER/REPO]"

func runFix(ctx context.Context, d *Deps, args []string) error {
	opts, err := parseFix(d, args)
	if err != nil {
		return err
	}
	return fixPR(ctx, d, opts)
}

func parseFix(d *Deps, args []string) (*FixOptions, error) {
	var repoFlag string
	opts := &FixOptions{}
	fs := newFlagSet("fix", fixUsage,
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
	fs.maxTokensFlag(&opts.MaxTokens, "Start no attempt that could bring the fix's tokens (in and out) past `N`")
	fs.repoFlag(&repoFlag)
	jf := addJSONFlags(fs, fixOutput{})
	jf.positional = true
	if err := fs.parse(d, jf.args(args), -1); err != nil {
		return nil, err
	}
	var err error
	if opts.Export, err = jf.exporter(fs); err != nil {
		return nil, err
	}
	opts.usage = fs.shortUsage()
	pr, r, err := fs.prArgument(prFlag, repoFlag)
	if err != nil {
		return nil, err
	}
	opts.PR, opts.Branch, opts.Repo = pr.Number, pr.Branch, r
	if opts.Continue && opts.Findings != "" {
		return nil, fs.usageErr("--continue resumes the earlier findings: drop --findings, or drop --continue to start over with the file")
	}
	if !opts.Yes && !opts.DryRun && !d.IO.CanPrompt() {
		return nil, fs.needsTerminal("fix asks before it pushes", "pass --yes to push without asking (CI), or --dry-run to push nothing")
	}
	return opts, nil
}

func fixPR(ctx context.Context, d *Deps, opts *FixOptions) error {
	// Preflight: configuration, GitHub auth, the checkout, the PR, then the
	// verify commands (a repository's are approved here, in a terminal).
	check := preflight.Local
	if opts.Continue {
		check = preflight.Resuming
	}
	p, err := prepare(ctx, d, opts.Repo, prArg{Number: opts.PR, Branch: opts.Branch}, opts.usage, usesRole("prFixModel"), check)
	if err != nil {
		return err
	}
	cfg, client, repo, co, pr := p.cfg, p.client, p.repo, p.co, p.pr
	if !p.canPush && !opts.DryRun {
		return &IncompleteError{Reason: preflight.ReviewOnlyReason(pr) + "; nothing was changed (--dry-run still runs the fix locally)"}
	}
	if !opts.DryRun {
		if err := requireVerify(d, p); err != nil {
			return err
		}
	}
	if opts.Prompter == nil {
		opts.Prompter = d.prompter(ctx)
	}
	if !opts.Yes && d.IO.CanPrompt() {
		if err := approveVerify(d, p.cfg, p.repo, p.pr.BaseRefName, p.pr.BasePolicy.Commit, opts.Prompter); err != nil {
			return err
		}
	}

	st, err := d.store()
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
	payload, note, err := fixPayload(opts, pr, recorded, resume)
	if errors.As(err, new(noReviewError)) {
		// A machine that did not review the PR (a fresh CI runner) fixes
		// what the PR's ledger says is open (docs/architecture.md, The ledger).
		open, stuck, round, why, ok := trust.OpenFindings(ctx, pr)
		if ok {
			payload, note, err = ledgerPayload(pr.Number, open, stuck, round, why)
			d.info("this machine has no review of PR #%d: fixing the open findings of its latest report", pr.Number)
		}
	}
	if err != nil {
		return err
	}
	// A finding dismissed on the PR since it was reviewed is not fixed; nor
	// is one gh-ocdx conceded in a conversation (disputed: a person decides).
	dismissed := posts.IDs(trust.DismissedOn(ctx, pr))
	var disputed []string
	for _, id := range posts.Disputed(pr) {
		if !slices.Contains(dismissed, id) {
			disputed = append(disputed, id)
		}
	}
	if left := leaveOut(&payload, disputed); len(left) > 0 {
		d.info("disputed in a conversation, not fixed: %s (someone with write permission dismisses them, or not)", strings.Join(left, ", "))
		if len(payload.IssuesToFix) == 0 {
			note = "every finding left to fix is disputed in a conversation (" + strings.Join(left, ", ") + ")"
		}
	}
	if left := leaveOut(&payload, dismissed); len(left) > 0 {
		d.info("dismissed on the PR, not fixed: %s", strings.Join(left, ", "))
		if len(payload.IssuesToFix) == 0 {
			note = "every finding left to fix was dismissed on the PR (" + strings.Join(left, ", ") + ")"
		}
	}
	if len(payload.IssuesToFix) == 0 {
		if opts.Export != nil {
			d.info("nothing to fix on PR #%d: %s", pr.Number, note)
			return opts.Export.write(d, fixOutput{PR: report.RefOf(repo, pr), FixResult: &state.FixResult{Status: state.FixNothingToFix,
				Fixed: []finding.FixedIssue{}, Rejected: []finding.RejectedIssue{}, Commits: []finding.Commit{}}})
		}
		fmt.Fprintf(d.IO.Out, "Nothing to fix on PR #%d: %s.\n", pr.Number, note)
		return nil
	}
	if note != "" {
		d.info("%s", note)
	}

	models := newRunModels(d, cfg, opts.MaxTokens)
	model, err := models.model("pr-fix", cfg.PRFix.String(), "prFixModel")
	if err != nil {
		return err
	}
	run, err := loop.BeginFix(st, key, pr.HeadRefOid, resume != nil, recorded.WIP != nil, payload)
	if err != nil {
		return err
	}

	o := fix.Options{Repo: repo, PR: pr, Dir: co.Repo.Dir, Remote: pushRemote(ctx, co),
		Model: model, ModelName: cfg.PRFix.String(),
		Verify: cfg.Verify, Policy: cfg.Policy, Price: priceOf(cfg, cfg.PRFix.String()), Payload: payload, Run: run, Round: 1, Resume: resume,
		DryRun: opts.DryRun, GitHub: client, Progress: d.progressOut(), Source: fixSource(opts, resume, payload)}
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

// fixSource says in the fix report where its findings came from: a fix of
// its own is not a round of a loop.
func fixSource(opts *FixOptions, resume *state.WIP, p finding.FixPayload) string {
	switch {
	case opts.Findings != "":
		return fmt.Sprintf("findings from `%s`", filepath.Base(opts.Findings))
	case resume != nil:
		return "an interrupted fix, continued"
	}
	return fmt.Sprintf("findings of review round %d", p.Round)
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
func finishFix(ctx context.Context, d *Deps, run *state.Active, opts *FixOptions, models *runModels, ref report.PRRef, pr *github.PullRequest, out *state.FixResult, err error) error {
	var ve *fix.VerifyError
	var re *fix.ResultError
	var pe *git.PushError
	overBudget := errors.Is(err, llm.ErrBudget)
	if opts.Export != nil && out != nil && (err == nil || errors.As(err, &ve) || overBudget) {
		o := fixOutput{PR: ref, FixResult: out, DryRun: opts.DryRun}
		if b := models.Budget; b != nil {
			o.Budget = &report.BudgetStatus{MaxTokens: b.Max, Spent: b.Spent(), Reached: overBudget}
		}
		if jerr := opts.Export.write(d, o); jerr != nil {
			return jerr
		}
	}
	switch {
	case err == nil:
		if opts.Export == nil {
			if perr := printFixSummary(d, pr, out, opts.DryRun, models.spent()); perr != nil {
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
		reason := fmt.Sprintf("%v; %s", err, models.spent())
		_ = run.End(state.OutcomeBlocked, reason)
		return &IncompleteError{Reason: reason + "; raise maxTokens (or --max-tokens) to fix"}
	case errors.Is(err, fix.ErrDeclined):
		_ = run.Release()
		return fmt.Errorf("%w: %v; 'gh ocdx fix --continue' pushes them later", ErrCancelled, err)
	case ctx.Err() != nil:
		_ = run.Release()
		return fmt.Errorf("%w; 'gh ocdx fix --continue' resumes", ErrCancelled)
	case errors.As(err, &ve):
		_ = run.End(state.OutcomeBlocked, ve.Error())
		reason := ve.Error()
		if out != nil && out.CommentURL != "" {
			reason += "\nfix report: " + out.CommentURL
		}
		return &IncompleteError{Reason: reason}
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

func printFixSummary(d *Deps, pr *github.PullRequest, out *state.FixResult, dryRun bool, spent string) error {
	var w strings.Builder
	fmt.Fprintf(&w, "## Fix of PR #%d\n\n", pr.Number)
	fmt.Fprintf(&w, "- Fixed: %d, rejected: %d\n", len(out.Fixed), len(out.Rejected))
	fmt.Fprintf(&w, "- Commits: %d, verified in %s\n", len(out.Commits), text.Plural(out.Attempts, "attempt"))
	switch {
	case dryRun:
		fmt.Fprintf(&w, "- Dry run: nothing pushed, nothing posted; the commits are local (HEAD %s)\n", text.ShortOID(out.HeadOID))
	case out.Pushed:
		fmt.Fprintf(&w, "- Pushed to %s (head %s)\n", pr.HeadRefName, text.ShortOID(out.HeadOID))
	default:
		fmt.Fprintln(&w, "- Nothing to push")
	}
	if out.CommentURL != "" {
		fmt.Fprintf(&w, "- Report: %s\n", out.CommentURL)
	}
	if spent != "" {
		fmt.Fprintf(&w, "- Tokens: %s, %s\n", spent, text.Plural(out.Usage.Calls, "call"))
	} else {
		fmt.Fprintf(&w, "- Tokens: %s (%s)\n", out.Usage, text.Plural(out.Usage.Calls, "call"))
	}
	for _, x := range out.Rejected {
		fmt.Fprintf(&w, "- Rejected %s: %s\n", x.FindingID, text.OneLine(x.Reason))
	}
	return printMarkdown(d, w.String())
}

// chooseResume decides between continuing an interrupted fix and starting
// over: --continue continues; otherwise a terminal asks, and --yes
// continues (it keeps the work, and says so). opts.Prompter is set: fixPR
// defaults it before calling.
func chooseResume(d *Deps, opts *FixOptions, recorded state.PR) (*state.WIP, error) {
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
		d.info("continuing the interrupted fix (stopped at: %s); run 'gh ocdx state clear --pr %d' to start over", where, recorded.Key.Number)
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
	return nil, fmt.Errorf("%w: nothing was changed; the interrupted fix is still recorded", ErrCancelled)
}

// fixPayload builds the fix payload: from --findings, from the interrupted
// fix being continued, or from the latest round of the latest review-loop
// run. The note says why the payload is empty, or which stuck findings
// were left out of it.
//
// Only that round counts, and only when it reviewed the PR's current head:
// an older run's findings (say, before a run that converged and dropped
// its own) describe code that is gone, and must not be "fixed" and pushed.
func fixPayload(opts *FixOptions, pr *github.PullRequest, recorded state.PR, resume *state.WIP) (finding.FixPayload, string, error) {
	number := pr.Number
	if opts.Findings != "" {
		p, err := readPayload(opts.Findings, number)
		return p, orWhy(p, "the findings file lists no P0, P1 or P2 finding"), err
	}
	stuck := map[string]bool{}
	for _, s := range recorded.Stuck {
		stuck[s.ID] = true
	}
	if resume != nil {
		for i := len(recorded.Runs) - 1; i >= 0; i-- {
			r := recorded.Runs[i]
			if r.ID == resume.RunID && r.Kind == "fix" && len(r.Rounds) > 0 && r.Rounds[0].Findings != nil {
				p, _ := split(r.Rounds[0].Findings, number, 1, stuck)
				return p, orWhy(p, "the interrupted fix has no finding left"), nil
			}
		}
	}
	var run *state.Run
	for i := len(recorded.Runs) - 1; i >= 0 && run == nil; i-- {
		if k := recorded.Runs[i].Kind; k != "fix" && k != "review-pr" && len(recorded.Runs[i].Rounds) > 0 {
			run = &recorded.Runs[i]
		}
	}
	if run == nil || run.Outcome == state.OutcomeElsewhere {
		// A run another machine made is known here from the PR's ledger
		// only: its findings are read from the PR.
		return finding.FixPayload{}, "", noReviewError(number)
	}
	rd := run.Rounds[len(run.Rounds)-1]
	empty := finding.FixPayload{PRNumber: number, Round: rd.N, IssuesToFix: []finding.Finding{}, OptionalIssues: []finding.Finding{}}
	switch {
	case run.Outcome == state.OutcomeConverged:
		return empty, fmt.Sprintf("the latest review-loop run (%s) converged", run.ID), nil
	case rd.HeadOID != pr.HeadRefOid:
		return empty, fmt.Sprintf("the latest review (run %s, round %d) reviewed an older head %s, and the PR is at %s now: run 'gh ocdx review-loop --pr %d' first",
			run.ID, rd.N, text.ShortOID(rd.HeadOID), text.ShortOID(pr.HeadRefOid), number), nil
	case rd.Findings == nil:
		return empty, fmt.Sprintf("round %d of run %s has no findings recorded (it was not reviewed to the end): run 'gh ocdx review-loop --pr %d' first", rd.N, run.ID, number), nil
	}
	for _, id := range rd.StuckIDs {
		stuck[id] = true
	}
	p, left := split(rd.Findings, number, rd.N, stuck)
	if len(left) > 0 {
		return p, "stuck findings left out (they came back after being reported fixed, and need a human): " + strings.Join(left, ", "), nil
	}
	return p, orWhy(p, "the latest review has no P0, P1 or P2 code finding"), nil
}

// noReviewError: neither the state file nor the PR records a review of
// PR #N.
type noReviewError int

func (n noReviewError) Error() string {
	return fmt.Sprintf("no review of PR #%d is recorded in the state file or on the PR: run 'gh ocdx review-loop --pr %d' first, or give the findings with --findings FILE (a fix payload: see 'gh ocdx fix --help')", n, n)
}

// ledgerPayload is the fix payload of the open findings the PR's ledger
// names (posts.Trust.OpenFindings), stuck ones left out as for a review
// this machine recorded.
func ledgerPayload(number int, open []finding.Finding, stuckIDs []string, round int, why string) (finding.FixPayload, string, error) {
	if why != "" {
		return finding.FixPayload{PRNumber: number, Round: max(round, 1), IssuesToFix: []finding.Finding{}, OptionalIssues: []finding.Finding{}}, why, nil
	}
	stuck := map[string]bool{}
	for _, id := range stuckIDs {
		stuck[id] = true
	}
	p, _ := split(open, number, max(round, 1), stuck)
	if len(stuckIDs) > 0 {
		return p, "stuck findings left out (they came back after being reported fixed, and need a human): " + strings.Join(stuckIDs, ", "), nil
	}
	return p, orWhy(p, "the latest review has no open P0, P1 or P2 code finding"), nil
}

// orWhy is why, when p holds nothing to fix.
func orWhy(p finding.FixPayload, why string) string {
	if len(p.IssuesToFix) > 0 {
		return ""
	}
	return why
}

// split makes a payload of recorded findings, as the loop does: P0..P2 to
// fix, P3 optional, each ID once; thread findings (for humans) and stuck
// ones are left out, the stuck P0..P2 named in left.
func split(recorded []finding.Finding, number, round int, stuck map[string]bool) (p finding.FixPayload, left []string) {
	all := slices.Clone(recorded)
	var ids []string
	for i := range all {
		if all[i].ID == "" {
			all[i].ID = all[i].ComputeID()
		}
		if stuck[all[i].ID] && consensus.Blocking(all[i]) && !consensus.IsThread(all[i]) && !slices.Contains(left, all[i].ID) {
			left = append(left, all[i].ID)
		}
	}
	for id := range stuck {
		ids = append(ids, id)
	}
	toFix, optional := consensus.IssuesToFix(all, ids)
	p = finding.FixPayload{PRNumber: number, Round: round, IssuesToFix: []finding.Finding{}, OptionalIssues: []finding.Finding{}}
	p.IssuesToFix = append(p.IssuesToFix, toFix...)
	p.OptionalIssues = append(p.OptionalIssues, optional...)
	return p, left
}

func readPayload(file string, number int) (finding.FixPayload, error) {
	data, err := config.ReadFile(file)
	if err != nil {
		return finding.FixPayload{}, fmt.Errorf("reading the findings: %w", err)
	}
	var p finding.FixPayload
	if err := json.Unmarshal(data, &p); err != nil {
		return p, fmt.Errorf("%s is not a fix payload ({\"prNumber\", \"round\", \"issuesToFix\", \"optionalIssues\"}): %v", file, err)
	}
	if p.PRNumber != 0 && p.PRNumber != number {
		return p, fmt.Errorf("%s is for PR #%d, not PR #%d: pass --pr %d or the right file", file, p.PRNumber, number, p.PRNumber)
	}
	p.PRNumber = number
	if p.Round < 1 {
		p.Round = 1
	}
	if p.OptionalIssues == nil {
		p.OptionalIssues = []finding.Finding{}
	}
	seen := map[string]bool{}
	for _, list := range [][]finding.Finding{p.IssuesToFix, p.OptionalIssues} {
		for i := range list {
			if list[i].ID == "" {
				list[i].ID = list[i].ComputeID()
			}
			if seen[list[i].ID] {
				return p, fmt.Errorf("%s lists finding %s twice: each finding once, please", file, list[i].ID)
			}
			seen[list[i].ID] = true
		}
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("%s: %w", file, err)
	}
	return p, nil
}

// leaveOut takes the findings of ids out of p, and says which it took.
func leaveOut(p *finding.FixPayload, ids []string) (left []string) {
	drop := func(f finding.Finding) bool {
		if slices.Contains(ids, f.ID) {
			left = append(left, f.ID)
			return true
		}
		return false
	}
	p.IssuesToFix = slices.DeleteFunc(p.IssuesToFix, drop)
	p.OptionalIssues = slices.DeleteFunc(p.OptionalIssues, drop)
	return left
}
