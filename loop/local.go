package loop

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/fix"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/learnings"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/localchange"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/roles"
	"github.com/ocdx/gh-ocdx/secretscan"
	"github.com/ocdx/gh-ocdx/state"
	"github.com/ocdx/gh-ocdx/verifier"
)

// LocalKind is the run kind of a local review in the state file.
const LocalKind = "review"

// LocalOptions are the inputs of one local review.
type LocalOptions struct {
	Key       state.Key // state.LocalKey of the branch
	Change    localchange.Change
	Store     Store
	Policy    *config.Policy // the repository's: instructions, ignored files
	Reviewers []roles.Role
	Tools     []llm.Tool // read-only, over the reviewed files
	// History reads the branch's commits since the merge base for the
	// secret scan (nil: only the change's diff is scanned).
	History secretscan.History
	Fixer   Fixer // nil: review only
	// Verifier, when set, checks the findings a single reviewer raised,
	// with Tools, as in review-loop.
	Verifier *roles.Role
	// Effort is the tier asked for: auto, or "", chooses from the change
	// (docs/architecture.md, Effort tiers).
	Effort   effort.Tier
	MaxIters int
	Progress io.Writer
	// Full reviews the branch even when nothing changed since its last
	// review (docs/architecture.md, Local review).
	Full bool
	// Summarized: as Options.Summarized.
	Summarized bool
	// Budget, when set, is the review's token budget, shared by its
	// reviewers, verifier and fix agent (docs/architecture.md, Budget and
	// costs).
	Budget *llm.Budget
	// Evidence gives the tool results about the working tree, as
	// Options.Evidence about a PR's head. EvidenceKey names what they
	// depend on besides the change (the result files read, the analyzers
	// configured): another key is a new review.
	Evidence    EvidenceSource
	EvidenceKey string
}

// LocalResult is one local review, for the output and --json.
type LocalResult struct {
	Key       string            `json:"key"`
	RunID     string            `json:"runId"`
	Branch    string            `json:"branch"`
	Base      string            `json:"base"`
	MergeBase string            `json:"mergeBase"`
	Head      string            `json:"head"`
	Outcome   state.RunOutcome  `json:"outcome"`
	Reason    string            `json:"reason"`
	Label     string            `json:"label"`
	Consensus string            `json:"consensus"`
	Counts    finding.Counts    `json:"counts"`
	Roles     []roles.Status    `json:"roles"`
	Findings  []finding.Finding `json:"findings"`
	Remaining []finding.Finding `json:"remaining"` // P0–P2 not fixed
	Stuck     []string          `json:"stuck"`
	Coverage  diff.Coverage     `json:"coverage"`
	// Effort is the tier the review ran at and why (docs/architecture.md,
	// Effort tiers); nil for a review repeated from the state file.
	Effort    *effort.Choice       `json:"effort,omitempty"`
	Untracked []string             `json:"untracked"`
	Budget    *report.BudgetStatus `json:"budget,omitempty"` // with a token budget
	// PolicyChanged are the policy files the branch changes: they take
	// effect once merged, this review used the merge base's.
	PolicyChanged []string         `json:"policyChanged"`
	Fix           *state.FixResult `json:"fix,omitempty"`
	// Refuted are the findings the verifier showed wrong: not counted or
	// fixed.
	Refuted  []finding.Finding `json:"refuted,omitempty"`
	Verifier *verifier.Status  `json:"verifier,omitempty"`
	// Learned is what the merge base's .ocdx/learnings.md left out and
	// lowered (docs/architecture.md, Learnings).
	Learned *learnings.Applied `json:"learned,omitempty"`
	// Dismissed are the findings raised but dismissed for the branch
	// (gh ocdx dismiss --branch): not counted, not fixed.
	Dismissed []finding.Finding `json:"dismissed"`
	// AlreadyReviewed is the commit of the review this result repeats:
	// nothing changed since, so no model was asked; "" for a new review.
	AlreadyReviewed string `json:"alreadyReviewed,omitempty"`
}

