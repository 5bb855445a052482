package github_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

func TestMain(m *testing.M) {
	cleanup, err := testkit.TrustFakeGitHub()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}

var repo = github.Repo{Owner: "octo", Name: "widgets"}

func newClient(t *testing.T, gh *testkit.GitHub) *github.Client {
	t.Helper()
	c, err := github.New(gh.Host(), github.Options{Token: gh.Token, Backoff: time.Millisecond, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func threads(n int) []testkit.Thread {
	out := make([]testkit.Thread, n)
	for i := range out {
		out[i] = testkit.Thread{Resolved: i%2 == 0, Comments: []testkit.ThreadComment{
			{Body: fmt.Sprintf("thread %d", i), Login: "mona", Association: "MEMBER", Path: "a.go", Line: i + 1}}}
	}
	return out
}

func files(n int) []testkit.File {
	out := make([]testkit.File, n)
	for i := range out {
		out[i] = testkit.File{Path: fmt.Sprintf("f%04d.go", i), Additions: 2, Deletions: 1}
	}
	return out
}

func TestPullRequestReadsTheWholeContextInOneQuery(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	gh.AddIssue("octo/widgets", testkit.Issue{Number: 3, Title: "Crash on start"})
	gh.AddPR("octo/widgets", testkit.PR{Number: 12, Title: "Fix crash", Body: "Closes #3", Author: "mona",
		HeadRef: "fix", HeadOID: strings.Repeat("a", 40), BaseOID: strings.Repeat("b", 40), ClosingIssues: []int{3},
		IsCrossRepository: true, HeadRepo: "mona/widgets", Permission: "READ", Files: files(2),
		Reviews: []testkit.Review{{State: "CHANGES_REQUESTED", Login: "lead", Association: "MEMBER"}},
		Threads: threads(3)})
	gh.AddCommentBy("octo/widgets", 12, "mona", "OWNER", "/ocdx dismiss QUAL-0badf00d")
	gh.ResolveThread(gh.Threads("octo/widgets", 12)[2].ID, "lead")

	pr, err := newClient(t, gh).PullRequest(context.Background(), repo, 12)
	if err != nil {
		t.Fatal(err)
	}
	// A comment's database id names it in the tag of gh-ocdx's answer.
	if want := gh.Comments("octo/widgets", 12)[0].ID; len(pr.Comments) != 1 || pr.Comments[0].ID != want || pr.Comments[0].Author != "mona" {
		t.Errorf("comments: %+v, want id %d", pr.Comments, want)
	}
	if pr.Title != "Fix crash" || pr.Author != "mona" || pr.State != "OPEN" || pr.HeadRefName != "fix" ||
		pr.HeadRefOid != strings.Repeat("a", 40) || pr.BaseRefName != "main" || !pr.IsCrossRepository ||
		pr.HeadRepository != "mona/widgets" || pr.ViewerPermission != "READ" || pr.Viewer != gh.Login {
		t.Errorf("metadata: %+v", pr)
	}
	if !pr.ByViewer(gh.Login) || pr.ByViewer("mona") || pr.ByViewer("") {
		t.Errorf("ByViewer: only %q posts as gh-ocdx", gh.Login)
	}
	if pr.ChangedFiles != 2 || pr.Additions != 4 || pr.Deletions != 2 || len(pr.Files) != 2 {
		t.Errorf("files: %d changed, +%d -%d, %d listed", pr.ChangedFiles, pr.Additions, pr.Deletions, len(pr.Files))
	}
	if len(pr.ClosingIssues) != 1 || pr.ClosingIssues[0].Number != 3 || pr.ClosingIssues[0].Title != "Crash on start" {
		t.Errorf("linked issues: %+v", pr.ClosingIssues)
	}
	if len(pr.Reviews) != 1 || pr.Reviews[0].Author != "lead" || pr.Reviews[0].Association != "MEMBER" {
		t.Errorf("reviews: %+v", pr.Reviews)
	}
	if len(pr.Threads) != 3 || pr.Threads[1].IsResolved || pr.Threads[1].Comments[0].Author != "mona" ||
		*pr.Threads[1].Comments[0].Line != 2 || pr.Threads[1].Comments[0].ID == "" {
		t.Errorf("threads: %+v", pr.Threads)
	}
	// Who resolved a thread is read in the same query: its author, or
	// someone else whose resolution may not count.
	if by := [3]string{pr.Threads[0].ResolvedBy, pr.Threads[1].ResolvedBy, pr.Threads[2].ResolvedBy}; by != [3]string{"mona", "", "lead"} {
		t.Errorf("resolved by %q, want mona, nobody, lead", by)
	}
	if n := gh.Count(""); n != 1 {
		t.Errorf("want 1 request, got %d", n)
	}
}

func TestPullRequestPagesFilesAndThreads(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	gh.AddPR("octo/widgets", testkit.PR{Number: 1, Files: files(150), Threads: threads(250)})
	gh.AddPR("octo/widgets", testkit.PR{Number: 2, Files: files(10), Threads: threads(int(github.MaxThreads) + 1)})
	c := newClient(t, gh)

	pr, err := c.PullRequest(context.Background(), repo, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Files) != 150 || len(pr.Threads) != 250 || pr.ThreadsTruncated || pr.FilesTruncated {
		t.Errorf("got %d files, %d threads, truncated %v/%v", len(pr.Files), len(pr.Threads), pr.FilesTruncated, pr.ThreadsTruncated)
	}
	if pr.Threads[249].Comments[0].Body != "thread 249" {
		t.Errorf("last thread: %+v", pr.Threads[249])
	}
	if n := gh.Count("graphql"); n != 3 {
		t.Errorf("want 3 queries (threads need 3 pages), got %d", n)
	}

	pr, err = c.PullRequest(context.Background(), repo, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Threads) != int(github.MaxThreads) || !pr.ThreadsTruncated {
		t.Errorf("%d threads: got %d, truncated=%v; want %[1]d and true", github.MaxThreads+1, len(pr.Threads), pr.ThreadsTruncated)
	}
}

func TestMissingPullRequest(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	c := newClient(t, gh)
	_, err := c.PullRequest(context.Background(), repo, 404)
	if err == nil || !strings.Contains(err.Error(), "PR #404 not found in octo/widgets: check the number") {
		t.Errorf("got %v", err)
	}
	_, _, err = c.Diff(context.Background(), repo, 404, 1000)
	if err == nil || !strings.Contains(err.Error(), "not found in octo/widgets: check the number") {
		t.Errorf("diff of a missing PR: got %v", err)
	}
}

func TestDiffIsReadThroughALimit(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	diff := "diff --git a/x b/x\n" + strings.Repeat("+line\n", 1000)
	gh.AddPR("octo/widgets", testkit.PR{Number: 1, Diff: diff})
	c := newClient(t, gh)

	got, complete, err := c.Diff(context.Background(), repo, 1, 100)
	if err != nil || complete || string(got) != diff[:100] {
		t.Errorf("limit 100: complete=%v err=%v len=%d", complete, err, len(got))
	}
	got, complete, err = c.Diff(context.Background(), repo, 1, int64(len(diff)))
	if err != nil || !complete || string(got) != diff {
		t.Errorf("exact limit: complete=%v err=%v len=%d", complete, err, len(got))
	}
}

func TestReadsAreRetriedWritesAreNot(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	gh.AddPR("octo/widgets", testkit.PR{Number: 1, HeadOID: strings.Repeat("c", 40)})
	c := newClient(t, gh)
	ctx := context.Background()

	gh.Fail(testkit.Fault{Kind: "graphql", Status: http.StatusBadGateway})
	gh.Fail(testkit.Fault{Kind: "pr", Drop: true})
	if _, err := c.PullRequest(ctx, repo, 1); err != nil {
		t.Errorf("a 502 on a query should be retried: %v", err)
	}
	if oid, err := c.HeadOID(ctx, repo, 1); err != nil || oid != strings.Repeat("c", 40) {
		t.Errorf("a dropped connection on a GET should be retried: %q %v", oid, err)
	}

	gh.Fail(testkit.Fault{Kind: "comment", Status: http.StatusBadGateway})
	_, err := c.PostComment(ctx, repo, 1, "hello")
	if err == nil || !strings.Contains(err.Error(), "may or may not have been applied") {
		t.Errorf("want an error saying the outcome is unknown, got %v", err)
	}
	if n := gh.Count("comment"); n != 1 {
		t.Errorf("a comment POST must never be retried, sent %d", n)
	}
	gh.Fail(testkit.Fault{Kind: "review", Status: http.StatusInternalServerError})
	if _, err := c.PostReview(ctx, repo, 1, github.Approve, "lgtm"); err == nil || gh.Count("review") != 1 {
		t.Errorf("a review POST must never be retried: err=%v sent=%d", err, gh.Count("review"))
	}
}

func TestRateLimitExhaustedIsSaid(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	gh.AddPR("octo/widgets", testkit.PR{Number: 1})
	gh.Fail(testkit.Fault{Kind: "graphql", Status: http.StatusTooManyRequests, RetryAfter: "0", Times: 4})
	_, err := newClient(t, gh).PullRequest(context.Background(), repo, 1)
	if err == nil || !strings.Contains(err.Error(), "GitHub rate limit (HTTP 429): try again in") {
		t.Errorf("want the rate limit said, got %v", err)
	}
	if n := gh.Count("graphql"); n != 4 {
		t.Errorf("want 4 tries, got %d", n)
	}
}

func TestPostCommentAndReview(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	gh.AddPR("octo/widgets", testkit.PR{Number: 1})
	c := newClient(t, gh)
	ctx := context.Background()

	long := strings.Repeat("é", 70000)
	cm, err := c.PostComment(ctx, repo, 1, long)
	if err != nil {
		t.Fatal(err)
	}
	posted := gh.Comments("octo/widgets", 1)
	if len(posted) != 1 || !strings.HasSuffix(posted[0].Body, "[TRUNCATED_COMMENT]") || len([]rune(posted[0].Body)) >= 65536 {
		t.Errorf("a long body must be capped with the notice; got %d runes", len([]rune(posted[0].Body)))
	}
	if !strings.Contains(cm.URL, "#issuecomment-") {
		t.Errorf("comment URL: %q", cm.URL)
	}
	rv, err := c.PostReview(ctx, repo, 1, github.RequestChanges, "please fix")
	if err != nil || rv.URL == "" {
		t.Fatalf("review: %v", err)
	}
	if got := gh.Reviews("octo/widgets", 1); len(got) != 1 || got[0].Event != "REQUEST_CHANGES" || got[0].Body != "please fix" {
		t.Errorf("reviews: %+v", got)
	}
	if _, err := c.PostReview(ctx, repo, 1, "MERGE", "x"); err == nil {
		t.Error("an unknown event must be refused before sending")
	}
}

func TestWrongTokenIsExplained(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	c, err := github.New(gh.Host(), github.Options{Token: "ghp_wrongwrongwrongwrongwrong", Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.PullRequest(context.Background(), repo, 1)
	if err == nil || !strings.Contains(err.Error(), "rejected the token") || strings.Contains(err.Error(), "ghp_wrong") {
		t.Errorf("got %v", err)
	}
}

func TestMalformedAnswersAreExplained(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	gh.AddPR("octo/widgets", testkit.PR{Number: 1, Diff: "diff --git a/x b/x\n"})
	c := newClient(t, gh)
	ctx := context.Background()
	for _, kind := range []string{"graphql", "diff", "pr"} {
		gh.Fail(testkit.Fault{Kind: kind, Garbage: true})
	}
	if _, err := c.PullRequest(ctx, repo, 1); err == nil || !strings.Contains(err.Error(), "was not valid JSON") {
		t.Errorf("query: %v", err)
	}
	if _, _, err := c.Diff(ctx, repo, 1, 1000); err == nil || !strings.Contains(err.Error(), "is not a diff") {
		t.Errorf("diff: %v", err)
	}
	if _, err := c.HeadOID(ctx, repo, 1); err == nil || !strings.Contains(err.Error(), "was not valid JSON") {
		t.Errorf("head check: %v", err)
	}
	if d, _, err := c.Diff(ctx, repo, 1, 1000); err != nil || string(d) != "diff --git a/x b/x\n" {
		t.Errorf("a real diff: %q %v", d, err)
	}
}

// The binary's timeout is 60 s; here it is cut short. A stalled read is cut
// and sent again, and a stalled POST is an unknown outcome, never sent again.
// The fake answers a cut request with an empty 200 once it sees the
// connection drop; that answer can race the cut and must not reach us.
func TestStalledRequestIsCut(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	gh.AddPR("octo/widgets", testkit.PR{Number: 1})
	c, err := github.New(gh.Host(), github.Options{Token: gh.Token, Backoff: time.Millisecond, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	gh.Fail(testkit.Fault{Kind: "graphql", Delay: 10 * time.Second})
	_, err = c.PullRequest(ctx, repo, 1)
	waitForCount(gh, "graphql", 2) // the fake logs a request once its handler returns
	// At least twice: on a loaded machine under -race the healthy retry may
	// be slow enough to be cut too; what matters is that the stall was cut.
	if err != nil || gh.Count("graphql") < 2 {
		t.Errorf("a query stalled once is cut and sent again: %v, %d sent", err, gh.Count("graphql"))
	}
	gh.Fail(testkit.Fault{Kind: "graphql", Delay: 10 * time.Second, Times: 4})
	if _, err := c.PullRequest(ctx, repo, 1); err == nil || !strings.Contains(err.Error(), "no answer within 1s") || !strings.Contains(err.Error(), "OCDX_GITHUB_TIMEOUT") {
		t.Errorf("a query stalled on every try: %v", err)
	}
	gh.Fail(testkit.Fault{Kind: "comment", Delay: 10 * time.Second})
	if _, err := c.PostComment(ctx, repo, 1, "hello"); err == nil || !strings.Contains(err.Error(), "may or may not have been applied") {
		t.Errorf("stalled POST: %v", err)
	}
	waitForCount(gh, "comment", 1)
	if n := gh.Count("comment"); n != 1 {
		t.Errorf("the POST was sent %d times", n)
	}
	if _, err := c.PullRequest(ctx, repo, 1); err != nil {
		t.Errorf("once the stall is gone: %v", err)
	}
}

// waitForCount waits up to 5 s for n requests of kind in the fake's log.
func waitForCount(gh *testkit.GitHub, kind string, n int) {
	for deadline := time.Now().Add(5 * time.Second); gh.Count(kind) < n && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
}
