package loop

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/localchange"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/rereview"
	"github.com/ocdx/gh-ocdx/roles"
	"github.com/ocdx/gh-ocdx/secretscan"
)

// source is where the change a round reviews comes from: a pull request
// over GitHub and the checkout (prSource), or a local branch over git
// (branchSource). The review step (loop.review) is the same for both;
// where its findings go stays with its caller (docs/architecture.md, A
// round of review-loop; Local review).
type source interface {
	// subject is the change as the prompts describe it.
	subject() change.Subject
	// read reads the change's diff through the secret scan: the diff
	// (complete false: more was not read), the scan, and the changed
	// files the scan could not read.
	read(ctx context.Context, now string) (d []byte, complete bool, scan secretscan.Scan, unscanned []string, err error)
	// delta is the re-review basis of round n: nil for a full review.
	delta(ctx context.Context, n int) *rereview.Delta
	// identify gives rr's findings the IDs of the reviews before, and
	// returns what was fixed before (the stuck rule) and the earlier
	// review's findings (the settled ones).
	identify(ctx context.Context, rr *report.RoundResult, re *rereview.Delta, v consensus.Verdicts) (fixedBefore, earlier []finding.Finding)
	// reservation names the round in the token budget.
	reservation(n int) string
}

// review runs the roles of a round on the change src gives and
// aggregates what they found into rr: the secret scan, the effort tier,
// the evidence, the reviewers (and, with threads, the comments analyzer),
// one list of findings with their IDs, the learnings, the dismissed
// findings, the verifier, the counts, the consensus and the stuck ones.
func (l *loop) review(ctx context.Context, src source, rr *report.RoundResult, th roles.Threads) error {
	now := time.Now().UTC().Format(time.RFC3339)
	s := src.subject()
	var d []byte
	var complete bool
	var unscanned []string
	scan, historyRead, err := l.scanSecrets(ctx, s.BaseOID, s.HeadOID, now, func() (scan secretscan.Scan, err error) {
		d, complete, scan, unscanned, err = src.read(ctx, now)
		return scan, err
	})
	if err != nil {
		return err
	}
	secrets := scan.Findings
	rc := change.ContextOf(s, d, complete, l.o.Policy)
	rr.Lines = github.ParseDiffLines(string(d))
	rr.Coverage = rc.Coverage()
	re := src.delta(ctx, rr.N)
	if re != nil {
		rr.Since, rr.Judged = re.Since, len(re.Previous)
		rr.Coverage = re.Coverage // of the diff the reviewers were given
	}
	rr.Coverage.Unscanned, rr.Coverage.HistoryUnscanned = unscanned, !historyRead
	choice := effort.Decide(l.o.Effort, l.effortFacts(s, re, len(secrets)))
	rr.Effort = &choice
	tools := l.evidence(ctx, s.HeadOID, choice.Tier, rc, rr, d, now)
	rr.Crew = l.team().Crew(choice.Tier, rr.Threads.Unresolved)
	out, err := l.team().Run(ctx, src.reservation(rr.N), rr.Crew, rc, re, th)
	if err != nil {
		return err
	}
	if err := l.takeRoles(rr, out); err != nil {
		return err
	}
	rr.Findings = orEmpty(consensus.Distinct(slices.Concat(out.Findings, secrets, tools), rr.ReviewersOK))
	if rr.N == 1 {
		rr.Findings = append(rr.Findings, l.o.Compliance...)
	}
	fixedBefore, earlier := src.identify(ctx, rr, re, out.Verdicts)
	applyLearnings(rr, l.o.Policy)
	l.settle(rr, earlier)
	if err := l.verify(ctx, s, rr); err != nil {
		return err
	}
	rr.Counts = consensus.Count(rr.Findings)
	if rr.ReviewersOK > 0 {
		rr.Consensus = consensus.Of(rr.ReviewState, rr.Counts)
	}
	l.stuckNow(rr, fixedBefore, out.Verdicts)
	return nil
}

// prSource is a pull request as a round of review-loop reads it.
type prSource struct {
	l  *loop
	pr *github.PullRequest
}

func (p prSource) subject() change.Subject { return change.OfPR(p.pr) }

func (p prSource) reservation(n int) string { return fmt.Sprintf("round %d", n) }

func (p prSource) delta(ctx context.Context, n int) *rereview.Delta {
	return p.l.reReviewOf(ctx, n, p.pr)
}

func (p prSource) identify(ctx context.Context, rr *report.RoundResult, re *rereview.Delta, v consensus.Verdicts) (fixedBefore, earlier []finding.Finding) {
	return p.l.identify(ctx, p.pr, rr, re, v)
}

// read reads the PR's diff and runs the secret scan over it as it
// streams in, the models getting its first DiffReadLimit bytes
// (docs/architecture.md, The secret scan).
func (p prSource) read(ctx context.Context, now string) (d []byte, complete bool, scan secretscan.Scan, unscanned []string, err error) {
	l, pr := p.l, p.pr
	d, complete, err = l.readDiff(ctx, pr, change.DiffReadLimit, func(r io.Reader) error {
		var err error
		scan, err = secretscan.Diff(r, now, nil)
		return err
	})
	if err != nil {
		return nil, false, scan, nil, err
	}
	// A file GitHub sent without a patch (too large, after a 406) is
	// scanned from the checkout when the PR's commits are there.
	if missing := scan.Unscanned(pr.Files); len(missing) > 0 && l.o.PRDiff != nil {
		if pd, ok := l.o.PRDiff(ctx, pr.BaseRefOid, pr.HeadRefOid, missing); ok {
			scan, err = secretscan.Diff(bytes.NewReader(pd), now, &scan)
		}
	}
	return d, complete, scan, scan.Unscanned(pr.Files), err
}

// branchSource is a local branch's change as the local review reads it:
// its diff from git, whole; no re-review; what the branch's last run
// fixed (fixedBefore) for the stuck rule.
type branchSource struct {
	ch          localchange.Change
	fixedBefore []finding.Finding
}

func (b branchSource) subject() change.Subject { return b.ch.Subject() }

func (b branchSource) reservation(int) string { return "the review" }

func (b branchSource) delta(context.Context, int) *rereview.Delta { return nil }

func (b branchSource) identify(context.Context, *report.RoundResult, *rereview.Delta, consensus.Verdicts) (fixedBefore, earlier []finding.Finding) {
	return b.fixedBefore, nil
}

func (b branchSource) read(_ context.Context, now string) ([]byte, bool, secretscan.Scan, []string, error) {
	scan, err := secretscan.Diff(bytes.NewReader(b.ch.Diff), now, nil)
	return b.ch.Diff, true, scan, nil, err
}
