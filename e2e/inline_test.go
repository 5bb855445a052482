package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// The PR adds lines 2–5 of cache.go; README.md is not changed.
var (
	readmeGap = modelFinding{Priority: "P2", Category: "docs", File: "README.md", Line: line(1), Title: "README does not mention the cache"}
	getTest   = modelFinding{Priority: "P2", Category: "testing", File: "cache.go", Line: line(5), Title: "Get has no test"}
)

// replyWithReplacement is reviewer-1's answer: cacheBug with an exact
// replacement for its line, and the other findings as they are.
func replyWithReplacement(fs ...modelFinding) testkit.Step {
	list := []map[string]any{{"priority": cacheBug.Priority, "category": cacheBug.Category, "file": cacheBug.File, "line": cacheBug.Line,
		"title": cacheBug.Title, "description": "Nothing bounds it.", "suggestion": "Bound it.", "replacement": "var Size = 10 // bounded by Evict"}}
	for _, f := range fs {
		list = append(list, map[string]any{"priority": f.Priority, "category": f.Category, "file": f.File, "line": f.Line,
			"title": f.Title, "description": "details of " + f.Title})
	}
	b, _ := json.Marshal(map[string]any{"agent": "reviewer-1", "prNumber": loopPR, "conclusion": "request_changes",
		"issues":   map[string]int{"p0_blocking": 0, "p1_critical": 1, "p2_important": 1, "p3_suggestion": 0},
		"findings": list, "fullReport": "Reviewed."})
	return testkit.Reply("BEGIN_JSON\n" + string(b) + "\nEND_JSON")
}

// Three rounds: round 1 finds the unbounded cache (on a changed line, with
// a replacement) and a README gap (on no changed line); both are fixed.
// Round 2 no longer raises them and finds a missing test; round 3 raises
// that again (stuck). Each finding is commented once, the fixed one's
// thread is resolved, the open one stays open and is linked, and GitHub
// never answers 422.
func TestLoopPostsFindingsOnTheirLinesOnce(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.fm.Script("rev-a", replyWithReplacement(readmeGap), reviewerReply("reviewer-1", "request_changes", getTest), reviewerReply("reviewer-1", "request_changes", getTest))
	lf.fm.Script("rev-b", reviewerReply("reviewer-2", "approve"), reviewerReply("reviewer-2", "approve"), reviewerReply("reviewer-2", "approve"))
	lf.fm.Script("analyzer", analyzerReply(), analyzerReply(), analyzerReply())
	// During round 1's fix a person answers on gh-ocdx's thread.
	var once sync.Once
	lf.fix.Mu.Lock()
	lf.fix.OnRequest = func() {
		once.Do(func() {
			if th := lf.gh.Threads(repo, lf.number); len(th) == 1 {
				lf.gh.AddThreadReply(th[0].ID, "mona", "OWNER", "Evict runs every minute, see evict.go")
			}
		})
	}
	lf.fix.Mu.Unlock()

	res := lf.run("--yes")

	wantCode(t, res, 3)
	for _, r := range lf.gh.Requests() {
		if r.Status == 422 {
			t.Errorf("GitHub answered 422: %s %s", r.Method, r.Path)
		}
	}
	reviews := lf.gh.Reviews(repo, lf.number)
	if len(reviews) != 3 {
		t.Fatalf("%d reviews, want one per round", len(reviews))
	}
	// Round 1: the cache finding on its line with a committable suggestion;
	// the README finding in the body.
	if c := reviews[0].Comments; len(c) != 1 || c[0].Path != "cache.go" || c[0].Line != 3 || c[0].Side != "RIGHT" {
		t.Fatalf("round 1's inline comments: %+v", c)
	} else {
		wantContains(t, "round 1's comment", c[0].Body, cacheBug.id(), "Cache size is not bounded", "```suggestion\nvar Size = 10 // bounded by Evict\n```", "<!-- pr-review-loop-marker -->")
	}
	wantContains(t, "round 1's body", reviews[0].Body, "1 finding is on no changed line", "`README.md:1`", readmeGap.id(), "details of "+readmeGap.Title)
	// Round 2: only the new finding; the reply reached its reviewers.
	if c := reviews[1].Comments; len(c) != 1 || c[0].Line != 5 || !strings.Contains(c[0].Body, getTest.id()) {
		t.Errorf("round 2's inline comments: %+v", c)
	}
	reqs := lf.fm.Requests("rev-a")
	if len(reqs) < 2 || !strings.Contains(string(reqs[1].Body), "Evict runs every minute") || !strings.Contains(string(reqs[1].Body), cacheBug.id()) {
		t.Error("round 2's reviewers were not shown the reply on gh-ocdx's thread")
	}
	if strings.Contains(res.Stdout, "THREAD-") {
		t.Errorf("gh-ocdx's own thread became a thread finding:\n%s", res.Stdout)
	}
	// Round 3: nothing new on the lines; the open thread is linked.
	if c := reviews[2].Comments; len(c) != 0 {
		t.Errorf("round 3 commented again: %+v", c)
	}
	wantContains(t, "round 3's body", reviews[2].Body, "1 finding already has its thread", getTest.id())

	threads := lf.gh.Threads(repo, lf.number)
	if len(threads) != 2 {
		t.Fatalf("%d threads, want one per finding on a changed line", len(threads))
	}
	fixed, open := threads[0], threads[1]
	if !fixed.Resolved || !strings.Contains(fixed.Comments[len(fixed.Comments)-1].Body, "Fixed in ") {
		t.Errorf("the fixed finding's thread: resolved %v, comments %+v", fixed.Resolved, fixed.Comments)
	}
	if open.Resolved {
		t.Error("the finding still raised had its thread resolved")
	}
	wantContains(t, "round 3's thread link", reviews[2].Body, fmt.Sprintf("/%s/pull/%d", repo, loopPR))
}

