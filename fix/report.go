package fix

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/state"
)

// Tag is the comment tag of DESIGN.md §7 for a fix report.
func Tag(runID string, round int) string {
	return fmt.Sprintf("<!-- ocdx:run=%s round=%d kind=fix -->", runID, round)
}

// comment posts the fix report once: a report whose tag is already recorded
// or already on the PR (a retried or resumed run) is not posted again.
func (f *fixer) comment(ctx context.Context) error {
	o := f.o
	tag := Tag(o.Run.ID(), o.Round)
	for _, rd := range o.Run.Run().Rounds {
		for _, c := range rd.Comments {
			if c.Tag == tag {
				f.out.CommentURL = c.URL
				return nil
			}
		}
	}
	existing, err := o.GitHub.Comments(ctx, o.Repo, o.PR.Number)
	if err != nil {
		return fmt.Errorf("the fix was pushed, but checking PR #%d's comments before posting the report failed: %w; re-run with --continue to post it", o.PR.Number, err)
	}
	url := ""
	for _, c := range existing {
		// Only our login's comment counts: anyone can copy the tag.
		if strings.Contains(c.Body, tag) && o.PR.ByViewer(c.Author) {
			url = c.URL
			break
		}
	}
	if url == "" {
		body := github.CapBody(Marker + "\n" + tag + "\n" + redact.ForComment(f.report()))
		c, err := o.GitHub.PostComment(ctx, o.Repo, o.PR.Number, body)
		if err != nil {
			return fmt.Errorf("the fix was pushed, but posting the fix report failed: %w; re-run with --continue to post it", err)
		}
		url = c.URL
		fmt.Fprintf(o.Progress, "fix report posted: %s\n", url)
	}
	f.out.CommentURL = url
	return o.Run.UpdateRound(o.Round, func(rd *state.Round) {
		rd.Comments = append(rd.Comments, state.Comment{Kind: "fix", Tag: tag, URL: url})
	})
}

// report is the fix report's Markdown (before sanitising): findings fixed
// and rejected with reasons, commits, verification and usage. No diff.
func (f *fixer) report() string {
	o, out := f.o, f.out
	res := out.Result
	titles := map[string]string{}
	for _, x := range o.Payload.IssuesToFix {
		titles[x.ID] = fmt.Sprintf("%s %s", x.Priority, x.Title)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## gh-ocdx fix report — PR #%d, round %d\n\n", o.PR.Number, o.Round)
	switch {
	case out.Pushed:
		fmt.Fprintf(&b, "Pushed %d commit(s) to `%s` (head `%s`), verified in %d attempt(s).\n", len(res.Commits), o.PR.HeadRefName, short(out.HeadOID), max(out.Attempts, 1))
	default:
		b.WriteString("No commit to push.\n")
	}
	fmt.Fprintf(&b, "\n### Fixed (%d)\n", len(res.FixedIssues))
	for _, x := range res.FixedIssues {
		// Model text on its own line: a redacted line leaves the ID readable.
		fmt.Fprintf(&b, "- `%s` %s (commit `%s`)\n  %s\n", x.FindingID, oneLine(titles[x.FindingID]), short(x.CommitSha), oneLine(x.Description))
	}
	if len(res.FixedIssues) == 0 {
		b.WriteString("- none\n")
	}
	fmt.Fprintf(&b, "\n### Rejected (%d)\n", len(res.RejectedIssues))
	for _, x := range res.RejectedIssues {
		fmt.Fprintf(&b, "- `%s` %s\n  %s\n", x.FindingID, oneLine(titles[x.FindingID]), oneLine(x.Reason))
	}
	if len(res.RejectedIssues) == 0 {
		b.WriteString("- none\n")
	}
	fmt.Fprintf(&b, "\n### Commits (%d)\n", len(res.Commits))
	for _, c := range res.Commits {
		fmt.Fprintf(&b, "- `%s` %s\n", short(c.Sha), oneLine(c.Message))
	}
	b.WriteString("\n### Verification\n")
	for _, v := range out.Verification {
		fmt.Fprintf(&b, "- %s `%s` — %s (%s)\n", mark(v.OK), v.Command, status(v), v.Duration.Round(time.Millisecond))
	}
	if len(out.Verification) == 0 {
		b.WriteString("- no verification command configured\n")
	}
	b.WriteString("\n### Token usage\n")
	fmt.Fprintf(&b, "- %s (%s): %d calls, %s tokens\n", Role, o.ModelName, out.Usage.Calls, out.Usage)
	return b.String()
}
