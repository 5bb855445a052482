// Package checkrun publishes a review-loop run's verdict as the gh-ocdx
// check run on the head it reviewed, which a branch ruleset can require
// (docs/architecture.md, The check run).
package checkrun

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/state"
)

// Name is the check run's name: the one a ruleset requires.
const Name = "gh-ocdx"

// Conclusions of the check run.
const (
	Success = "success" // converged
	Failure = "failure" // blocked or failed
	Neutral = "neutral" // review only, blocked by no open P0–P2 finding
)

// MaxAnnotations bounds the annotations of one check run (10 requests of
// 50); the summary counts the findings past it.
const MaxAnnotations = 500

// maxSummary leaves room under GitHub's 65,535 characters for the lines
// that close the summary.
const maxSummary = 60000

// GitHub is what a check run needs of the API (github.Client).
type GitHub interface {
	CheckRuns(ctx context.Context, repo github.Repo, sha, name string) ([]github.CheckRun, error)
	CheckRunAnnotations(ctx context.Context, repo github.Repo, id int64) ([]github.Annotation, error)
	CreateCheckRun(ctx context.Context, repo github.Repo, name, sha, conclusion string, out github.CheckOutput) (*github.CheckRun, error)
	UpdateCheckRun(ctx context.Context, repo github.Repo, id int64, conclusion string, out github.CheckOutput) (*github.CheckRun, error)
}

// Check is the check run of a run: on Head, its conclusion, title, the
// summary (the report's index) and the open findings as annotations.
type Check struct {
	Head        string
	Conclusion  string
	Title       string
	Summary     string
	Annotations []github.Annotation
	// Unannotated are the findings past MaxAnnotations, and OffLines
	// those on no line of the head (no line, or the base's lines).
	Unannotated, OffLines int
}

// Of is the check of res, the last round's verdict on the head it
// reviewed; ok is false when the run leaves none: a dry run, an
// interrupted one, or one that reviewed nothing. reviewOnly: the run could
// not push (a fork, read access, an /ocdx review); it is neutral when
// nothing but that keeps it from converging.
func Of(res *report.Result, reviewOnly bool) (c Check, ok bool) {
	if res == nil || res.DryRun || len(res.Rounds) == 0 {
		return Check{}, false
	}
	switch res.Outcome {
	case state.OutcomeConverged:
		c.Conclusion = Success
	case state.OutcomeBlocked, state.OutcomeFailed:
		c.Conclusion = Failure
		// A run that could not fix (a fork) is neutral only when no P0–P2
		// finding is open: GitHub counts neutral as passed for a required
		// check, and open blocking findings must not pass it.
		if reviewOnly && res.Outcome == state.OutcomeBlocked && len(res.Remaining) == 0 {
			c.Conclusion = Neutral
		}
	default:
		return Check{}, false
	}
	rr := res.Rounds[len(res.Rounds)-1]
	c.Head = rr.HeadOID
	if c.Head == "" {
		return Check{}, false
	}
	code := slices.DeleteFunc(slices.Clone(rr.Findings), consensus.IsThread)
	if f := rr.Fix; f != nil && f.Pushed && f.HeadOID != "" && f.HeadOID != rr.HeadOID {
		// The run pushed a fix and ended before reviewing it (its budget,
		// an error): the PR's head is that commit, which has no verdict
		// yet. The findings were of the head before, whose lines have
		// moved: listed, not annotated.
		c.Head, c.Conclusion = f.HeadOID, Failure
		c.OffLines = len(code)
		c.Title = fmt.Sprintf("%s — not reviewed: a fix of round %d", text.OneLine(res.Label), rr.N)
		c.Summary = fmt.Sprintf("**Not reviewed:** gh-ocdx pushed this commit, a fix of round %d, and the run ended before reviewing it; what follows is the review of `%s`.\n\n", rr.N, text.ShortOID(rr.HeadOID)) +
			summary(res, &rr, code, c)
		return c, true
	}
	slices.SortStableFunc(code, func(a, b finding.Finding) int {
		return slices.Index(finding.Priorities, a.Priority) - slices.Index(finding.Priorities, b.Priority)
	})
	for _, f := range code {
		a, on := annotation(f)
		switch {
		case !on:
			c.OffLines++
		case len(c.Annotations) == MaxAnnotations:
			c.Unannotated++
		default:
			c.Annotations = append(c.Annotations, a)
		}
	}
	c.Title = fmt.Sprintf("%s — P0 %d · P1 %d · P2 %d · P3 %d", text.OneLine(res.Label), rr.Counts.P0, rr.Counts.P1, rr.Counts.P2, rr.Counts.P3)
	c.Summary = summary(res, &rr, code, c)
	return c, true
}

