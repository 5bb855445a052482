// Package report is what a round and a run of review-loop came to, and
// how it is said (docs/architecture.md, What a report must say; The review
// body): the round's and the run's results as --json gives them, the
// review's body, the final comments and the summary on stdout.
package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/inline"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/learnings"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/roles"
	"github.com/ocdx/gh-ocdx/state"
	"github.com/ocdx/gh-ocdx/verifier"
)

// Outcomes a run's result has besides the state file's (state.RunOutcome)
// and its record never ends with.
const (
	// OutcomeWouldFix: a dry run whose round would go on to fix findings
	// (the others end as the run would: converged, blocked, failed).
	OutcomeWouldFix state.RunOutcome = "would-fix"
	// OutcomeInterrupted: cancelled or declined at the push; the run stays
	// resumable and is not ended in the state file.
	OutcomeInterrupted state.RunOutcome = "interrupted"
)

// Result is the whole run, for the final summary and --json.
type Result struct {
	PR        PRRef             `json:"pr"`
	RunID     string            `json:"runId,omitempty"`
	Resumed   bool              `json:"resumed,omitempty"`
	DryRun    bool              `json:"dryRun"` // --dry-run: Outcome is what the run would reach; nothing was posted or pushed
	Outcome   state.RunOutcome  `json:"outcome"`
	Reason    string            `json:"reason"`
	Label     string            `json:"label"`             // Outcome as people read it: "converged (partial: reviewer-2 failed)"
	Partial   []string          `json:"partial,omitempty"` // the reviewers that failed in the last round
	Rounds    []RoundResult     `json:"rounds"`
	Remaining []finding.Finding `json:"remaining"` // P0–P2 left after the last round
	Stuck     []string          `json:"stuck"`
	WouldPost string            `json:"wouldPost,omitempty"` // --dry-run: the review report
	WouldFix  []finding.Finding `json:"wouldFix,omitempty"`  // --dry-run: the fix payload's issuesToFix
	// WouldComment are the review's inline comments (--dry-run).
	WouldComment []github.ReviewComment `json:"wouldComment,omitempty"`
	Budget       *BudgetStatus          `json:"budget,omitempty"` // with a token budget
	// CostUSD is the estimated cost of the run's rounds, in dollars, with
	// prices configured.
	CostUSD float64 `json:"estimatedCostUsd,omitempty"`
}

// PRRef is a pull request as every --json output of gh-ocdx names it.
type PRRef struct {
	Number     int    `json:"number"`
	Repository string `json:"repository"` // OWNER/REPO
	URL        string `json:"url"`
}

// RefOf is pr of repo as --json names it.
func RefOf(repo github.Repo, pr *github.PullRequest) PRRef {
	return PRRef{Number: pr.Number, Repository: repo.Owner + "/" + repo.Name, URL: pr.URL}
}

// BudgetStatus is a run's token budget and what this invocation spent of it.
type BudgetStatus struct {
	MaxTokens int64        `json:"maxTokens"`
	Spent     tokens.Usage `json:"spent"`
	Reached   bool         `json:"reached"` // a call was refused: the run stopped there
}

// String says the spend as every verb's summary says it, once: "1,234 of
// the budget of 20,000 spent (1,000 in / 234 out)".
func (b BudgetStatus) String() string {
	return fmt.Sprintf("%s of the budget of %s spent (%s)", text.Thousands(b.Spent.Input+b.Spent.Output), text.Thousands(b.MaxTokens), b.Spent)
}

