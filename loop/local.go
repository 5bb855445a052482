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
		Findings: []finding.Finding{}, Remaining: []finding.Finding{}, Stuck: []string{}, Untracked: ch.Untracked,
		PolicyChanged: orEmptyS(PolicyChanges(ch.Files)), Dismissed: []finding.Finding{}}
	if res.Untracked == nil {
		res.Untracked = []string{}
	}
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
	run, _, err := start{kind: LocalKind, head: ch.Head, onHead: true, restart: "interrupted; a local review starts over", one: true}.begin(o.Store, o.Key)
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
	rr, err := l.reviewLocal(ctx, ch, fixedBefore, dismissed)
	if errors.Is(err, llm.ErrBudget) && ctx.Err() == nil {
		res.Budget.Reached = true
		l.res = &report.Result{}
		res.Outcome, res.Reason, res.Label = state.OutcomeBlocked, err.Error(), string(state.OutcomeBlocked)
		return res, l.endErr(state.OutcomeBlocked, err.Error(), nil)
	}
	if err != nil {
		return res, l.localFail(ctx, res, err)
	}
	res.Roles, res.Findings, res.Counts, res.Consensus, res.Coverage, res.Stuck = rr.Roles, rr.Findings, rr.Counts, rr.Consensus, rr.Coverage, rr.Stuck
	res.Refuted, res.Verifier, res.Effort, res.Learned = rr.Refuted, rr.Verifier, rr.Effort, rr.Learned
	res.Dismissed = orEmpty(rr.Dismissed)
	res.Remaining = blockingOf(rr.Findings)
	// The record keeps the dismissed findings too: a later look at the
	// same review (localAgain) lists them as dismissed.
	all := *rr
	all.Findings = slices.Concat(rr.Findings, rr.Dismissed)
	if err := l.recordReview(1, &all); err != nil {
		return res, err
	}
	if err := run.UpdateRound(1, func(rd *state.Round) {
		rd.Fingerprint, rd.FindingIDs = fp, nil
		for _, f := range rr.Findings {
			rd.FindingIDs = append(rd.FindingIDs, f.ID) // the counted ones, as Counts
		}
	}); err != nil {
		return res, err
	}
	if rr.ReviewersOK == 0 {
		reason := everyReviewer(len(o.Reviewers)) + " failed: no credible review; " + AllFailedAdvice
		return res, l.localEnd(res, rr, state.OutcomeFailed, reason, errors.New(reason))
	}
	stuck := slices.Concat(l.stuck, rr.Stuck)
	toFix, optional := consensus.IssuesToFix(rr.Findings, stuck)
	if len(res.Remaining) == 0 {
		return res, l.localEnd(res, rr, state.OutcomeConverged, "no P0/P1/P2 findings", nil)
	}
	if o.Fixer == nil || len(toFix) == 0 {
		reason := fmt.Sprintf("%s: %s", text.Plural(len(res.Remaining), "P0–P2 finding"), report.IDList(res.Remaining))
		if note := secretscan.RewriteNote(res.Remaining); note != "" {
			reason += "; " + note
		} else if len(toFix) == 0 {
			reason += "; stuck (reported fixed before and back), fix them by hand"
		}
		return res, l.localEnd(res, rr, state.OutcomeBlocked, reason, nil)
	}
	return res, l.localFix(ctx, o, res, rr, toFix, optional)
}

// localFix is a local review's fix of toFix (optional: the P3s it may
// fix too) and how the review ends after it: a fix nobody has read again
// ends fixed, never converged (docs/architecture.md, Local review).
func (l *loop) localFix(ctx context.Context, o LocalOptions, res *LocalResult, rr *report.RoundResult, toFix, optional []finding.Finding) error {
	run := l.run
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
		return l.localEnd(res, rr, state.OutcomeBlocked, "the fix was verified, but you declined to commit it: its changes are left uncommitted in your working tree", nil)
	case errors.Is(err, llm.ErrBudget) && ctx.Err() == nil:
		res.Budget.Reached = true
		return l.localEnd(res, rr, state.OutcomeBlocked, "nothing was committed: "+err.Error(), nil)
	case err != nil:
		return l.localEnd(res, rr, state.OutcomeFailed, err.Error(), fmt.Errorf("fix: %w", err))
	case rep == nil:
		return l.localEnd(res, rr, state.OutcomeFailed, "the fix ended without a report", errors.New("the fix ended without a report"))
	case !rep.Verified:
		return l.localEnd(res, rr, state.OutcomeBlocked, "nothing was committed: "+rep.Failure, nil)
	}
	fixed := map[string]bool{}
	for _, f := range rep.Fixed {
		fixed[f.FindingID] = true
	}
	res.Remaining = slices.DeleteFunc(res.Remaining, func(f finding.Finding) bool { return fixed[f.ID] })
	if len(res.Remaining) == 0 {
		// Nobody has read the fix: it is not a review that converged.
		return l.localEnd(res, rr, state.OutcomeFixed, fmt.Sprintf("%s fixed, verified and committed, not reviewed again: run gh ocdx review to check the fix", text.Plural(len(fixed), "finding")), nil)
	}
	return l.localEnd(res, rr, state.OutcomeBlocked, fmt.Sprintf("%s fixed; left: %s", text.Plural(len(fixed), "finding"), report.IDList(res.Remaining)), nil)
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

// localEnd records the outcome of a local review.
func (l *loop) localEnd(res *LocalResult, rr *report.RoundResult, outcome state.RunOutcome, reason string, err error) error {
	l.res = &report.Result{Rounds: []report.RoundResult{*rr}}
	res.Outcome, res.Reason = outcome, reason
	res.Label = report.Qualified(outcome, rr)
	return l.endErr(outcome, reason, err)
}

// localFail ends a local review that failed before its findings, or
// leaves it resumable when cancelled.
func (l *loop) localFail(ctx context.Context, res *LocalResult, err error) error {
	l.res = &report.Result{}
	if ctx.Err() != nil {
		if rerr := l.run.Release(); rerr != nil {
			l.progress("releasing the run: %v", rerr)
		}
		return err
	}
	res.Outcome, res.Reason, res.Label = state.OutcomeFailed, err.Error(), string(state.OutcomeFailed)
	return l.endErr(state.OutcomeFailed, err.Error(), err)
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
	res.Roles, res.Findings, res.Counts, res.Consensus, res.Coverage, res.Stuck = rr.Roles, rr.Findings, rr.Counts, rr.Consensus, rr.Coverage, rr.Stuck
	res.Dismissed = orEmpty(rr.Dismissed)
	res.Refuted, res.Verifier, res.Learned = rr.Refuted, rr.Verifier, rr.Learned
	res.Remaining = blockingOf(rr.Findings)
	res.Outcome, res.Reason = state.OutcomeConverged, "no P0/P1/P2 findings"
	if len(res.Remaining) > 0 {
		res.Outcome, res.Reason = state.OutcomeBlocked, fmt.Sprintf("%s: %s", text.Plural(len(res.Remaining), "P0–P2 finding"), report.IDList(res.Remaining))
	}
	res.Label = report.Qualified(res.Outcome, rr)
	res.Reason = fmt.Sprintf("already reviewed at %s: %s, %s (nothing changed since; --full reviews it again)", text.ShortOID(rd.HeadOID), res.Outcome, res.Reason)
	l.progress("%s", res.Reason)
	return res
}