// levels are the annotation levels of the priorities.
var levels = map[string]string{"P0": "failure", "P1": "failure", "P2": "warning", "P3": "notice"}

// annotation is f on its lines of the head; on is false when it names
// none there.
func annotation(f finding.Finding) (a github.Annotation, on bool) {
	if f.File == "" || f.Line == nil || *f.Line < 1 || strings.EqualFold(f.Side, "LEFT") {
		return a, false
	}
	a = github.Annotation{Path: f.File, StartLine: *f.Line, EndLine: *f.Line, Level: levels[f.Priority],
		Title: fmt.Sprintf("%s %s: %s", f.Priority, f.ID, text.InertMarkup(text.OneLine(f.Title)))}
	if a.Level == "" {
		a.Level = "warning"
	}
	if f.EndLine != nil && *f.EndLine > *f.Line {
		a.EndLine = *f.EndLine
	}
	msg := []string{text.InertMarkup(strings.TrimSpace(f.Description))}
	if s := strings.TrimSpace(f.Suggestion); s != "" {
		msg = append(msg, "Suggestion: "+text.InertMarkup(s))
	}
	if who := consensus.Agreement(f); who != "" {
		msg = append(msg, "Raised by "+who+".")
	}
	a.Message = strings.TrimSpace(strings.Join(msg, "\n\n"))
	if a.Message == "" {
		a.Message = text.InertMarkup(text.OneLine(f.Title))
	}
	return a, true
}

// summary is the report's index: the outcome, the counts, each finding in
// one line by priority, what needs a human, what the learnings left out
// and lowered, and the link to the report;
// bounded under GitHub's limit, the findings past it counted.
func summary(res *report.Result, rr *report.RoundResult, code []finding.Finding, c Check) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**: %s\n\n", text.InertMarkup(text.OneLine(res.Label)), text.InertMarkup(text.OneLine(res.Reason)))
	fmt.Fprintf(&b, "**Consensus:** `%s` · P0 %d · P1 %d · P2 %d · P3 %d · head `%s` · round %d\n\n",
		text.OneLine(rr.Consensus), rr.Counts.P0, rr.Counts.P1, rr.Counts.P2, rr.Counts.P3, text.ShortOID(rr.HeadOID), rr.N)
	switch {
	case len(code) == 0 && !reviewed(rr):
		// "None" would read as a clean review.
		b.WriteString("### Findings\n\nNo review: every reviewer failed (the report says why).\n\n")
	case len(code) == 0:
		b.WriteString("### Findings\n\nNone.\n\n")
	}
	left := 0
	for _, p := range finding.Priorities {
		group := slices.DeleteFunc(slices.Clone(code), func(f finding.Finding) bool { return f.Priority != p })
		if len(group) == 0 {
			continue
		}
		if b.Len() > maxSummary {
			left += len(group)
			continue
		}
		fmt.Fprintf(&b, "### %s (%d)\n\n", p, len(group))
		for i, f := range group {
			line := report.IndexLine(f, "", rr.Stuck)
			if b.Len()+len(line) > maxSummary {
				left += len(group) - i
				break
			}
			b.WriteString(line)
		}
		b.WriteString("\n")
	}
	if left > 0 {
		fmt.Fprintf(&b, "%s more past this summary's limit: the report lists them.\n\n", text.Plural(left, "finding"))
	}
	if n := rr.Threads.Unresolved; n > 0 {
		fmt.Fprintf(&b, "**Unresolved review threads:** %d (they need a human).\n\n", n)
	}
	if len(rr.Stuck) > 0 {
		fmt.Fprintf(&b, "**Stuck:** %s.\n\n", strings.Join(quoted(rr.Stuck), ", "))
	}
	b.WriteString(report.LearnedNote(rr))
	var notes []string
	if n := len(c.Annotations); n > 0 {
		notes = append(notes, text.Plural(n, "finding")+" annotated on the lines")
	}
	if c.Unannotated > 0 {
		notes = append(notes, fmt.Sprintf("%s past the cap of %d annotations not annotated", text.Plural(c.Unannotated, "finding"), MaxAnnotations))
	}
	if c.OffLines > 0 {
		notes = append(notes, text.Plural(c.OffLines, "finding")+" on no line of this commit")
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, "**Annotations:** %s.\n\n", strings.Join(notes, "; "))
	}
	for _, cm := range slices.Backward(rr.Comments) {
		if cm.URL != "" {
			fmt.Fprintf(&b, "[The report on the pull request](%s)\n", cm.URL)
			break
		}
	}
	return b.String()
}

