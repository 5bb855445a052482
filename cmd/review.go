package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/fix"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/localchange"
	"github.com/ocdx/gh-ocdx/loop"
	"github.com/ocdx/gh-ocdx/preflight"
	"github.com/ocdx/gh-ocdx/repofs"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/state"
)

// ReviewOptions are the parsed arguments of review (local changes).
type ReviewOptions struct {
	Base     string // "": origin/HEAD's branch, else main or master
	Fix      bool
	Yes      bool
	Verifier string // --verifier; "": the configuration's verifierModel, if any
	// Effort is --effort; "": the configuration's effort, else auto.
	Effort effort.Tier
	Full   bool // review even when nothing changed since the last review
	// Evidence are the tool result files of --evidence
	// (docs/architecture.md, Evidence).
	Evidence []evidenceSpec
	Export   *cmdutil.Exporter // --json, --jq, --template; nil: Markdown
	Prompter cmdutil.Prompter  // nil: survey on the terminal
}

const reviewUsage = "gh ocdx review [--base REF] [--fix] [--yes] [--full] [--effort TIER] [--verifier PROVIDER/MODEL] [--evidence FILE|DIR]... [--json [fields]] [--jq EXPR | --template T]"

const reviewHelp = `Review the current branch before a pull request exists, with every configured
reviewer model side by side: its commits since the merge base with --base
(default: the branch origin/HEAD names, else main, else master), plus its
staged and unstaged changes. Same findings, IDs and consensus as review-loop;
no GitHub request at all, so it works offline with ollama/ models.

Untracked files are listed by name only: their contents are never sent to a
model (an untracked .env stays yours). git add a file to have it reviewed.

--fix has the fix model fix the P0–P2 findings in the working tree; the
verify commands run (up to 3 attempts) and the commits are kept on the
current branch after you confirm (--yes keeps them without asking). Nothing
is ever pushed; when verification fails nothing is committed and the changes
are left in the working tree. --fix needs a clean working tree (commit or
stash first): it reviews the committed changes only.

The repository's policy (.ocdx.json: verify, instructions, paths, ignore;
REVIEW.md) comes from the merge base, never from the branch under review:
a branch's own change to either takes effect once merged, and the output
says so.

--effort (or effort in the configuration) scales who reviews, as in
review-loop: quick is the first reviewer alone, standard every configured
one, deep also has the verifier check every P1–P3 finding; auto, the
default, reviews documentation, tests and generated files alone at quick,
and never a change with a secret in it.

Findings go to stdout, grouped by priority; progress to stderr. Runs are
recorded under the branch (gh ocdx state show --branch NAME), and a finding
that comes back after a fix is reported stuck. Run again on a branch that
has not changed (same commit, same uncommitted changes, same merge base,
policy and reviewers), review repeats its last review without asking the
models ("already reviewed at 1a2b3c4"); --full reviews it again.

With --evidence FILE|DIR (repeatable), or the evidence globs of the merge
base's .ocdx.json, the results of your tools (SARIF, rdjson, rdjsonl,
checkstyle or errorformat lines) on the lines the branch changes are
findings, as in review-loop; the configured analyzers (the "analyzers" of
.ocdx.json or of your configuration) run on the working tree at the
standard and deep tiers, so a pre-push hook sees what CI will.

A finding you decided to keep is dismissed for the branch with
gh ocdx dismiss --branch NAME <ID>: the next reviews list it as dismissed
and do not count it.

Exit codes: 0 no P0/P1/P2 finding left, 1 error, 2 usage, 3 P0–P2 findings
(so it works as a pre-push hook: git push --no-verify skips it once),
130 cancelled.

--json prints the result for scripts (every field, or the fields listed
after it, which --json's line under Flags names), --jq filters it and
--template formats it, as in gh.

Examples:
  gh ocdx review
  gh ocdx review --base origin/release-2
  gh ocdx review --json findings --jq '.findings[] | "\(.file):\(.line) \(.title)"'
  gh ocdx review --fix`