// RoundResult is one round.
type RoundResult struct {
	N                int                     `json:"n"`
	HeadOID          string                  `json:"headOid"`
	Consensus        string                  `json:"consensus"`
	Counts           finding.Counts          `json:"counts"`
	Roles            []roles.Status          `json:"roles"`
	Findings         []finding.Finding       `json:"findings"`
	ReviewState      finding.ReviewState     `json:"reviewState"`
	Threads          finding.ThreadStats     `json:"threads"`
	ThreadsTruncated bool                    `json:"threadsTruncated"`
	Stuck            []string                `json:"stuck"`
	Disputed         []string                `json:"disputed,omitempty"` // conceded in a conversation (posts.Concessions): blocking, not stuck
	Since            string                  `json:"since,omitempty"`    // a re-review: the head it reviewed the changes from; "": in full
	RunUsage         tokens.Usage            `json:"runUsage"`           // the run's tokens up to this round's review, fixes included
	RunCostUSD       float64                 `json:"runEstimatedCostUsd,omitempty"`
	Judged           int                     `json:"-"`                      // the previous findings a re-review judged
	Dismissed        []finding.Finding       `json:"dismissed,omitempty"`    // raised again, but dismissed on the PR: not counted or fixed
	DismissedBy      map[string]string       `json:"dismissedBy,omitempty"`  // finding ID → the login whose command dismissed it
	DismissedWhy     map[string]string       `json:"dismissedWhy,omitempty"` // finding ID → the reason it gave, one line
	Refuted          []finding.Finding       `json:"refuted,omitempty"`      // shown wrong by the verifier: not counted, posted inline or fixed
	Learned          *learnings.Applied      `json:"learned,omitempty"`      // what the base branch's .ocdx/learnings.md left out and lowered
	Verifier         *verifier.Status        `json:"verifier,omitempty"`
	Fix              *state.FixResult        `json:"fix,omitempty"`
	Comments         []state.Comment         `json:"comments"`
	Usage            map[string]tokens.Usage `json:"usage"`
	Costs            map[string]float64      `json:"estimatedCostUsd,omitempty"` // by role, for the models with a price
	Coverage         diff.Coverage           `json:"coverage"`
	PolicyChanged    []string                `json:"policyChanged,omitempty"` // policy files the PR changes
	Note             string                  `json:"note,omitempty"`          // what the loop does next
	AnalyzerMismatch bool                    `json:"analyzerMismatch,omitempty"`
	Inline           *inline.Plan            `json:"inline,omitempty"` // the review's inline comments
	// Effort is the tier the round ran at and why (docs/architecture.md,
	// Effort tiers); nil for a round reloaded from the state file.
	Effort *effort.Choice `json:"effort,omitempty"`
	// Crew is who played the round, ReviewersOK how many reviewers
	// answered; Lines the diff the reviewers saw, for the anchors.
	Crew        roles.Crew `json:"-"`
	ReviewersOK int        `json:"-"`
	Lines       diff.Lines `json:"-"`
	// Settled are the dismissed findings known at this round's head: those
	// raised again (Dismissed) and those of the review before, followed.
	// Recorded, and located in the ledger, they keep their ID when raised
	// again at a moved line (docs/architecture.md, Re-reviews).
	Settled []finding.Finding `json:"-"`
}

// Qualified is outcome with what weakens it in round rr: reviewers that
// failed, a diff the reviewers saw only part of
// (`converged (partial: reviewer-2 failed; large diff: sampled)`).
func Qualified(outcome state.RunOutcome, rr *RoundResult) string {
	var why []string
	// When none succeeded the round failed; it is not partial.
	if failed := rr.FailedReviewers(); len(failed) > 0 && len(failed) < rr.reviewerCount() {
		why = append(why, fmt.Sprintf("partial: %s failed", strings.Join(failed, ", ")))
	}
	if rr.Coverage.Sampled() {
		why = append(why, "large diff: sampled")
	}
	if len(why) == 0 {
		return string(outcome)
	}
	return fmt.Sprintf("%s (%s)", outcome, strings.Join(why, "; "))
}

// FailedReviewers are the reviewers of rr that failed.
func (rr *RoundResult) FailedReviewers() []string {
	var failed []string
	for _, r := range rr.Roles {
		if !r.OK && r.Role != roles.AnalyzerName {
			failed = append(failed, r.Role)
		}
	}
	return failed
}

func (rr *RoundResult) reviewerCount() int {
	n := 0
	for _, r := range rr.Roles {
		if r.Role != roles.AnalyzerName {
			n++
		}
	}
	return n
}

// Actors names people as a report does: "@login (ASSOCIATION)".
func Actors(as []finding.Actor) string {
	var s []string
	for _, a := range as {
		s = append(s, "@"+a.Login+" ("+a.Association+")")
	}
	if len(s) == 0 {
		return "nobody"
	}
	return strings.Join(s, ", ")
}

// IDList is fs as a report lists them: "ID P1, ID P2", or "none".
func IDList(fs []finding.Finding) string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.ID+" "+f.Priority)
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// AddCost adds c dollars to role's estimated cost in rr.
func (rr *RoundResult) AddCost(role string, c float64) {
	if rr.Costs == nil {
		rr.Costs = map[string]float64{}
	}
	rr.Costs[role] += c
}

// maxRoleReport bounds one role's full report quoted in the comment.
const maxRoleReport = 3000