// reviewed reports whether a reviewer of the round answered.
func reviewed(rr *report.RoundResult) bool {
	for _, r := range rr.Roles {
		if strings.HasPrefix(r.Role, "reviewer-") && r.OK {
			return true
		}
	}
	return len(rr.Roles) == 0 // reloaded from the state file: a review that stood
}

func quoted(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = "`" + id + "`"
	}
	return out
}

// Publish puts c on its head: it updates the check run named Name that
// this token's app made there (viewer is the token's login), else creates
// one, never editing another's. Annotations the check run already has are
// not sent again (an update appends); the rest go 50 a request, the first
// with the conclusion.
func Publish(ctx context.Context, gh GitHub, repo github.Repo, viewer string, c Check) (*github.CheckRun, error) {
	runs, err := gh.CheckRuns(ctx, repo, c.Head, Name)
	if err != nil {
		return nil, err
	}
	var own *github.CheckRun
	for i := range runs {
		if runs[i].Name == Name && runs[i].MadeBy(viewer) {
			own = &runs[i]
			break
		}
	}
	todo := c.Annotations
	summary := c.Summary
	if own != nil {
		had, err := gh.CheckRunAnnotations(ctx, repo, own.ID)
		if err != nil {
			return nil, err
		}
		var stale int
		todo, stale = missing(c.Annotations, had)
		if stale > 0 {
			summary += fmt.Sprintf("\n%s of an earlier run on this commit stay on its lines: GitHub keeps a check run's annotations.\n", text.Plural(stale, "annotation"))
		}
	}
	out := func(as []github.Annotation) github.CheckOutput {
		return github.CheckOutput{Title: c.Title, Summary: summary, Annotations: as}
	}
	first := todo[:min(len(todo), github.MaxAnnotationsPerRequest)]
	todo = todo[len(first):]
	var run *github.CheckRun
	if own == nil {
		run, err = gh.CreateCheckRun(ctx, repo, Name, c.Head, c.Conclusion, out(first))
	} else {
		run, err = gh.UpdateCheckRun(ctx, repo, own.ID, c.Conclusion, out(first))
	}
	if err != nil {
		return nil, err
	}
	for len(todo) > 0 {
		batch := todo[:min(len(todo), github.MaxAnnotationsPerRequest)]
		todo = todo[len(batch):]
		if _, err := gh.UpdateCheckRun(ctx, repo, run.ID, "", out(batch)); err != nil {
			return run, err
		}
	}
	return run, nil
}

// missing are the annotations of want that had lacks, and how many of had
// want no longer has. An annotation is known by its place, level and the
// priority and ID that open its title.
func missing(want, had []github.Annotation) (todo []github.Annotation, stale int) {
	key := func(a github.Annotation) string {
		id, _, _ := strings.Cut(a.Title, ":")
		return fmt.Sprintf("%s\x00%d\x00%d\x00%s\x00%s", a.Path, a.StartLine, a.EndLine, a.Level, id)
	}
	seen := map[string]bool{}
	for _, a := range had {
		seen[key(a)] = true
	}
	wanted := map[string]bool{}
	for _, a := range want {
		wanted[key(a)] = true
		if !seen[key(a)] {
			todo = append(todo, a)
		}
	}
	for k := range seen {
		if !wanted[k] {
			stale++
		}
	}
	return todo, stale
}
