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
