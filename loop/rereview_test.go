package loop

import (
	"context"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/state"
)

// reviewerVerdicts is a re-review's answer: new findings, and verdicts on
// the previous ones.
func reviewerVerdicts(verdicts []finding.Verdict, fs ...finding.Finding) string {
	conclusion := "approve"
	if len(fs) > 0 {
		conclusion = "request_changes"
	}
	return envelope(finding.ReviewerResult{Agent: "reviewer-1", PRNumber: 5, Conclusion: conclusion, Findings: append([]finding.Finding{}, fs...), FullReport: "r", Previous: verdicts})
}

// sinceHarness is a harness whose checkout answers the diff between two
// heads with fixDiff.
const fixDiff = "diff --git a/a.go b/a.go\n+the-fix-commit-line\n"

func sinceHarness(t *testing.T) (*harness, *[]string) {
	h := newHarness(t)
	var asked []string
	h.opts.Since = func(_ context.Context, from, to, _ string) (string, bool) {
		asked = append(asked, from+".."+to)
		return fixDiff, true
	}
	return h, &asked
}

// Round 2 reviews only the fix commits, with round 1's findings to judge;
// a fixed finding a reviewer marks still_present is stuck, reported again
// or not.
func TestRound2ReviewsTheFixCommitsAndTheVerdictMakesItStuck(t *testing.T) {
	h, asked := sinceHarness(t)
	other := finding.Finding{Priority: "P3", Category: "docs", File: "README.md", Title: "Typo", Description: "d"}
	id := bug.ComputeID()
	h.reviewer.answers = []string{reviewerAnswer(bug, other), reviewerVerdicts([]finding.Verdict{{ID: id, Verdict: "still_present"}})}
	h.analyzer.answers = []string{analyzerAnswer(), analyzerAnswer()}
	h.fixer.report = pushedFix(id)

	res, err := h.run(t)

	if err != nil || res.Outcome != state.OutcomeBlocked || !strings.Contains(res.Reason, "stuck") || h.fixer.calls != 1 {
		t.Fatalf("Run = %+v, %v (%d fixes)", res, err, h.fixer.calls)
	}
	if len(*asked) != 1 || (*asked)[0] != "aaaaaaaa..bbbbbbbb" {
		t.Errorf("diffs asked for: %v", *asked)
	}
	if len(h.reviewer.tasks) != 2 {
		t.Fatalf("%d reviewer calls", len(h.reviewer.tasks))
	}
	first, second := h.reviewer.tasks[0], h.reviewer.tasks[1]
	if strings.Contains(first, "**Diff since") || !strings.Contains(first, "**Diff:**") {
		t.Errorf("round 1 is a full review")
	}
	for _, want := range []string{"**Previous findings**", "**Diff since aaaaaaa:**", "+the-fix-commit-line", "`" + id + "` P1 a.go: Leak", "`" + other.ComputeID() + "` P3 README.md: Typo", `"previous"`} {
		if !strings.Contains(second, want) {
			t.Errorf("round 2's task lacks %q", want)
		}
	}
	if strings.Contains(second, "**Diff:**") {
		t.Error("round 2's task has the whole diff")
	}
	r2 := res.Rounds[1]
	if r2.Since != "aaaaaaaa" || len(r2.Stuck) != 1 || r2.Stuck[0] != id {
		t.Errorf("round 2: since %q, stuck %v", r2.Since, r2.Stuck)
	}
	// The P3 nobody judged and nobody fixed is still open.
	if r2.Counts.P3 != 1 || r2.Counts.P1 != 1 {
		t.Errorf("round 2 counts %+v", r2.Counts)
	}
	if !strings.Contains(h.gh.comments[len(h.gh.comments)-1].Body, "incremental since `aaaaaaa`") && !strings.Contains(h.gh.comments[2].Body, "incremental since `aaaaaaa`") {
		t.Error("the round 2 report must say it was incremental")
	}
}

// A fixed finding the reviewers call resolved is gone, and a new finding
// that looks like it is a new finding, fixed in its turn.
func TestResolvedVerdictBeatsTheFuzzyMatch(t *testing.T) {
	h, _ := sinceHarness(t)
	id := bug.ComputeID()
	similar := bug
	similar.Title = "Leak!"
	h.reviewer.answers = []string{reviewerAnswer(bug), reviewerVerdicts([]finding.Verdict{{ID: id, Verdict: "resolved"}}, similar), reviewerVerdicts(nil)}
	h.analyzer.answers = []string{analyzerAnswer(), analyzerAnswer(), analyzerAnswer()}
	h.fixer.report = pushedFix(id)

	res, err := h.run(t)

	if err != nil || len(res.Rounds) < 2 || len(res.Rounds[1].Stuck) != 0 || h.fixer.calls != 2 {
		t.Fatalf("Run = %+v, %v (%d fixes): the similar finding is new, and fixed", res, err, h.fixer.calls)
	}
}

