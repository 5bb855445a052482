package loop

// A round's review posted with its inline comments (docs/architecture.md,
// Posting); package inline chooses them. prSink: where a PR round's
// findings go.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/inline"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/state"
)

// inlinePolicy is the policy in effect: the repository's .ocdx.json (read from
// the base branch) over the user's configuration over the defaults.
func inlinePolicy(o Options) inline.Policy {
	p := inline.Policy{Priorities: o.InlinePriorities, Max: o.MaxInlineComments}
	if o.Policy != nil {
		if o.Policy.InlinePriorities != nil {
			p.Priorities = o.Policy.InlinePriorities
		}
		if o.Policy.MaxInlineComments > 0 {
			p.Max = o.Policy.MaxInlineComments
		}
	}
	return p
}

// postReview posts round n's review once: its report as the body, its
// findings as inline comments (docs/architecture.md, Posting). The tag
// check reads the reviews of the PR as read this round, so it costs no
// request; only a POST whose outcome is unknown reads the PR again.
func (l *loop) postReview(ctx context.Context, n int, pr *github.PullRequest, rr *report.RoundResult) error {
	tag := posts.RunTag(l.run.ID(), n, "review")
	for _, c := range l.comments(n) {
		if c.Tag == tag {
			return nil
		}
	}
	record := func(url string) error {
		l.posted = true
		return l.run.Complete(n, state.PhaseCommented, func(rd *state.Round) {
			rd.Comments = append(rd.Comments, state.Comment{Kind: "review", Tag: tag, URL: url})
		})
	}
	if url, ok := reviewTagged(pr, tag); ok {
		l.progress("the review report of round %d is already on the PR: %s", n, url)
		return record(url)
	}
	if rr.Lines == nil { // a resumed round: its diff was read by the run before
		diff, _, err := l.readDiff(ctx, pr, change.DiffLimit, nil)
		if err != nil {
			return err
		}
		rr.Lines = github.ParseDiffLines(string(diff))
	}
	in := inline.Choose(pr, rr.Lines, rr.Findings, inlinePolicy(l.o))
	rr.Inline = &in
	body := func() string {
		return github.CapBodyWith(redact.ForComment(posts.Marker+"\n"+tag+"\n"+opening(l.o, n)+report.RenderReview(l.run.ID(), l.o.MaxRounds, rr)),
			"\n"+l.ledger(n, rr.HeadOID).Block())
	}
	posted, err := l.o.GitHub.PostReviewComments(ctx, l.o.Repo, pr.Number, github.CommentOnly, body(), in.Comments)
	if err != nil && github.Unprocessable(err) && len(in.Comments) > 0 {
		// Anchors are checked, so this is GitHub disagreeing about one:
		// the review goes again, its findings in the body only.
		l.progress("GitHub refused the inline comments of round %d (%v): posting the review without them", n, err)
		in.Refused = true
		posted, err = l.o.GitHub.PostReviewComments(ctx, l.o.Repo, pr.Number, github.CommentOnly, body(), nil)
	}
	if err != nil {
		// The POST may have been applied even though it failed: look.
		if again, rerr := l.o.GitHub.PullRequest(ctx, l.o.Repo, pr.Number); rerr == nil {
			if url, ok := reviewTagged(again, tag); ok {
				l.progress("posting the review report failed (%v), but it is on the PR: %s", err, url)
				return record(url)
			}
		}
		return err
	}
	if len(in.Updates) > 0 {
		// Not fatal: the threads still say the old values, so the next
		// round or run replies again.
		if err := l.o.GitHub.ResolveThreads(ctx, l.o.Repo, in.Updates); err != nil {
			l.progress("could not reply in %s whose finding changed: %v", text.Plural(len(in.Updates), "open thread"), err)
		}
	}
	inline := len(in.Comments)
	if in.Refused {
		inline = 0
	}
	l.progress("posted the review report of round %d with %s: %s", n, text.Plural(inline, "inline comment"), posted.URL)
	return record(posted.URL)
}

// reviewTagged finds gh-ocdx's own review carrying tag on pr.
func reviewTagged(pr *github.PullRequest, tag string) (string, bool) {
	for _, r := range pr.Reviews {
		if strings.Contains(r.Body, tag) && pr.Trusts(r.Author) {
			return r.URL, true
		}
	}
	return "", false
}

// resolveFixed replies on gh-ocdx's threads of the findings round n's
// review leaves fixed or resolved (Resolutions) and resolves them, in one
// request, only after a round every reviewer answered. A failure is
// reported, not fatal: the threads stay open and the next round or run
// tries again.
func (l *loop) resolveFixed(ctx context.Context, n int, pr *github.PullRequest, rr *report.RoundResult) {
	if rr.ReviewersOK == 0 || len(rr.FailedReviewers()) > 0 {
		return // a reviewer that failed said nothing: silence is no proof of a fix
	}
	replies := inline.Resolutions(pr, l.ledger(n, rr.HeadOID), rr.Findings, rr.HeadOID)
	if len(replies) == 0 {
		return
	}
	if err := l.o.GitHub.ResolveThreads(ctx, l.o.Repo, replies); err != nil {
		l.progress("could not resolve %s: %v", text.Plural(len(replies), "thread"), err)
		return
	}
	l.progress("resolved %s of fixed or resolved findings", text.Plural(len(replies), "thread"))
}

// opening is what opens round n's report: o.Opening for round 1, set
// apart from the review below it.
func opening(o Options, n int) string {
	if n != 1 || o.Opening == "" {
		return ""
	}
	return o.Opening + "\n---\n\n"
}

// prSink is a PR as review-loop leaves a round's findings there: the
// review posted with its inline comments and ledger, threads resolved,
// the fix pushed and reported; rd is the round as recorded.
type prSink struct {
	l  *loop
	pr *github.PullRequest
	rd state.Round
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
