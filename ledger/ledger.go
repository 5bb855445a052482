// Package ledger is the ledger a run writes (docs/architecture.md, The
// ledger): every report gh-ocdx posts ends with the statuses of the PR's
// findings, and a machine whose state file lacks the PR's latest run takes
// them from there. Of builds it from what the run's rounds found, fixed,
// refuted and had dismissed, over what the PR's earlier ledger said;
// package posts writes and reads the block.
package ledger

import (
	"cmp"
	"slices"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/fix"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/state"
)

// Run is what a run knows when it writes a round's ledger.
type Run struct {
	ID string
	// Converged says the round's review converged at the head the ledger
	// is written for (posts.Ledger.Converged).
	Converged bool
	// Seed is the PR's newest ledger when the run began: what other runs
	// (this machine's or another's) knew.
	Seed     posts.Ledger
	Rounds   []report.RoundResult // the run's rounds so far
	Recorded []state.Round        // the same rounds as the state file has them, with their fixes
	// Stuck is the PR's stuck set, Disputed the findings gh-ocdx conceded
	// in its threads and to whose reply (posts.Concessions).
	Stuck      []string
	Disputed   []posts.Concession
	Dismissals []posts.Dismissal // the findings people dismissed on the PR
	Restores   []posts.Restore   // the refuted findings people restored
}

// Of is the PR's ledger as round n of run r leaves it at head, its fix not
// yet counted: what an earlier run's ledger said, then each round's
// findings (open) and fixes (fixed), the stuck set and the dismissed. The
// newest round a reviewer answered is the next review's basis: its
// findings are located, and what an earlier review raised that it did not
// is resolved.
func Of(r Run, n int, head string) posts.Ledger {
	led := posts.Ledger{Run: r.ID, Round: n, Head: head, Converged: r.Converged, Reviewed: r.Seed.ReviewedHead(),
		Basis: r.Seed.Basis, Sampled: r.Seed.Sampled}
	basis, at := r.basis()
	for _, e := range r.Seed.Findings {
		led.Set(e.ID, e.Status, e.Sha)
		if basis == nil {
			led.Locate(e.Finding())
		}
	}
	r.found(&led)
	if basis != nil {
		r.located(&led, basis, at)
	}
	for _, rr := range r.Rounds {
		r.refuted(&led, rr)
	}
	r.settled(&led)
	// The basis's refuted and dismissed findings are located too: raised
	// again at a moved line, they keep their ID (docs/architecture.md,
	// Re-reviews).
	if basis != nil {
		for _, f := range slices.Concat(basis.Refuted, basis.Settled) {
			closed := func(e posts.LedgerEntry) bool {
				return e.ID == f.ID && (e.Status == finding.StatusRefuted || e.Status == finding.StatusDismissed)
			}
			if slices.ContainsFunc(led.Findings, closed) {
				led.Locate(f)
			}
		}
	}
	r.v3(&led, n)
	return led
}

// basis is the newest round a reviewer answered, and its index: a round
// every reviewer failed reviewed nothing.
func (r Run) basis() (*report.RoundResult, int) {
	var basis *report.RoundResult
	at := 0
	for i, rr := range r.Rounds {
		if rr.ReviewersOK > 0 {
			basis, at = &r.Rounds[i], i
		}
	}
	return basis, at
}

// found sets each round's findings open, with who raised them, and what
// its fix fixed: a fix counts once pushed, for one that failed, was
// declined or interrupted fixed nothing on the PR.
func (r Run) found(led *posts.Ledger) {
	for _, rr := range r.Rounds {
		for _, f := range rr.Findings {
			led.Set(f.ID, finding.StatusOpen, "")
			led.Agree(f.ID, f.Agreement, f.Reviewers)
			led.Tooled(f.ID, f.Tools)
		}
		for _, rd := range r.Recorded {
			if rd.N != rr.N {
				continue
			}
			if res, ok := fix.Recorded(rd); ok && res.Pushed {
				for _, x := range res.Fixed {
					led.Set(x.FindingID, finding.StatusFixed, x.CommitSha)
				}
			}
		}
	}
}

// located makes basis, the round at index at, the ledger's basis: its code
// findings located, and an open finding that neither it nor a round after
// it raised resolved (a failed round still has its secret scan and
// threads).
func (r Run) located(led *posts.Ledger, basis *report.RoundResult, at int) {
	led.Reviewed, led.Basis, led.Sampled = basis.HeadOID, basis.HeadOID, ""
	if c := basis.Coverage; c.Sampled() {
		led.Sampled = cmp.Or(c.SampledBefore, basis.HeadOID)
	}
	for _, f := range basis.Findings {
		if !consensus.IsThread(f) {
			led.Locate(f)
		}
	}
	raised := map[string]bool{}
	for _, rr := range r.Rounds[at:] {
		for _, f := range rr.Findings {
			raised[f.ID] = true
		}
		// Left out by a learning is not resolved: no change answered it
		// (docs/architecture.md, Learnings).
		if rr.Learned != nil {
			for _, id := range rr.Learned.LeftOut {
				raised[id] = true
			}
		}
	}
	for _, e := range led.Findings {
		if e.Status == finding.StatusOpen && !raised[e.ID] {
			led.Set(e.ID, finding.StatusResolved, "")
		}
	}
}

