// Package loop is gh ocdx review-loop (docs/architecture.md, A round of
// review-loop): rounds of reviews by 1–5
// models and a comments analysis side by side, aggregation without dedupe,
// consensus, a review report on the PR, then a fix, until the PR converges,
// gets stuck, or the rounds run out. Every phase is recorded in the state
// file, so an interrupted run resumes without posting anything twice.
package loop

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/evidence"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/fix"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/inline"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/learnings"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/rereview"
	"github.com/ocdx/gh-ocdx/roles"
	"github.com/ocdx/gh-ocdx/secretscan"
	"github.com/ocdx/gh-ocdx/state"
)

// MaxRounds caps a run's rounds (docs/architecture.md, A round of review-loop).
const MaxRounds = 3

// Kind is the run kind in the state file.
const Kind = "review-loop"

// GitHub is what the loop reads and writes on GitHub.
type GitHub interface {
	change.PRSource
	// ReadDiff is Diff that streams the whole diff through scan as well
	// (github.Client.ReadDiff).
	ReadDiff(ctx context.Context, repo github.Repo, number int, limit int64, scan func(io.Reader) error) ([]byte, bool, error)
	Comments(ctx context.Context, repo github.Repo, number int) ([]github.Comment, error)
	PostComment(ctx context.Context, repo github.Repo, number int, body string) (*github.Comment, error)
	PostReviewComments(ctx context.Context, repo github.Repo, number int, event github.ReviewEvent, body string, comments []github.ReviewComment) (*github.PostedReview, error)
	ResolveThreads(ctx context.Context, repo github.Repo, replies []github.ThreadReply) error
	Permission(ctx context.Context, repo github.Repo, login string) (github.Permission, error)
}

// Store is the state file; *state.Store is one.
type Store interface {
	Begins
	PR(key state.Key) (state.PR, error)
	Adopt(key state.Key, a state.Adoption) (bool, error)
}

// Fixer runs the fix phase of a round: the fix agent, verification with
// its retries, the confirmed push and the fix report. It records its
// result in the round itself; a result whose Status is not pushed ends the
// run.
type Fixer interface {
	Fix(ctx context.Context, req FixRequest) (*state.FixResult, error)
}

// FixRequest is one round's fix.
type FixRequest struct {
	Change  change.Subject      // what the fix agent is told of the change
	PR      *github.PullRequest // where a verified fix is pushed; nil for a local review's
	Run     *state.Active
	Round   int
	Payload finding.FixPayload
	Resume  *state.WIP   // the interrupted fix of this round, if any
	Ledger  posts.Ledger // the PR's, before the fix: its report ends with it
}

// ErrDeclined: the user said no to the push. The run stays resumable.
var ErrDeclined = errors.New("push declined")

// Options are the inputs of one review-loop run.
type Options struct {
	Repo    github.Repo
	PR      *github.PullRequest // read by the preflight; the first round reviews it
	CanPush bool                // else review-only: one round, no fix
	// ReviewOnlyReason says why the PR cannot be pushed to.
	ReviewOnlyReason string
	// InlinePriorities are the priorities posted on their lines; nil: P0–P2.
	InlinePriorities []string
	// MaxInlineComments bounds a round's inline comments; 0: the default.
	// The repository's Policy may set either.
	MaxInlineComments int

	GitHub    GitHub
	Store     Store
	Reviewers []roles.Role
	Analyzer  roles.Role
	// ReviewerTools and AnalyzerTools build the read-only tools of a round
	// over the head it reviews (fresh each round: a push moves the head).
	ReviewerTools func(head string) []llm.Tool
	AnalyzerTools func(head string) []llm.Tool
	Fixer         Fixer
	// Policy is the repository's review policy, from the PR's base branch;
	// nil: the defaults.
	Policy *config.Policy
	// Budget, when set, is the run's token budget: the models of Reviewers,
	// Analyzer and Fixer draw on it, and a call it refuses ends the run.
	Budget *llm.Budget
	// Prices, by model as configured, give the estimated costs; a model
	// without one shows none.
	Prices    map[string]config.Price
	MaxRounds int // default MaxRounds
	MaxIters  int // model calls per role (0: the llm default)
	DryRun    bool
	Progress  io.Writer // stderr
	// Summarized: the caller shows the run's outcome itself, on the same
	// screen (its summary on a terminal), so the run does not also end
	// with a "run ended, …" line.
	Summarized bool
	// Since is the diff from one commit to a later one, read in the
	// checkout (no GitHub request), without what merging base (the base
	// branch's tip) brought in; ok is false when from is not an ancestor
	// of to, or either is unknown there. nil, or Full: every
	// round is reviewed in full (docs/architecture.md, Re-reviews).
	Since func(ctx context.Context, from, to, base string) (diff string, ok bool)
	// Whole is the whole diff between two commits, base merges included:
	// previous findings' lines are followed through it (nil: through the
	// since-diff).
	Whole func(ctx context.Context, from, to string) (diff string, ok bool)
	// PRDiff is the PR's diff of paths (base...head), read in the
	// checkout: what the secret scan reads of the files GitHub sends
	// without a patch. ok is false when either commit is not there.
	PRDiff func(ctx context.Context, base, head string, paths []string) (diff []byte, ok bool)
	// LocalDiff streams the PR's whole diff (base...head) from the
	// checkout, as GitHub sends it: a round reads its diff without a
	// request (docs/architecture.md, A round of review-loop). Close reports
	// whether the stream was whole (git.ErrNotHere: a commit is not there).
	// nil, ok false, or an error there: the diff is read from GitHub.
	LocalDiff func(ctx context.Context, base, head string) (diff io.ReadCloser, ok bool)
	// History reads the PR's own commits in the checkout for the secret
	// scan: each commit's added lines, new file names and message (nil:
	// only the PR's diff is scanned).
	History secretscan.History
	Full    bool
	// Verifier, when set, checks the findings a single reviewer raised,
	// with ReviewerTools (docs/architecture.md, The verifier).
	Verifier *roles.Role
	// Effort is the tier asked for (a flag or the configuration): auto, or
	// "", lets each round choose from its change (docs/architecture.md,
	// Effort tiers); the local review's one round too.
	Effort effort.Tier
	// Evidence gathers the tool results about the head each round
	// reviews, at the round's tier (docs/architecture.md, Evidence): the
	// round fuses them with the findings. nil: none.
	Evidence EvidenceSource
	// Opening is Markdown, inert already, that opens round 1's report:
	// gh ocdx describe's description when the configuration asks for it
	// (docs/architecture.md, Describe).
	Opening string
	// Compliance are the requirements of the PR's linked issues that
	// opening found not met, as findings of round 1 when the configuration
	// makes them findings (docs/architecture.md, Describe).
	Compliance []finding.Finding
}