var priorityNames = map[string]string{"P0": "P0 — blocking", "P1": "P1 — critical", "P2": "P2 — important", "P3": "P3 — suggestions"}

// RenderReview is the body of a round's review report (without the marker
// and tag, which the loop adds as it posts), read top to bottom by a maintainer
// (docs/architecture.md, The review body): the consensus and what happens
// next first; then the reviewers, coverage and the findings, where one
// with an inline comment is a line of the index (its comment says the
// rest) and the others are written out; stuck, dismissed and thread
// findings; the inline note; the roles, their collapsed reports and token
// usage; the sign-off last.
func RenderReview(runID string, maxRounds int, rr *RoundResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## gh-ocdx review — round %d of %d\n\n", rr.N, maxRounds)
	writeOutcome(&b, rr)
	writeFindings(&b, rr)
	writeSettled(&b, rr)
	b.WriteString(RenderRefuted(rr))
	writeThreads(&b, rr)
	if rr.Inline != nil {
		b.WriteString(inlineNote(*rr.Inline))
	}
	writeRoles(&b, rr)
	writeUsage(&b, rr.Usage, rr.Costs)
	if rr.RunUsage != (tokens.Usage{}) {
		fmt.Fprintf(&b, "**Tokens this run so far** (every round, fixes included): %s", rr.RunUsage)
		if rr.RunCostUSD > 0 {
			fmt.Fprintf(&b, " · estimated cost %s", tokens.Dollars(rr.RunCostUSD))
		}
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "<sub>gh-ocdx review-loop · run %s</sub>\n", runID)
	return b.String()
}

// writeOutcome is the review's head: the consensus, what happens next, who
// reviewed what at which effort, and what decided the consensus besides the
// findings.
func writeOutcome(b *strings.Builder, rr *RoundResult) {
	reviewers, failed := 0, []string{}
	for _, r := range rr.Roles {
		if r.Role == roles.AnalyzerName {
			continue
		}
		reviewers++
		if !r.OK {
			failed = append(failed, r.Role)
		}
	}
	verdict := rr.Consensus
	if verdict == "" {
		verdict = "none (no reviewer succeeded)"
	}
	fmt.Fprintf(b, "**Consensus:** `%s` · P0 %d · P1 %d · P2 %d · P3 %d · head `%s`\n\n",
		verdict, rr.Counts.P0, rr.Counts.P1, rr.Counts.P2, rr.Counts.P3, text.ShortOID(rr.HeadOID))
	if rr.Note != "" {
		fmt.Fprintf(b, "**Next:** %s\n\n", text.InertMarkup(rr.Note)) // it may quote an error
	}
	switch {
	case len(failed) == 0:
		fmt.Fprintf(b, "**Reviewers:** %d of %d succeeded.\n\n", reviewers, reviewers)
	case len(failed) == reviewers:
		fmt.Fprintf(b, "**Reviewers:** all %d failed (%s): this round produced no credible review and no fix is attempted.\n\n", reviewers, strings.Join(failed, ", "))
	default:
		fmt.Fprintf(b, "**Reviewers:** partial — %d of %d succeeded; failed: %s.\n\n", reviewers-len(failed), reviewers, strings.Join(failed, ", "))
	}
	if e := effortLine(rr); e != "" {
		fmt.Fprintf(b, "**Effort:** %s.\n\n", e)
	}
	if rr.Since != "" {
		fmt.Fprintf(b, "**Reviewed:** incremental since `%s`: the reviewers were given what changed since gh-ocdx's review of that head, and judged its %s.\n\n", text.ShortOID(rr.Since), quantity(rr.Judged, "finding", "findings"))
	} else {
		b.WriteString("**Reviewed:** full.\n\n")
	}
	// After what was reviewed: "the whole diff" of an incremental round is
	// the whole since-diff.
	fmt.Fprintf(b, "**Coverage:** %s.\n\n", rr.Coverage)
	b.WriteString(LearnedNote(rr))
	if len(rr.PolicyChanged) > 0 {
		fmt.Fprintf(b, "**Repository policy:** this PR changes %s; the change takes effect after merge: this review used the base branch's.\n\n", policyNames(rr.PolicyChanged))
	}
	if rr.ReviewState.HasChangesRequested {
		fmt.Fprintf(b, "**Review state:** changes requested by %s; a maintainer's change request makes the consensus request_changes whatever the models say.\n\n", Actors(rr.ReviewState.ChangesRequestedBy))
	}
	if rr.AnalyzerMismatch {
		b.WriteString("_The comments analyzer reported a different review state; the one computed from the PR's reviews is used._\n\n")
	}
}

