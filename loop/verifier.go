package loop

// The verifier's turn in a round (docs/architecture.md, The verifier): the
// findings people restored, and what it refuted, recorded; its run is
// package roles', its rules package verifier's.

import (
	"context"
	"slices"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/state"
	"github.com/ocdx/gh-ocdx/verifier"
)

// verify is the verifier's turn in round rr (roles.Team.Verify), after
// the findings people restored are back in it: the refuted findings go
// from rr.Findings to rr.Refuted, and what the verifier spent to rr.
func (l *loop) verify(ctx context.Context, s change.Subject, rr *report.RoundResult) error {
	restored := posts.IDs(l.restores)
	l.reinstate(rr, restored)
	v, err := l.team().Verify(ctx, s, rr.Crew, rr.Findings, restored)
	if v.Status == nil {
		return err
	}
	rr.Verifier, rr.Findings = v.Status, v.Kept
	rr.Refuted = append(rr.Refuted, v.Refuted...)
	if v.Ran {
		if rr.Usage == nil {
			rr.Usage = map[string]tokens.Usage{}
		}
		rr.Usage[verifier.Name] = v.Status.Usage
		if p, ok := l.o.Prices[v.Status.Model]; ok {
			v.Status.CostUSD = cost(p, v.Status.Usage)
			rr.AddCost(verifier.Name, v.Status.CostUSD)
		}
	}
	return err
}

// readRestores sets the findings people restored, as pr shows them now,
// and, when answer is set, answers each refused /ocdx restore once.
func (l *loop) readRestores(ctx context.Context, pr *github.PullRequest, answer bool) error {
	rs, refused, warnings := l.trust.Restores(ctx, pr)
	for _, w := range warnings {
		l.progress("%s", w)
	}
	// The ledger remembers a restore once its command is past the
	// comments read; a forged one can only make a finding count.
	for _, id := range l.seed.Restored() {
		if !slices.ContainsFunc(rs, func(r posts.Restore) bool { return r.ID == id }) {
			rs = append(rs, posts.Restore{ID: id})
		}
	}
	l.restores = rs
	for _, r := range refused {
		if err := l.refusal(ctx, pr, r, "/ocdx "+posts.CmdRestore, "What the verifier refuted stays left out.", answer); err != nil {
			return err
		}
	}
	return nil
}

// restoresRefuted reports whether someone restored a finding that the
// review of rd (or the PR's ledger) refuted: that head must be reviewed
// again for the finding to count.
func (l *loop) restoresRefuted(rd state.Round) bool {
	restored := posts.IDs(l.restores)
	for _, f := range rd.Findings {
		if f.Status == finding.StatusRefuted && slices.Contains(restored, f.ID) {
			return true
		}
	}
	for _, id := range l.seed.With(finding.StatusRefuted) {
		if slices.Contains(restored, id) {
			return true
		}
	}
	return false
}

// reinstate brings back into rr the findings the PR's newest review that
// had them refuted, and someone restored since, when no reviewer raised
// them again this round: a restored finding counts. A machine with no record of that
// review knows only their IDs (the ledger), and counts them when raised.
func (l *loop) reinstate(rr *report.RoundResult, restored []string) {
	if len(restored) == 0 {
		return
	}
	rec, err := l.o.Store.PR(l.key)
	if err != nil {
		return
	}
	for _, id := range restored {
		if slices.ContainsFunc(rr.Findings, func(f finding.Finding) bool { return f.ID == id }) {
			continue
		}
	search:
		for i := len(rec.Runs) - 1; i >= 0; i-- {
			for j := len(rec.Runs[i].Rounds) - 1; j >= 0; j-- {
				for _, f := range rec.Runs[i].Rounds[j].Findings {
					if f.ID != id {
						continue
					}
					// Only from the newest review that had it: once
					// reinstated, it follows its course (fixed, resolved).
					if f.Status == finding.StatusRefuted {
						f.Status, f.Evidence = "", ""
						rr.Findings = append(rr.Findings, f)
					}
					break search
				}
			}
		}
	}
}