// EvidenceSource gives the tool results about head for a round at tier
// (result files, GitHub's check annotations and code-scanning alerts, the
// configured analyzers: docs/architecture.md, Evidence); what it could not
// read, it says itself.
type EvidenceSource func(ctx context.Context, head string, tier effort.Tier) []evidence.Set

type loop struct {
	o      Options
	key    state.Key
	run    *state.Active
	res    *report.Result
	stuck  []string   // the PR's stuck set, from earlier runs and this one
	posted bool       // a comment of this run is on the PR
	readPR bool       // o.PR was used: later rounds read the PR again
	wip    *state.WIP // an interrupted fix, from the state file
	// converged: the current round's review converged, which its ledger
	// says (posts.Ledger.Converged).
	converged bool
	// seed is the newest ledger on the PR when the run began: what other
	// runs (this machine's or another's) knew.
	seed       posts.Ledger
	trust      *posts.Trust
	dismissals []posts.Dismissal // the findings people dismissed on the PR
	// refusalsSaid are the refused commands this run said do not count
	// (by refusedTag): each is said once.
	refusalsSaid []string
	disputed     []string           // the findings gh-ocdx conceded in its threads (posts.Concessions)
	conceded     []posts.Concession // the same, with whose reply each answered
	restores     []posts.Restore    // the refuted findings people restored on the PR
	tm           *roles.Team        // team() builds it from o
}

// team is the run's roles as o configures them.
func (l *loop) team() *roles.Team {
	if l.tm == nil {
		l.tm = &roles.Team{Reviewers: l.o.Reviewers, Analyzer: l.o.Analyzer, Verifier: l.o.Verifier, ReviewerTools: l.o.ReviewerTools,
			AnalyzerTools: l.o.AnalyzerTools, Budget: l.o.Budget, MaxIters: l.o.MaxIters, Progress: l.progress}
	}
	return l.tm
}

// Run runs the loop on o.PR. A run that ends without converging returns its
// report.Result with Outcome blocked and a nil error; a failure returns an error
// (and the report.Result so far). Cancelling ctx leaves the run resumable.
func Run(ctx context.Context, o Options) (*report.Result, error) {
	if o.MaxRounds <= 0 {
		o.MaxRounds = MaxRounds
	}
	if o.PR == nil {
		return nil, errors.New("loop: no pull request to review")
	}
	if o.Fixer == nil && !o.DryRun && o.CanPush {
		return nil, errors.New("loop: no fixer for a PR that can be pushed")
	}
	l := &loop{o: o, key: state.NewKey(o.Repo.Host, o.Repo.Owner, o.Repo.Name, o.PR.Number),
		res: &report.Result{PR: report.RefOf(o.Repo, o.PR), Rounds: []report.RoundResult{}, Remaining: []finding.Finding{}, Stuck: []string{}}}
	if o.Budget != nil {
		l.res.Budget = &report.BudgetStatus{MaxTokens: o.Budget.Max}
	}
	defer l.totals()
	l.trust = posts.NewTrust(o.GitHub, o.Repo, o.Policy.Trusted())
	l.judge(ctx, o.PR)
	if o.DryRun {
		return l.dryRun(ctx)
	}
	if err := l.rebuild(ctx); err != nil {
		return nil, err
	}
	if rec, err := o.Store.PR(l.key); err == nil {
		for _, s := range rec.Stuck {
			l.stuck = append(l.stuck, s.ID)
		}
		l.wip = rec.WIP
	} else if !errors.Is(err, state.ErrNotFound) {
		return nil, err
	}
	if err := l.readRestores(ctx, o.PR, false); err != nil {
		return nil, err
	}
	if rd, id, ok := l.convergedAt(o.PR.HeadRefOid); ok && !o.Full && !l.restoresRefuted(rd) {
		return l.already(ctx, rd, id)
	}
	if err := l.begin(); err != nil {
		return nil, err
	}
	err := l.rounds(ctx)
	l.res.Stuck = append(l.res.Stuck, l.stuck...)
	return l.res, err
}

// convergedAt is the last round of the newest run that converged with
// head reviewed, when no run is interrupted since (a resumed run goes on).
func (l *loop) convergedAt(head string) (state.Round, string, bool) {
	// The PR's ledger says so on a machine that has no record of the run.
	if s := l.seed; s.Converged && s.Head == head && cmp.Or(s.Kind, Kind) == Kind {
		if rec, err := l.o.Store.PR(l.key); err != nil || !slices.ContainsFunc(rec.Runs, func(r state.Run) bool { return r.ID == s.Run && r.Source == "" }) {
			// A converged review left none that blocks; the ledger locates
			// the rest when its basis is that head.
			fs, ok := s.BasisFindings()
			if !ok || s.Basis != s.Head {
				fs = []finding.Finding{}
			}
			return state.Round{N: s.Round, HeadOID: s.Head, Findings: fs}, s.Run, true
		}
	}
	rec, err := l.o.Store.PR(l.key)
	if err != nil || len(rec.Runs) == 0 {
		return state.Round{}, "", false
	}
	r := rec.Runs[len(rec.Runs)-1]
	if r.Kind != Kind || r.Outcome != state.OutcomeConverged || len(r.Rounds) == 0 {
		return state.Round{}, "", false
	}
	rd := r.Rounds[len(r.Rounds)-1]
	if rd.HeadOID != head || !reviewed(rd) {
		return state.Round{}, "", false
	}
	return rd, r.ID, true
}