// ReviewLocal reviews a change with the reviewers of review-loop, with its
// IDs, consensus and stuck rules, and records the run under the branch:
// one round, no comments analyzer (there are no threads), nothing posted.
// With a Fixer, the P0–P2 findings are fixed as in a round of review-loop
// (what the fixer does with the commits is its own). A review that leaves
// P0–P2 findings returns Outcome blocked and a nil error.
func ReviewLocal(ctx context.Context, o LocalOptions) (*LocalResult, error) {
	ch := o.Change
	l := &loop{o: Options{Reviewers: o.Reviewers, MaxIters: o.MaxIters, Progress: o.Progress, MaxRounds: 1, Verifier: o.Verifier, Effort: o.Effort,
		ReviewerTools: func(string) []llm.Tool { return o.Tools }, Store: o.Store, Policy: o.Policy, Summarized: o.Summarized, Budget: o.Budget, History: o.History, Evidence: o.Evidence}, key: o.Key, res: &report.Result{}}
	res := &LocalResult{Key: o.Key.String(), Branch: ch.Branch, Base: ch.Base, MergeBase: ch.MergeBase, Head: ch.Head,
		Findings: []finding.Finding{}, Remaining: []finding.Finding{}, Stuck: []string{}, Untracked: orEmptyS(ch.Untracked),
		PolicyChanged: orEmptyS(PolicyChanges(ch.Files)), Dismissed: []finding.Finding{}}
	// The branch's stuck set, and what its last run's fix reported fixed:
	// a finding that comes back is stuck (docs/architecture.md, Consensus).
	var fixedBefore []finding.Finding
	var dismissed []string
	fp := LocalFingerprint(ch, o.Policy, o.Reviewers, o.Verifier, o.Effort, o.EvidenceKey)
	if rec, err := o.Store.PR(o.Key); err == nil {
		for _, s := range rec.Stuck {
			l.stuck = append(l.stuck, s.ID)
		}
		for _, d := range rec.Dismissed {
			dismissed = append(dismissed, d.ID)
		}
		fixedBefore = lastFixed(rec.Runs)
		// Nothing changed since the last review: its findings stand, and
		// asking the models again would cost the same for the same answer.
		if rd, runID, ok := lastLocalReview(rec.Runs, fp); ok && !o.Full && o.Fixer == nil {
			return l.localAgain(res, rd, runID, dismissed), nil
		}
	} else if !errors.Is(err, state.ErrNotFound) {
		return nil, err
	}
	// An interrupted local review has nothing to resume: its one round is
	// redone.
	run, _, err := start{kind: LocalKind, head: ch.Head, onHead: true, restart: "interrupted; a local review starts over"}.begin(o.Store, o.Key)
	if err != nil {
		return nil, err
	}
	l.run, res.RunID = run, run.ID()
	l.progress("run %s: reviewing %s against %s (merge base %s)", run.ID(), ch.Branch, ch.Base, text.ShortOID(ch.MergeBase))
	if o.Budget != nil {
		// Said once, in the result, whatever ends the review.
		res.Budget = &report.BudgetStatus{MaxTokens: o.Budget.Max}
		defer func() { res.Budget.Spent = o.Budget.Spent() }()
	}
	sk := branchSink{l: l, o: o, res: res, fp: fp}
	rr, err := l.reviewLocal(ctx, ch, fixedBefore, dismissed)
	switch {
	case err != nil && ctx.Err() != nil:
		l.release() // resumable
		return res, err
	case errors.Is(err, llm.ErrBudget):
		res.Budget.Reached = true
		return res, sk.end(nil, state.OutcomeBlocked, err.Error(), nil)
	case err != nil:
		return res, sk.end(nil, state.OutcomeFailed, err.Error(), err)
	}
	_, err = l.sinkRound(ctx, sk, rr)
	return res, err
}

