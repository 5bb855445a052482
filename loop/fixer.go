package loop

import (
	"context"
	"errors"
	"io"
	"slices"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/fix"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/state"
)

// FixKind is the run kind of gh ocdx fix in the state file.
const FixKind = "fix"

// BeginFix begins a fix of the PR key at head (gh ocdx fix, /ocdx fix),
// its round holding the findings to fix: an interrupted fix goes on only
// when cont, else it is given up, its work in progress (wip) dropped.
func BeginFix(st Begins, key state.Key, head string, cont, wip bool, p finding.FixPayload) (*state.Active, error) {
	s := start{kind: FixKind, head: head, wip: wip}
	if !cont {
		s.restart = "restarted by the user"
	}
	run, _, err := s.begin(st, key)
	if err != nil {
		return nil, err
	}
	err = run.UpdateRound(1, func(rd *state.Round) {
		if rd.Findings == nil {
			rd.Findings = append(slices.Clone(p.IssuesToFix), p.OptionalIssues...)
			rd.FindingIDs = nil
			for _, f := range p.IssuesToFix {
				rd.FindingIDs = append(rd.FindingIDs, f.ID)
			}
		}
	})
	return run, err
}

// FixRunner is the Fixer of a real run: package fix on the user's checkout.
type FixRunner struct {
	Repo      github.Repo
	Git       *git.Repo // the checkout, on the PR's head branch
	Model     llm.Model
	ModelName string
	Verify    []string
	// Analyzers, when set, run again after the verify commands
	// (fix.Options.Analyzers).
	Analyzers fix.Analyzers
	Policy    *config.Policy
	Price     *config.Price // of the fix model; nil: none
	// Confirm asks before each push; nil pushes without asking (--yes).
	Confirm func(ctx context.Context, plan fix.PushPlan) (bool, error)
	// NoPush stops after the verification (a local review): no push, no
	// fix report, no GitHub request: GitHub and the request's PR are nil.
	NoPush   bool
	GitHub   fix.GitHub
	Progress io.Writer
}

// Fix runs fix.Run for the round. Verification that still fails after the
// retries is a result (Status verification-failed), not an error: the loop
// stops on it without converging.
func (r *FixRunner) Fix(ctx context.Context, req FixRequest) (*state.FixResult, error) {
	out, err := fix.Run(ctx, fix.Options{
		Repo: r.Repo, Change: req.Change, PR: req.PR, Git: r.Git, Model: r.Model, ModelName: r.ModelName,
		Verify: r.Verify, Analyzers: r.Analyzers, Policy: r.Policy, Price: r.Price, Payload: req.Payload, Run: req.Run, Round: req.Round, Resume: req.Resume,
		Confirm: r.Confirm, DryRun: r.NoPush, GitHub: r.GitHub, Progress: r.Progress, Ledger: &req.Ledger,
	})
	var ve *fix.VerifyError
	switch {
	case errors.As(err, &ve) && out != nil:
		return out, nil
	case errors.Is(err, fix.ErrDeclined):
		return out, ErrDeclined
	}
	if ce := llm.AsConfigError("prFixModel", err); ce != nil {
		return out, ce
	}
	return out, err
}
