package github_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// A check run's title, summary and annotations leave like every post: a
// line with a secret masked, control characters inert, each text within
// GitHub's limits; and a create whose answer is lost is not sent again.
func TestCheckRunOutputIsSanitisedAndSentOnce(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	c := newClient(t, gh)
	secret := "token ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	out := github.CheckOutput{Title: "blocked \x1b[31m" + strings.Repeat("t", 300), Summary: "fine\n" + secret + "\n" + strings.Repeat("s", 70000),
		Annotations: []github.Annotation{{Path: "a.go", StartLine: 1, EndLine: 1, Level: "failure", Title: "P0 X: " + secret, Message: "why\n" + secret}}}
	sha := strings.Repeat("a", 40)
	run, err := c.CreateCheckRun(context.Background(), repo, "gh-ocdx", sha, "failure", out)
	if err != nil {
		t.Fatal(err)
	}
	got := gh.CheckRuns("octo/widgets")
	if len(got) != 1 || got[0].ID != run.ID {
		t.Fatalf("check runs %+v", got)
	}
	cr := got[0]
	if strings.Contains(cr.Title, "\x1b") || len([]rune(cr.Title)) > 255 || !strings.HasPrefix(cr.Summary, "fine\n[REDACTED]\n") || len([]rune(cr.Summary)) > 65535 {
		t.Errorf("title %q, summary of %d runes starting %q", cr.Title, len([]rune(cr.Summary)), cr.Summary[:30])
	}
	if a := cr.Annotations[0]; a.Message != "why\n[REDACTED]" || a.Title != "[REDACTED]" {
		t.Errorf("annotation %+v", a)
	}

	gh.Fail(testkit.Fault{Kind: "check-run", Apply: true})
	if _, err := c.CreateCheckRun(context.Background(), repo, "gh-ocdx", sha, "failure", out); err == nil || !strings.Contains(err.Error(), "may or may not have been applied") {
		t.Errorf("a create whose answer was lost: %v", err)
	}
	if n := gh.Count("check-run"); n != 2 {
		t.Errorf("%d creates sent, want 2: a POST is never retried", n)
	}
}
