package roles

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/evidence"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/verifier"
)

const evidenceDiff = "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,3 @@\n package a\n+var x = 1\n+var y = 2\n"

// However many results fall on the changed lines, the reviewer's task
// grows by at most the evidence's budget.
func TestReviewerTaskEvidenceWithinBudget(t *testing.T) {
	pr := &github.PullRequest{Number: 3, Title: "t"}
	rc := change.NewContext(pr, []byte(evidenceDiff), true, &config.Policy{})
	without, _, err := reviewerTask("reviewer-1", rc, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rs []evidence.Result
	for i := range 10000 {
		rs = append(rs, evidence.Result{Tool: "lint", File: "a.go", Line: 2, Level: evidence.LevelWarning, Rule: fmt.Sprintf("R%d", i), Message: strings.Repeat("long message ", 30)})
	}
	rc.Evidence = evidence.Brief(rs)
	with, _, err := reviewerTask("reviewer-1", rc, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if grew := len(with) - len(without); grew > evidence.MaxBrief+1024 || !strings.Contains(with, "more results left out") {
		t.Errorf("the task grew by %d bytes for 10,000 results (budget %d)", grew, evidence.MaxBrief)
	}
}

// The reviewers read the author's words as the PR's body, never gh-ocdx's
// description that describe --edit-body wrote into it.
func TestReviewerTaskLeavesGhOcdxsDescriptionOut(t *testing.T) {
	pr := &github.PullRequest{Number: 3, Title: "t", Body: "Author's words.\n\n" + posts.BodyStart + "\nThe old description.\n" + posts.BodyEnd}
	task, _, err := reviewerTask("reviewer-1", change.NewContext(pr, nil, true, &config.Policy{}), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(task, "Author's words.") || strings.Contains(task, "The old description.") {
		t.Errorf("task:\n%s", task)
	}
}

// The tier decides who reviews: quick is the first reviewer alone, without
// the verifier, and with the analyzer only when threads are unresolved;
// deep has the verifier judge every finding it may (support 1), standard
// only the lone ones.
func TestCrewOfEachTier(t *testing.T) {
	team := &Team{Reviewers: []Role{{Name: "reviewer-1"}, {Name: "reviewer-2"}, {Name: "reviewer-3"}}, Analyzer: Role{Name: AnalyzerName}, Verifier: &Role{Name: "verifier"}}
	q := team.Crew(effort.Quick, 0)
	if len(q.Reviewers) != 1 || q.Reviewers[0].Name != "reviewer-1" || q.Analyzer || q.Verifier || q.Left != 2 || !q.VerifierLeft {
		t.Errorf("quick: %+v", q)
	}
	if q := team.Crew(effort.Quick, 1); !q.Analyzer {
		t.Errorf("quick with an unresolved thread has no analyzer")
	}
	s, d := team.Crew(effort.Standard, 0), team.Crew(effort.Deep, 0)
	if len(s.Reviewers) != 3 || !s.Analyzer || !s.Verifier || s.VerifyAll || len(d.Reviewers) != 3 || !d.VerifyAll {
		t.Errorf("standard %+v, deep %+v", s, d)
	}
	fs := []finding.Finding{
		{ID: "QUAL-00000001", Priority: "P2", Reviewers: []string{"openai/a"}, Agreement: "1/3"},
		{ID: "QUAL-00000002", Priority: "P1", Reviewers: []string{"openai/a", "anthropic/b"}, Agreement: "2/3"},
	}
	if got, lone := len(verifier.Verifiable(fs, 1)), len(verifier.Verifiable(fs, len(s.Reviewers))); got <= lone {
		t.Errorf("deep sends %d findings to the verifier, standard %d: deep must send those several reviewers raised too", got, lone)
	}
}

// ownThread is a thread gh-ocdx opened for f on a.go:3, with comments
// after its first.
func ownThread(f finding.Finding, resolved bool, after ...github.ThreadComment) github.ReviewThread {
	line := 3
	first := github.ThreadComment{ID: "c1", DatabaseID: "1", Author: "ocdx-bot", Path: "a.go", Line: &line,
		Body: posts.Marker + "\n" + posts.ThreadTag(f) + "\n**P2** " + f.Title}
	return github.ReviewThread{ID: "t-" + f.ID, IsResolved: resolved, Comments: append([]github.ThreadComment{first}, after...)}
}

// The next round's reviewers weigh what people answered on gh-ocdx's open
// threads, and gh-ocdx's own answers, a concession named as one; a
// resolved thread, and the hidden tags, are not shown.
func TestRepliesAreThePeoplesAnswersOnOpenOwnThreads(t *testing.T) {
	open := finding.Finding{ID: "QUAL-00000001", Category: "quality", Title: "Open"}
	closed := finding.Finding{ID: "QUAL-00000002", Category: "quality", Title: "Closed"}
	pr := &github.PullRequest{Viewer: "ocdx-bot", Threads: []github.ReviewThread{
		ownThread(open, false,
			github.ThreadComment{Author: "alice", Body: "This is intended."},
			github.ThreadComment{Author: "ocdx-bot", Body: posts.Marker + "\n" + posts.AnswerTag("2") + "\n" + posts.ConcededTag(open.ID) + "\nAgreed."}),
		ownThread(closed, true, github.ThreadComment{Author: "bob", Body: "Fixed it."}),
	}}
	got := replies(pr)
	if len(got) != 2 {
		t.Fatalf("replies: %+v", got)
	}
	if got[0] != (reply{ID: open.ID, Where: "a.go:3", Author: "alice", Body: "This is intended."}) {
		t.Errorf("the person's reply: %+v", got[0])
	}
	if got[1].Author != "gh-ocdx (conceded: the finding is disputed)" || got[1].Body != "Agreed." {
		t.Errorf("gh-ocdx's answer: %+v", got[1])
	}
}

// The analyzer is shown the threads that are findings, without gh-ocdx's
// own threads or its comments in a person's thread; a copy of the marker by
// someone else is a person's words like any other.
func TestAnalyzerTaskShowsPeoplesThreadsOnly(t *testing.T) {
	line := 7
	mine := ownThread(finding.Finding{ID: "QUAL-00000001", Category: "quality", Title: "MINE-TITLE"}, false)
	theirs := github.ReviewThread{ID: "t2", Comments: []github.ThreadComment{
		{ID: "n2", DatabaseID: "22", Author: "mallory", Path: "b.go", Line: &line, Body: posts.Marker + " PERSON-WORDS"},
		{ID: "n3", DatabaseID: "23", Author: "ocdx-bot", Body: posts.Marker + "\nBOT-ANSWER"},
	}}
	other := github.ReviewThread{ID: "t3", Comments: []github.ThreadComment{{ID: "n4", DatabaseID: "44", Author: "carol", Path: "c.go", Body: "NOT-A-FINDING"}}}
	pr := &github.PullRequest{Number: 5, Viewer: "ocdx-bot", Threads: []github.ReviewThread{mine, theirs, other}}
	task, _, err := analyzerTask(pr, []finding.Finding{{ID: "THREAD-22"}}, finding.ReviewState{}, finding.ThreadStats{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(task, "PERSON-WORDS") || !strings.Contains(task, "THREAD-22") {
		t.Errorf("the person's thread is not shown:\n%s", task)
	}
	for _, not := range []string{"MINE-TITLE", "BOT-ANSWER", "NOT-A-FINDING"} {
		if strings.Contains(task, not) {
			t.Errorf("the task shows %s:\n%s", not, task)
		}
	}
}

// A reviewer's finding gets gh-ocdx's ID and source, never the model's;
// its text is redacted once, and only the verifier may refute.
func TestAgentFindingsAreGhOcdxs(t *testing.T) {
	model := finding.Finding{ID: "SEC-ffffffff", Priority: "P2", Category: "bug", File: "a.go", Title: "Leaks ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		Status: finding.StatusRefuted, Evidence: "trust me", Agreement: "5/5", Source: &finding.Source{Type: "human", Name: "admin"}}
	rs := []Role{{Name: "reviewer-1", Model: "openai/a"}, {Name: "reviewer-2", Model: "openai/b"}}
	got := AgentFindings(rs, []*finding.ReviewerResult{nil, {Findings: []finding.Finding{model}}})
	if len(got) != 1 {
		t.Fatalf("findings: %+v", got)
	}
	f := got[0]
	if f.ID != model.ComputeID() || f.ID == model.ID || f.Source.Type != "agent" || f.Source.Name != "reviewer-2" ||
		len(f.Reviewers) != 1 || f.Reviewers[0] != "openai/b" || f.Agreement != "" || f.Status != "" || f.Evidence != "" {
		t.Errorf("the model's say kept: %+v %+v", f, f.Source)
	}
	if strings.Contains(f.Title, "ghp_") {
		t.Errorf("a token in the title: %q", f.Title)
	}
}

// The analyzer words a thread's finding; which threads exist, their IDs,
// priorities and places stay gh-ocdx's.
func TestMergeThreadsTakesOnlyTheAnalyzersWording(t *testing.T) {
	line := 4
	th := finding.Finding{ID: "THREAD-1", Priority: "P1", File: "a.go", Line: &line, Description: "as read"}
	a := &finding.CommentsAnalyzerResult{PendingIssues: []finding.Finding{
		{ID: "THREAD-1", Description: "reworded", Suggestion: "do this"},
		{ID: "THREAD-999", Description: "invented"},
	}}
	got := mergeThreads([]finding.Finding{th}, a)
	if len(got) != 1 || got[0].Description != "reworded" || got[0].Suggestion != "do this" || got[0].Priority != "P1" || got[0].File != "a.go" || *got[0].Line != 4 {
		t.Errorf("merged: %+v", got)
	}
	if again := mergeThreads([]finding.Finding{th}, nil); again[0].Description != "as read" {
		t.Errorf("without an analyzer: %+v", again)
	}
}

// refusing is a model that refuses every call.
type refusing struct{ calls int }

func (m *refusing) Chat(context.Context, llm.Request) (llm.Response, error) {
	m.calls++
	return llm.Response{}, errors.New("refused")
}

// A change without review threads (a local branch) plays no comments
// analyzer, even for a team that has one and a crew that names it: there
// is nothing to analyze, and its task would read threads that are not
// there.
func TestAChangeWithoutThreadsPlaysNoAnalyzer(t *testing.T) {
	reviewer, analyzer := &refusing{}, &refusing{}
	team := &Team{Reviewers: []Role{{Name: "reviewer-1", LLM: reviewer}}, Analyzer: Role{Name: AnalyzerName, LLM: analyzer}}
	crew := team.Crew(effort.Standard, 0)
	if !crew.Analyzer {
		t.Fatal("the crew of a team with an analyzer names none")
	}
	rc := change.ContextOf(change.OfFiles(nil), []byte(evidenceDiff), true, nil)
	out, err := team.Run(context.Background(), "the review", crew, rc, nil, Threads{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Roles) != 1 || analyzer.calls != 0 || reviewer.calls == 0 {
		t.Errorf("roles %+v, analyzer called %d times, reviewer %d", out.Roles, analyzer.calls, reviewer.calls)
	}
}