// --full, or a head that does not descend from the reviewed one, means a
// full review.
func TestFullReviewWhenAskedOrAfterARebase(t *testing.T) {
	for name, set := range map[string]func(h *harness){
		"--full": func(h *harness) { h.opts.Full = true },
		"rebase": func(h *harness) {
			h.opts.Since = func(context.Context, string, string, string) (string, bool) { return "", false }
		},
	} {
		t.Run(name, func(t *testing.T) {
			h, _ := sinceHarness(t)
			set(h)
			h.reviewer.answers = []string{reviewerAnswer(bug), reviewerAnswer()}
			h.analyzer.answers = []string{analyzerAnswer(), analyzerAnswer()}
			h.fixer.report = pushedFix(bug.ComputeID())

			res, err := h.run(t)

			if err != nil || res.Outcome != state.OutcomeConverged || len(h.reviewer.tasks) != 2 {
				t.Fatalf("Run = %+v, %v", res, err)
			}
			if strings.Contains(h.reviewer.tasks[1], "**Diff since") || res.Rounds[1].Since != "" {
				t.Error("round 2 must be a full review")
			}
		})
	}
}

// A new run on a PR gh-ocdx reviewed at an ancestor of its head reviews
// what changed since that review: after a run blocked on a finding, and
// after a clean approval alike (a push on top of an approved head).
func TestANewRunReviewsWhatChangedSinceTheLastRun(t *testing.T) {
	for _, first := range []struct {
		name    string
		answer  string
		outcome state.RunOutcome
		then    string
	}{
		{"blocked", reviewerAnswer(bug), state.OutcomeBlocked, reviewerVerdicts([]finding.Verdict{{ID: bug.ComputeID(), Verdict: "resolved"}})},
		{"approved", reviewerAnswer(), state.OutcomeConverged, reviewerAnswer()},
	} {
		h, asked := sinceHarness(t)
		h.opts.CanPush, h.opts.ReviewOnlyReason = false, "a fork"
		h.reviewer.answers = []string{first.answer}
		h.analyzer.answers = []string{analyzerAnswer()}
		if res, err := h.run(t); err != nil || res.Outcome != first.outcome {
			t.Fatalf("%s: first run: %+v, %v", first.name, res, err)
		}
		h.gh.pr.HeadRefOid = "cccccccc" // the author pushed
		h.reviewer.answers = []string{first.then}
		h.analyzer.answers = []string{analyzerAnswer()}

		res, err := h.run(t)

		if err != nil || res.Outcome != state.OutcomeConverged {
			t.Fatalf("%s: second run: %+v, %v", first.name, res, err)
		}
		if len(*asked) != 1 || (*asked)[0] != "aaaaaaaa..cccccccc" || res.Rounds[0].Since != "aaaaaaaa" {
			t.Errorf("%s: diffs asked for %v, since %q", first.name, *asked, res.Rounds[0].Since)
		}
	}
}

// A round where every reviewer failed reviewed nothing: the next run does
// not take its head as reviewed, and reviews the PR in full.
func TestARoundNoReviewerAnsweredIsNoBase(t *testing.T) {
	h, asked := sinceHarness(t)
	h.opts.CanPush, h.opts.ReviewOnlyReason = false, "a fork"
	h.reviewer.answers = []string{"no envelope at all"}
	h.analyzer.answers = []string{analyzerAnswer()}
	if res, _ := h.run(t); res == nil || res.Outcome != state.OutcomeFailed {
		t.Fatalf("first run: %+v, want failed", res)
	}
	h.gh.pr.HeadRefOid = "cccccccc" // the author pushed
	h.reviewer.answers = []string{reviewerAnswer()}
	h.analyzer.answers = []string{analyzerAnswer()}

	res, err := h.run(t)

	if err != nil || res.Outcome != state.OutcomeConverged {
		t.Fatalf("second run: %+v, %v", res, err)
	}
	if len(*asked) != 0 || res.Rounds[0].Since != "" {
		t.Errorf("the second run reviewed incrementally from a head nobody reviewed: diffs %v, since %q", *asked, res.Rounds[0].Since)
	}
}