// already ends a run on a head a review converged on, without a model
// call or a post (docs/architecture.md, Nothing new, nothing posted): the
// outcome is decided again from what the PR shows now, for a new human
// thread, a maintainer's change request or a dismissal can change it; the
// findings are the review's.
func (l *loop) already(ctx context.Context, rd state.Round, runID string) (*report.Result, error) {
	pr := l.o.PR
	rr := report.RoundResult{N: rd.N, HeadOID: rd.HeadOID, Comments: rd.Comments, Stuck: []string{}}
	rr.Reload(rd, l.o.Prices)
	if err := l.dismiss(ctx, pr, false); err != nil {
		return nil, err
	}
	rr.ReviewState = consensus.ReviewStateOf(pr)
	threadFs, threads := l.threads(ctx, pr)
	rr.Threads, rr.ThreadsTruncated = threads, pr.ThreadsTruncated
	code := slices.DeleteFunc(slices.Clone(rr.Findings), consensus.IsThread)
	rr.Findings, rr.Dismissed = splitDismissed(append(code, threadFs...), posts.IDs(l.dismissals))
	rr.Counts = consensus.Count(rr.Findings)
	rr.Consensus = consensus.Of(rr.ReviewState, rr.Counts)
	rr.ReviewersOK = 1 // reviewed (convergedAt): the review stands
	l.res.RunID = runID
	l.res.Rounds = append(l.res.Rounds, rr)
	l.res.Remaining = blockingOf(rr.Findings)
	l.res.Stuck = append(l.res.Stuck, l.stuck...)
	outcome, reason, _, _ := prSink{l: l, pr: pr}.decide(&l.res.Rounds[0])
	if outcome != state.OutcomeConverged && outcome != state.OutcomeBlocked {
		outcome = state.OutcomeBlocked // something to fix again can only come from a new review (--full)
	}
	l.res.Outcome = outcome
	l.res.Reason = fmt.Sprintf("already reviewed at %s: %s (nothing new to review; --full reviews it again)", text.ShortOID(rd.HeadOID), reason)
	if outcome == state.OutcomeConverged {
		l.res.Reason = fmt.Sprintf("already reviewed at %s: converged (nothing new to review, nothing posted; --full reviews it again)", text.ShortOID(rd.HeadOID))
	}
	l.label()
	if !l.o.Summarized {
		l.progress("%s", l.res.Reason)
	}
	return l.res, nil
}

// Begins is the state file as a run begins on it; *state.Store is one.
type Begins interface {
	Begin(key state.Key, kind string) (*state.Active, error)
	BeginOn(key state.Key, kind, head string) (*state.Active, *state.Run, error)
}

// start is how every kind of run begins at head, by start.begin
// (docs/architecture.md, A round of review-loop).
type start struct {
	kind, head string
	onHead     bool   // an interrupted run whose head moved is given up
	restart    string // not "": why an interrupted run is given up, not resumed
	wip        bool   // work in progress to drop (restart) even if none is resumed
}

// begin claims key for the run and starts its round 1 at head when it has
// none; gaveUp is the interrupted run given up for its moved head (onHead).
func (s start) begin(st Begins, key state.Key) (run *state.Active, gaveUp *state.Run, err error) {
	if s.onHead {
		run, gaveUp, err = st.BeginOn(key, s.kind, s.head)
	} else {
		run, err = st.Begin(key, s.kind)
	}
	if err != nil {
		return nil, nil, err
	}
	if s.restart != "" && (run.Resumed() || s.wip) {
		if run, err = run.Restart(s.restart); err != nil {
			return nil, nil, err
		}
	}
	if len(run.Run().Rounds) == 0 {
		if _, err := run.StartRound(1, s.head); err != nil {
			return nil, nil, err
		}
	}
	return run, gaveUp, nil
}

// begin claims the PR, resuming an interrupted run while it still
// describes the PR's head (state.Run.Describes).
func (l *loop) begin() error {
	run, gaveUp, err := start{kind: Kind, head: l.o.PR.HeadRefOid, onHead: true}.begin(l.o.Store, l.key)
	if err != nil {
		return err
	}
	if gaveUp != nil {
		last := gaveUp.Rounds[len(gaveUp.Rounds)-1]
		l.progress("run %s was interrupted, but the PR's head moved since (%s → %s): starting a new run", gaveUp.ID, text.ShortOID(last.HeadOID), text.ShortOID(l.o.PR.HeadRefOid))
	}
	l.run = run
	l.res.RunID, l.res.Resumed = run.ID(), run.Resumed()
	for _, rd := range run.Run().Rounds {
		if len(rd.Comments) > 0 {
			l.posted = true
		}
	}
	if run.Resumed() {
		l.progress("resuming run %s", run.ID())
	} else {
		l.progress("run %s started", run.ID())
	}
	return nil
}

// rounds runs rounds until an outcome, and records it.
func (l *loop) rounds(ctx context.Context) error {
	for n := l.run.Run().NextRound(); n <= l.o.MaxRounds; n++ {
		done, err := l.round(ctx, n)
		if done {
			return err // the outcome is recorded
		}
		if err != nil {
			return l.fail(ctx, n, err)
		}
	}
	// Only reached when a resumed run had already pushed its last round.
	return l.end(state.OutcomeBlocked, "max rounds reached")
}

// round runs round n through its phases (docs/architecture.md, A round of
// review-loop): read, review, report, decide, then the Fixer's fix,
// verify, push and fix report. Each phase the state file records as done
// is skipped. done reports that the run ended (its outcome set).
func (l *loop) round(ctx context.Context, n int) (done bool, err error) {
	pr := l.o.PR
	if l.readPR {
		if pr, err = l.o.GitHub.PullRequest(ctx, l.o.Repo, l.o.PR.Number); err != nil {
			return false, err
		}
		l.judge(ctx, pr)
	}
	l.readPR = true
	l.progress("round %d of %d: PR #%d at %s", n, l.o.MaxRounds, pr.Number, text.ShortOID(pr.HeadRefOid))
	rd, err := l.run.StartRound(n, pr.HeadRefOid)
	if err != nil {
		return false, err
	}
	rr := report.RoundResult{N: n, HeadOID: rd.HeadOID, Comments: []state.Comment{}, Stuck: []string{}}
	if err := l.dismiss(ctx, pr, true); err != nil {
		return false, err
	}
	if err := l.readRestores(ctx, pr, true); err != nil {
		return false, err
	}
	rr.ReviewState = consensus.ReviewStateOf(pr)
	var threadFs []finding.Finding
	threadFs, rr.Threads = l.threads(ctx, pr)
	rr.ThreadsTruncated = pr.ThreadsTruncated
	rr.PolicyChanged = PolicyChanges(pr.Files)
	if rd.Done(state.PhaseReviewed) {
		rr.Reload(rd, l.o.Prices)
	} else {
		if err := l.review(ctx, prSource{l, pr}, &rr, roles.ThreadsOf(pr, threadFs, rr.ReviewState, rr.Threads)); err != nil {
			return false, err
		}
		if err := l.run.Complete(n, state.PhaseReviewed, rr.Record); err != nil {
			return false, err
		}
	}
	l.res.Rounds = append(l.res.Rounds, rr)
	cur := &l.res.Rounds[len(l.res.Rounds)-1]
	cur.RunUsage, cur.RunCostUSD = l.runUsage()

	return l.sinkRound(ctx, prSink{l, pr, rd}, cur)
}

