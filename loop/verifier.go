package loop

// The verifier's run in a round (docs/architecture.md, The verifier); its
// rules are package verifier's.

import (
	"context"
	"slices"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/state"
	"github.com/ocdx/gh-ocdx/verifier"
)

// verify sends the verifiable findings of rr to the verifier, when one is
// configured, and takes the refuted ones out of rr.Findings into
// rr.Refuted. A verifier that fails changes nothing, and rr says so; only
// a call the token budget refuses is an error (it ends the run as for any
// role).
func (l *loop) verify(ctx context.Context, pr *github.PullRequest, rr *report.RoundResult) error {
	restored := posts.RestoredIDs(l.restores)
	l.reinstate(rr, restored)
	v := l.o.Verifier
	if v == nil || !rr.Crew.Verifier {
		return nil
	}
	st := &verifier.Status{Model: v.Model, Sent: []string{}, Refuted: []string{}}
	var send []finding.Finding
	support := len(rr.Crew.Reviewers)
	if rr.Crew.VerifyAll {
		support = 1 // deep: every finding the verifier may judge
	}
	for _, f := range verifier.Verifiable(rr.Findings, support) {
		if slices.Contains(restored, f.ID) {
			st.Restored = append(st.Restored, f.ID)
			continue
		}
		send = append(send, f)
		st.Sent = append(st.Sent, f.ID)
	}
	rr.Verifier = st
	if len(send) == 0 {
		st.OK = true // nothing to ask: no model call
		return nil
	}
	task, err := verifier.Task(pr, send)
	if err != nil {
		return err
	}
	var tools []llm.Tool
	if l.o.ReviewerTools != nil {
		tools = l.o.ReviewerTools(pr.HeadRefOid)
	}
	// The verifier comes after the round's reviews: when its answer does
	// not fit in the token budget, it does not run and the findings stand,
	// the reviews kept (docs/architecture.md, Budget and costs).
	agent := l.team().Agent(*v, verifier.System, task, tools)
	if l.o.Budget != nil {
		if err := l.o.Budget.Reserve("the verifier", agent); err != nil {
			st.Error = err.Error()
			l.progress("the verifier did not run (%v): the %s it was to check stand as the reviewers raised them", err, text.Plural(len(send), "finding"))
			return nil
		}
	}
	var res finding.VerifierResult
	rs := l.team().RunRole(ctx, *v, agent, &res)
	st.OK, st.Error, st.Usage, st.Elapsed = rs.OK, rs.Error, rs.Usage, rs.Elapsed
	if rr.Usage == nil {
		rr.Usage = map[string]tokens.Usage{}
	}
	rr.Usage[verifier.Name] = rs.Usage
	if p, ok := l.o.Prices[v.Model]; ok {
		st.CostUSD = cost(p, rs.Usage)
		rr.AddCost(verifier.Name, st.CostUSD)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if !rs.OK {
		l.progress("the verifier failed: the %s sent to it stand as the reviewers raised them", text.Plural(len(send), "finding"))
		return nil
	}
	var refuted []finding.Finding
	rr.Findings, refuted = verifier.SplitRefuted(verifier.ApplyVerdicts(rr.Findings, verifier.Verdicts(res.Verdicts, st.Sent)))
	rr.Refuted = append(rr.Refuted, refuted...)
	for _, f := range refuted {
		st.Refuted = append(st.Refuted, f.ID)
	}
	l.progress("verifier (%s): %d of %s refuted", v.Model, len(refuted), text.Plural(len(send), "finding"))
	return nil
}

// recordVerifier keeps in the round's record what the verifier did: its
// refuted findings (with their status and evidence), its tokens, and its
// failure (state.Round.FailedRoles; it has no report, so no reviewer is
// taken for it).
func recordVerifier(rd *state.Round, rr *report.RoundResult) {
	rd.Findings = append(rd.Findings, rr.Refuted...)
	st := rr.Verifier
	if st == nil || len(st.Sent) == 0 {
		return
	}
	rd.Usage = append(rd.Usage, state.Usage{Role: verifier.Name, Model: st.Model, Usage: st.Usage, CostUSD: st.CostUSD})
	if !st.OK {
		rd.FailedRoles = append(rd.FailedRoles, verifier.Name)
	}
}

// restoreVerifier takes what recordVerifier kept back out of a recorded
// round, restore has read: the refuted findings out of the counted ones.
func restoreVerifier(rr *report.RoundResult, rd state.Round) {
	rr.Findings, rr.Refuted = verifier.SplitRefuted(rr.Findings)
	rr.Counts = consensus.Count(rr.Findings)
	for _, u := range rd.Usage {
		if u.Role != verifier.Name {
			continue
		}
		st := &verifier.Status{Model: u.Model, OK: !slices.Contains(rd.FailedRoles, verifier.Name), Sent: []string{}, Refuted: []string{},
			Usage: rr.Usage[verifier.Name], CostUSD: rr.Costs[verifier.Name]}
		for _, f := range rr.Refuted {
			st.Refuted = append(st.Refuted, f.ID)
		}
		rr.Verifier = st
	}
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
	restored := posts.RestoredIDs(l.restores)
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
