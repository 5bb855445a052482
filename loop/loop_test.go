package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/inline"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/roles"
	"github.com/ocdx/gh-ocdx/state"
)

// fakeGitHub keeps comments in memory; failPost makes the next POST fail
// after (applied) or instead of storing the comment.
type fakeGitHub struct {
	mu       sync.Mutex
	pr       github.PullRequest
	comments []github.Comment
	failPost string // "", "applied", "lost"
	posts    int
	inline   []github.ReviewComment
	resolved []github.ThreadReply
	perms    map[string]github.Permission // by login; none when absent
	diff     string                       // the PR's diff; "" for a one-line one
	asked    []string                     // the logins whose permission was read
}

func (g *fakeGitHub) Permission(_ context.Context, _ github.Repo, login string) (github.Permission, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.asked = append(g.asked, login)
	if p, ok := g.perms[login]; ok {
		return p, nil
	}
	return github.PermNone, nil
}

func (g *fakeGitHub) PullRequest(context.Context, github.Repo, int) (*github.PullRequest, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	pr := g.pr
	return &pr, nil
}

func (g *fakeGitHub) Diff(_ context.Context, _ github.Repo, _ int, limit int64) ([]byte, bool, error) {
	if g.diff != "" {
		return []byte(g.diff[:min(int64(len(g.diff)), limit)]), int64(len(g.diff)) <= limit, nil
	}
	return []byte("diff --git a/a.go b/a.go\n+x\n"), true, nil
}

func (g *fakeGitHub) ReadDiff(ctx context.Context, repo github.Repo, n int, limit int64, scan func(io.Reader) error) ([]byte, bool, error) {
	d, complete, err := g.Diff(ctx, repo, n, limit)
	if err == nil {
		err = scan(bytes.NewReader(d))
	}
	return d, complete, err
}

func (g *fakeGitHub) Comments(context.Context, github.Repo, int) ([]github.Comment, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]github.Comment(nil), g.comments...), nil
}

// PostComment keeps the comment with the posts and in the PR's
// conversation, where the ledger is read.
func (g *fakeGitHub) PostComment(_ context.Context, _ github.Repo, _ int, body string) (*github.Comment, error) {
	c, err := g.post(body)
	if c != nil {
		g.mu.Lock()
		g.pr.Comments = append(g.pr.Comments, *c)
		g.mu.Unlock()
	}
	return c, err
}

func (g *fakeGitHub) post(body string) (*github.Comment, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.posts++
	mode := g.failPost
	g.failPost = ""
	if mode == "lost" {
		return nil, errors.New("HTTP 502")
	}
	c := github.Comment{ID: int64(len(g.comments) + 1), URL: fmt.Sprintf("https://x/c/%d", len(g.comments)+1), Body: body, Author: g.pr.Viewer}
	g.comments = append(g.comments, c)
	if mode == "applied" {
		return nil, errors.New("HTTP 502")
	}
	return &c, nil
}

// PostReviewComments keeps the review with the comments (posts are posts)
// and on the PR's reviews, where the tag check reads it.
func (g *fakeGitHub) PostReviewComments(_ context.Context, _ github.Repo, _ int, _ github.ReviewEvent, body string, comments []github.ReviewComment) (*github.PostedReview, error) {
	c, err := g.post(body)
	g.mu.Lock()
	defer g.mu.Unlock()
	if n := len(g.comments); n > 0 && g.comments[n-1].Body == body {
		g.pr.Reviews = append(g.pr.Reviews, github.Review{State: "COMMENTED", Author: g.pr.Viewer, Body: body, URL: g.comments[n-1].URL})
		g.inline = append(g.inline, comments...)
	}
	if err != nil {
		return nil, err
	}
	return &github.PostedReview{ID: c.ID, URL: c.URL, State: "COMMENTED"}, nil
}

func (g *fakeGitHub) ResolveThreads(_ context.Context, _ github.Repo, replies []github.ThreadReply) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.resolved = append(g.resolved, replies...)
	return nil
}

