package cmd

import "testing"

// command's --max-tokens is the budget /ocdx review, fix, ask and a reply
// run draw on: the same flag, and the same check, as review-loop's.
func TestParseCommandMaxTokens(t *testing.T) {
	t.Setenv("GH_REPO", "octo/widgets")
	d, _, _ := testDeps()
	opts, err := parseCommand(d, []string{"24", "--comment-id", "99", "--max-tokens", "4000"})
	if err != nil || opts.PR != 24 || opts.CommentID != 99 || opts.MaxTokens != 4000 {
		t.Fatalf("options %+v, %v", opts, err)
	}
	for _, bad := range []string{"0", "-1"} {
		d, _, _ := testDeps()
		_, err := parseCommand(d, []string{"24", "--comment-id", "99", "--max-tokens", bad})
		wantUsageError(t, err, "invalid --max-tokens "+bad)
	}
}
