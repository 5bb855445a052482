package commandcmd

import (
	"testing"

	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
)

// command's --max-tokens is the budget /ocdx review, fix, ask and a reply
// run draw on: the same flag, and the same check, as review-loop's.
func TestParseCommandMaxTokens(t *testing.T) {
	t.Setenv("GH_REPO", "octo/widgets")
	d, _, _ := cmdtest.Deps()
	opts, err := Parse(d, []string{"24", "--comment-id", "99", "--max-tokens", "4000"})
	if err != nil || opts.PR != 24 || opts.CommentID != 99 || opts.MaxTokens != 4000 {
		t.Fatalf("options %+v, %v", opts, err)
	}
	for _, bad := range []string{"0", "-1"} {
		d, _, _ := cmdtest.Deps()
		_, err := Parse(d, []string{"24", "--comment-id", "99", "--max-tokens", bad})
		cmdtest.WantUsageError(t, err, "invalid --max-tokens "+bad)
	}
}