// scripted answers every call with the next envelope of its role.
type scripted struct {
	mu      sync.Mutex
	answers []string
	calls   int
	tasks   []string // the first message of each call
}

func (s *scripted) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if len(req.Messages) > 0 {
		s.tasks = append(s.tasks, req.Messages[0].Text)
	}
	if len(s.answers) == 0 {
		return llm.Response{Text: "no more answers"}, nil
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	return llm.Response{Text: a, Usage: tokens.Usage{Calls: 1, Input: 10, Output: 5}}, nil
}

func envelope(v any) string {
	b, _ := json.Marshal(v)
	return "BEGIN_JSON\n" + string(b) + "\nEND_JSON"
}

func reviewerAnswer(fs ...finding.Finding) string {
	conclusion := "approve"
	if len(fs) > 0 {
		conclusion = "request_changes"
	}
	return envelope(finding.ReviewerResult{Agent: "reviewer-1", PRNumber: 5, Conclusion: conclusion, Findings: append([]finding.Finding{}, fs...), FullReport: "r"})
}

func analyzerAnswer() string {
	return envelope(finding.CommentsAnalyzerResult{Agent: roles.AnalyzerName, PRNumber: 5, ReviewState: finding.ReviewState{ChangesRequestedBy: []finding.Actor{}},
		PendingIssues: []finding.Finding{}, FullReport: "a"})
}

type fakeFixer struct {
	report *state.FixResult
	err    error
	calls  int
	gh     *fakeGitHub
}

// Fix records its result in the round, as fix.Run does.
func (f *fakeFixer) Fix(_ context.Context, req FixRequest) (*state.FixResult, error) {
	f.calls++
	if f.report != nil && f.report.Pushed {
		f.gh.mu.Lock()
		f.gh.pr.HeadRefOid = f.report.HeadOID
		f.gh.mu.Unlock()
	}
	if f.report != nil {
		if err := f.report.Record(req.Run, req.Round); err != nil {
			return nil, err
		}
		if f.report.Pushed {
			if err := errors.Join(req.Run.Complete(req.Round, state.PhasePushed, nil), req.Run.Complete(req.Round, state.PhaseReported, nil)); err != nil {
				return nil, err
			}
		}
	}
	return f.report, f.err
}

type harness struct {
	gh       *fakeGitHub
	reviewer *scripted
	analyzer *scripted
	fixer    *fakeFixer
	store    *state.Store
	opts     Options
}

func newHarness(t *testing.T) *harness {
	gh := &fakeGitHub{pr: github.PullRequest{Number: 5, URL: "https://x/pull/5", State: "OPEN", HeadRefName: "f", HeadRefOid: "aaaaaaaa", HeadRepository: "o/r", ViewerPermission: "WRITE", Viewer: "ocdx-bot"}}
	h := &harness{gh: gh, reviewer: &scripted{}, analyzer: &scripted{}, fixer: &fakeFixer{gh: gh},
		store: state.New(filepath.Join(t.TempDir(), "state.db"), nil)}
	h.opts = Options{Repo: github.Repo{Host: "h", Owner: "o", Name: "r"}, CanPush: true, GitHub: gh, Store: h.store,
		Reviewers: []roles.Role{{Name: "reviewer-1", Model: "openai/a", LLM: h.reviewer}},
		Analyzer:  roles.Role{Name: roles.AnalyzerName, Model: "openai/b", LLM: h.analyzer}, Fixer: h.fixer}
	return h
}

func (h *harness) run(t *testing.T) (*report.Result, error) {
	pr, _ := h.gh.PullRequest(context.Background(), h.opts.Repo, 5)
	h.opts.PR = pr
	return Run(context.Background(), h.opts)
}

var bug = finding.Finding{Priority: "P1", Category: "quality", File: "a.go", Title: "Leak", Description: "d"}