// writeFindings are the round's code findings by priority: a line of the
// index for one with an inline comment, else written out.
func writeFindings(b *strings.Builder, rr *RoundResult) {
	on := onLines(rr.Inline)
	code := slices.DeleteFunc(slices.Clone(rr.Findings), consensus.IsThread)
	switch {
	case len(code) == 0 && rr.ReviewersOK == 0 && len(rr.Roles) > 0:
		// No review happened: "None" would read as a clean one.
		b.WriteString("### Findings\n\nNo review: every reviewer failed (see Roles below).\n\n")
	case len(code) == 0:
		b.WriteString("### Findings\n\nNone.\n\n")
	}
	for _, p := range finding.Priorities {
		var group []finding.Finding
		for _, f := range code {
			if f.Priority == p {
				group = append(group, f)
			}
		}
		if len(group) == 0 {
			continue
		}
		fmt.Fprintf(b, "### %s (%d)\n\n", priorityNames[p], len(group))
		for _, f := range group {
			if url, ok := on[f.ID]; ok {
				b.WriteString(IndexLine(f, url, rr.Stuck))
			} else {
				writeFinding(b, f, rr.Stuck)
			}
		}
		b.WriteString("\n")
	}
}

// writeSettled lists the findings that are not sent to the fix agent:
// stuck, disputed and dismissed.
func writeSettled(b *strings.Builder, rr *RoundResult) {
	if len(rr.Stuck) > 0 {
		b.WriteString("### Stuck findings\n\nReported fixed in an earlier round and found again; they are no longer sent to the fix agent and need a human:\n\n")
		for _, id := range rr.Stuck {
			fmt.Fprintf(b, "- `%s`\n", id)
		}
		b.WriteString("\n")
	}
	if len(rr.Disputed) > 0 {
		b.WriteString("### Disputed findings\n\nConceded by gh-ocdx in a conversation; they are not sent to the fix agent and block until someone with write permission dismisses them (`/ocdx dismiss`):\n\n")
		for _, id := range rr.Disputed {
			fmt.Fprintf(b, "- `%s`\n", id)
		}
		b.WriteString("\n")
	}
	if len(rr.Dismissed) > 0 {
		b.WriteString("### Dismissed findings\n\nRaised again, but dismissed on this PR (`/ocdx dismiss` or `gh ocdx dismiss`): not counted, not fixed:\n\n")
		for _, f := range rr.Dismissed {
			by := ""
			if who := rr.DismissedBy[f.ID]; who != "" {
				by = " · dismissed by `" + who + "`"
			}
			if why := rr.DismissedWhy[f.ID]; why != "" {
				by += ": " + text.Cell(why, 200)
			}
			fmt.Fprintf(b, "- `%s` %s %s%s\n", f.ID, f.Priority, text.Cell(f.Title, 100), by)
		}
		b.WriteString("\n")
	}
}

// writeThreads are the people's unresolved review threads.
func writeThreads(b *strings.Builder, rr *RoundResult) {
	threads := slices.DeleteFunc(slices.Clone(rr.Findings), func(f finding.Finding) bool { return !consensus.IsThread(f) })
	fmt.Fprintf(b, "### Unresolved review threads (%d of %d)\n\n", rr.Threads.Unresolved, rr.Threads.Total)
	if rr.ThreadsTruncated {
		fmt.Fprintf(b, "**More than %s review threads:** only the first %[1]s were read; an unresolved thread among the rest is not counted here, so the PR does not converge.\n\n", text.Thousands(github.MaxThreads))
	}
	if len(threads) == 0 {
		b.WriteString("None.\n\n")
	}
	for _, f := range threads {
		writeFinding(b, f, nil)
	}
	if len(threads) > 0 {
		b.WriteString("\nThese need a human: they are never sent to the fix agent.\n\n")
	}
}

