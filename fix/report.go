package fix

import (
	"context"
	"fmt"
	"html"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/state"
	"github.com/ocdx/gh-ocdx/verify"
)

// comment posts the fix report once: a report whose tag is already recorded
// or already on the PR (a retried or resumed run) is not posted again.
func (f *fixer) comment(ctx context.Context) error {
	o := f.o
	tag := posts.RunTag(o.Run.ID(), o.Round, "fix")
	for _, rd := range o.Run.Run().Rounds {
		for _, c := range rd.Comments {
			if c.Tag == tag {
				f.out.CommentURL = c.URL
				// A record from before the reported phase existed has
				// the comment without the mark.
				return o.Run.Complete(o.Round, state.PhaseReported, nil)
			}
		}
	}
	what := "the fix was pushed"
	if !f.out.Pushed {
		what = "nothing was pushed"
	}
	// Only a run that an earlier process began can have posted its tag
	// (a POST whose answer was lost, a kill before the record): a run this
	// process began has not, so the check costs a request only when
	// resuming (docs/architecture.md, Posting).
	var existing []github.Comment
	if o.Run.Resumed() {
		var err error
		if existing, err = o.GitHub.Comments(ctx, o.Repo, o.PR.Number); err != nil {
			return fmt.Errorf("%s, but checking PR #%d's comments before posting the report failed: %w; re-run with --continue to post it", what, o.PR.Number, err)
		}
	}
	url := ""
	for _, c := range existing {
		// Only a trusted login's comment counts (github.PullRequest.Trusts):
		// anyone can copy the tag.
		if strings.Contains(c.Body, tag) && o.PR.Trusts(c.Author) {
			url = c.URL
			break
		}
	}
	if url == "" {
		body := github.CapBodyWith(posts.Marker+"\n"+tag+"\n"+redact.ForComment(f.report()), f.ledgerBlock())
		c, err := o.GitHub.PostComment(ctx, o.Repo, o.PR.Number, body)
		if err != nil {
			return fmt.Errorf("%s, but posting the fix report failed: %w; re-run with --continue to post it", what, err)
		}
		url = c.URL
		fmt.Fprintf(o.Progress, "fix report posted: %s\n", url)
	}
	f.out.CommentURL = url
	return o.Run.Complete(o.Round, state.PhaseReported, func(rd *state.Round) {
		rd.Comments = append(rd.Comments, state.Comment{Kind: "fix", Tag: tag, URL: url})
	})
}

// ledgerBlock ends the report: the PR's ledger with what this fix fixed.
func (f *fixer) ledgerBlock() string {
	if f.o.Ledger == nil {
		return ""
	}
	o, l := f.o, *f.o.Ledger
	l.Findings = slices.Clone(l.Findings)
	if f.out.Pushed { // a fix counts once pushed
		for _, x := range f.out.Fixed {
			l.Set(x.FindingID, finding.StatusFixed, x.CommitSha)
			// Located, a later review knows it where the fix moved it
			// (docs/architecture.md, The ledger); the basis's location,
			// when it has one, stays.
			i := slices.IndexFunc(o.Payload.IssuesToFix, func(p finding.Finding) bool { return p.ID == x.FindingID })
			if i >= 0 && slices.ContainsFunc(l.Findings, func(e posts.LedgerEntry) bool { return e.ID == x.FindingID && e.Where == (posts.Where{}) }) {
				l.Locate(o.Payload.IssuesToFix[i])
			}
		}
	}
	l.Tokens = slices.Clone(l.Tokens)
	l.AddTokens(f.out.Model, f.out.Usage.Input, f.out.Usage.Output)
	return "\n" + l.Block()
}