func TestRunPostAppliedDespiteErrorIsNotRepeated(t *testing.T) {
	h := newHarness(t)
	h.reviewer.answers = []string{reviewerAnswer()}
	h.analyzer.answers = []string{analyzerAnswer()}
	h.gh.failPost = "applied"

	res, err := h.run(t)

	if err != nil || res.Outcome != state.OutcomeConverged {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if h.gh.posts != 1 || len(h.gh.comments) != 1 {
		t.Fatalf("%d posts, %d comments: want one of each", h.gh.posts, len(h.gh.comments))
	}
	if !strings.HasPrefix(h.gh.comments[0].Body, posts.Marker+"\n"+posts.RunTag(res.RunID, 1, "review")) {
		t.Errorf("comment starts with %q", h.gh.comments[0].Body[:80])
	}
}

func TestRunPostLostFailsWithoutComment(t *testing.T) {
	h := newHarness(t)
	h.reviewer.answers = []string{reviewerAnswer()}
	h.analyzer.answers = []string{analyzerAnswer()}
	h.gh.failPost = "lost"

	_, err := h.run(t)

	if err == nil || !strings.Contains(err.Error(), "502") {
		t.Fatalf("err = %v", err)
	}
	if len(h.gh.comments) != 0 {
		t.Error("no comment was applied, and before the first comment no failure report is posted")
	}
}

func TestRunVerificationFailedBlocksWithFinalComment(t *testing.T) {
	h := newHarness(t)
	h.reviewer.answers = []string{reviewerAnswer(bug)}
	h.analyzer.answers = []string{analyzerAnswer()}
	h.fixer.report = &state.FixResult{Status: state.FixVerifyFailed, Failure: `"make lint" exited 2`}

	res, err := h.run(t)

	if err != nil || res.Outcome != state.OutcomeBlocked || !strings.Contains(res.Reason, "verification failed") {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if len(h.gh.comments) != 2 || !strings.Contains(h.gh.comments[1].Body, "kind=final") || !strings.Contains(h.gh.comments[1].Body, "make lint") {
		t.Fatalf("want the review report, then a final comment naming the failure; got %d comments", len(h.gh.comments))
	}
	rec, _ := h.store.PR(state.NewKey("h", "o", "r", 5))
	if last := rec.Runs[len(rec.Runs)-1]; last.Outcome != state.OutcomeBlocked {
		t.Errorf("run outcome %q", last.Outcome)
	}
}

func TestRunDeclinedPushStaysResumable(t *testing.T) {
	h := newHarness(t)
	h.reviewer.answers = []string{reviewerAnswer(bug)}
	h.analyzer.answers = []string{analyzerAnswer()}
	h.fixer.err = ErrDeclined

	_, err := h.run(t)

	if !errors.Is(err, ErrDeclined) {
		t.Fatalf("err = %v", err)
	}
	if len(h.gh.comments) != 1 {
		t.Errorf("%d comments: a decline posts no failure report", len(h.gh.comments))
	}

	// The re-run resumes: no second review, no second report.
	h.fixer.err = nil
	h.fixer.report = pushedFix(bug.ComputeID())
	h.reviewer.answers = []string{reviewerAnswer()}
	h.analyzer.answers = []string{analyzerAnswer()}
	calls := h.reviewer.calls

	res, err := h.run(t)

	if err != nil || res.Outcome != state.OutcomeConverged || !res.Resumed {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if h.reviewer.calls != calls+1 {
		t.Errorf("reviewer called %d more times, want once (round 2 only)", h.reviewer.calls-calls)
	}
	if n := len(h.gh.comments); n != 2 {
		t.Errorf("%d comments, want round 1's review and round 2's (the fake fixer posts none)", n)
	}
	// --json keeps the fix's field names, and adds its status.
	raw, _ := json.Marshal(res.Rounds[0])
	for _, want := range []string{`"fix":{"status":"pushed","fixed":[{"findingId":"` + bug.ComputeID() + `"`, `"verified":true,"pushed":true,"headOid":"bbbbbbbb"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("round 1 as JSON lacks %s:\n%s", want, raw)
		}
	}
}

func TestRunHeadMovedStartsANewRun(t *testing.T) {
	h := newHarness(t)
	h.reviewer.answers = []string{reviewerAnswer(bug)}
	h.analyzer.answers = []string{analyzerAnswer()}
	h.fixer.err = ErrDeclined
	first, _ := h.run(t)

	h.gh.pr.HeadRefOid = "cccccccc" // someone pushed
	h.fixer.err = nil
	h.reviewer.answers = []string{reviewerAnswer()}
	h.analyzer.answers = []string{analyzerAnswer()}
	res, err := h.run(t)

	if err != nil || res.Resumed || res.RunID == first.RunID || res.Outcome != state.OutcomeConverged {
		t.Fatalf("Run = %+v, %v: want a new run", res, err)
	}
}

func TestRunAnalyzerFailureAfterFirstCommentPostsFinal(t *testing.T) {
	h := newHarness(t)
	h.reviewer.answers = []string{reviewerAnswer(bug), reviewerAnswer()}
	h.analyzer.answers = []string{analyzerAnswer()} // round 2 gets no envelope
	h.fixer.report = &state.FixResult{Status: state.FixPushed, Verified: true, Pushed: true, HeadOID: "bbbbbbbb"}

	res, err := h.run(t)

	var ae *AnalyzerError
	if !errors.As(err, &ae) || res.Outcome != state.OutcomeFailed {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if len(h.gh.comments) != 2 || !strings.Contains(h.gh.comments[1].Body, "round=2 kind=final") {
		t.Fatalf("want round 1's review then round 2's final failure comment, got %d comments", len(h.gh.comments))
	}
}

func TestRunReviewOnlyNeedsNoFixer(t *testing.T) {
	h := newHarness(t)
	h.opts.CanPush, h.opts.Fixer, h.opts.ReviewOnlyReason = false, nil, "fork"
	h.reviewer.answers = []string{reviewerAnswer(bug)}
	h.analyzer.answers = []string{analyzerAnswer()}

	res, err := h.run(t)

	if err != nil || res.Outcome != state.OutcomeBlocked || res.Reason != "review only: fork" || len(res.Remaining) != 1 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
}

func TestRunDryRunWritesNothing(t *testing.T) {
	h := newHarness(t)
	h.opts.DryRun = true
	h.reviewer.answers = []string{reviewerAnswer(bug)}
	h.analyzer.answers = []string{analyzerAnswer()}

	res, err := h.run(t)

	if err != nil || res.Outcome != report.OutcomeWouldFix || !res.DryRun || len(res.WouldFix) != 1 || !strings.Contains(res.WouldPost, posts.Marker) {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if h.gh.posts != 0 || h.fixer.calls != 0 {
		t.Error("a dry run posted or fixed")
	}
	if _, err := h.store.PR(state.NewKey("h", "o", "r", 5)); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("a dry run recorded state: %v", err)
	}
	sum := report.RenderSummary(res)
	for _, want := range []string{"# review-loop: PR #5 — dry run: would-fix", "https://x/pull/5", "## Round 1", "P1 1", "## Remaining P0/P1/P2", "## Would post (dry run)", "## Would fix (dry run)", bug.ComputeID()} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
}

func TestRunStuckAcrossRuns(t *testing.T) {
	h := newHarness(t)
	h.reviewer.answers = []string{reviewerAnswer(bug), reviewerAnswer(bug)}
	h.analyzer.answers = []string{analyzerAnswer(), analyzerAnswer()}
	id := bug.ComputeID()
	h.fixer.report = pushedFix(id)

	res, err := h.run(t)

	if err != nil || res.Outcome != state.OutcomeBlocked || !strings.Contains(res.Reason, "manual intervention required") || h.fixer.calls != 1 {
		t.Fatalf("Run = %+v, %v (%d fixes)", res, err, h.fixer.calls)
	}

	// A later run meets the finding again: it is stuck from the start.
	h.gh.pr.HeadRefOid = "cccccccc"
	h.reviewer.answers = []string{reviewerAnswer(bug)}
	h.analyzer.answers = []string{analyzerAnswer()}
	res, err = h.run(t)

	if err != nil || res.Outcome != state.OutcomeBlocked || !strings.Contains(res.Reason, "manual intervention required: stuck") || h.fixer.calls != 1 {
		t.Fatalf("Run = %+v, %v (%d fixes): a stuck finding is never sent to the fix agent again", res, err, h.fixer.calls)
	}
	last := h.gh.comments[len(h.gh.comments)-1].Body
	if !strings.Contains(last, "### Stuck findings") || !strings.Contains(last, "**(stuck)**") {
		t.Errorf("the report must show the stuck finding:\n%s", last)
	}
}

// A stuck finding gh-ocdx then concedes in a conversation is disputed:
// still blocking, never fixed, and in one status only, in the report, the
// ledger and the state file.
func TestRunAConcededStuckFindingIsDisputed(t *testing.T) {
	h := newHarness(t)
	h.reviewer.answers = []string{reviewerAnswer(bug), reviewerAnswer(bug)}
	h.analyzer.answers = []string{analyzerAnswer(), analyzerAnswer()}
	id := bug.ComputeID()
	h.fixer.report = pushedFix(id)
	if res, err := h.run(t); err != nil || !strings.Contains(res.Reason, "stuck") {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	f := bug
	f.ID, f.Line = id, new(2)
	h.gh.pr.Threads = []github.ReviewThread{{ID: "T1", Path: "a.go", Comments: []github.ThreadComment{
		{ID: "C1", Author: "ocdx-bot", Body: inline.Body(f), Path: "a.go", Line: new(2)},
		{ID: "C2", DatabaseID: "2", Author: "mona", Body: "intended"},
		{ID: "C3", Author: "ocdx-bot", Body: posts.Marker + "\n" + posts.AnswerTag("2") + "\n" + posts.ConcededTag(id) + "\nYou're right."}}}}
	h.gh.pr.HeadRefOid = "cccccccc"
	h.reviewer.answers = []string{reviewerAnswer(bug)}
	h.analyzer.answers = []string{analyzerAnswer()}

	res, err := h.run(t)

	if err != nil || res.Outcome != state.OutcomeBlocked || !strings.Contains(res.Reason, "conceded "+id) || h.fixer.calls != 1 {
		t.Fatalf("Run = %+v, %v (%d fixes)", res, err, h.fixer.calls)
	}
	rr := res.Rounds[len(res.Rounds)-1]
	if len(res.Stuck) != 0 || len(rr.Stuck) != 0 || fmt.Sprint(rr.Disputed) != "["+id+"]" {
		t.Errorf("stuck %v (round %v), disputed %v: want %s disputed only", res.Stuck, rr.Stuck, rr.Disputed, id)
	}
	last := h.gh.comments[len(h.gh.comments)-1].Body
	led, err := posts.ParseLedger(last)
	if err != nil || fmt.Sprint(led.With(finding.StatusDisputed)) != "["+id+"]" || len(led.With(finding.StatusStuck)) != 0 {
		t.Errorf("ledger %+v, %v", led.Findings, err)
	}
	if !strings.Contains(last, "### Disputed findings") || strings.Contains(last, "### Stuck findings") {
		t.Errorf("the report must show the finding disputed, not stuck:\n%s", last)
	}
	if rec, err := h.store.PR(state.NewKey("h", "o", "r", 5)); err != nil || len(rec.Stuck) != 0 {
		t.Errorf("the state file's stuck set %+v, %v", rec.Stuck, err)
	}
}

// pushedFix is the fix agent's report of a verified, pushed fix of id,
// the new head bbbbbbbb.
func pushedFix(id string) *state.FixResult {
	return &state.FixResult{Status: state.FixPushed, Verified: true, Pushed: true, HeadOID: "bbbbbbbb",
		Fixed: []finding.FixedIssue{{FindingID: id, CommitSha: "bbbbbbbb"}}}
}

// A file the PR adds lines to that the diff holds no patch for is read
// from the checkout by the secret scan; where it cannot be, the run does
// not converge over it and says why.
func TestRunScansFilesWithoutAPatchOrBlocks(t *testing.T) {
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	for _, clone := range []bool{true, false} {
		h := newHarness(t)
		h.gh.pr.Files = []github.ChangedFile{{Path: "a.go"}, {Path: "big.go", Additions: 2}} // the fake diff adds nothing to a.go
		h.reviewer.answers = []string{reviewerAnswer()}
		h.analyzer.answers = []string{analyzerAnswer()}
		var asked []string
		h.opts.CanPush, h.opts.ReviewOnlyReason = false, "a fork" // the review is what is tested
		if clone {
			h.opts.PRDiff = func(_ context.Context, _, _ string, paths []string) ([]byte, bool) {
				asked = paths
				return []byte("diff --git a/big.go b/big.go\n--- a/big.go\n+++ b/big.go\n@@ -1 +1,2 @@\n package big\n+var key = \"" + token + "\"\n"), true
			}
		}

		res, err := h.run(t)

		if err != nil {
			t.Fatal(err)
		}
		last := res.Rounds[len(res.Rounds)-1]
		if clone {
			if !slices.Equal(asked, []string{"big.go"}) || res.Outcome == state.OutcomeConverged || last.Counts.P0 != 1 || len(last.Coverage.Unscanned) != 0 {
				t.Errorf("with the clone: asked %v, outcome %s, counts %+v, unscanned %v", asked, res.Outcome, last.Counts, last.Coverage.Unscanned)
			}
			continue
		}
		if res.Outcome != state.OutcomeBlocked || !strings.Contains(res.Reason, "not scanned for secrets") || !slices.Equal(last.Coverage.Unscanned, []string{"big.go"}) {
			t.Errorf("without the clone: %s %q, unscanned %v", res.Outcome, res.Reason, last.Coverage.Unscanned)
		}
		if !strings.Contains(h.gh.comments[0].Body, "not scanned for secrets") {
			t.Errorf("the report does not say what was not scanned:\n%s", h.gh.comments[0].Body)
		}
	}
}

func TestIssuesToFixSendsEachIDOnce(t *testing.T) {
	f := finding.Finding{ID: "SEC-0a1b2c3d", Priority: "P0", Category: "security", File: "a.go", Title: "t"}
	toFix, _ := consensus.IssuesToFix([]finding.Finding{f, f}, nil)
	if len(toFix) != 1 {
		t.Errorf("issuesToFix holds %d copies of one ID", len(toFix))
	}
}

// The PR's own .gitattributes can have git show a text file as binary in
// the checkout, hiding its added lines from the secret scan: such a diff
// gives way to GitHub's, and the token in it is found.
func TestADiffGitShowsAsBinaryIsReadFromGitHub(t *testing.T) {
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	h := newHarness(t)
	h.opts.CanPush, h.opts.ReviewOnlyReason = false, "a fork"
	h.gh.diff = "diff --git a/config.go b/config.go\nnew file mode 100644\n--- /dev/null\n+++ b/config.go\n@@ -0,0 +1 @@\n+var Token = \"" + token + "\"\n"
	h.opts.LocalDiff = func(context.Context, string, string) (io.ReadCloser, bool) {
		return io.NopCloser(strings.NewReader("diff --git a/config.go b/config.go\nnew file mode 100644\nindex 0000000..1234567\nBinary files /dev/null and b/config.go differ\n")), true
	}
	h.reviewer.answers = []string{reviewerAnswer()}
	h.analyzer.answers = []string{analyzerAnswer()}

	res, err := h.run(t)

	if err != nil || res.Outcome == state.OutcomeConverged || len(res.Rounds) == 0 || res.Rounds[0].Counts.P0 != 1 {
		t.Fatalf("Run = %+v, %v: the token the checkout's diff hid was not found", res, err)
	}
}

// lineOf is line n, 0 none.
func lineOf(n int) *int {
	if n <= 0 {
		return nil
	}
	return &n
}