// writeRoles is the table of roles and their collapsed reports.
func writeRoles(b *strings.Builder, rr *RoundResult) {
	b.WriteString("### Roles\n\n| Role | Model | Result | Findings | Tokens | Time |\n|---|---|---|---|---|---|\n")
	for _, r := range rr.Roles {
		res := r.Conclusion
		if r.Role == roles.AnalyzerName {
			res = "done"
		}
		if !r.OK {
			res = "failed: " + text.Cell(text.FirstLine(r.Error), 120)
		}
		used := r.Usage.String()
		if c, ok := rr.Costs[r.Role]; ok {
			used += " · " + tokens.Dollars(c)
		}
		fmt.Fprintf(b, "| %s | `%s` | %s | %d | %s | %s |\n", r.Role, r.Model, res, r.Findings, used, r.Elapsed)
	}
	b.WriteString(verifierRow(rr))
	b.WriteString("\n")
	var reports []roles.Status
	for _, r := range rr.Roles {
		if r.OK && strings.TrimSpace(r.Report) != "" {
			reports = append(reports, r)
		}
	}
	if len(reports) > 0 {
		b.WriteString("<details><summary>Role reports</summary>\n\n")
		for _, r := range reports {
			fmt.Fprintf(b, "#### %s\n\n%s\n\n", r.Role, underHeading(text.Prose(r.Report, maxRoleReport), 4))
		}
		b.WriteString("</details>\n\n")
	}
}

// onLines are the findings of a round that have an inline comment, with
// the URL of their thread when it is known (an open thread of an earlier
// round; a comment posted with this review has none yet): the body lists
// each in one line. A review whose comments GitHub refused has none.
func onLines(in *inline.Plan) map[string]string {
	on := map[string]string{}
	if in == nil {
		return on
	}
	if !in.Refused {
		for _, f := range in.Posted {
			on[f.ID] = ""
		}
	}
	for _, o := range in.Open {
		on[o.ID] = o.URL
	}
	return on
}

// IndexLine is a finding that has an inline comment as one line of the
// report's index: priority, ID, title and where, linked to its thread when
// url is known, and who raised it. The check run's summary uses it too.
func IndexLine(f finding.Finding, url string, stuck []string) string {
	loc := "`" + location(f) + "`"
	if url != "" {
		loc = fmt.Sprintf("[%s](%s)", loc, url)
	}
	mark := ""
	if slices.Contains(stuck, f.ID) {
		mark = " **(stuck)**"
	}
	by := ""
	if a := consensus.Agreement(f); a != "" {
		by = " · " + text.InertMarkup(a)
	}
	return fmt.Sprintf("- **%s** `%s` %s · %s%s%s\n", f.Priority, f.ID, text.Cell(f.Title, 200), loc, mark, by)
}

// location is a finding's file and line ("a.go:3"), or its file.
func location(f finding.Finding) string {
	if f.Line != nil {
		return fmt.Sprintf("%s:%d", f.File, *f.Line)
	}
	return f.File
}

// inlineNote is the review body's paragraph about its inline comments.
func inlineNote(in inline.Plan) string {
	var parts []string
	if in.Refused {
		parts = append(parts, fmt.Sprintf("GitHub refused the %s of this review; their findings are written out above", quantity(len(in.Comments), "inline comment", "inline comments")))
	} else if n := len(in.Comments); n > 0 {
		parts = append(parts, quantity(n, "finding is commented on its line", "findings are commented on their lines"))
	}
	if n := len(in.Open); n > 0 {
		parts = append(parts, quantity(n, "finding already has its thread, linked above", "findings already have their thread, linked above"))
	}
	if n := len(in.OffDiff); n > 0 {
		parts = append(parts, quantity(n, "finding is on no changed line", "findings are on no changed line"))
	}
	if n := in.OverBudget; n > 0 {
		parts = append(parts, fmt.Sprintf("%s over this round's budget of %s, the most severe and most agreed first",
			quantity(n, "finding is written out here instead of on its line:", "findings are written out here instead of on their lines:"),
			quantity(in.Budget, "inline comment", "inline comments")))
	}
	if n := len(in.Held) - in.OverBudget; n > 0 {
		parts = append(parts, quantity(n, "finding on a changed line is written out here: its priority is not posted inline (`inlinePriorities`), or it is a P3 only one reviewer raised",
			"findings on changed lines are written out here: their priority is not posted inline (`inlinePriorities`), or they are P3s only one reviewer raised"))
	}
	if len(parts) == 0 {
		return ""
	}
	return "**Inline:** " + strings.Join(parts, "; ") + ".\n\n"
}

