package loop

import (
	"context"
	"errors"
	"io"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/fix"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/llm"
)

// FixRunner is the Fixer of a real run: package fix on the user's checkout.
type FixRunner struct {
	Repo      github.Repo
	Dir       string // checkout root, on the PR's head branch
	Remote    string // default origin
	Model     llm.Model
	ModelName string
	Verify    []string
	Policy    *config.Policy
	Price     *config.Price // of the fix model; nil: none
	// Confirm asks before each push; nil pushes without asking (--yes).
	Confirm func(ctx context.Context, plan fix.PushPlan) (bool, error)
	// NoPush stops after the verification (a local review): no push, no
	// fix report, no GitHub request: GitHub is nil.
	NoPush   bool
	GitHub   fix.GitHub
	Progress io.Writer
}

// Fix runs fix.Run for the round. Verification that still fails after the
// retries is a result (Status verification-failed), not an error: the loop
// stops on it without converging.
func (r *FixRunner) Fix(ctx context.Context, req FixRequest) (*fix.Result, error) {
	out, err := fix.Run(ctx, fix.Options{
		Repo: r.Repo, PR: req.PR, Dir: r.Dir, Remote: r.Remote, Model: r.Model, ModelName: r.ModelName,
		Verify: r.Verify, Policy: r.Policy, Price: r.Price, Payload: req.Payload, Run: req.Run, Round: req.Round, Resume: req.Resume,
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
