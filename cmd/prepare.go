package cmd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/loop"
	"github.com/ocdx/gh-ocdx/preflight"
	"github.com/ocdx/gh-ocdx/state"
)

// prepared is what the preflight of a verb that changes a PR established.
type prepared struct {
	cfg     *config.Config // with the PR's repository policy applied
	client  *github.Client
	repo    github.Repo
	co      *preflight.Checkout
	pr      *github.PullRequest
	canPush bool
}

// prepare runs the preflight that review-loop and fix share: configuration,
// the repository (r, or GH_REPO's or the remotes'), GitHub auth, the checkout
// (with check), the PR (arg: a number, or the one whose head is the named or
// current branch; usage is shown when that fails) and whether it can be pushed, then the
// verify commands, which a repository sets in .ocdx.json on the PR's base
// branch: shown with their source and checked on PATH. Nothing is written
// and no model called before. uses names the roles whose keys the verb
// needs (cmdutil.LoadConfigFor).
func prepare(ctx context.Context, d *cmdutil.Deps, r repository.Repository, arg cmdutil.PRArg, usage string, uses func(key string) bool,
	check func(ctx context.Context, dir string) (*preflight.Checkout, error)) (*prepared, error) {
	number := arg.Number
	cfg, err := cmdutil.LoadConfigFor(d, uses)
	if err != nil {
		return nil, err
	}
	p := &prepared{cfg: cfg}
	if p.repo, p.client, err = cmdutil.RepoClient(d, r); err != nil {
		return nil, err
	}
	wd, err := d.Dir()
	if err != nil {
		return nil, err
	}
	if p.co, err = check(ctx, wd); err != nil {
		if errors.Is(err, preflight.ErrDirty) {
			err = interruptedFix(d, p.repo, number, err)
		}
		if errors.Is(err, preflight.ErrDetached) && d.Getenv("GITHUB_ACTIONS") == "true" {
			// actions/checkout checks out the PR's merge commit, detached;
			// gh pr checkout is no advice inside a workflow.
			err = fmt.Errorf("%w in %s: actions/checkout checked out the pull request's merge commit; give its step `ref: ${{ github.head_ref }}` (and fetch-depth: 0) so that the PR's branch is checked out (README, In GitHub Actions)", preflight.ErrDetached, wd)
		}
		return nil, err
	}
	if number == 0 {
		branch := arg.Branch
		if branch == "" {
			branch = p.co.Branch
		}
		if number, err = cmdutil.BranchPR(ctx, p.client, p.repo, branch, usage); err != nil {
			return nil, err
		}
	}
	if p.pr, err = p.client.PullRequest(ctx, p.repo, number); err != nil {
		return nil, err
	}
	if p.canPush, err = preflight.PR(p.pr, p.co.Branch); err != nil {
		return nil, err
	}
	if err := applyBasePolicy(cfg, p.pr); err != nil {
		return nil, err
	}
	for _, w := range cfg.Policy.LearningsWarnings {
		d.Warn("%s", w)
	}
	for _, f := range loop.PolicyChanges(p.pr.Files) {
		// The round report says so too.
		use := policyName(cfg, p.pr)
		if f != config.RepoFile {
			use = "the base branch's"
		}
		d.Warn("PR #%d changes %s: its change takes effect once merged; this run uses %s", p.pr.Number, f, use)
	}
	if len(cfg.Verify) > 0 { // none: requireVerify says so when a push needs them
		from := verifySource(d, cfg)
		if err := preflight.Commands(cfg.Verify, from); err != nil {
			return nil, err
		}
		fmt.Fprintf(d.IO.ErrOut, "verify (%s): %s\n", from, strings.Join(cfg.Verify, "; "))
	}
	return p, nil
}

// applyBasePolicy applies the repository policy of the PR's base branch
// (docs/architecture.md, Where the repository policy comes from).
func applyBasePolicy(cfg *config.Config, pr *github.PullRequest) error {
	p, where, err := cmdutil.BasePolicy(pr)
	if err != nil {
		return err
	}
	cfg.ApplyPolicy(p, where)
	return nil
}

// policyName says which verify list applies, for the message about a PR
// that changes .ocdx.json.
func policyName(cfg *config.Config, pr *github.PullRequest) string {
	if cfg.VerifyFrom != "" {
		return cfg.VerifyFrom
	}
	return fmt.Sprintf("the verify commands of your configuration (%s has no %s)", pr.BaseRefName, config.RepoFile)
}

// verifySource says where the verify commands came from
// (config.Config.VerifySource).
func verifySource(d *cmdutil.Deps, c *config.Config) string { return c.VerifySource(d.Getenv("HOME")) }