// take puts the review of rr into the result.
func (res *LocalResult) take(rr *report.RoundResult) {
	res.Roles, res.Findings, res.Counts, res.Consensus, res.Coverage, res.Stuck = rr.Roles, rr.Findings, rr.Counts, rr.Consensus, rr.Coverage, rr.Stuck
	res.Refuted, res.Verifier, res.Learned = rr.Refuted, rr.Verifier, rr.Learned
	res.Dismissed = orEmpty(rr.Dismissed)
	res.Remaining = blockingOf(rr.Findings)
}

// branchSink is a local branch as a local review leaves its findings
// there: the state file (the round, with what it reviewed) and the
// result; nothing posted.
type branchSink struct {
	l   *loop
	o   LocalOptions
	res *LocalResult
	fp  string // LocalFingerprint of the review
}

// decide: a local review's one round ends the run, by its fix when there
// is one (docs/architecture.md, Local review).
func (b branchSink) decide(rr *report.RoundResult) (state.RunOutcome, string, []finding.Finding, []finding.Finding) {
	blocking, toFix, optional, _, _ := b.l.triage(rr)
	switch {
	case rr.ReviewersOK == 0:
		return state.OutcomeFailed, everyReviewer(len(b.o.Reviewers)) + " failed: no credible review; " + AllFailedAdvice, nil, nil
	case len(blocking) == 0:
		return state.OutcomeConverged, "no P0/P1/P2 findings", nil, nil
	case b.o.Fixer != nil && len(toFix) > 0:
		return "", "", toFix, optional
	}
	reason := fmt.Sprintf("%s: %s", text.Plural(len(blocking), "P0–P2 finding"), report.IDList(blocking))
	if note := secretscan.RewriteNote(blocking); note != "" {
		reason += "; " + note
	} else if len(toFix) == 0 {
		reason += "; stuck (reported fixed before and back), fix them by hand"
	}
	return state.OutcomeBlocked, reason, nil, nil
}

// publish puts the review into the result and records it, the dismissed
// findings too: a later look at the same review (localAgain) lists them
// as dismissed.
func (b branchSink) publish(_ context.Context, rr *report.RoundResult) error {
	b.res.take(rr)
	b.res.Effort = rr.Effort
	all := *rr
	all.Findings = slices.Concat(rr.Findings, rr.Dismissed)
	return b.l.run.Complete(1, state.PhaseReviewed, func(rd *state.Round) {
		all.Record(rd)
		rd.Fingerprint, rd.FindingIDs = b.fp, nil
		for _, f := range rr.Findings {
			rd.FindingIDs = append(rd.FindingIDs, f.ID) // the counted ones, as Counts
		}
	})
}

// end records the outcome of a local review; rr is nil when it ended
// before its findings.
func (b branchSink) end(rr *report.RoundResult, outcome state.RunOutcome, reason string, err error) error {
	b.l.res = &report.Result{}
	b.res.Outcome, b.res.Reason, b.res.Label = outcome, reason, string(outcome)
	if rr != nil {
		b.l.res.Rounds = []report.RoundResult{*rr}
		b.res.Label = report.Qualified(outcome, rr)
	}
	return b.l.endErr(outcome, reason, err)
}

