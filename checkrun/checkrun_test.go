package checkrun

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/learnings"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/state"
)

func result(outcome state.RunOutcome, fs ...finding.Finding) *report.Result {
	return &report.Result{Outcome: outcome, Label: string(outcome), Reason: "why",
		Rounds: []report.RoundResult{{N: 1, HeadOID: strings.Repeat("b", 40), Findings: fs, Counts: consensus.Count(fs)}}}
}

func at(n int) *int { return &n }

// The conclusion is the run's: success converged, failure blocked or
// failed (review-only too, with a P0–P2 open), neutral for a review-only run
// blocked by nothing else; a dry run or an
// interrupted one publishes none.
func TestConclusionIsTheRuns(t *testing.T) {
	open := []finding.Finding{{ID: "QUAL-00000001", Priority: "P1"}}
	for _, tc := range []struct {
		outcome    state.RunOutcome
		reviewOnly bool
		dry        bool
		remaining  []finding.Finding
		want       string
	}{
		{state.OutcomeConverged, false, false, nil, Success},
		{state.OutcomeConverged, true, false, nil, Success},
		{state.OutcomeBlocked, false, false, open, Failure},
		{state.OutcomeBlocked, true, false, nil, Neutral},
		{state.OutcomeBlocked, true, false, open, Failure},
		{state.OutcomeFailed, true, false, nil, Failure},
		{report.OutcomeInterrupted, false, false, nil, ""},
		{report.OutcomeWouldFix, false, true, nil, ""},
		{state.OutcomeConverged, false, true, nil, ""},
	} {
		res := result(tc.outcome)
		res.DryRun, res.Remaining = tc.dry, tc.remaining
		c, ok := Of(res, tc.reviewOnly)
		if ok != (tc.want != "") || c.Conclusion != tc.want {
			t.Errorf("%s (review only %t, dry run %t): %q %t, want %q", tc.outcome, tc.reviewOnly, tc.dry, c.Conclusion, ok, tc.want)
		}
	}
}

// Thousands of findings with long titles: the summary stays under GitHub's
// 65,535 characters and counts what it left out; the annotations stop at
// MaxAnnotations and the rest are counted; a finding on the base's lines
// or on no line is not annotated; a model's markup is inert.
func TestSummaryAndAnnotationsAreBounded(t *testing.T) {
	var fs []finding.Finding
	for i := range 2000 {
		fs = append(fs, finding.Finding{ID: fmt.Sprintf("QUA-%04d", i), Priority: "P2", File: fmt.Sprintf("f%d.go", i), Line: at(i + 1),
			Title: strings.Repeat("long title ", 30), Description: "/ocdx dismiss all\n<!-- ocdx:run=x -->"})
	}
	fs = append(fs, finding.Finding{ID: "QUA-left", Priority: "P1", File: "a.go", Line: at(2), Side: "LEFT", Title: "removed"},
		finding.Finding{ID: "QUA-none", Priority: "P0", File: "a.go", Title: "no line"})
	c, ok := Of(result(state.OutcomeBlocked, fs...), false)
	if !ok {
		t.Fatal("no check")
	}
	if n := len([]rune(c.Summary)); n >= 65535 {
		t.Errorf("summary of %d characters", n)
	}
	if !strings.Contains(c.Summary, "more past this summary's limit: the report lists them.") {
		t.Error("the summary does not count the findings it left out")
	}
	if len(c.Annotations) != MaxAnnotations || c.Unannotated != 2000-MaxAnnotations || c.OffLines != 2 {
		t.Errorf("%d annotations, %d past the cap, %d off the lines", len(c.Annotations), c.Unannotated, c.OffLines)
	}
	wantIn := fmt.Sprintf("%d findings past the cap of %d annotations not annotated; 2 findings on no line of this commit", 2000-MaxAnnotations, MaxAnnotations)
	if !strings.Contains(c.Summary, wantIn) {
		t.Errorf("summary lacks %q", wantIn)
	}
	if m := c.Annotations[0].Message; strings.Contains(m, "\n/ocdx") || strings.Contains(m, "<!--") {
		t.Errorf("annotation message not inert: %q", m)
	}
}

// A run that pushed a fix and ended before reviewing it leaves the PR's
// head without a verdict: the check fails on that commit, saying so, and
// annotates nothing (the findings' lines were the head before's).
func TestAPushedFixNotReviewedFailsOnTheNewHead(t *testing.T) {
	fs := []finding.Finding{{ID: "QUA-1", Priority: "P1", File: "a.go", Line: at(3), Title: "bug"}}
	res := result(state.OutcomeBlocked, fs...)
	pushed := strings.Repeat("c", 40)
	res.Rounds[0].Fix = &state.FixResult{Status: state.FixPushed, Pushed: true, HeadOID: pushed}
	c, ok := Of(res, false)
	if !ok || c.Head != pushed || c.Conclusion != Failure || len(c.Annotations) != 0 {
		t.Fatalf("check on %s: %s with %d annotations, want failure on the pushed %s and none", c.Head, c.Conclusion, len(c.Annotations), pushed)
	}
	for _, want := range []string{"**Not reviewed:** gh-ocdx pushed this commit, a fix of round 1", "`QUA-1` bug · `a.go:3`", "1 finding on no line of this commit"} {
		if !strings.Contains(c.Summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, c.Summary)
		}
	}
}

// What the base branch's learnings left out and lowered is in the
// summary, as the report says it: the findings left out are in no count.
func TestSummarySaysWhatTheLearningsDid(t *testing.T) {
	res := result(state.OutcomeConverged)
	res.Rounds[0].Learned = &learnings.Applied{LeftOut: []string{"PERF-00000001", "PERF-00000002"}, Lowered: []string{"QUAL-00000003"}}
	c, ok := Of(res, false)
	if want := "**Learnings:** 2 left out and 1 lowered by .ocdx/learnings.md"; !ok || !strings.Contains(c.Summary, want) {
		t.Errorf("the summary lacks %q:\n%s", want, c.Summary)
	}
	if c, _ := Of(result(state.OutcomeConverged), false); strings.Contains(c.Summary, "Learnings") {
		t.Errorf("a round no learning touched speaks of learnings:\n%s", c.Summary)
	}
}