// report is the fix report's Markdown (before sanitising): findings fixed
// and rejected with reasons, commits, verification and usage. No diff.
func (f *fixer) report() string {
	o, out := f.o, f.out
	titles := map[string]string{}
	for _, x := range o.Payload.IssuesToFix {
		titles[x.ID] = fmt.Sprintf("%s %s", x.Priority, x.Title)
	}
	var b strings.Builder
	source := o.Source
	if source == "" {
		source = fmt.Sprintf("round %d", o.Round)
	}
	fmt.Fprintf(&b, "## gh-ocdx fix report — PR #%d, %s\n\n", o.PR.Number, source)
	failed := slices.ContainsFunc(out.Verification, func(v verify.Result) bool { return !v.OK })
	switch {
	case out.Pushed:
		fmt.Fprintf(&b, "Pushed %s to `%s` (head `%s`), verified in %s.\n", text.Plural(len(out.Commits), "commit"), o.PR.HeadRefName, text.ShortOID(out.HeadOID), text.Plural(max(out.Attempts, 1), "attempt"))
	case failed:
		fmt.Fprintf(&b, "**Verification failed after %s: nothing was pushed.** The fix agent's commits stay local and unpushed; the failing output is below.\n", text.Plural(max(out.Attempts, 1), "attempt"))
	default:
		b.WriteString("No commit to push.\n")
	}
	fmt.Fprintf(&b, "\n### Fixed (%d)\n", len(out.Fixed))
	for _, x := range out.Fixed {
		// Model text on its own line: a redacted line leaves the ID readable.
		fmt.Fprintf(&b, "- `%s` %s (commit `%s`)\n  %s\n", x.FindingID, words(titles[x.FindingID]), text.ShortOID(x.CommitSha), words(x.Description))
	}
	if len(out.Fixed) == 0 {
		b.WriteString("- none\n")
	}
	fmt.Fprintf(&b, "\n### Rejected (%d)\n", len(out.Rejected))
	for _, x := range out.Rejected {
		fmt.Fprintf(&b, "- `%s` %s\n  %s\n", x.FindingID, words(titles[x.FindingID]), words(x.Reason))
	}
	if len(out.Rejected) == 0 {
		b.WriteString("- none\n")
	}
	fmt.Fprintf(&b, "\n### Commits (%d)\n", len(out.Commits))
	for _, c := range out.Commits {
		fmt.Fprintf(&b, "- `%s` %s\n", text.ShortOID(c.Sha), words(c.Message))
	}
	b.WriteString("\n### Verification\n")
	if len(out.Verification) == 0 {
		b.WriteString("- no verification command configured\n")
	} else {
		b.WriteString("\n| command | result | exit code | duration |\n|---|---|---|---|\n")
	}
	for _, v := range out.Verification {
		exit := "—"
		if v.ExitCode >= 0 {
			exit = fmt.Sprint(v.ExitCode)
		}
		fmt.Fprintf(&b, "| `%s` | %s %s | %s | %s |\n", tableCell(f.relative(v.Command)), mark(v.OK), map[bool]string{true: "passed", false: "failed"}[v.OK], exit, v.Duration.Round(time.Millisecond))
	}
	for _, v := range out.Verification {
		if v.OK || strings.TrimSpace(v.Tail) == "" {
			continue
		}
		fmt.Fprintf(&b, "\n<details><summary>output of <code>%s</code> (its last lines)</summary>\n\n", html.EscapeString(text.OneLine(f.relative(v.Command))))
		writeFenced(&b, lastLines(f.relative(v.Tail), maxReportTail))
		b.WriteString("</details>\n")
	}
	b.WriteString("\n### Token usage\n")
	fmt.Fprintf(&b, "- %s (%s): %s, %s tokens\n", Role, o.ModelName, text.Plural(out.Usage.Calls, "call"), out.Usage)
	return b.String()
}

// words is a model's text on one line, with gh-ocdx's own markup (a
// suggestion fence, the hidden marker, tags and ledger) made inert.
func words(s string) string { return text.InertMarkup(text.OneLine(s)) }

// relative writes the checkout's paths in s relative to its root: a report
// is public, and where the checkout lives on this machine (a home
// directory, a user name) is nobody's business.
func (f *fixer) relative(s string) string {
	dir := filepath.Clean(f.repo.Dir)
	return strings.ReplaceAll(strings.ReplaceAll(s, dir+string(filepath.Separator), ""), dir, ".")
}

// maxReportTail bounds the failing output quoted in a fix report.
const maxReportTail = 3000

// lastLines keeps the end of s, at most n bytes, from a line start.
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.ToValidUTF8(s, "")
}

// writeFenced quotes text in a code fence longer than any backtick run in
// it, so that command output cannot close the fence and format the rest.
func writeFenced(b *strings.Builder, text string) {
	fence, run := 3, 0
	for _, r := range text {
		if r == '`' {
			run++
			fence = max(fence, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", fence)
	fmt.Fprintf(b, "%s\n%s\n%s\n", f, text, f)
}

// tableCell keeps text on one line inside a table cell.
func tableCell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(text.OneLine(s), "|", "\\|"), "`", "'")
}
