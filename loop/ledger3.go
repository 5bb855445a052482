package loop

import (
	"slices"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/posts"
)

// What the ledger carries since its third version (docs/architecture.md,
// The ledger): who raised each finding, where the report that lists it
// is, who dismissed it and why, and what each model spent; and what a
// fresh machine reads back from gh-ocdx's own posts to fix the open
// findings as the machine before would have.

// ledgerV3 adds to led, the ledger of round n, what its third version
// carries: what the earlier run's ledger said of each finding, then for
// each finding a round of this run listed, its report; the run's tokens
// per model; who dismissed what, and why.
func (l *loop) ledgerV3(led *posts.Ledger, n int) {
	for _, e := range l.seed.Findings {
		for i := range led.Findings {
			if x := &led.Findings[i]; x.ID == e.ID {
				if x.Agreement == "" {
					x.Agreement, x.Reviewers = e.Agreement, slices.Clone(e.Reviewers)
				}
				if x.Where != (posts.Where{}) {
					x.At = e.At // located as that ledger located it
				}
			}
		}
	}
	for _, rr := range l.res.Rounds {
		if rr.N > n {
			continue
		}
		for _, f := range rr.Findings {
			// A report that shows no description points nowhere: the
			// earlier one stays named.
			if !consensus.IsThread(f) && f.Description != "" {
				led.Mark(f.ID, posts.At(l.run.ID(), rr.N))
			}
		}
		for _, f := range rr.Dismissed {
			led.Agree(f.ID, f.Agreement, f.Reviewers) // who raised what was dismissed counts too
			led.Tooled(f.ID, f.Tools)
		}
		for _, r := range rr.Roles {
			led.AddTokens(r.Model, r.Usage.Input, r.Usage.Output)
		}
		if v := rr.Verifier; v != nil {
			led.AddTokens(v.Model, v.Usage.Input, v.Usage.Output)
		}
		if x := rr.Fix; x != nil {
			led.AddTokens(x.Model, x.Usage.Input, x.Usage.Output)
		}
	}
	for _, d := range l.dismissals {
		led.Dismissed(d.ID, d.By, d.Reason)
	}
}

// describeSeeded gives the findings fs, taken from the PR's ledger, the
// category and description gh-ocdx's own posts show of them (describe):
// carried into this run, they reach its reports and the fix agent as
// the machine that raised them would have them.
func (l *loop) describeSeeded(fs []finding.Finding) {
	if l.o.PR == nil {
		return
	}
	for i, f := range fs {
		for _, e := range l.seed.Findings {
			if e.ID == f.ID && fs[i].Description == "" {
				fs[i].Category, fs[i].Description = posts.Describe(l.o.PR, f.ID, e.At)
			}
		}
	}
}