// fix is a local review's fix, and how the review ends after it: a fix
// nobody has read again ends fixed, never converged (docs/architecture.md,
// Local review).
func (b branchSink) fix(ctx context.Context, rr *report.RoundResult, toFix, optional []finding.Finding) (bool, error) {
	l, o, res, run := b.l, b.o, b.res, b.l.run
	rep, err := o.Fixer.Fix(ctx, FixRequest{Change: o.Change.Subject(), Run: run, Round: 1,
		Payload: finding.FixPayload{Round: 1, IssuesToFix: toFix, OptionalIssues: orEmpty(optional)}})
	if rep != nil {
		if err != nil && rep.Kept() {
			// Verified, then taken back (declined, or the question failed):
			// none of its findings was fixed, so none is stuck when it
			// comes back.
			rep.Status, rep.Commits = state.FixDeclined, nil
			if !errors.Is(err, ErrDeclined) {
				rep.Status, rep.Failure = state.FixFailed, err.Error()
			}
			if uerr := rep.Record(run, 1); uerr != nil {
				l.progress("recording the fix: %v", uerr)
			}
		}
		l.showFix(rr, rep)
		res.Fix = rep
	}
	if cerr := run.ClearWIP(); cerr != nil {
		l.progress("clearing the fix's work in progress: %v", cerr)
	}
	switch {
	case errors.Is(err, ErrDeclined):
		return true, b.end(rr, state.OutcomeBlocked, "the fix was verified, but you declined to commit it: its changes are left uncommitted in your working tree", nil)
	case errors.Is(err, llm.ErrBudget) && ctx.Err() == nil:
		res.Budget.Reached = true
		return true, b.end(rr, state.OutcomeBlocked, "nothing was committed: "+err.Error(), nil)
	case err != nil:
		return true, b.end(rr, state.OutcomeFailed, err.Error(), fmt.Errorf("fix: %w", err))
	case rep == nil:
		return true, b.end(rr, state.OutcomeFailed, "the fix ended without a report", errors.New("the fix ended without a report"))
	case !rep.Verified:
		return true, b.end(rr, state.OutcomeBlocked, "nothing was committed: "+rep.Failure, nil)
	}
	fixed := map[string]bool{}
	for _, f := range rep.Fixed {
		fixed[f.FindingID] = true
	}
	res.Remaining = slices.DeleteFunc(res.Remaining, func(f finding.Finding) bool { return fixed[f.ID] })
	if len(res.Remaining) == 0 {
		// Nobody has read the fix: it is not a review that converged.
		return true, b.end(rr, state.OutcomeFixed, fmt.Sprintf("%s fixed, verified and committed, not reviewed again: run gh ocdx review to check the fix", text.Plural(len(fixed), "finding")), nil)
	}
	return true, b.end(rr, state.OutcomeBlocked, fmt.Sprintf("%s fixed; left: %s", text.Plural(len(fixed), "finding"), report.IDList(res.Remaining)), nil)
}

// reviewLocal is the round's review step (loop.review) on the branch's
// change: no threads, so no comments analyzer; the dismissed IDs are the
// branch's (gh ocdx dismiss --branch).
func (l *loop) reviewLocal(ctx context.Context, ch localchange.Change, fixedBefore []finding.Finding, dismissed []string) (*report.RoundResult, error) {
	rr := &report.RoundResult{N: 1, HeadOID: ch.Head, Comments: []state.Comment{}, Stuck: []string{}, ReviewState: finding.ReviewState{ChangesRequestedBy: []finding.Actor{}}}
	for _, id := range dismissed {
		l.dismissals = append(l.dismissals, posts.Dismissal{ID: id})
	}
	if err := l.review(ctx, branchSource{ch: ch, fixedBefore: fixedBefore}, rr, roles.Threads{}); err != nil {
		return nil, err
	}
	return rr, nil
}

// lastFixed is what the newest run's last round reported fixed; by ID
// alone when the run converged and its findings were compacted away.
func lastFixed(runs []state.Run) []finding.Finding {
	for i := len(runs) - 1; i >= 0; i-- {
		rounds := runs[i].Rounds
		if len(rounds) == 0 {
			continue
		}
		rd := rounds[len(rounds)-1]
		fs := rd.Findings
		rec, ok := fix.Recorded(rd)
		if !ok || !rec.Kept() {
			return nil
		}
		var out []finding.Finding
		for _, id := range rec.FixedIDs() {
			f := finding.Finding{ID: id}
			if i := slices.IndexFunc(fs, func(f finding.Finding) bool { return f.ID == id }); i >= 0 {
				f = fs[i]
			}
			out = append(out, f)
		}
		return out
	}
	return nil
}

