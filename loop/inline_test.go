package loop

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/inline"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/state"
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
			f.ID, f.Reviewers, f.Agreement = f.ComputeID(), []string{"openai/a"}, "1/1"
			h.gh.pr.Threads = []github.ReviewThread{{ID: "T1", Path: "a.go", Comments: []github.ThreadComment{
				{ID: "C1", Author: "ocdx-bot", Body: inline.Body(f), Path: "a.go", URL: "https://x/pull/5#discussion_r1"}}}}
			h.fixer.report = &state.FixResult{Status: state.FixPushed, Verified: true, Pushed: true, HeadOID: "bbbbbbbb",
				Fixed: []finding.FixedIssue{{FindingID: f.ID, CommitSha: "c0ffee1"}}, Commits: []finding.Commit{{Sha: "c0ffee1"}}}
			h.reviewer.answers = []string{reviewerAnswer(bug), tc.round2}
			h.analyzer.answers = []string{analyzerAnswer(), analyzerAnswer()}

			h.run(t)

			if !strings.Contains(h.gh.comments[0].Body, "Leak · [`a.go`](https://x/pull/5#discussion_r1)") || !strings.Contains(h.gh.comments[0].Body, "1 finding already has its thread") {
				t.Errorf("round 1 does not link the open thread:\n%s", h.gh.comments[0].Body)
			}
			if tc.resolve != (len(h.gh.resolved) == 1) {
				t.Fatalf("resolutions %+v, want resolved %v", h.gh.resolved, tc.resolve)
			}
			if tc.resolve && (h.gh.resolved[0].ThreadID != "T1" || !strings.Contains(h.gh.resolved[0].Body, "Fixed in c0ffee1") || !strings.Contains(h.gh.resolved[0].Body, posts.FixedTag(f.ID))) {
				t.Errorf("resolution %+v", h.gh.resolved[0])
			}
		})
	}
}

// A finding is disputed only by gh-ocdx's own answer conceding it (gh ocdx
// reply): a person writing the tag concedes nothing, and a P0 or a SEC-
// finding is never disputed.
func TestDisputedOnlyByOwnConcession(t *testing.T) {
	f := finding.Finding{ID: "QUAL-1a2b3c4d", Priority: "P1", Category: "quality", File: "a.go", Line: new(2), Title: "Leak", Agreement: "1/2"}
	pr := func(f finding.Finding, by string) *github.PullRequest {
		cs := []github.ThreadComment{
			{ID: "C1", Author: "ocdx-bot", Body: inline.Body(f), Path: "a.go", Line: new(2)},
			{ID: "C2", DatabaseID: "2", Author: "mona", Body: "intended"},
			{ID: "C3", Author: by, Body: posts.Marker + "\n" + posts.AnswerTag("2") + "\n" + posts.ConcededTag(f.ID) + "\nYou're right."},
		}
		return &github.PullRequest{Viewer: "ocdx-bot", Threads: []github.ReviewThread{{ID: "T1", Path: "a.go", Comments: cs}}}
	}
	if got := posts.IDs(posts.Concessions(pr(f, "ocdx-bot"))); len(got) != 1 || got[0] != f.ID {
		t.Errorf("gh-ocdx's concession: disputed %v", got)
	}
	if got := posts.IDs(posts.Concessions(pr(f, "eve"))); len(got) != 0 {
		t.Errorf("a person's forged tag disputed %v", got)
	}
	p0 := f
	p0.Priority = "P0"
	sec := f
	sec.ID = "SEC-1a2b3c4d"
	for _, b := range []finding.Finding{p0, sec} {
		if got := posts.IDs(posts.Concessions(pr(b, "ocdx-bot"))); len(got) != 0 {
			t.Errorf("%s %s disputed: %v", b.Priority, b.ID, got)
		}
	}
}
