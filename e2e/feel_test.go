package e2e

import (
	"strings"
	"testing"
)

// review-pr takes a PR as gh pr view does: a number, #number, a URL, a head
// branch, or nothing for the checked-out branch's PR.
func TestReviewPRTakesPRArgumentsAsGh(t *testing.T) {
	t.Parallel()
	_, env, r := prFixture(t, map[string]string{"auth.go": "package auth\n\nfunc Redirect() string { return \"/home\" }\n"})
	env.Dir = r.Clone
	for _, args := range [][]string{{"#24"}, {"feature/login"}, {}} {
		res := env.Run(t, append([]string{"review-pr", "--context-only"}, args...)...)
		if res.Code != 0 || !strings.Contains(res.Stdout, "## Task: Review PR #24") {
			t.Errorf("review-pr %q: exit %d\n%s%s", args, res.Code, res.Stdout, res.Stderr)
		}
	}
	res := env.Run(t, "review-pr", "--context-only", "no-such-branch")
	// As gh pr view: a branch without a PR is an error (exit 1), not a
	// usage error, and the message names the verb, not a placeholder.
	if res.Code != 1 || !strings.Contains(res.Stderr, `no open pull request in octo/widgets has the branch "no-such-branch"`) ||
		!strings.Contains(res.Stderr, "(gh ocdx review-pr <number>)") || strings.Contains(res.Stderr, "Usage:") {
		t.Errorf("an unknown branch: exit %d\n%s", res.Code, res.Stderr)
	}
	res = env.Run(t, "review-pr", "--context-only", "--pr", "x")
	if res.Code != 2 || strings.Contains(res.Stderr, "strconv") {
		t.Errorf("exit %d\n%s", res.Code, res.Stderr)
	}
}