// LocalFingerprint names what a local review of ch reads, as one digest:
// the commit, the working tree's tracked files, the base and merge base,
// the policy in effect, the reviewer and verifier models, the effort
// tier asked for and the evidence (LocalOptions.EvidenceKey). Two reviews
// with the same fingerprint would be given the same task.
func LocalFingerprint(ch localchange.Change, policy *config.Policy, reviewers []roles.Role, verifier *roles.Role, asked effort.Tier, evidence string) string {
	models := make([]string, len(reviewers))
	for i, r := range reviewers {
		models[i] = r.Model
	}
	if verifier != nil {
		models = append(models, "verifier "+verifier.Model)
	}
	b, _ := json.Marshal(struct {
		Head, Tree, Base, MergeBase string
		Policy                      *config.Policy
		Reviewers                   []string
		Effort                      effort.Tier `json:",omitempty"`
		Evidence                    string      `json:",omitempty"`
	}{ch.Head, ch.Tree, ch.Base, ch.MergeBase, policy, models, cmp.Or(asked, effort.Auto), evidence})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// lastLocalReview is the round of the branch's newest run when that run
// ended with a review of what fingerprint names (at least one reviewer
// answered) and no fix: what an unchanged branch's review would repeat.
func lastLocalReview(runs []state.Run, fingerprint string) (state.Round, string, bool) {
	if len(runs) == 0 {
		return state.Round{}, "", false
	}
	r := runs[len(runs)-1]
	if r.Kind != LocalKind || (r.Outcome != state.OutcomeConverged && r.Outcome != state.OutcomeBlocked) || len(r.Rounds) != 1 {
		return state.Round{}, "", false
	}
	rd := r.Rounds[0]
	if _, fixed := fix.Recorded(rd); fixed || rd.Fingerprint != fingerprint || !reviewed(rd) {
		return state.Round{}, "", false
	}
	return rd, r.ID, true
}

// localAgain is the result of the recorded review rd of run runID, for a
// branch that has not changed since: no model call, no new run; only the
// dismissals made since can change the outcome (docs/architecture.md,
// Local review).
func (l *loop) localAgain(res *LocalResult, rd state.Round, runID string, dismissed []string) *LocalResult {
	rr := &report.RoundResult{N: 1, HeadOID: rd.HeadOID, Comments: []state.Comment{}, ReviewState: finding.ReviewState{ChangesRequestedBy: []finding.Actor{}}}
	rr.Reload(rd, nil)
	for i := range rr.Roles {
		rr.Roles[i].Usage, rr.Roles[i].CostUSD = tokens.Usage{}, 0 // nothing was spent this time
	}
	rr.Findings, rr.Dismissed = splitDismissed(rr.Findings, dismissed)
	rr.Counts = consensus.Count(rr.Findings)
	rr.Consensus = consensus.Of(rr.ReviewState, rr.Counts)
	rr.Stuck = slices.DeleteFunc(rr.Stuck, func(id string) bool { return slices.Contains(dismissed, id) })
	res.RunID, res.AlreadyReviewed = runID, rd.HeadOID
	res.take(rr)
	res.Outcome, res.Reason = state.OutcomeConverged, "no P0/P1/P2 findings"
	if len(res.Remaining) > 0 {
		res.Outcome, res.Reason = state.OutcomeBlocked, fmt.Sprintf("%s: %s", text.Plural(len(res.Remaining), "P0–P2 finding"), report.IDList(res.Remaining))
	}
	res.Label = report.Qualified(res.Outcome, rr)
	res.Reason = fmt.Sprintf("already reviewed at %s: %s, %s (nothing changed since; --full reviews it again)", text.ShortOID(rd.HeadOID), res.Outcome, res.Reason)
	l.progress("%s", res.Reason)
	return res
}