// GitHub refusing the inline comments anyway (a 422 gh-ocdx did not
// foresee) costs them, never the review: it is sent again without them.
func TestLoopReviewRefusedInlineIsSentAgainWithout(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug)
	lf.approveRound()
	lf.gh.Fail(testkit.Fault{Kind: "review", Status: 422})

	res := lf.run("--yes")

	wantCode(t, res, 0)
	reviews := lf.gh.Reviews(repo, lf.number)
	if len(reviews) != 2 || len(reviews[0].Comments) != 0 {
		t.Fatalf("reviews %+v", reviews)
	}
	wantContains(t, "round 1's body", reviews[0].Body, "GitHub refused the 1 inline comment of this review", "`cache.go:3`", cacheBug.id(), "details of "+cacheBug.Title)
	wantContains(t, "stderr", res.Stderr, "without them")
}

func TestLoopDryRunPrintsTheInlineComments(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug, readmeGap)

	res := lf.run("--dry-run")

	wantCode(t, res, 0)
	wantContains(t, "stdout", res.Stdout, "## Would comment inline (dry run)", "### cache.go:3 (RIGHT)", "Cache size is not bounded", "1 finding is on no changed line", "`README.md:1`")
	if n := lf.gh.Count("review") + lf.gh.Count("comment"); n != 0 {
		t.Errorf("a dry run posted %d times", n)
	}
}

// review-pr's inline comments: one off the diff goes back to the model,
// which moves it; the review is posted with its comment and suggestion.
func TestReviewPRPostsInlineCommentsOnTheDiff(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil) // review-pr's model is the first reviewer, openai/rev-a
	off := `{"event":"COMMENT","body":"**Verdict:** fine.","comments":[{"path":"README.md","line":1,"body":"mention the cache"}]}`
	on := `{"event":"COMMENT","body":"**Verdict:** fine.","comments":[{"path":"cache.go","line":3,"body":"bound it","suggestion":"var Size = 10 // max"}]}`
	lf.fm.Script("rev-a", testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: off}), testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: on}))

	res := lf.env.Run(t, "review-pr", "31", "--yes")

	wantCode(t, res, 0)
	reqs := lf.fm.Requests("rev-a")
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "not on a line of the PR") {
		t.Fatalf("the off-diff comment was not returned to the model (%d requests)", len(reqs))
	}
	posted := lf.gh.Reviews(repo, loopPR)
	if len(posted) != 1 || len(posted[0].Comments) != 1 {
		t.Fatalf("posted %+v", posted)
	}
	c := posted[0].Comments[0]
	if c.Path != "cache.go" || c.Line != 3 || c.Side != "RIGHT" {
		t.Errorf("comment anchored at %+v", c)
	}
	wantContains(t, "comment", c.Body, "bound it", "```suggestion\nvar Size = 10 // max\n```")
}
