package reviewpr

import (
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/rereview"
)

// review-pr's review is a review of the PR like a round's
// (docs/architecture.md, review-pr): its inline comments are gh-ocdx's own
// threads, each naming a finding, and its ledger makes its head the basis
// of the next re-review, on any machine.

// Priority is the priority of review-pr's comments as findings:
// one model's word, so suggestions for the loop's reviewers to judge,
// never a blocker by themselves.
const Priority = "P3"

// Comments are review-pr's inline comments as posted: each begins
// with the marker and the thread tag of its finding, as a round's do
// (inline.Body), so every verb knows the thread as gh-ocdx's own
// (posts.OwnThreads). The findings are those of the comments, each ID once. A
// comment on the problem of a finding the PR already has (earlier: the
// basis's findings, where they are at this head) is that finding, under
// its ID, whatever its category: one problem, one finding. It takes
// nothing from the earlier one but its name, so it clears nothing.
func Comments(cs []github.ReviewComment, earlier []finding.Finding) ([]github.ReviewComment, []finding.Finding) {
	out := make([]github.ReviewComment, 0, len(cs))
	var fs []finding.Finding
	for _, c := range cs {
		f := finding.Finding{Priority: Priority, Category: "other", File: c.Path, Title: commentTitle(c.Body), Description: c.Body}
		line, end := c.Line, c.Line
		if c.StartLine > 0 {
			line = c.StartLine
		}
		f.Line = &line
		if end != line {
			f.EndLine = &end
		}
		if c.Side == diff.Left {
			f.Side = "LEFT"
		}
		f.ID = f.ComputeID()
		for _, e := range earlier {
			if !consensus.IsThread(e) && consensus.SameProblem(e, f) {
				f.ID = e.ID
				break
			}
		}
		c.Body = posts.Marker + "\n" + posts.ThreadTag(f) + "\n" + c.Body
		out = append(out, c)
		if !slices.ContainsFunc(fs, func(x finding.Finding) bool { return x.ID == f.ID }) {
			fs = append(fs, f)
		}
	}
	return out, fs
}

// commentTitle is a comment's first line of words: its finding's title.
func commentTitle(body string) string {
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") {
			break // a suggestion: no words before it
		}
		if l = text.OneLine(strings.Trim(l, "#>*_-` ")); l != "" {
			return text.Clip(l, posts.MaxLedgerTitle)
		}
	}
	return "Suggested change"
}

// Ledger is the ledger review-pr's review carries, and the
// findings of that review as a basis (nil when it is none): prev, the PR's
// newest ledger, with run's review of head, its comments' findings (fs)
// open. Its head becomes the basis of the next re-review when prev's basis
// findings can be carried there: none, the same head, or the diff from
// prev's basis to head follows their lines. Otherwise prev's basis stays, and the comments are
// open findings the next review judges anew. sampled is the head before
// which the review's coverage was sampled ("" when it saw all it reviewed);
// whole is the diff from a commit to head (ok false when this clone cannot
// give it).
func Ledger(prev posts.Ledger, run, head, sampled string, fs []finding.Finding, whole func(from string) (string, bool)) (posts.Ledger, []finding.Finding) {
	led := prev
	led.Findings = slices.Clone(prev.Findings)
	led.Run, led.Kind, led.Round, led.Head, led.Reviewed, led.Converged = run, "review-pr", 1, head, head, false
	led.Tokens = nil // prev's run's, not this one's
	for _, f := range fs {
		// One the ledger knows (dismissed, say) keeps its status.
		if !slices.ContainsFunc(led.Findings, func(e posts.LedgerEntry) bool { return e.ID == f.ID }) {
			led.Set(f.ID, finding.StatusOpen, "")
		}
	}
	carried, ok := rereview.Carried(prev, head, whole)
	if !ok {
		return led, nil
	}
	// A comment on a carried finding's problem is that finding, as carried
	// (its priority, its place): the comment adds a voice, not a finding.
	basis := slices.Clone(carried)
	for _, f := range fs {
		if !slices.ContainsFunc(carried, func(c finding.Finding) bool { return c.ID == f.ID }) {
			basis = append(basis, f)
		}
	}
	for _, f := range basis {
		led.Locate(f)
	}
	led.Basis, led.Sampled = head, sampled
	return led, basis
}