// refuted records the findings round rr refuted, and those restored since
// (open again).
func (r Run) refuted(led *posts.Ledger, rr report.RoundResult) {
	for _, f := range rr.Refuted {
		led.Set(f.ID, finding.StatusRefuted, "")
		led.Agree(f.ID, f.Agreement, f.Reviewers)
	}
	for _, id := range posts.IDs(r.Restores) {
		if led.Has(id) || r.raised(id) { // a restore of an ID nobody raised is no entry
			led.Restore(id)
		}
	}
}

// settled sets the stuck, disputed and dismissed findings.
func (r Run) settled(led *posts.Ledger) {
	for _, id := range r.Stuck {
		led.Set(id, finding.StatusStuck, "")
	}
	// A finding conceded in a conversation stays remaining, as disputed
	// (stuck before or not), until someone dismisses it; a fixed or
	// resolved one is not reopened.
	for _, c := range r.Disputed {
		if i := slices.IndexFunc(led.Findings, func(e posts.LedgerEntry) bool { return e.ID == c.ID }); i >= 0 &&
			(led.Findings[i].Status == finding.StatusOpen || led.Findings[i].Status == finding.StatusStuck) {
			led.Findings[i].Status = finding.StatusDisputed
		}
	}
	// A dismissal names a finding the ledger holds (a review raised it, or
	// an earlier ledger carried it): one of an ID nobody raised is no entry,
	// on this machine or a fresh one.
	for _, d := range r.Dismissals {
		if led.Has(d.ID) || r.raised(d.ID) {
			led.Set(d.ID, finding.StatusDismissed, "")
		}
	}
}

// raised reports whether a round of the run raised id, counted or not
// (dismissed, refuted).
func (r Run) raised(id string) bool {
	is := func(f finding.Finding) bool { return f.ID == id }
	for _, rr := range r.Rounds {
		if slices.ContainsFunc(rr.Findings, is) || slices.ContainsFunc(rr.Dismissed, is) ||
			slices.ContainsFunc(rr.Settled, is) || slices.ContainsFunc(rr.Refuted, is) {
			return true
		}
	}
	return false
}

// v3 adds to led, the ledger of round n, what the ledger's third version
// carries (docs/architecture.md, The ledger): what the earlier run's
// ledger said of each finding, then for each finding a round of this run
// listed, its report; the run's tokens per model; who dismissed what, and
// why; whose reply a disputed one was conceded to. A fresh machine reads them back from gh-ocdx's own posts to fix
// the open findings as the machine before would have.
func (r Run) v3(led *posts.Ledger, n int) {
	for _, e := range r.Seed.Findings {
		for i := range led.Findings {
			if x := &led.Findings[i]; x.ID == e.ID {
				if x.Agreement == "" {
					x.Agreement, x.Reviewers = e.Agreement, slices.Clone(e.Reviewers)
				}
				if x.Where != (posts.Where{}) {
					x.At = e.At // located as that ledger located it
				}
				led.Conceded(e.ID, e.ConcededTo) // disputed still: its threads may be past what was read
			}
		}
	}
	for _, rr := range r.Rounds {
		if rr.N > n {
			continue
		}
		for _, f := range rr.Findings {
			// A report that shows no description points nowhere: the
			// earlier one stays named.
			if !consensus.IsThread(f) && f.Description != "" {
				led.Mark(f.ID, r.ID, rr.N)
			}
		}
		for _, f := range rr.Dismissed {
			led.Agree(f.ID, f.Agreement, f.Reviewers) // who raised what was dismissed counts too
			led.Tooled(f.ID, f.Tools)
		}
		for _, role := range rr.Roles {
			led.AddTokens(role.Model, role.Usage.Input, role.Usage.Output)
		}
		if v := rr.Verifier; v != nil {
			led.AddTokens(v.Model, v.Usage.Input, v.Usage.Output)
		}
		if x := rr.Fix; x != nil {
			led.AddTokens(x.Model, x.Usage.Input, x.Usage.Output)
		}
	}
	for _, d := range r.Dismissals {
		led.Dismissed(d.ID, d.By, d.Reason)
	}
	for _, c := range r.Disputed {
		led.Conceded(c.ID, c.To)
	}
}