// quantity is n with the noun in its number: "1 finding", "2 findings".
func quantity(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// underHeading puts the Markdown headings of s (outside code fences) under
// a heading of level: a role's "## Summary" in the body's "#### reviewer-1"
// becomes "#####", so the page's outline stays in order.
func underHeading(s string, level int) string {
	lines := strings.Split(s, "\n")
	fence := ""
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		case strings.HasPrefix(t, "```"), strings.HasPrefix(t, "~~~"):
			fence = t[:3]
			continue
		}
		n := len(t) - len(strings.TrimLeft(t, "#"))
		if n == 0 || n > 6 || len(l)-len(t) > 3 || (len(t) > n && t[n] != ' ' && t[n] != '\t') {
			continue
		}
		lines[i] = strings.Repeat("#", min(6, n+level)) + t[n:]
	}
	return strings.Join(lines, "\n")
}

// writeFinding writes one finding, with who raised it: the reviewers that
// agree on it, or the person or check it came from.
func writeFinding(b *strings.Builder, f finding.Finding, stuck []string) {
	loc := location(f)
	by := ""
	switch {
	case f.Agreement != "":
		by = " · " + consensus.Agreement(f)
	case f.Source != nil && f.Source.Type == "human" && f.Source.Name != "":
		by = " — @" + f.Source.Name
	case f.Source != nil && f.Source.Name != "":
		by = " — " + f.Source.Name
	}
	mark := ""
	if slices.Contains(stuck, f.ID) {
		mark = " **(stuck)**"
	}
	fmt.Fprintf(b, "- **%s** `%s` %s `%s`%s%s\n", f.Priority, f.ID, text.Cell(f.Title, 200), loc, mark, by)
	if d := strings.TrimSpace(f.Description); d != "" {
		fmt.Fprintf(b, "  %s\n", indent(text.Prose(d, 1000)))
	}
	if s := strings.TrimSpace(f.Suggestion); s != "" {
		fmt.Fprintf(b, "  _Suggestion:_ %s\n", indent(text.Prose(s, 600)))
	}
}

func writeUsage(b *strings.Builder, usage map[string]tokens.Usage, costs map[string]float64) {
	if len(usage) == 0 {
		return
	}
	roles := make([]string, 0, len(usage))
	var total tokens.Usage
	for r, u := range usage {
		roles = append(roles, r)
		total = total.Add(u)
	}
	sort.Strings(roles)
	b.WriteString("**Token usage:** ")
	for i, r := range roles {
		if i > 0 {
			b.WriteString(" · ")
		}
		fmt.Fprintf(b, "%s %s", r, usage[r])
	}
	fmt.Fprintf(b, " · total %s", total)
	if len(costs) > 0 {
		fmt.Fprintf(b, " · estimated cost %s (the configured prices)", tokens.Dollars(sumCosts(costs)))
	}
	b.WriteString("\n\n")
}

func sumCosts(costs map[string]float64) float64 {
	var t float64
	for _, c := range costs {
		t += c
	}
	return t
}

// RenderFailure is the final comment after a failure that follows a
// posted report: the PR is told once why the run stopped.
func RenderFailure(n int, reason string) string {
	return fmt.Sprintf("## gh-ocdx review-loop stopped in round %d\n\n**Failure:** %s\n\nNothing more will be posted or pushed by this run. Fix the cause, then re-run `gh ocdx review-loop`.\n", n, text.Cell(reason, 2000))
}

// RenderBudgetReached is the final comment of a run the token budget stopped.
func RenderBudgetReached(n int, reason string) string {
	return fmt.Sprintf("## gh-ocdx review-loop stopped in round %d\n\n**Stopped:** %s.\n\nNothing more will be posted or pushed by this run. Re-run `gh ocdx review-loop` with a larger `--max-tokens` (or `maxTokens` in the configuration) to go on.\n", n, text.Cell(reason, 2000))
}

// RenderSummary is the final Markdown summary printed on stdout: round by
// round, counts, the PR link, fixes applied, and the outcome.
func RenderSummary(r *Result) string {
	var b strings.Builder
	label := r.Label
	if label == "" {
		label = string(r.Outcome)
	}
	fmt.Fprintf(&b, "# review-loop: PR #%d — %s\n\n%s\n\n", r.PR.Number, label, r.PR.URL)
	fmt.Fprintf(&b, "**Outcome:** %s\n", r.Reason)
	if r.RunID != "" {
		resumed := ""
		if r.Resumed {
			resumed = " (resumed)"
		}
		fmt.Fprintf(&b, "**Run:** %s%s\n", r.RunID, resumed)
	}
	if bs := r.Budget; bs != nil {
		// Said once: the outcome above says when the budget stopped the run.
		fmt.Fprintf(&b, "**Tokens:** %s\n", bs)
	}
	if r.CostUSD > 0 {
		fmt.Fprintf(&b, "**Estimated cost:** %s (the configured prices)\n", tokens.Dollars(r.CostUSD))
	}
	b.WriteString("\n")
	for i := range r.Rounds {
		writeRoundSummary(&b, &r.Rounds[i])
	}
	if len(r.Remaining) > 0 {
		b.WriteString("## Remaining P0/P1/P2\n\n")
		for _, f := range r.Remaining {
			fmt.Fprintf(&b, "- %s `%s` %s (%s)\n", f.Priority, f.ID, f.Title, f.File)
		}
		b.WriteString("\n")
	}
	if r.WouldPost != "" {
		writeDryRun(&b, r)
	}
	return b.String()
}