func runReview(ctx context.Context, d *cmdutil.Deps, args []string) error {
	opts, err := parseReview(d, args)
	if err != nil {
		return err
	}
	return reviewLocal(ctx, d, opts)
}

func parseReview(d *cmdutil.Deps, args []string) (*ReviewOptions, error) {
	opts := &ReviewOptions{}
	fs := cmdutil.NewFlagSet("review", reviewUsage, reviewHelp)
	fs.StringVar(&opts.Base, "base", "", "The branch or commit to review against (default: origin/HEAD's branch, else main or master)")
	fs.BoolVar(&opts.Fix, "fix", false, "Fix the P0–P2 findings, verify and commit (never push)")
	fs.BoolVar(&opts.Yes, "yes", false, "With --fix: commit the verified fix without asking")
	fs.StringVar(&opts.Verifier, "verifier", "", "Check the findings a single reviewer raised with `PROVIDER/MODEL` (instead of the configuration's verifierModel)")
	fs.EffortFlag(&opts.Effort, "How much review the branch gets: `TIER` quick, standard, deep or auto (default: the configuration's effort, else auto)")
	fs.BoolVar(&opts.Full, "full", false, "Review again even when nothing changed since the last review")
	var evidenceFlag []string
	fs.StringArrayVar(&evidenceFlag, "evidence", nil, "Read tool results from `FILE|DIR` (SARIF, rdjson, rdjsonl, checkstyle or errorformat lines; FORMAT:FILE names the format): those on changed lines become findings (repeatable)")
	jf := cmdutil.AddJSONFlags(fs, loop.LocalResult{})
	if err := fs.ParseArgs(d, jf.Args(args), 0); err != nil {
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
	if strings.HasPrefix(opts.Base, "-") {
		return nil, fs.UsageErr("invalid --base %q: give a branch or a commit", opts.Base)
	}
	if opts.Yes && !opts.Fix {
		return nil, fs.UsageErr("--yes only applies with --fix (it commits the verified fix without asking)")
	}
	if opts.Fix && !opts.Yes && !d.IO.CanPrompt() {
		return nil, fs.NeedsTerminal("review --fix asks before committing", "pass --yes to commit a verified fix without asking")
	}
	return opts, nil
}

func reviewLocal(ctx context.Context, d *cmdutil.Deps, opts *ReviewOptions) error {
	uses := cmdutil.UsesRole("reviewerModels", "verifierModel")
	if opts.Fix {
		uses = cmdutil.UsesRole("reviewerModels", "prFixModel", "verifierModel")
	}
	cfg, err := cmdutil.LoadConfigFor(d, uses)
	if err != nil {
		return err
	}
	if err := cmdutil.VerifierCredential(d, opts.Verifier); err != nil {
		return err
	}
	g, branch, ch, err := openLocalChange(ctx, d, opts, cfg)
	if err != nil {
		return err
	}
	if len(ch.Files) == 0 {
		fmt.Fprintf(d.IO.ErrOut, "nothing to review: %s has no change since its merge base with %s (%s)\n", branch, ch.Base, text.ShortOID(ch.MergeBase))
		if len(ch.Untracked) > 0 {
			fmt.Fprintf(d.IO.ErrOut, "untracked files are not reviewed (git add them to): %s\n", quoteList(ch.Untracked, 5))
		}
		return nil
	}

	models := cmdutil.NewRunModels(d, cfg, 0)
	reviewers, verifier, err := models.Crew(opts.Verifier)
	if err != nil {
		return err
	}
	tools, err := localEvidence(ctx, d, opts, cfg, g, ch)
	if err != nil {
		return err
	}
	var fixer loop.Fixer
	if opts.Fix {
		if fixer, err = newLocalFixer(ctx, d, opts, cfg, models, g, ch, branch, tools.fixAnalyzers()); err != nil {
			return err
		}
	}
	st, err := d.OpenStore()
	if err != nil {
		return err
	}
	res, err := loop.ReviewLocal(ctx, loop.LocalOptions{
		Key: state.LocalKey(g.OriginID(ctx), branch), Change: *ch, Store: st, Policy: cfg.Policy,
		Reviewers: reviewers, Fixer: fixer, Verifier: verifier, Full: opts.Full, History: g, Effort: cmp.Or(opts.Effort, cfg.Effort),
		Tools:       append(change.RepoTools(repofs.NewTree(ctx, g, ch.Tree)), change.DiffTool(ch.FilesPage)),
		Progress:    d.ProgressOut(),
		Summarized:  summarized(d, opts.Export),
		Budget:      models.Budget,
		Evidence:    tools.gather,
		EvidenceKey: tools.key(),
	})
	if res != nil && res.Outcome != "" {
		if perr := printLocal(d, opts, res); perr != nil {
			return perr
		}
	}
	return localEnded(ctx, d, opts, branch, res, err)
}

// openLocalChange reads the checked-out branch's change since its merge
// base, with the merge base's policy applied to cfg; --fix needs a clean
// working tree.
func openLocalChange(ctx context.Context, d *cmdutil.Deps, opts *ReviewOptions, cfg *config.Config) (*git.Repo, string, *localchange.Change, error) {
	wd, err := d.Dir()
	if err != nil {
		return nil, "", nil, err
	}
	g, err := git.Open(ctx, wd)
	if err != nil {
		return nil, "", nil, err
	}
	branch, err := g.Branch(ctx)
	if err != nil {
		return nil, "", nil, err
	}
	if branch == "" {
		return nil, "", nil, errors.New("HEAD is detached: check out the branch to review (git switch NAME)")
	}
	ch, err := localchange.ReadChange(ctx, g, branch, opts.Base)
	if err != nil {
		return nil, "", nil, err
	}
	if opts.Fix {
		// The fix agent commits what it changes: any change of yours in
		// the tree would be committed with it, or in the way.
		if dirty, err := ch.Uncommitted(ctx, g); err != nil {
			return nil, "", nil, err
		} else if len(dirty) > 0 {
			return nil, "", nil, fmt.Errorf("review --fix needs a clean working tree, and %s uncommitted or untracked changes (%s): commit or stash them first, or run gh ocdx review without --fix", text.Plural(len(dirty), "path has", "paths have"), quoteList(dirty, 3))
		}
	}
	if err := localPolicy(ctx, d, cfg, g, ch, opts.Fix); err != nil {
		return nil, "", nil, err
	}
	return g, branch, ch, nil
}

// localEnded is the error a local review ends with: as a pre-push hook,
// a review that blocks or fails stops the push, and says the ways on.
func localEnded(ctx context.Context, d *cmdutil.Deps, opts *ReviewOptions, branch string, res *loop.LocalResult, err error) error {
	switch {
	case err != nil && res != nil && res.Outcome == state.OutcomeFailed && ctx.Err() == nil:
		// The models failed: a pre-push hook stops the push all the same.
		return fmt.Errorf("%w; as a pre-push hook, git push --no-verify skips the review once", err)
	case err != nil && res != nil && summarized(d, opts.Export) && strings.Contains(res.Reason, err.Error()):
		return cmdutil.ShownError{Err: err} // the review's outcome said it
	case err != nil:
		return err
	case res.Outcome == state.OutcomeBlocked:
		// As a pre-push hook, this stops the push: say the ways on.
		if len(res.Remaining) > 0 {
			fmt.Fprintf(d.IO.ErrOut, "fix the findings, or dismiss one you keep for this branch (gh ocdx dismiss --branch %s %s); as a pre-push hook, git push --no-verify skips the review once\n", branch, res.Remaining[0].ID)
		}
		return &cmdutil.IncompleteError{Reason: res.Reason, Shown: true} // "run ended, blocked — …"
	}
	return nil
}

// localEvidence is a local review's evidence: the --evidence files and
// those the merge base's evidence globs match, read now, and the
// analyzers run on the working tree (the user's own code), the
// repository's once approved (docs/architecture.md, Local review).
func localEvidence(ctx context.Context, d *cmdutil.Deps, opts *ReviewOptions, cfg *config.Config, g *git.Repo, ch *localchange.Change) (*evidenceSource, error) {
	files, err := readEvidence(ctx, d, opts.Evidence, cfg.Policy, g, ch.Head)
	if err != nil {
		return nil, err
	}
	e := &evidenceSource{d: d, files: files, git: g, local: true}
	if len(cfg.Analyzers) == 0 {
		return e, nil
	}
	approved := true
	if id := strings.SplitN(g.OriginID(ctx), "/", 3); cfg.AnalyzersFrom != "" && len(id) == 3 && id[0] != "" {
		repo := github.Repo{Host: id[0], Owner: id[1], Name: id[2]}
		if d.IO.CanPrompt() && !(opts.Fix && opts.Yes) {
			if opts.Prompter == nil {
				opts.Prompter = d.NewPrompter(ctx)
			}
			if err := approveVerify(d, cfg, repo, ch.Base, ch.MergeBase, opts.Prompter); err != nil {
				return nil, err
			}
		}
		approved = analyzersApproved(d, cfg, repo, opts.Fix && opts.Yes)
	}
	if approved {
		e.runner = analyzersOf(d, cfg, g.Dir)
	}
	return e, nil
}

// localPolicy applies the repository policy of the merge base, every key
// of it (docs/architecture.md, Where the repository policy comes from), and
// says when the branch changes it; for --fix, it checks and shows the
// verify commands before anything runs.
func localPolicy(ctx context.Context, d *cmdutil.Deps, cfg *config.Config, g *git.Repo, ch *localchange.Change, fixing bool) error {
	p, where, err := ch.Policy(ctx, g)
	if err != nil {
		return err
	}
	cfg.ApplyPolicy(p, where)
	for _, f := range loop.PolicyChanges(ch.Files) {
		// The review's output says so too.
		d.Warn("this branch changes %s: the change takes effect once merged; this review uses the merge base's (%s)", f, text.ShortOID(ch.MergeBase))
	}
	if !fixing {
		return nil
	}
	from := verifySource(d, cfg)
	if err := preflight.Commands(cfg.Verify, from); err != nil {
		return err
	}
	fmt.Fprintf(d.IO.ErrOut, "verify (%s): %s\n", from, strings.Join(cfg.Verify, "; "))
	return nil
}

// newLocalFixer is the fix of a local review (--fix): package fix's agent
// in the working tree, the verify commands and analyzers run after it.
func newLocalFixer(ctx context.Context, d *cmdutil.Deps, opts *ReviewOptions, cfg *config.Config, models *cmdutil.RunModels, g *git.Repo, ch *localchange.Change, branch string, analyzers fix.Analyzers) (loop.Fixer, error) {
	fm, err := models.Model("pr-fix", cfg.PRFix.String(), "prFixModel")
	if err != nil {
		return nil, err
	}
	if opts.Prompter == nil && !opts.Yes {
		opts.Prompter = d.NewPrompter(ctx)
	}
	// A repository's verify commands are asked about as review-loop
	// asks, once per repository until they change.
	if id := strings.SplitN(g.OriginID(ctx), "/", 3); !opts.Yes && len(id) == 3 && id[0] != "" {
		repo := github.Repo{Host: id[0], Owner: id[1], Name: id[2]}
		if err := approveVerify(d, cfg, repo, ch.Base, ch.MergeBase, opts.Prompter); err != nil {
			return nil, err
		}
	}
	inner := &loop.FixRunner{Git: g, Model: fm, ModelName: cfg.PRFix.String(), Verify: cfg.Verify, Analyzers: analyzers, Policy: cfg.Policy,
		NoPush: true, Progress: d.ProgressOut()}
	return &localFixer{git: g, branch: branch, yes: opts.Yes, ask: opts.Prompter, progress: d.ProgressOut(), inner: inner}, nil
}

// localFixer is the fix of a local review: package fix's agent and
// verification in the working tree, then the user's word before its
// commits stay on the branch. Anything else (verification failing, the
// user declining, an error) takes the commits back and leaves their
// changes in the working tree, uncommitted.
type localFixer struct {
	inner    *loop.FixRunner
	git      *git.Repo
	branch   string
	yes      bool
	ask      cmdutil.Prompter
	progress io.Writer
}

func (f *localFixer) Fix(ctx context.Context, req loop.FixRequest) (*state.FixResult, error) {
	start, err := f.git.Head(ctx)
	if err != nil {
		return nil, err
	}
	rep, err := f.inner.Fix(ctx, req)
	keep := err == nil && rep != nil && rep.Verified
	if keep && !f.yes {
		commits, _ := f.git.Log(ctx, start)
		if len(commits) > 0 {
			stat, _ := f.git.Diffstat(ctx, start)
			fmt.Fprint(f.progress, pushPreview("Commits of the fix on "+f.branch, commits, stat))
			ok, aerr := f.ask.Confirm(fmt.Sprintf("Keep the fix's %s on %s?", text.Plural(len(commits), "commit"), f.branch), true)
			if aerr != nil {
				keep, err = false, aerr
			} else if !ok {
				keep, err = false, loop.ErrDeclined
			}
		}
	}
	if keep {
		if commits, _ := f.git.Log(ctx, start); len(commits) > 0 {
			fmt.Fprintf(f.progress, "the fix's %s on %s; nothing was pushed\n", text.Plural(len(commits), "commit stays", "commits stay"), f.branch)
		}
	} else {
		if head, herr := f.git.Head(ctx); herr == nil && head != start {
			if _, rerr := f.git.Run(ctx, "reset", "--soft", start); rerr != nil {
				return rep, errors.Join(err, fmt.Errorf("taking back the fix's commits: %w; reset the branch to %s by hand", rerr, text.ShortOID(start)))
			}
			fmt.Fprintf(f.progress, "nothing was committed: %s is back at %s, the fix's changes are staged in the working tree (git diff --cached; git reset --hard drops them)\n", f.branch, text.ShortOID(start))
		}
		if rep != nil && !rep.Verified {
			// fix's advice (push by hand, fix --continue) is for a PR.
			rep.Failure, _, _ = strings.Cut(rep.Failure, ";")
		}
	}
	return rep, err
}

// printLocal writes the result: JSON (--json, --jq, --template) or the
// findings by priority.
func printLocal(d *cmdutil.Deps, opts *ReviewOptions, res *loop.LocalResult) error {
	if opts.Export != nil {
		return opts.Export.Write(d, res)
	}
	return cmdutil.PrintMarkdown(d, renderLocal(res))
}

// renderLocal is the review as Markdown: the outcome, then the findings
// grouped by priority with file:line.
func renderLocal(res *loop.LocalResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# gh ocdx review: %s against %s (%s) — %s\n\n", res.Branch, res.Base, text.ShortOID(res.MergeBase), res.Label)
	fmt.Fprintf(&b, "%s\n\n", res.Reason)
	c := res.Counts
	fmt.Fprintf(&b, "- Consensus: %s (P0 %d, P1 %d, P2 %d, P3 %d)\n", orDash(res.Consensus), c.P0, c.P1, c.P2, c.P3)
	var roles []string
	for _, r := range res.Roles {
		st := "ok"
		if !r.OK {
			st = "failed" // why is on stderr, said once; in --json, roles[].error
		}
		roles = append(roles, fmt.Sprintf("%s (%s) %s", r.Role, r.Model, st))
	}
	fmt.Fprintf(&b, "- Reviewers: %s\n", strings.Join(roles, "; "))
	if res.Effort != nil {
		fmt.Fprintf(&b, "- Effort: %s\n", report.EffortSaid(*res.Effort))
	}
	fmt.Fprintf(&b, "- Coverage: %s\n", res.Coverage)
	if len(res.PolicyChanged) > 0 {
		fmt.Fprintf(&b, "- Repository policy: this branch changes %s; the change takes effect once merged: this review used the merge base's\n", quoteList(res.PolicyChanged, 2))
	}
	if len(res.Untracked) > 0 {
		fmt.Fprintf(&b, "- Untracked, not reviewed (names only, contents never sent): %s\n", quoteList(res.Untracked, 10))
	}
	if f := res.Fix; f != nil {
		fmt.Fprintf(&b, "- Fix: %d fixed, %d rejected, %s, verified %t\n", len(f.Fixed), len(f.Rejected), text.Plural(len(f.Commits), "commit"), f.Verified)
	}
	if res.Budget != nil {
		fmt.Fprintf(&b, "- Tokens: %s\n", res.Budget)
	}
	if res.Learned != nil {
		fmt.Fprintf(&b, "- Learnings: %s\n", res.Learned)
	}
	for _, p := range finding.Priorities {
		var fs []finding.Finding
		for _, f := range res.Findings {
			if f.Priority == p {
				fs = append(fs, f)
			}
		}
		if len(fs) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s (%d)\n\n", p, len(fs))
		for _, f := range fs {
			where := f.File
			if f.Line != nil {
				where += ":" + strconv.Itoa(*f.Line)
			}
			extra := ""
			if slices.Contains(res.Stuck, f.ID) {
				extra = ", stuck"
			}
			by := consensus.Agreement(f)
			if by == "" && f.Source != nil {
				by = f.Source.Name
			}
			fmt.Fprintf(&b, "- `%s` **%s** (%s, %s%s): %s\n", where, text.OneLine(f.Title), f.ID, by, extra, text.OneLine(f.Description))
			if s := strings.TrimSpace(f.Suggestion); s != "" {
				fmt.Fprintf(&b, "  - Suggestion: %s\n", text.OneLine(s))
			}
		}
	}
	if len(res.Findings) == 0 && res.Outcome != state.OutcomeFailed {
		// A failed review found nothing because it did not review.
		b.WriteString("\nNo findings.\n")
	}
	if v := res.Verifier; v != nil && !v.OK {
		fmt.Fprintf(&b, "\nThe verifier (%s) failed: the findings it was to check stand as the reviewers raised them (%s).\n", v.Model, text.FirstLine(v.Error))
	}
	if len(res.Refuted) > 0 {
		fmt.Fprintf(&b, "\n## Refuted by the verifier (%d)\n\nNot counted, not fixed:\n\n", len(res.Refuted))
		for _, f := range res.Refuted {
			fmt.Fprintf(&b, "- `%s` **%s** (%s %s): %s\n  - Evidence: %s\n", f.File, text.OneLine(f.Title), f.ID, f.Priority, text.OneLine(f.Description), text.OneLine(f.Evidence))
		}
	}
	if len(res.Dismissed) > 0 {
		fmt.Fprintf(&b, "\n## Dismissed (%d)\n\nDismissed for this branch (gh ocdx dismiss --branch): not counted, not fixed.\n\n", len(res.Dismissed))
		for _, f := range res.Dismissed {
			fmt.Fprintf(&b, "- `%s` %s **%s** (%s)\n", f.ID, f.Priority, text.OneLine(f.Title), f.File)
		}
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// quoteList writes up to n names, and how many more.
func quoteList(names []string, n int) string {
	q := make([]string, 0, n+1)
	for i, s := range names {
		if i == n {
			q = append(q, fmt.Sprintf("and %d more", len(names)-n))
			break
		}
		q = append(q, strconv.Quote(s))
	}
	return strings.Join(q, ", ")
}