// A fix that was never pushed fixed nothing: in the next run's re-review a
// finding it claimed stays open when no reviewer judges it, and is not
// stuck when a reviewer says it is still there.
func TestAnUnpushedFixFixedNothing(t *testing.T) {
	for _, verdict := range []string{"", finding.StillPresent} {
		h, _ := sinceHarness(t)
		id := bug.ComputeID()
		h.reviewer.answers = []string{reviewerAnswer(bug)}
		h.analyzer.answers = []string{analyzerAnswer()}
		h.fixer.report = &state.FixResult{Status: state.FixVerifyFailed, Failure: "tests fail", Fixed: []finding.FixedIssue{{FindingID: id, CommitSha: "bbbbbbbb"}}}
		if res, _ := h.run(t); res == nil || res.Outcome != state.OutcomeBlocked {
			t.Fatalf("first run: %+v, want blocked", res)
		}
		h.gh.pr.HeadRefOid = "cccccccc" // the author pushed something else
		var vs []finding.Verdict
		if verdict != "" {
			vs = []finding.Verdict{{ID: id, Verdict: verdict}}
		}
		h.reviewer.answers = []string{reviewerVerdicts(vs)}
		h.analyzer.answers = []string{analyzerAnswer()}
		h.opts.CanPush, h.opts.ReviewOnlyReason = false, "a fork"

		res, err := h.run(t)

		if err != nil || res.Outcome == state.OutcomeConverged {
			t.Fatalf("verdict %q: second run %+v, %v: converged over a finding whose fix was never pushed", verdict, res, err)
		}
		r := res.Rounds[0]
		if r.Counts.P1 != 1 || len(r.Stuck) != 0 {
			t.Errorf("verdict %q: counts %+v, stuck %v; want the finding open, not stuck", verdict, r.Counts, r.Stuck)
		}
	}
}

// An incremental round's coverage is that of the diff since, which the
// reviewers were given: a since-diff cut at the limit is sampled, whatever
// the PR's whole diff was.
func TestIncrementalCoverageIsTheSinceDiffs(t *testing.T) {
	h := newHarness(t)
	big := "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1 +1,4000 @@\n x\n" + strings.Repeat("+a line of the fix, long enough to matter\n", 3999)
	h.opts.Since = func(context.Context, string, string, string) (string, bool) { return big, true }
	id := bug.ComputeID()
	h.reviewer.answers = []string{reviewerAnswer(bug), reviewerVerdicts([]finding.Verdict{{ID: id, Verdict: finding.Resolved}})}
	h.analyzer.answers = []string{analyzerAnswer(), analyzerAnswer()}
	h.fixer.report = pushedFix(id)

	res, err := h.run(t)

	if err != nil || len(res.Rounds) != 2 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if c := res.Rounds[0].Coverage; c.Sampled() {
		t.Errorf("round 1 (the whole, small diff): %s", c)
	}
	if c := res.Rounds[1].Coverage; !c.Sampled() || len(c.Cut) != 1 || c.Cut[0] != "a.go" || c.Files != 1 {
		t.Errorf("round 2 (a since-diff cut at the limit): %+v", c)
	}
	if !strings.HasPrefix(res.Label, "converged (large diff: sampled") {
		t.Errorf("label %q", res.Label)
	}
}

// What a review whose diff was cut did not see, the re-reviews built on it
// have not seen either: their coverage says so, round after round.
func TestASampledBasisCarriesForward(t *testing.T) {
	h, _ := sinceHarness(t)
	h.gh.diff = "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1 +1,30000 @@\n x\n" + strings.Repeat("+a line of a very large change, to be cut\n", 29999)
	id := bug.ComputeID()
	h.reviewer.answers = []string{reviewerAnswer(bug), reviewerVerdicts([]finding.Verdict{{ID: id, Verdict: finding.Resolved}})}
	h.analyzer.answers = []string{analyzerAnswer(), analyzerAnswer()}
	h.fixer.report = pushedFix(id)

	res, err := h.run(t)

	if err != nil || len(res.Rounds) != 2 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if c := res.Rounds[0].Coverage; !c.Sampled() || c.SampledBefore != "" {
		t.Errorf("round 1: %+v", c)
	}
	c := res.Rounds[1].Coverage
	if !c.Sampled() || c.SampledBefore != "aaaaaaaa" || !strings.Contains(c.String(), "built on the review of aaaaaaa") {
		t.Errorf("round 2, on a small since-diff: %+v (%s)", c, c)
	}
	if !strings.HasPrefix(res.Label, "converged (large diff: sampled") {
		t.Errorf("label %q", res.Label)
	}
}