// writeRoundSummary is one round in the run's summary.
func writeRoundSummary(b *strings.Builder, rr *RoundResult) {
	fmt.Fprintf(b, "## Round %d — head %s\n\n", rr.N, text.ShortOID(rr.HeadOID))
	c := rr.Consensus
	if c == "" {
		c = "none"
	}
	fmt.Fprintf(b, "- Consensus: %s (P0 %d, P1 %d, P2 %d, P3 %d)\n", c, rr.Counts.P0, rr.Counts.P1, rr.Counts.P2, rr.Counts.P3)
	var roles []string
	for _, s := range rr.Roles {
		st := "ok"
		if !s.OK {
			st = "failed"
		}
		roles = append(roles, fmt.Sprintf("%s %s", s.Role, st))
	}
	fmt.Fprintf(b, "- Roles: %s\n", strings.Join(roles, ", "))
	if e := effortLine(rr); e != "" {
		fmt.Fprintf(b, "- Effort: %s\n", e)
	}
	fmt.Fprintf(b, "- Coverage: %s\n", rr.Coverage)
	if len(rr.PolicyChanged) > 0 {
		fmt.Fprintf(b, "- Repository policy: the PR changes %s; the change takes effect after merge\n", policyNames(rr.PolicyChanged))
	}
	if rr.Learned != nil {
		fmt.Fprintf(b, "- Learnings: %s\n", rr.Learned)
	}
	fmt.Fprintf(b, "- Unresolved review threads: %d\n", rr.Threads.Unresolved)
	if len(rr.Stuck) > 0 {
		fmt.Fprintf(b, "- Stuck: %s\n", strings.Join(rr.Stuck, ", "))
	}
	if len(rr.Refuted) > 0 {
		fmt.Fprintf(b, "- Refuted by the verifier: %s (gh ocdx restore overrules it)\n", IDList(rr.Refuted))
	}
	if f := rr.Fix; f != nil {
		var fixed []string
		for _, x := range f.Fixed {
			fixed = append(fixed, x.FindingID)
		}
		fmt.Fprintf(b, "- Fix: %d fixed (%s), %d rejected, %s, verified %t, pushed %t", len(f.Fixed), strings.Join(fixed, ", "), len(f.Rejected), text.Plural(len(f.Commits), "commit"), f.Verified, f.Pushed)
		if f.Pushed {
			fmt.Fprintf(b, " → %s", text.ShortOID(f.HeadOID))
		}
		b.WriteString("\n")
	}
	for _, cm := range rr.Comments {
		fmt.Fprintf(b, "- %s report: %s\n", cm.Kind, cm.URL)
	}
	if len(rr.Usage) > 0 {
		var t tokens.Usage
		for _, u := range rr.Usage {
			t = t.Add(u)
		}
		fmt.Fprintf(b, "- Tokens: %s", t)
		if len(rr.Costs) > 0 {
			fmt.Fprintf(b, " (%s)", tokens.Dollars(sumCosts(rr.Costs)))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// writeDryRun is what a dry run would have posted, commented and fixed.
func writeDryRun(b *strings.Builder, r *Result) {
	b.WriteString("## Would post (dry run)\n\n")
	b.WriteString(r.WouldPost)
	b.WriteString("\n")
	if len(r.WouldComment) > 0 {
		b.WriteString("\n## Would comment inline (dry run)\n\n")
		for _, c := range r.WouldComment {
			at := fmt.Sprintf("%s:%d", c.Path, c.Line)
			if c.StartLine > 0 {
				at = fmt.Sprintf("%s:%d-%d", c.Path, c.StartLine, c.Line)
			}
			fmt.Fprintf(b, "### %s (%s)\n\n%s\n\n", at, c.Side, posts.Visible(c.Body))
		}
	}
	if len(r.WouldFix) > 0 {
		b.WriteString("\n## Would fix (dry run)\n\n")
		for _, f := range r.WouldFix {
			fmt.Fprintf(b, "- %s `%s` %s (%s)\n", f.Priority, f.ID, f.Title, f.File)
		}
	}
}

func policyNames(files []string) string {
	var q []string
	for _, f := range files {
		q = append(q, "`"+f+"`")
	}
	return strings.Join(q, " and ")
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }

// effortLine says the tier a round ran at, why, and which configured roles
// it left out (docs/architecture.md, Effort tiers); "" for a round that
// does not know (reloaded from the state file).
func effortLine(rr *RoundResult) string {
	if rr.Effort == nil {
		return ""
	}
	line := EffortSaid(*rr.Effort)
	var out []string
	if n := rr.Crew.Left; n > 0 {
		out = append(out, text.Plural(n, "reviewer"))
	}
	if !rr.Crew.Analyzer {
		out = append(out, "the comments analyzer")
	}
	if rr.Crew.VerifierLeft {
		out = append(out, "the verifier")
	}
	if len(out) > 0 {
		line += "; not run: " + strings.Join(out, ", ")
	}
	return line
}

// EffortSaid is the tier c ran at and why, as a report says it.
func EffortSaid(c effort.Choice) string {
	line := fmt.Sprintf("`%s` — %s", c.Tier, text.InertMarkup(text.OneLine(c.Why)))
	if c.Asked != effort.Auto && c.Asked != c.Tier {
		line += fmt.Sprintf(" (%s was asked for)", c.Asked)
	}
	return line
}

// RenderRefuted is the review body's part on the verifier: what it
// refuted, with its evidence, and how a person overrules it; or that it
// failed. "" when no verifier ran.
func RenderRefuted(rr *RoundResult) string {
	var b strings.Builder
	if st := rr.Verifier; st != nil && !st.OK {
		fmt.Fprintf(&b, "**Verifier:** `%s` failed (%s): the findings it was to check stand as the reviewers raised them.\n\n", st.Model, text.Cell(text.FirstLine(st.Error), 200))
	}
	if len(rr.Refuted) == 0 {
		return b.String()
	}
	fmt.Fprintf(&b, "### Refuted by the verifier (%d)\n\n", len(rr.Refuted))
	b.WriteString("Raised by one reviewer, and shown wrong by the verifier reading the code: not posted inline, not counted, not fixed. Someone with write permission can overrule it with `/ocdx restore <ID>` (or `gh ocdx restore <pr> <ID>`): it then counts again from the next run.\n\n")
	for _, f := range rr.Refuted {
		loc := f.File
		if f.Line != nil {
			loc = fmt.Sprintf("%s:%d", f.File, *f.Line)
		}
		by := ""
		if f.Agreement != "" {
			by = " · " + consensus.Agreement(f)
		}
		fmt.Fprintf(&b, "- **%s** `%s` %s `%s`%s\n", f.Priority, f.ID, text.Cell(f.Title, 200), loc, by)
		if e := strings.TrimSpace(f.Evidence); e != "" {
			fmt.Fprintf(&b, "  _Evidence:_ %s\n", indent(text.Prose(e, verifier.MaxEvidence)))
		}
	}
	b.WriteString("\n")
	return b.String()
}

// verifierRow is the verifier's line in the review's table of roles.
func verifierRow(rr *RoundResult) string {
	st := rr.Verifier
	if st == nil || len(st.Sent) == 0 && st.OK {
		return ""
	}
	res := fmt.Sprintf("%d of %d refuted", len(st.Refuted), len(st.Sent))
	if !st.OK {
		res = "failed: " + text.Cell(text.FirstLine(st.Error), 120)
	}
	used := st.Usage.String()
	if st.CostUSD > 0 {
		used += " · " + tokens.Dollars(st.CostUSD)
	}
	return fmt.Sprintf("| %s | `%s` | %s | %d | %s | %s |\n", verifier.Name, st.Model, res, len(st.Refuted), used, st.Elapsed)
}

// LearnedNote is the report's paragraph on what the base branch's
// learnings left out and lowered in rr (docs/architecture.md, Learnings);
// "" when they did nothing.
func LearnedNote(rr *RoundResult) string {
	if rr.Learned == nil {
		return ""
	}
	return fmt.Sprintf("**Learnings:** %s (the base branch's; never a P0, SEC- or thread finding).\n\n", rr.Learned)
}
