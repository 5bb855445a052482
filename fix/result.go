package fix

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/state"
)

// Recorded is the fix result recorded in round rd, if any, with the
// round's verification.
func Recorded(rd state.Round) (*state.FixResult, bool) {
	if rd.Fix == nil {
		return nil, false
	}
	r := *rd.Fix
	r.Verification = rd.Verification
	return &r, true
}

// statusOf is how a fix that returned err ended.
func statusOf(ctx context.Context, err error) state.FixStatus {
	var ve *VerifyError
	var re *ResultError
	switch {
	case errors.As(err, &ve):
		return state.FixVerifyFailed
	case errors.Is(err, ErrDeclined):
		return state.FixDeclined
	case errors.As(err, &re):
		return state.FixResultRejected
	case ctx.Err() != nil:
		return state.FixInterrupted
	}
	return state.FixFailed
}

// Summary is how a fix of pr ended, as gh ocdx fix prints it: what was
// fixed, rejected, committed and pushed (none with dryRun), the report,
// the tokens (spent, of a budget; "" without one).
func Summary(pr *github.PullRequest, out *state.FixResult, dryRun bool, spent string) string {
	var w strings.Builder
	fmt.Fprintf(&w, "## Fix of PR #%d\n\n", pr.Number)
	fmt.Fprintf(&w, "- Fixed: %d, rejected: %d\n", len(out.Fixed), len(out.Rejected))
	fmt.Fprintf(&w, "- Commits: %d, verified in %s\n", len(out.Commits), text.Plural(out.Attempts, "attempt"))
	switch {
	case dryRun:
		fmt.Fprintf(&w, "- Dry run: nothing pushed, nothing posted; the commits are local (HEAD %s)\n", text.ShortOID(out.HeadOID))
	case out.Pushed:
		fmt.Fprintf(&w, "- Pushed to %s (head %s)\n", pr.HeadRefName, text.ShortOID(out.HeadOID))
	default:
		fmt.Fprintln(&w, "- Nothing to push")
	}
	if out.CommentURL != "" {
		fmt.Fprintf(&w, "- Report: %s\n", out.CommentURL)
	}
	if spent != "" {
		fmt.Fprintf(&w, "- Tokens: %s, %s\n", spent, text.Plural(out.Usage.Calls, "call"))
	} else {
		fmt.Fprintf(&w, "- Tokens: %s (%s)\n", out.Usage, text.Plural(out.Usage.Calls, "call"))
	}
	for _, x := range out.Rejected {
		fmt.Fprintf(&w, "- Rejected %s: %s\n", x.FindingID, text.OneLine(x.Reason))
	}
	return w.String()
}