// A previous finding is followed to the new head by its line, mapped
// through the diff since: the reviewers are shown where it is now, an
// unjudged one is carried to its new line, one whose line was rewritten
// and that nobody raised again is resolved, and a fixed one raised again a
// little differently at its moved line is stuck. Its ID never changes.
func TestPreviousFindingsFollowTheirLines(t *testing.T) {
	h := newHarness(t)
	h.opts.CanPush, h.opts.ReviewOnlyReason = false, "a fork"
	moved := finding.Finding{Priority: "P2", Category: "quality", File: "a.go", Line: lineOf(5), Title: "Unchecked error", Description: "d"}
	rewritten := finding.Finding{Priority: "P2", Category: "quality", File: "a.go", Line: lineOf(30), Title: "Magic number", Description: "d"}
	// Ten lines inserted at the top; line 30 rewritten.
	since := "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -0,0 +1,10 @@\n" + strings.Repeat("+added\n", 10) +
		"@@ -30 +40 @@\n-const n = 7\n+const n = limit\n"
	h.opts.Since = func(context.Context, string, string, string) (string, bool) { return since, true }
	h.reviewer.answers = []string{reviewerAnswer(moved, rewritten)}
	h.analyzer.answers = []string{analyzerAnswer()}
	if res, _ := h.run(t); res == nil || res.Outcome != state.OutcomeBlocked {
		t.Fatalf("first run: %+v", res)
	}
	h.gh.pr.HeadRefOid = "cccccccc"
	h.reviewer.answers = []string{reviewerVerdicts(nil)}
	h.analyzer.answers = []string{analyzerAnswer()}

	res, err := h.run(t)

	if err != nil || len(res.Rounds) != 1 {
		t.Fatalf("second run: %+v, %v", res, err)
	}
	task := h.reviewer.tasks[len(h.reviewer.tasks)-1]
	if !strings.Contains(task, "`"+moved.ComputeID()+"` P2 a.go:15: Unchecked error") || !strings.Contains(task, "`"+rewritten.ComputeID()+"` P2 a.go:40: Magic number") {
		t.Errorf("the reviewers are not shown where the previous findings are now:\n%s", task)
	}
	fs := res.Rounds[0].Findings
	if len(fs) != 1 || fs[0].ID != moved.ComputeID() || *fs[0].Line != 15 {
		t.Errorf("findings %+v: want the moved one carried to a.go:15 under its ID, the rewritten one resolved", fs)
	}
}

// After the author merged the base branch in, the since-diff leaves out
// what the merge brought and starts from the merged tree; a previous
// finding's line is followed through the whole diff from the reviewed
// head instead, so a line the merge only moved is neither misplaced nor
// taken for rewritten and resolved.
func TestPreviousFindingsFollowTheirLinesAcrossABaseMerge(t *testing.T) {
	h := newHarness(t)
	h.opts.CanPush, h.opts.ReviewOnlyReason = false, "a fork"
	f := finding.Finding{Priority: "P2", Category: "quality", File: "a.go", Line: lineOf(30), Title: "Magic number", Description: "d"}
	// In the merged tree the base's 10 lines sit on top, so the since-diff's
	// line 30 is another line than the reviewed head's.
	h.opts.Since = func(context.Context, string, string, string) (string, bool) {
		return "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -30 +30 @@\n-x := 1\n+x := 2\n", true
	}
	h.opts.Whole = func(context.Context, string, string) (string, bool) {
		return "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -0,0 +1,10 @@\n" + strings.Repeat("+from the base\n", 10) +
			"@@ -20 +30 @@\n-x := 1\n+x := 2\n", true
	}
	h.reviewer.answers = []string{reviewerAnswer(f)}
	h.analyzer.answers = []string{analyzerAnswer()}
	if res, _ := h.run(t); res == nil || res.Outcome != state.OutcomeBlocked {
		t.Fatalf("first run: %+v", res)
	}
	h.gh.pr.HeadRefOid = "cccccccc"
	h.reviewer.answers = []string{reviewerVerdicts(nil)}
	h.analyzer.answers = []string{analyzerAnswer()}

	res, err := h.run(t)

	if err != nil || len(res.Rounds) != 1 {
		t.Fatalf("second run: %+v, %v", res, err)
	}
	fs := res.Rounds[0].Findings
	if len(fs) != 1 || fs[0].ID != f.ComputeID() || *fs[0].Line != 40 {
		t.Errorf("findings %+v: want the finding carried to a.go:40, not resolved", fs)
	}
}
