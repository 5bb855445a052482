package github_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// inlineDiff changes two files: a.go gets line 3 replaced and lines 10–11
// added (context around them); gone.go is deleted.
const inlineDiff = `diff --git a/a.go b/a.go
index 1..2 100644
--- a/a.go
+++ b/a.go
@@ -1,5 +1,5 @@
 package a
 
-var x = 1
+var x = 2
 
 func f() {}
@@ -8,2 +8,4 @@ func g() {
 	g()
 }
+
+func h() {}
diff --git a/gone.go b/gone.go
deleted file mode 100644
--- a/gone.go
+++ /dev/null
@@ -1,2 +0,0 @@
-package a
-var y = 3
`

func TestDiffLinesAnchorsOnlyWhatTheDiffShows(t *testing.T) {
	t.Parallel()
	d := github.ParseDiffLines(inlineDiff)
	for _, tc := range []struct {
		path       string
		start, end int
		ask, side  string
	}{
		{"a.go", 0, 3, "", diff.Right},  // added
		{"a.go", 0, 1, "", diff.Right},  // context
		{"a.go", 2, 4, "", diff.Right},  // a range within one hunk
		{"a.go", 0, 11, "", diff.Right}, // second hunk
		{"gone.go", 0, 2, diff.Left, diff.Left},
		{"gone.go", 0, 2, "", ""}, // a removed line's number is no line of the PR's version
		{"a.go", 0, 7, "", ""},    // between the hunks
		{"a.go", 4, 9, "", ""},    // a range across two hunks
		{"a.go", 0, 99, "", ""},   // past the end
		{"b.go", 0, 1, "", ""},    // not in the PR
		{"a.go", 0, 0, "", ""},    // no line
	} {
		side, ok := d.Anchor(tc.path, tc.start, tc.end, tc.ask)
		if side != tc.side || ok != (tc.side != "") {
			t.Errorf("%s:%d-%d %s: got %q %v, want %q", tc.path, tc.start, tc.end, tc.ask, side, ok, tc.side)
		}
	}
}

func TestReviewCommentsOnTheDiffBecomeThreadsThatCanBeResolved(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	gh.AddPR("octo/widgets", testkit.PR{Number: 4, Diff: inlineDiff, HeadOID: strings.Repeat("a", 40), BaseOID: strings.Repeat("b", 40)})
	c := newClient(t, gh)
	ctx := context.Background()

	// GitHub refuses the whole review when one comment is off the diff.
	_, err := c.PostReviewComments(ctx, repo, 4, github.CommentOnly, "body", []github.ReviewComment{
		{Path: "a.go", Line: 3, Side: diff.Right, Body: "fine"},
		{Path: "a.go", Line: 7, Side: diff.Right, Body: "off the diff"}})
	if !github.Unprocessable(err) || !strings.Contains(err.Error(), "must be part of the diff") {
		t.Fatalf("a comment off the diff: want GitHub's 422, got %v", err)
	}
	if len(gh.Reviews("octo/widgets", 4)) != 0 {
		t.Fatal("a refused review was stored")
	}

	_, err = c.PostReviewComments(ctx, repo, 4, github.CommentOnly, "body", []github.ReviewComment{
		{Path: "a.go", Line: 3, Side: diff.Right, Body: "x is wrong ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
		{Path: "a.go", StartLine: 10, Line: 11, Side: diff.Right, Body: "h"}})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := c.PullRequest(ctx, repo, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Threads) != 2 || pr.Threads[0].ID == "" || pr.Threads[0].Path != "a.go" || *pr.Threads[0].Line != 3 || pr.Threads[0].IsResolved {
		t.Fatalf("threads of the review: %+v", pr.Threads)
	}
	if b := pr.Threads[0].Comments[0].Body; strings.Contains(b, "ghp_") || !strings.Contains(b, "[REDACTED]") {
		t.Errorf("a comment body is sanitised as the review's: %q", b)
	}

	err = c.ResolveThreads(ctx, repo, []github.ThreadReply{{ThreadID: pr.Threads[0].ID, Body: "Fixed in abc."}, {ThreadID: pr.Threads[1].ID, Body: "Fixed in def."}})
	if err != nil {
		t.Fatal(err)
	}
	if n := gh.Count("graphql"); n != 2 {
		t.Errorf("%d GraphQL requests, want 2: the PR, then every resolution in one document", n)
	}
	for i, th := range gh.Threads("octo/widgets", 4) {
		if !th.Resolved || len(th.Comments) != 2 || !strings.HasPrefix(th.Comments[1].Body, "Fixed in ") {
			t.Errorf("thread %d: %+v", i, th)
		}
	}
}
