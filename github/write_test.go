package github_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// TestEveryPostIsSanitised: whatever a caller passes, a line holding a
// secret or a credential gh-ocdx holds is posted as [REDACTED], on each of
// the four write paths: comments, reviews, inline comments and thread
// replies.
func TestEveryPostIsSanitised(t *testing.T) {
	t.Parallel()
	const cred = "writepathcredentialvalue"
	redact.Register(cred)
	gh := testkit.NewGitHub(t)
	gh.AddPR("octo/widgets", testkit.PR{Number: 1, Diff: "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n", Threads: []testkit.Thread{{ID: "PRRT_1", Comments: []testkit.ThreadComment{{Body: "why?", Login: "mona", Path: "a.go", Line: 1}}}}})
	c := newClient(t, gh)
	body := "fine\nkey " + cred + "\ntoken ghp_abcdefghijklmnopqrstuvwxyz0123456789\nend"
	if _, err := c.PostComment(context.Background(), repo, 1, body); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PostReview(context.Background(), repo, 1, github.CommentOnly, body); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PostReviewComments(context.Background(), repo, 1, github.CommentOnly, "inline below",
		[]github.ReviewComment{{Path: "a.go", Line: 1, Side: "RIGHT", Body: body}}); err != nil {
		t.Fatal(err)
	}
	if err := c.ResolveThreads(context.Background(), repo, []github.ThreadReply{{ThreadID: "PRRT_1", Body: body}}); err != nil {
		t.Fatal(err)
	}
	want := "fine\n[REDACTED]\n[REDACTED]\nend"
	if got := gh.Comments("octo/widgets", 1); len(got) != 1 || got[0].Body != want {
		t.Errorf("comment: %+v", got)
	}
	if got := gh.Reviews("octo/widgets", 1); len(got) != 2 || got[0].Body != want {
		t.Errorf("review: %+v", got)
	}
	// The inline comment opens a thread of its own; the reply ends the first.
	if th := gh.Threads("octo/widgets", 1); len(th) != 2 || len(th[0].Comments) != 2 || th[0].Comments[1].Body != want || th[1].Comments[0].Body != want {
		t.Errorf("thread reply and inline comment: %+v", th)
	}
	posts := 0
	for _, r := range gh.Requests() {
		if r.Method == "POST" && strings.Contains(r.Body, "[REDACTED]") {
			posts++
		}
		if strings.Contains(r.Body, "ghp_abcdefghijklmnopqrstuvwxyz0123456789") {
			t.Errorf("a %s request carried the token: %s", r.Kind, r.Body)
		}
	}
	if posts != 4 {
		t.Errorf("%d of the 4 posts (comment, review, inline comment, thread reply) were sanitised", posts)
	}
	for _, r := range gh.Requests() {
		if strings.Contains(r.Body, cred) {
			t.Errorf("a request carried the credential: %s", r.Body)
		}
	}
}
