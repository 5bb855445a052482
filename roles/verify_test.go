package roles

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/verifier"
)

// answering is a model that gives one answer, and keeps the tasks it was
// given.
type answering struct {
	mu     sync.Mutex
	answer string
	tasks  []string
}

func (a *answering) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tasks = append(a.tasks, req.Messages[0].Text)
	return llm.Response{Text: a.answer, Usage: tokens.Usage{Calls: 1, Input: 10, Output: 5}}, nil
}

func verdicts(vs ...finding.VerifierAnswer) string {
	b, _ := json.Marshal(finding.VerifierResult{Agent: verifier.Name, Verdicts: vs})
	return "BEGIN_JSON\n" + string(b) + "\nEND_JSON"
}

// The verifier is sent the lone findings it may check, not a restored one
// nor one several reviewers raised (all it may check at deep); what it
// refutes is taken out with its evidence, and an answer about a finding
// it was not sent counts for nothing.
func TestVerifyRefutesOnlyWhatItWasSent(t *testing.T) {
	lone := finding.Finding{ID: "QUAL-00000001", Priority: "P2", File: "a.go", Title: "Lone", Reviewers: []string{"openai/a"}, Agreement: "1/2"}
	restored := finding.Finding{ID: "QUAL-00000002", Priority: "P2", File: "a.go", Title: "Restored", Reviewers: []string{"openai/a"}, Agreement: "1/2"}
	agreed := finding.Finding{ID: "QUAL-00000003", Priority: "P1", File: "b.go", Title: "Agreed", Reviewers: []string{"openai/a", "openai/b"}, Agreement: "2/2"}
	model := &answering{answer: verdicts(
		finding.VerifierAnswer{ID: lone.ID, Verdict: finding.Refuted, Evidence: "a.go:3 checks it"},
		finding.VerifierAnswer{ID: agreed.ID, Verdict: finding.Refuted, Evidence: "not sent"})}
	team := &Team{Reviewers: []Role{{Name: "reviewer-1"}, {Name: "reviewer-2"}}, Verifier: &Role{Name: verifier.Name, Model: "openai/v", LLM: model}}
	fs := []finding.Finding{lone, restored, agreed}

	v, err := team.Verify(context.Background(), change.Subject{Number: 1}, team.Crew(effort.Standard, 0), fs, []string{restored.ID})

	if err != nil || !v.Ran || !v.Status.OK {
		t.Fatalf("verified %+v, %v", v, err)
	}
	if len(v.Status.Sent) != 1 || v.Status.Sent[0] != lone.ID || len(v.Status.Restored) != 1 || strings.Contains(model.tasks[0], agreed.Title) {
		t.Errorf("sent %v, restored %v", v.Status.Sent, v.Status.Restored)
	}
	if len(v.Refuted) != 1 || v.Refuted[0].ID != lone.ID || v.Refuted[0].Evidence != "a.go:3 checks it" || len(v.Kept) != 2 {
		t.Errorf("refuted %+v, kept %+v", v.Refuted, v.Kept)
	}

	deep, _ := team.Verify(context.Background(), change.Subject{Number: 1}, team.Crew(effort.Deep, 0), fs, nil)
	if len(deep.Status.Sent) != 3 {
		t.Errorf("deep sent %v, want every finding it may check", deep.Status.Sent)
	}
}

// At quick the verifier does not play; with nothing to send it makes no
// call.
func TestVerifyAsksOnlyWhenThereIsSomethingToAsk(t *testing.T) {
	model := &answering{answer: verdicts()}
	team := &Team{Reviewers: []Role{{Name: "reviewer-1"}}, Verifier: &Role{Name: verifier.Name, Model: "openai/v", LLM: model}}
	sec := finding.Finding{ID: "SEC-00000001", Priority: "P0", File: "a.go", Title: "Secret"}
	if v, _ := team.Verify(context.Background(), change.Subject{}, team.Crew(effort.Quick, 0), []finding.Finding{sec}, nil); v.Status != nil || len(v.Kept) != 1 {
		t.Errorf("quick: %+v", v)
	}
	v, _ := team.Verify(context.Background(), change.Subject{}, team.Crew(effort.Standard, 0), []finding.Finding{sec}, nil)
	if v.Status == nil || !v.Status.OK || v.Ran || len(model.tasks) != 0 {
		t.Errorf("nothing to ask: %+v, %d calls", v, len(model.tasks))
	}
}
