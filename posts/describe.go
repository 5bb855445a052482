package posts

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// What a fresh machine reads back from gh-ocdx's own posts to fix the open
// findings as the machine before would have (docs/architecture.md, The
// ledger).

// maxDescription bounds a description read back from a post, in bytes:
// what the thread's comment shows at most.
const maxDescription = 4 << 10

// OpenFindings are the open code findings of the PR's newest trusted
// ledger (Trust.Ledger) as a fix reads them on a machine whose state file
// has no review of the PR: each located by the ledger, with who raised it
// and its description read back from gh-ocdx's own posts (the thread it
// opened for the finding, else the report the ledger names). stuck are
// those the ledger says are stuck, located too. why says, when there is
// nothing to fix, why; ok is false when the PR holds no ledger at all.
func (t *Trust) OpenFindings(ctx context.Context, pr *github.PullRequest) (open []finding.Finding, stuck []string, round int, why string, ok bool) {
	t.Judge(ctx, pr)
	led, src, _, ok := t.Ledger(ctx, pr)
	if !ok {
		return nil, nil, 0, "", false
	}
	located, _ := led.BasisFindings()
	switch {
	case led.Converged && led.ReviewedHead() == pr.HeadRefOid:
		return nil, nil, led.Round, fmt.Sprintf("the latest review (%s) converged", src), true
	case led.Basis == "":
		return nil, nil, led.Round, fmt.Sprintf("the PR's ledger (%s) locates no finding of a review: run 'gh ocdx review-loop --pr %d' first", src, pr.Number), true
	case led.Basis != pr.HeadRefOid:
		return nil, nil, led.Round, fmt.Sprintf("the latest review (%s) reviewed an older head %s, and the PR is at %s now: run 'gh ocdx review-loop --pr %d' first",
			src, text.ShortOID(led.Basis), text.ShortOID(pr.HeadRefOid), pr.Number), true
	}
	status := map[string]LedgerEntry{}
	for _, e := range led.Findings {
		status[e.ID] = e
	}
	for _, f := range located {
		e := status[f.ID]
		switch e.Status {
		case finding.StatusStuck:
			stuck = append(stuck, f.ID)
		case finding.StatusOpen:
		default:
			continue // fixed, disputed: not the fix agent's
		}
		f.Category, f.Description = Describe(pr, f.ID, e.At)
		open = append(open, f)
	}
	return open, stuck, led.Round, "", true
}

// Describe reads back the category and description of finding id from
// gh-ocdx's own posts on pr: the first comment of the thread it opened
// for id, else the report of at (run/round) that writes it out. Both are
// as hostile as any post: bounded, and they only ever go to the fix
// agent as a finding's words, as a reviewer's did.
func Describe(pr *github.PullRequest, id, at string) (category, description string) {
	category = categoryOf(id)
	for _, th := range pr.Threads {
		if len(th.Comments) == 0 || !Own(pr, th.Comments[0].Body, th.Comments[0].Author) {
			continue
		}
		m, ok := readThreadTag(th.Comments[0].Body)
		if !ok || m.ID != id {
			continue
		}
		if c := m.Category; c != "" && finding.ID(c, "", nil, "")[:len(id)-8] == id[:len(id)-8] {
			category = c
		}
		if d := inlineDescription(th.Comments[0].Body, id); d != "" {
			return category, d
		}
	}
	run, n, ok := splitAt(at)
	if !ok {
		return category, ""
	}
	tag := RunTag(run, n, "review")
	for _, r := range pr.Reviews {
		if strings.Contains(r.Body, tag) && Own(pr, r.Body, r.Writer()) {
			return category, reportDescription(r.Body, id)
		}
	}
	return category, ""
}

// inlineDescription is the description in InlineBody's comment of id:
// the paragraphs after its heading and who raised it, before the
// suggestion.
func inlineDescription(body, id string) string {
	lines := strings.Split(body, "\n")
	start := slices.IndexFunc(lines, func(s string) bool { return strings.HasPrefix(s, "**") && strings.HasSuffix(s, "`"+id+"`") })
	if start < 0 {
		return ""
	}
	var keep []string
	for _, s := range lines[start+1:] {
		if strings.HasPrefix(s, "_Suggestion:_") || strings.HasPrefix(s, "```suggestion") {
			break
		}
		if len(keep) == 0 && (strings.TrimSpace(s) == "" || strings.HasPrefix(s, "_Raised by ")) {
			continue
		}
		keep = append(keep, s)
	}
	return bounded(strings.Join(keep, "\n"))
}

// reportDescription is the description writeFinding wrote of id in a
// report: its indented lines after the finding's, before the suggestion.
func reportDescription(body, id string) string {
	lines := strings.Split(body, "\n")
	start := slices.IndexFunc(lines, func(s string) bool { return strings.HasPrefix(s, "- **P") && strings.Contains(s, "`"+id+"`") })
	if start < 0 {
		return ""
	}
	var keep []string
	for _, s := range lines[start+1:] {
		rest, ok := strings.CutPrefix(s, "  ")
		if !ok || strings.HasPrefix(rest, "_Suggestion:_") {
			break
		}
		keep = append(keep, rest)
	}
	return bounded(strings.Join(keep, "\n"))
}

// bounded is a description read back: trimmed, capped at maxDescription.
func bounded(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxDescription {
		s = strings.ToValidUTF8(s[:maxDescription], "") + "…"
	}
	return s
}

// categoryOf is the category an ID's code names ("QUAL-…": quality).
func categoryOf(id string) string {
	code, _, _ := strings.Cut(id, "-")
	for _, c := range []string{"security", "performance", "quality", "architecture", "testing", "docs"} {
		if strings.HasPrefix(finding.ID(c, "", nil, ""), code+"-") {
			return c
		}
	}
	return "other"
}