// approveVerify asks, in a terminal, before a repository's verify commands
// run for the first time, and again whenever the list changes; the answer is
// remembered per repository in the state file. The user's own configuration
// is never asked about, and neither is --yes or a run without a terminal
// (which needs --yes or --dry-run): the commands come from the base branch,
// which the repository's maintainers control.
// base and commit are the branch and commit the policy was read on.
// The repository's analyzers are approved with them, as one list
// (repoCommands).
func approveVerify(d *cmdutil.Deps, cfg *config.Config, repo github.Repo, base, commit string, ask cmdutil.Prompter) error {
	cmds := repoCommands(cfg)
	if len(cmds) == 0 {
		return nil
	}
	st, err := d.OpenStore()
	if err != nil {
		return err
	}
	ok, _, err := st.Approved(repo.Host, repo.Owner, repo.Name, cmds)
	if err != nil || ok {
		return err
	}
	if cfg.VerifyFrom != "" {
		// The verify line just above lists them with their source: said once.
		fmt.Fprintf(d.IO.ErrOut, "\nThe verify commands above are %s's (%s): gh-ocdx runs them in this checkout, as you, to verify each fix.\n\n",
			repo, cfg.VerifyFrom)
	}
	if cfg.AnalyzersFrom != "" {
		fmt.Fprintf(d.IO.ErrOut, "\nThe analyzers of %s (%s) run in this checkout, as you, on each head reviewed and after each fix:\n  %s\n\n",
			repo, cfg.AnalyzersFrom, strings.Join(cmds[len(cmds)-len(cfg.Analyzers):], "\n  "))
	}
	yes, err := ask.Confirm(fmt.Sprintf("Run these commands for %s (asked again only if they change)?", repo), false)
	if err != nil {
		return err
	}
	if !yes {
		return fmt.Errorf("you declined the verify commands of %s; nothing was run or changed. Read the file (git fetch, then git show %s:%s) and re-run to approve them, or have them changed on %s first",
			cfg.VerifyFrom, text.ShortOID(commit), config.RepoFile, base)
	}
	return st.Approve(repo.Host, repo.Owner, repo.Name, cmds, d.Clock())
}

// repoCommands are the commands of the base branch's .ocdx.json that
// gh-ocdx would run, approved as one list: its verify commands, then its
// analyzers ("analyzer NAME: ARGV"). None when both are the user's own.
func repoCommands(cfg *config.Config) []string {
	var cmds []string
	if cfg.VerifyFrom != "" {
		cmds = append(cmds, cfg.Verify...)
	}
	if cfg.AnalyzersFrom != "" {
		for _, a := range cfg.Analyzers {
			cmds = append(cmds, "analyzer "+a.Name+": "+strconv.Quote(a.Command()))
		}
	}
	return cmds
}

// analyzersApproved reports whether the analyzers in effect may run
// without asking: the user's own, --yes, or the repository's approved
// here (approveVerify); else it says why they do not run.
func analyzersApproved(d *cmdutil.Deps, cfg *config.Config, repo github.Repo, yes bool) bool {
	if len(cfg.Analyzers) == 0 || cfg.AnalyzersFrom == "" || yes {
		return true
	}
	if st, err := d.OpenStore(); err == nil {
		if ok, _, err := st.Approved(repo.Host, repo.Owner, repo.Name, repoCommands(cfg)); err == nil && ok {
			return true
		}
	}
	d.Warn("the analyzers of %s were not run: gh-ocdx runs a repository's commands once you approve them, which a terminal asks (or pass --yes)", cfg.AnalyzersFrom)
	return false
}

// interruptedFix adds to a dirty-tree error the way back when the changes
// are likely an interrupted fix's: the state file holds a fix work in
// progress for a PR of this repository (number, when known).
func interruptedFix(d *cmdutil.Deps, repo github.Repo, number int, dirty error) error {
	st, err := d.OpenStore()
	if err != nil {
		return dirty
	}
	sums, err := st.List()
	if err != nil {
		return dirty
	}
	want := state.NewKey(repo.Host, repo.Owner, repo.Name, 1)
	var hints []string
	for _, s := range sums {
		k := s.Key
		if s.WIP != "" && k.Host == want.Host && k.Owner == want.Owner && k.Repo == want.Repo && (number == 0 || k.Number == number) {
			hints = append(hints, fmt.Sprintf("'gh ocdx fix --pr %d --continue'", k.Number))
		}
	}
	if len(hints) == 0 {
		return dirty
	}
	return fmt.Errorf("%w; if they are an interrupted fix's, %s resumes it", dirty, strings.Join(hints, " or "))
}
