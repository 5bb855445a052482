package loop

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/fix"
	"github.com/ocdx/gh-ocdx/github"
)

// A fixed finding's thread is resolved only when the next round's
// reviewers all answered without raising it: a failed reviewer's silence
// proves nothing.
func TestRunResolvesAFixedThreadOnlyAfterACompleteRound(t *testing.T) {
	for _, tc := range []struct {
		name    string
		round2  string
		resolve bool
	}{
		{"reviewers answered", reviewerAnswer(), true},
		{"reviewer failed", "no envelope", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			f := bug
			f.ID = f.ComputeID()
			h.gh.pr.Threads = []github.ReviewThread{{ID: "T1", Path: "a.go", Comments: []github.ThreadComment{
				{ID: "C1", Author: "ocdx-bot", Body: InlineBody(f), Path: "a.go", URL: "https://x/pull/5#discussion_r1"}}}}
			h.fixer.report = &fix.Result{Status: fix.StatusPushed, Verified: true, Pushed: true, HeadOID: "bbbbbbbb",
				Fixed: []finding.FixedIssue{{FindingID: f.ID, CommitSha: "c0ffee"}}, Commits: []finding.Commit{{Sha: "c0ffee"}}}
			h.reviewer.answers = []string{reviewerAnswer(bug), tc.round2}
			h.analyzer.answers = []string{analyzerAnswer(), analyzerAnswer()}

			h.run(t)

			if !strings.Contains(h.gh.comments[0].Body, "### Already in an open thread") || !strings.Contains(h.gh.comments[0].Body, "discussion_r1") {
				t.Errorf("round 1 does not link the open thread:\n%s", h.gh.comments[0].Body)
			}
			if tc.resolve != (len(h.gh.resolved) == 1) {
				t.Fatalf("resolutions %+v, want resolved %v", h.gh.resolved, tc.resolve)
			}
			if tc.resolve && (h.gh.resolved[0].ThreadID != "T1" || !strings.Contains(h.gh.resolved[0].Body, "Fixed in c0ffee")) {
				t.Errorf("resolution %+v", h.gh.resolved[0])
			}
		})
	}
}

// A P3 goes on its line only when the configuration lists P3; by default
// it stays in the review's body.
func TestPlanInlineFollowsThePriorities(t *testing.T) {
	lines := github.ParseDiffLines("diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,2 +1,3 @@\n package a\n+var x = 1\n+var y = 2\n")
	p1, p3 := bug, bug
	p1.Line, p3.Line = intp(2), intp(3)
	p3.Priority, p3.Title = "P3", "Name y better"
	p1.ID, p3.ID = p1.ComputeID(), p3.ComputeID()
	pr := &github.PullRequest{}
	for _, tc := range []struct {
		priorities []string
		want       int
	}{{nil, 1}, {[]string{"P0", "P1", "P2", "P3"}, 2}, {[]string{}, 0}} {
		in := PlanInline(pr, lines, []finding.Finding{p1, p3}, tc.priorities)
		if len(in.Comments) != tc.want {
			t.Errorf("priorities %v: %d inline comment(s) %+v, want %d", tc.priorities, len(in.Comments), in.Comments, tc.want)
		}
	}
}

func intp(n int) *int { return &n }
