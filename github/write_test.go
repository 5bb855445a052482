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
// secret or a credential gh-ocdx holds is posted as [REDACTED].
func TestEveryPostIsSanitised(t *testing.T) {
	const cred = "writepathcredentialvalue"
	redact.Register(cred)
	gh := testkit.NewGitHub(t)
	gh.AddPR("octo/widgets", testkit.PR{Number: 1})
	c := newClient(t, gh)
	body := "fine\nkey " + cred + "\ntoken ghp_abcdefghijklmnopqrstuvwxyz0123456789\nend"
	if _, err := c.PostComment(context.Background(), repo, 1, body); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PostReview(context.Background(), repo, 1, github.CommentOnly, body); err != nil {
		t.Fatal(err)
	}
	want := "fine\n[REDACTED]\n[REDACTED]\nend"
	if got := gh.Comments("octo/widgets", 1); len(got) != 1 || got[0].Body != want {
		t.Errorf("comment: %+v", got)
	}
	if got := gh.Reviews("octo/widgets", 1); len(got) != 1 || got[0].Body != want {
		t.Errorf("review: %+v", got)
	}
	for _, r := range gh.Requests() {
		if strings.Contains(r.Body, cred) {
			t.Errorf("a request carried the credential: %s", r.Body)
		}
	}
}
