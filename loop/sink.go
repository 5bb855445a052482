package loop

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/text"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/state"
)

// sink is where a reviewed round's findings go: a pull request (prSink:
// the review posted with its inline comments and ledger, threads
// resolved, the fix pushed and reported, the state file) or a local branch
// (branchSink: the state file and the result; nothing posted). What
// follows a review (sinkRound) is the same for both (docs/architecture.md,
// A round of review-loop; Local review).
type sink interface {
	// decide applies the destination's stopping rules to the round, over
	// what triage leaves: an outcome ends the run; none means fix.
	decide(rr *report.RoundResult) (outcome state.RunOutcome, reason string, toFix, optional []finding.Finding)
	// publish records the round and makes it known where it goes.
	publish(ctx context.Context, rr *report.RoundResult) error
	// fix fixes toFix (optional: the P3s it may fix too); done: the run
	// ended, its outcome recorded.
	fix(ctx context.Context, rr *report.RoundResult, toFix, optional []finding.Finding) (done bool, err error)
	// end records the run's outcome; err is the failure itself, if any.
	end(rr *report.RoundResult, outcome state.RunOutcome, reason string, err error) error
}

// sinkRound is what follows a round's review wherever its findings go:
// the decision, the findings published, then the outcome or the fix.
// done: the run ended; a failure before that is the caller's to end.
func (l *loop) sinkRound(ctx context.Context, sk sink, rr *report.RoundResult) (done bool, err error) {
	outcome, reason, toFix, optional := sk.decide(rr)
	rr.Note = reason
	l.converged = outcome == state.OutcomeConverged
	if err := sk.publish(ctx, rr); err != nil {
		return false, err
	}
	if rr.ReviewersOK == 0 && outcome == state.OutcomeFailed {
		return true, sk.end(rr, outcome, reason, errors.New(reason))
	}
	if outcome != "" {
		return true, sk.end(rr, outcome, reason, nil)
	}
	return sk.fix(ctx, rr, toFix, optional)
}

// triage is what a reviewed round leaves, wherever its findings go: the
// findings that block, those the fix is given (optional: the P3s it may
// fix too), and of the blocking ones those stuck (back after a fix) and
// those disputed (gh-ocdx conceded them in a conversation: not fixed, they
// wait for a person to dismiss them).
func (l *loop) triage(rr *report.RoundResult) (blocking, toFix, optional []finding.Finding, stuckNow, disputedNow []string) {
	blocking = blockingOf(rr.Findings)
	stuck := slices.Concat(l.stuck, rr.Stuck)
	toFix, optional = consensus.IssuesToFix(rr.Findings, slices.Concat(stuck, l.disputed))
	for _, f := range blocking {
		if !consensus.IsThread(f) && slices.Contains(stuck, f.ID) && !slices.Contains(stuckNow, f.ID) {
			stuckNow = append(stuckNow, f.ID)
		}
		if slices.Contains(l.disputed, f.ID) && !slices.Contains(disputedNow, f.ID) {
			disputedNow = append(disputedNow, f.ID)
		}
	}
	return blocking, toFix, optional, stuckNow, disputedNow
}

// prSink is a pull request as a round of review-loop leaves its findings
// there; rd is the round as the state file has it (the phases done).
type prSink struct {
	l  *loop
	pr *github.PullRequest
	rd state.Round
}

func (p prSink) decide(rr *report.RoundResult) (state.RunOutcome, string, []finding.Finding, []finding.Finding) {
	return p.l.decide(rr)
}

func (p prSink) end(_ *report.RoundResult, outcome state.RunOutcome, reason string, err error) error {
	return p.l.endErr(outcome, reason, err)
}

// publish posts the round's review once, then resolves the threads of the
// findings it leaves fixed.
func (p prSink) publish(ctx context.Context, rr *report.RoundResult) error {
	l, n := p.l, rr.N
	if !p.rd.Done(state.PhaseCommented) || !hasKind(p.rd.Comments, "review") {
		if err := l.postReview(ctx, n, p.pr, rr); err != nil {
			return err
		}
	}
	rr.Comments = l.comments(n)
	l.resolveFixed(ctx, n, p.pr, rr)
	l.res.Remaining = blockingOf(rr.Findings)
	return nil
}

// fix is the round's fix phase: the Fixer's fix, verify, push and fix
// report; a pushed fix whose report is missing only gets its report.
func (p prSink) fix(ctx context.Context, rr *report.RoundResult, toFix, optional []finding.Finding) (bool, error) {
	l, pr, n := p.l, p.pr, rr.N
	if !p.rd.Done(state.PhasePushed) || !p.rd.Done(state.PhaseReported) {
		rep, err := l.o.Fixer.Fix(ctx, FixRequest{Change: change.OfPR(pr), PR: pr, Run: l.run, Round: n,
			Payload: finding.FixPayload{PRNumber: pr.Number, Round: n, IssuesToFix: toFix, OptionalIssues: orEmpty(optional)},
			Resume:  l.resumeWIP(n), Ledger: l.ledger(n, pr.HeadRefOid)})
		if rep != nil {
			l.showFix(rr, rep)
		}
		if errors.Is(err, ErrDeclined) {
			return false, err
		}
		if err != nil {
			return false, fmt.Errorf("fix phase of round %d: %w", n, err)
		}
		if rep == nil {
			return false, fmt.Errorf("fix phase of round %d ended without a report", n)
		}
		rr.Comments = l.comments(n)
		if rep.Status == state.FixVerifyFailed {
			reason := "verification failed after retries, nothing was pushed: " + rep.Failure
			if _, err := l.post(ctx, n, "final", report.RenderFailure(n, reason)); err != nil {
				l.progress("could not post the failure report: %v", err)
			}
			rr.Comments = l.comments(n)
			return true, l.end(state.OutcomeBlocked, reason)
		}
		if rep.Status != state.FixPushed {
			return true, l.end(state.OutcomeBlocked, "the fix agent made no commit to push; manual intervention required")
		}
		// What the fix pushed is not left to do, whatever stops the run now.
		fixed := rep.FixedIDs()
		l.res.Remaining = slices.DeleteFunc(l.res.Remaining, func(f finding.Finding) bool { return slices.Contains(fixed, f.ID) })
	}
	if rr.Threads.Unresolved > 0 {
		return true, l.end(state.OutcomeBlocked, fmt.Sprintf("manual resolution required: %s; the code findings were fixed and pushed", text.Plural(rr.Threads.Unresolved, "unresolved review thread")))
	}
	return false, nil
}