// sink is where a reviewed round's findings go: a pull request (prSink)
// or a local branch (branchSink); sinkRound is what follows a review for
// both (docs/architecture.md, A round of review-loop; Local review).
type sink interface {
	// decide: the stopping rules over triage; no outcome means fix.
	decide(rr *report.RoundResult) (outcome state.RunOutcome, reason string, toFix, optional []finding.Finding)
	publish(ctx context.Context, rr *report.RoundResult) error // records the round, makes it known
	// fix fixes toFix; done: the run ended, its outcome recorded.
	fix(ctx context.Context, rr *report.RoundResult, toFix, optional []finding.Finding) (done bool, err error)
	end(rr *report.RoundResult, outcome state.RunOutcome, reason string, err error) error // err: the failure
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

// triage is what a reviewed round leaves: the findings that block, those
// the fix is given (optional: P3s), and of the blocking ones those stuck
// and those disputed (conceded in a conversation: never fixed).
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

// decide applies a PR's stopping rules (docs/architecture.md, Stopping
// rules) to a reviewed round: an outcome ends the run; none means fix.
func (p prSink) decide(rr *report.RoundResult) (outcome state.RunOutcome, reason string, _, _ []finding.Finding) {
	l := p.l
	blocking, toFix, optional, stuckNow, disputedNow := l.triage(rr)
	switch {
	case rr.ReviewersOK == 0 && budgetFailed(rr):
		// What failed them is the budget, not their configuration.
		return state.OutcomeBlocked, l.budgetReached(budgetErr(rr)), nil, nil
	case rr.ReviewersOK == 0:
		return state.OutcomeFailed, everyReviewer(len(l.o.Reviewers)) + " failed: no credible review, no fix attempted; " + AllFailedAdvice, nil, nil
	case rr.Consensus == consensus.Approve && len(blocking) == 0 && rr.Threads.Unresolved == 0 && len(rr.Coverage.Unscanned) > 0:
		// A secret in a file the scan could not read would be approved.
		return state.OutcomeBlocked, fmt.Sprintf("blocked: %s not scanned for secrets (GitHub sent no patch for them and the PR's commits are not in this clone): check the PR out (gh pr checkout %d) and re-run", text.Plural(len(rr.Coverage.Unscanned), "file was", "files were"), l.o.PR.Number), nil, nil
	case rr.Consensus == consensus.Approve && len(blocking) == 0 && rr.Threads.Unresolved == 0 && rr.ThreadsTruncated:
		// An unresolved thread may be among those never read.
		return state.OutcomeBlocked, fmt.Sprintf("blocked: the PR has more than %[1]s review threads and only the first %[1]s were read; gh-ocdx cannot tell that the rest are resolved: check them on the PR", text.Thousands(github.MaxThreads)), nil, nil
	case rr.Consensus == consensus.Approve && len(blocking) == 0 && rr.Threads.Unresolved == 0:
		return state.OutcomeConverged, report.Qualified(state.OutcomeConverged, rr) + ": consensus approve, no P0/P1/P2 findings, no unresolved review threads", nil, nil
	case len(toFix) == 0 && secretscan.RewriteNote(blocking) != "":
		return state.OutcomeBlocked, "manual intervention required: " + secretscan.RewriteNote(blocking), nil, nil
	case len(toFix) == 0 && rr.Threads.Unresolved > 0:
		return state.OutcomeBlocked, fmt.Sprintf("manual resolution required: %s and no code findings to fix", text.Plural(rr.Threads.Unresolved, "unresolved review thread")), nil, nil
	case len(toFix) == 0 && len(disputedNow) > 0 && len(stuckNow) == 0:
		return state.OutcomeBlocked, "manual decision required: gh-ocdx conceded " + strings.Join(disputedNow, ", ") + " in a conversation (disputed); someone with write permission dismisses it (/ocdx dismiss) or the PR changes", nil, nil
	case len(toFix) == 0 && len(stuckNow) > 0:
		return state.OutcomeBlocked, "manual intervention required: stuck findings came back after being reported fixed: " + strings.Join(stuckNow, ", "), nil, nil
	case len(toFix) == 0:
		return state.OutcomeBlocked, "manual resolution required: changes requested by " + report.Actors(rr.ReviewState.ChangesRequestedBy) + " and nothing left to fix", nil, nil
	case !l.o.CanPush:
		return state.OutcomeBlocked, "review only: " + l.o.ReviewOnlyReason, nil, nil
	case rr.N >= l.o.MaxRounds:
		return state.OutcomeBlocked, "max rounds reached: remaining " + report.IDList(blocking), nil, nil
	}
	next := fmt.Sprintf("fixing %s (%s), then round %d", text.Plural(len(toFix), "finding"), report.IDList(toFix), rr.N+1)
	if rr.Threads.Unresolved > 0 {
		next = fmt.Sprintf("fixing %s (%s); then stopping: %s manual resolution", text.Plural(len(toFix), "code finding"), report.IDList(toFix), text.Plural(rr.Threads.Unresolved, "unresolved review thread needs", "unresolved review threads need"))
	}
	return "", next, toFix, optional
}

// AllFailedAdvice is what to do when every reviewer failed: their errors
// are on stderr, each said once.
const AllFailedAdvice = "check reviewerModels (each model's name, its provider's key and address) with 'gh ocdx config validate --online', then re-run"

// everyReviewer names n reviewers as a whole: "all 3 reviewers", "the
// reviewer".
func everyReviewer(n int) string {
	if n == 1 {
		return "the reviewer"
	}
	return fmt.Sprintf("all %d reviewers", n)
}

// takeRoles puts how the round's roles did into rr: their statuses,
// tokens and costs, how many reviewers answered. A model that does not
// exist, or that the key may not use, fails the same way every round: a
// configuration error, not a partial round; nor is a round whose comments
// analyzer failed.
func (l *loop) takeRoles(rr *report.RoundResult, out *roles.Reviews) error {
	c := rr.Crew
	for i, r := range out.Roles {
		role := l.o.Analyzer
		if i < len(c.Reviewers) {
			role = c.Reviewers[i]
		}
		if ce := llm.AsConfigError(role.Key, r.Err); ce != nil && role.Key != "" {
			return ce
		}
	}
	rr.Roles = out.Roles
	rr.Usage = map[string]tokens.Usage{}
	for i, r := range out.Roles {
		rr.Usage[r.Role] = r.Usage
		if p, ok := l.o.Prices[r.Model]; ok {
			rr.Roles[i].CostUSD = cost(p, r.Usage)
			rr.AddCost(r.Role, rr.Roles[i].CostUSD)
		}
		if r.OK && r.Role != roles.AnalyzerName {
			rr.ReviewersOK++
		}
	}
	if c.Analyzer && out.Analyzer == nil {
		a := out.Roles[len(out.Roles)-1]
		return &AnalyzerError{Msg: a.Error, Reviewers: len(c.Reviewers), ReviewersFailed: rr.ReviewersOK == 0}
	}
	if out.Analyzer != nil && !equalState(out.Analyzer.ReviewState, rr.ReviewState) {
		rr.AnalyzerMismatch = true
	}
	return nil
}

// identify gives rr's findings the IDs of the review before when they are
// the same finding (carried on a re-review, identified on a full one), and
// returns what was fixed before, for the stuck rule, and the earlier
// review's findings at this head.
func (l *loop) identify(ctx context.Context, pr *github.PullRequest, rr *report.RoundResult, re *rereview.Delta, verdicts consensus.Verdicts) (fixedBefore, earlier []finding.Finding) {
	fixedBefore = l.fixedLastRound(rr.N)
	earlier = l.earlier(ctx, rr.N, pr.HeadRefOid, re)
	if re != nil {
		rr.Findings, fixedBefore = rereview.Carry(rr.Findings, re, verdicts, rr.ReviewersOK), re.Fixed
	} else {
		// A full review: what an earlier review raised keeps its ID.
		rr.Findings, _ = consensus.Identify(rr.Findings, earlier, func(finding.Finding) bool { return true })
	}
	// What the PR's ledger says an earlier run fixed and pushed is fixed
	// too, on this machine or a fresh one alike: raised again, by its ID,
	// it is stuck.
	for _, e := range l.seed.Findings {
		if e.Status == finding.StatusFixed && !strings.HasPrefix(e.ID, "THREAD-") &&
			!slices.ContainsFunc(fixedBefore, func(f finding.Finding) bool { return f.ID == e.ID }) {
			// Located, it is matched as the stuck rule matches a
			// finding fixed the round before (SameFinding).
			fixedBefore = append(fixedBefore, e.Finding())
		}
	}
	return fixedBefore, earlier
}

// settle takes the dismissed findings out of rr's: shown, not counted,
// fixed or stuck; with those of the earlier review, they are the round's
// settled findings.
func (l *loop) settle(rr *report.RoundResult, earlier []finding.Finding) {
	rr.Findings, rr.Dismissed = splitDismissed(rr.Findings, posts.IDs(l.dismissals))
	rr.DismissedBy, rr.DismissedWhy = dismissedBy(rr.Dismissed, l.dismissals)
	rr.Settled = slices.Clone(rr.Dismissed)
	_, before := splitDismissed(earlier, posts.IDs(l.dismissals))
	for _, f := range before {
		if !slices.ContainsFunc(rr.Settled, func(d finding.Finding) bool { return d.ID == f.ID }) {
			rr.Settled = append(rr.Settled, f)
		}
	}
}

// stuckNow sets rr's stuck findings, back after what was fixed before or
// stuck before (this run or an earlier one) and still reported, and its
// disputed ones: a finding gh-ocdx conceded is disputed, not stuck, one
// status each. The run's stuck set grows by the new ones.
func (l *loop) stuckNow(rr *report.RoundResult, fixedBefore []finding.Finding, verdicts consensus.Verdicts) {
	rr.Stuck = orEmptyS(consensus.Stuck(fixedBefore, rr.Findings, verdicts))
	for _, f := range rr.Findings {
		if slices.Contains(l.stuck, f.ID) && !slices.Contains(rr.Stuck, f.ID) {
			rr.Stuck = append(rr.Stuck, f.ID)
		}
	}
	rr.Stuck = slices.DeleteFunc(rr.Stuck, func(id string) bool { return slices.Contains(l.disputed, id) })
	for _, f := range rr.Findings {
		if slices.Contains(l.disputed, f.ID) && !slices.Contains(rr.Disputed, f.ID) {
			rr.Disputed = append(rr.Disputed, f.ID)
		}
	}
	for _, id := range rr.Stuck {
		if !slices.Contains(l.stuck, id) {
			l.stuck = append(l.stuck, id)
		}
	}
}

// evidence gathers the tool results about the head a round reviews, at
// its tier, and fuses them with the round (docs/architecture.md,
// Evidence): those on the lines the change adds, in files the ignore globs
// keep, go to the reviewers in their task and become findings; the rest
// are counted in the coverage.
func (l *loop) evidence(ctx context.Context, head string, tier effort.Tier, rc *change.Context, rr *report.RoundResult, d []byte, now string) []finding.Finding {
	if l.o.Evidence == nil {
		return nil
	}
	sets := l.o.Evidence(ctx, head, tier)
	if len(sets) == 0 {
		return nil
	}
	changed := evidence.ChangedLines(d)
	for file := range changed {
		if l.o.Policy.Ignored(file) { // generated, vendored: not reviewed
			delete(changed, file)
		}
	}
	fused := evidence.Fuse(sets, changed)
	rr.Coverage.Evidence = &fused.Counts
	rc.Evidence = evidence.Brief(fused.OnChanged)
	return evidence.Findings(fused.OnChanged, now)
}

// scanSecrets runs net, the secret scan of the PR's diff, with the scan
// of the PR's own commits, base..head (docs/architecture.md, The secret
// scan); historyRead is false when the checkout
// could not give the commits (the commits are not there, or git failed:
// said on stderr).
func (l *loop) scanSecrets(ctx context.Context, base, head, now string, net func() (secretscan.Scan, error)) (scan secretscan.Scan, historyRead bool, err error) {
	scan, historyRead, herr, err := secretscan.WithHistory(ctx, l.o.History, base, head, now, net)
	if herr != nil && ctx.Err() == nil {
		l.progress("the secret scan could not read the history of %s: %v", text.ShortOID(head), herr)
	}
	return scan, historyRead, err
}

// readDiff reads the PR's diff as github.Client.ReadDiff does: from the
// checkout when it holds both commits, else from GitHub (whose 406 falls
// back on the files endpoint). scan sees the whole diff once from
// whichever answered; a checkout that fails part-way gives way to GitHub,
// and scan starts again.
func (l *loop) readDiff(ctx context.Context, pr *github.PullRequest, limit int64, scan func(io.Reader) error) ([]byte, bool, error) {
	if l.o.LocalDiff != nil {
		if rc, ok := l.o.LocalDiff(ctx, pr.BaseRefOid, pr.HeadRefOid); ok {
			bin := diff.WatchBinary(rc)
			diff, complete, err := github.ScanDiff(bin, limit, scan)
			if cerr := rc.Close(); err == nil {
				err = cerr
			}
			if err == nil && bin.Seen() {
				// The PR's own .gitattributes can have git show a text file
				// as binary, hiding its lines from the scan: GitHub's diff
				// then says what was added.
				err = errors.New("it shows a file as binary")
			}
			if err == nil {
				return diff, complete, nil
			}
			if ctx.Err() != nil {
				return nil, false, ctx.Err()
			}
			if !errors.Is(err, git.ErrNotHere) { // a clone without the commits reads GitHub's, as ever
				l.progress("could not read PR #%d's diff in the checkout (%v): reading it from GitHub", pr.Number, err)
			}
		}
	}
	return l.o.GitHub.ReadDiff(ctx, l.o.Repo, pr.Number, limit, scan)
}

// applyLearnings applies the rules of the repository's learnings to the
// round's findings, once they are one list with their IDs
// (docs/architecture.md, Learnings): before the verifier, the counts, the
// consensus and the fix, so that what a learning leaves out is not
// posted, counted or fixed. Never a P0, SEC- or THREAD- finding.
func applyLearnings(rr *report.RoundResult, p *config.Policy) {
	if p == nil || len(p.Learnings) == 0 {
		return
	}
	var a learnings.Applied
	rr.Findings, a = learnings.Apply(rr.Findings, p.Learnings)
	if a.String() != "" {
		rr.Learned = &a
	}
}

// PolicyChanges lists the repository policy files (.ocdx.json, REVIEW.md,
// .ocdx/learnings.md)
// among a change's files (a PR's or a branch's): this run reads them from
// the base, so the change takes effect only once merged, and the report
// says so.
func PolicyChanges(files []github.ChangedFile) []string {
	var out []string
	for _, f := range files {
		if f.Path == config.RepoFile || f.Path == config.ReviewFile || f.Path == learnings.File {
			out = append(out, f.Path)
		}
	}
	return out
}

// AnalyzerError: the comments analyzer failed, so the review state and the threads
// cannot be judged and the run stops at once. When the reviewers failed
// too, no one model is to blame: the error says every model failed
// (an endpoint nobody answers at, as a rule).
type AnalyzerError struct {
	Msg             string
	Reviewers       int
	ReviewersFailed bool
}

func (e *AnalyzerError) Error() string {
	if e.ReviewersFailed {
		return fmt.Sprintf("every model failed (%s and the comments analyzer), nothing was reviewed: %s; check each model's name, its provider's key and address with 'gh ocdx config validate --online', then re-run",
			everyReviewer(e.Reviewers), e.Msg)
	}
	return "the comments analyzer failed, so the review threads cannot be judged: " + e.Msg + "; check its model (commentsAnalyzerModel) and re-run"
}

// fixedLastRound returns the findings the previous round's fix reported
// fixed, as they were reported.
func (l *loop) fixedLastRound(n int) []finding.Finding {
	if l.run == nil {
		return nil
	}
	for _, rd := range l.run.Run().Rounds {
		res, ok := fix.Recorded(rd)
		if rd.N != n-1 || !ok || len(res.Fixed) == 0 {
			continue
		}
		fixed := res.FixedIDs()
		var out []finding.Finding
		for _, f := range rd.Findings {
			if slices.Contains(fixed, f.ID) {
				out = append(out, f)
			}
		}
		return out
	}
	return nil
}

// showFix puts what the round's fix did (and recorded) into the result.
func (l *loop) showFix(rr *report.RoundResult, res *state.FixResult) {
	rr.Fix = res
	if rr.Usage == nil {
		rr.Usage = map[string]tokens.Usage{}
	}
	// The fix's own record replaces what restore read from the round.
	rr.Usage[fix.Role] = res.Usage
	delete(rr.Costs, fix.Role)
	if p, ok := l.o.Prices[res.Model]; ok {
		rr.AddCost(fix.Role, cost(p, res.Usage))
	}
	if res.CommentURL != "" {
		l.posted = true
	}
}

// post publishes a report once: a tag already recorded or already on the
// PR (a resumed run, or a POST whose answer was lost) is not posted again.
func (l *loop) post(ctx context.Context, n int, kind, body string) (string, error) {
	tag := posts.RunTag(l.run.ID(), n, kind)
	for _, c := range l.comments(n) {
		if c.Tag == tag {
			return c.URL, nil
		}
	}
	record := func(url string) (string, error) {
		l.posted = true
		err := l.run.Complete(n, "", func(rd *state.Round) {
			rd.Comments = append(rd.Comments, state.Comment{Kind: kind, Tag: tag, URL: url})
		})
		return url, err
	}
	if url, ok, err := l.findTag(ctx, tag); err != nil {
		return "", err
	} else if ok {
		l.progress("the %s report of round %d is already on the PR: %s", kind, n, url)
		return record(url)
	}
	full := github.CapBodyWith(redact.ForComment(posts.Marker+"\n"+tag+"\n"+body), "\n"+l.ledger(n, l.headOf(n)).Block())
	c, err := l.o.GitHub.PostComment(ctx, l.o.Repo, l.o.PR.Number, full)
	if err != nil {
		// The POST may have been applied even though it failed: look.
		if url, ok, lerr := l.findTag(ctx, tag); lerr == nil && ok {
			l.progress("posting the %s report failed (%v), but it is on the PR: %s", kind, err, url)
			return record(url)
		}
		return "", err
	}
	l.progress("posted the %s report of round %d: %s", kind, n, c.URL)
	return record(c.URL)
}

func (l *loop) findTag(ctx context.Context, tag string) (string, bool, error) {
	cs, err := l.o.GitHub.Comments(ctx, l.o.Repo, l.o.PR.Number)
	if err != nil {
		return "", false, err
	}
	for _, c := range cs {
		if strings.Contains(c.Body, tag) && l.o.PR.Trusts(c.Author) {
			return c.URL, true, nil
		}
	}
	return "", false, nil
}

// comments are the comments recorded for round n.
func (l *loop) comments(n int) []state.Comment {
	for _, rd := range l.run.Run().Rounds {
		if rd.N == n {
			return slices.Clone(rd.Comments)
		}
	}
	return []state.Comment{}
}

// resumeWIP is the recorded fix work of round n of this run, if any.
func (l *loop) resumeWIP(n int) *state.WIP {
	if w := l.wip; w != nil && w.RunID == l.run.ID() && w.Round == n {
		return w
	}
	return nil
}

// fail ends the run on an error: nothing more
// than the error before the first comment; after it, one final comment.
// A cancelled run is left resumable instead.
func (l *loop) fail(ctx context.Context, n int, err error) error {
	if ctx.Err() != nil || errors.Is(err, ErrDeclined) {
		l.release()
		l.res.Outcome, l.res.Reason = report.OutcomeInterrupted, err.Error()
		return err
	}
	reason := err.Error()
	if errors.Is(err, llm.ErrBudget) {
		// Not a failure: the user's limit, reached before a call, not after.
		reason = l.budgetReached(err)
		if l.posted {
			if _, perr := l.post(ctx, n, "final", report.RenderBudgetReached(n, reason)); perr != nil {
				l.progress("could not post the final report: %v", perr)
			}
		}
		return l.end(state.OutcomeBlocked, reason)
	}
	if l.posted {
		body := report.RenderFailure(n, reason)
		if _, perr := l.post(ctx, n, "final", body); perr != nil {
			l.progress("could not post the failure report: %v", perr)
		}
	}
	return l.endErr(state.OutcomeFailed, reason, err)
}

// release leaves the run resumable.
func (l *loop) release() {
	if err := l.run.Release(); err != nil {
		l.progress("releasing the run: %v", err)
	}
}

// totals sets the run's figures at its end: the budget spent, the cost.
func (l *loop) totals() {
	if l.o.Budget != nil && l.res.Budget != nil {
		l.res.Budget.Spent = l.o.Budget.Spent()
	}
	l.res.CostUSD = 0
	for _, rr := range l.res.Rounds {
		for _, c := range rr.Costs {
			l.res.CostUSD += c
		}
	}
}

// runUsage is what the run's rounds so far used: every role's tokens, and
// each fix's; with their estimated cost where prices are configured.
func (l *loop) runUsage() (u tokens.Usage, usd float64) {
	for _, rr := range l.res.Rounds {
		for _, x := range rr.Usage {
			u = u.Add(x)
		}
		for _, c := range rr.Costs {
			usd += c
		}
		if rr.Fix != nil {
			u = u.Add(rr.Fix.Usage)
			if p, ok := l.o.Prices[rr.Fix.Model]; ok {
				usd += cost(p, rr.Fix.Usage)
			}
		}
	}
	return u, usd
}

func cost(p config.Price, u tokens.Usage) float64 { return p.Cost(u.Input, u.Cached, u.Output) }

// budgetErr is the token-budget error of one of rr's failed reviewers, if
// any; budgetFailed reports whether every reviewer failed on it.
func budgetErr(rr *report.RoundResult) error {
	for _, r := range rr.Roles {
		if r.Role != roles.AnalyzerName && errors.Is(r.Err, llm.ErrBudget) {
			return r.Err
		}
	}
	return nil
}

func budgetFailed(rr *report.RoundResult) bool {
	n := 0
	for _, r := range rr.Roles {
		if r.Role == roles.AnalyzerName || r.OK {
			continue
		}
		if !errors.Is(r.Err, llm.ErrBudget) {
			return false
		}
		n++
	}
	return n > 0
}

// budgetReached records that the token budget stopped the run and says so.
func (l *loop) budgetReached(err error) string {
	if l.res.Budget != nil {
		l.res.Budget.Reached = true
	}
	var be *llm.BudgetError
	if errors.As(err, &be) {
		return be.Error()
	}
	return err.Error()
}

func (l *loop) end(outcome state.RunOutcome, reason string) error {
	return l.endErr(outcome, reason, nil)
}

// endErr records the outcome; err is returned (the failure itself).
func (l *loop) endErr(outcome state.RunOutcome, reason string, err error) error {
	l.res.Outcome, l.res.Reason = outcome, reason
	l.label()
	recorded := outcome
	if outcome == report.OutcomeInterrupted {
		recorded = "" // the record keeps no such ending
	}
	if eerr := l.run.End(recorded, reason); eerr != nil && err == nil {
		return eerr
	}
	if err != nil {
		return err // the caller reports the failure: said once
	}
	if !strings.HasPrefix(reason, string(outcome)) { // "converged: consensus approve, …" says it already
		reason = string(outcome) + " — " + reason
	}
	if !l.o.Summarized {
		l.progress("run ended, %s", reason)
	}
	return nil
}

// dryRun reviews round 1 and shows what would be posted and fixed; it
// writes nothing: no comment, no state, no fix.
func (l *loop) dryRun(ctx context.Context) (*report.Result, error) {
	l.run = nil
	pr := l.o.PR
	rr := report.RoundResult{N: 1, HeadOID: pr.HeadRefOid, Comments: []state.Comment{}, Stuck: []string{}}
	rr.ReviewState = consensus.ReviewStateOf(pr)
	rr.ThreadsTruncated = pr.ThreadsTruncated
	rr.PolicyChanged = PolicyChanges(pr.Files)
	if rec, err := l.o.Store.PR(l.key); err == nil {
		for _, s := range rec.Stuck {
			l.stuck = append(l.stuck, s.ID)
		}
	}
	if led, _, _, ok := l.trust.Ledger(ctx, pr); ok {
		l.seed = led
		for _, id := range led.With(finding.StatusStuck) {
			if !slices.Contains(l.stuck, id) {
				l.stuck = append(l.stuck, id)
			}
		}
	}
	if err := l.dismiss(ctx, pr, false); err != nil {
		return l.res, err
	}
	if err := l.readRestores(ctx, pr, false); err != nil {
		return l.res, err
	}
	var threadFs []finding.Finding
	threadFs, rr.Threads = l.threads(ctx, pr)
	if err := l.review(ctx, prSource{l, pr}, &rr, roles.ThreadsOf(pr, threadFs, rr.ReviewState, rr.Threads)); errors.Is(err, llm.ErrBudget) {
		l.res.Outcome, l.res.Reason = state.OutcomeBlocked, "dry run: "+l.budgetReached(err)
		l.label()
		return l.res, nil
	} else if err != nil {
		return l.res, err
	}
	l.res.Rounds = append(l.res.Rounds, rr)
	cur := &l.res.Rounds[0]
	// The outcome is the one the run would reach after this round (a
	// script asks "would it converge?"), or report.OutcomeWouldFix; DryRun says
	// that nothing happened.
	outcome, reason, toFix, _ := prSink{l: l, pr: pr}.decide(cur)
	if outcome == "" {
		outcome = report.OutcomeWouldFix
	}
	cur.Note = reason
	l.res.DryRun = true
	l.res.Outcome, l.res.Reason = outcome, "dry run: nothing was posted, fixed or recorded; "+reason
	l.label()
	l.res.Label = "dry run: " + l.res.Label
	in := inline.Choose(pr, cur.Lines, cur.Findings, inlinePolicy(l.o))
	cur.Inline = &in
	l.res.WouldPost = redact.ForComment(posts.Marker + "\n" + posts.RunTag("<run>", 1, "review") + "\n" + opening(l.o, 1) + report.RenderReview("<run>", l.o.MaxRounds, cur))
	l.res.WouldComment = in.Comments
	l.res.WouldFix = toFix
	l.res.Remaining = blockingOf(cur.Findings)
	l.res.Stuck = append(l.res.Stuck, l.stuck...)
	if cur.ReviewersOK == 0 {
		return l.res, errors.New(reason) // as the run would fail
	}
	return l.res, nil
}

// label sets the result's Label and Partial from its last round.
func (l *loop) label() {
	l.res.Label, l.res.Partial = string(l.res.Outcome), nil
	if n := len(l.res.Rounds); n > 0 {
		rr := &l.res.Rounds[n-1]
		l.res.Label, l.res.Partial = report.Qualified(l.res.Outcome, rr), rr.FailedReviewers()
	}
}

func (l *loop) progress(format string, a ...any) {
	if l.o.Progress != nil {
		fmt.Fprintf(l.o.Progress, format+"\n", a...)
	}
}

func blockingOf(fs []finding.Finding) []finding.Finding {
	out := []finding.Finding{}
	for _, f := range fs {
		if consensus.Blocking(f) {
			out = append(out, f)
		}
	}
	return out
}

func hasKind(cs []state.Comment, kind string) bool {
	return slices.ContainsFunc(cs, func(c state.Comment) bool { return c.Kind == kind })
}

func equalState(a, b finding.ReviewState) bool {
	return a.HasChangesRequested == b.HasChangesRequested && slices.Equal(a.ChangesRequestedBy, b.ChangesRequestedBy)
}

func orEmpty(fs []finding.Finding) []finding.Finding {
	if fs == nil {
		return []finding.Finding{}
	}
	return fs
}

func orEmptyS(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// effortFacts are what a round's tier is chosen from: the files and lines
// of the change the reviewers are given (on a re-review, those since the
// last review), the base branch's paths rules, the secrets the scan found
// and whether an earlier review of the PR raised a security finding.
func (l *loop) effortFacts(s change.Subject, re *rereview.Delta, secrets int) effort.Facts {
	f := effort.Facts{Secrets: secrets, Rules: effortRules(l.o.Policy)}
	if re != nil {
		f.Files, f.Lines = diffFacts([]byte(re.Diff))
	} else {
		for _, c := range s.Files {
			f.Files = append(f.Files, c.Path)
			f.Lines += c.Additions + c.Deletions
		}
	}
	// A security finding, or a secret, of an earlier run or round.
	for _, e := range l.seed.Findings {
		f.Security = f.Security || strings.HasPrefix(e.ID, "SEC-")
	}
	for _, r := range l.res.Rounds {
		for _, x := range slices.Concat(r.Findings, r.Dismissed, r.Refuted) { // none yet in a local review
			f.Security = f.Security || strings.HasPrefix(x.ID, "SEC-")
		}
	}
	return f
}

// effortRules are the policy's paths rules that name a tier.
func effortRules(p *config.Policy) []effort.PathRule {
	var rules []effort.PathRule
	if p != nil {
		for _, r := range p.Paths {
			if r.Effort != "" {
				rules = append(rules, effort.PathRule{Glob: r.Glob, Tier: r.Effort})
			}
		}
	}
	return rules
}

// diffFacts are the files of d and its added and removed lines, as far as
// d parses.
func diffFacts(d []byte) (files []string, lines int) {
	parsed, _ := diff.Parse(d)
	for _, file := range parsed {
		files = append(files, file.Path())
		for _, h := range file.Hunks {
			for _, ln := range h.Lines {
				if ln.Kind != diff.Context {
					lines++
				}
			}
		}
	}
	return files, lines
}
