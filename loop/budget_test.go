package loop

import (
	"context"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/llm"
)

func TestRunStopsBeforeACallThatCouldPassTheBudget(t *testing.T) {
	// Round 1 fits: each call needs its input estimate (a few thousand
	// tokens) plus the output cap. The models report 22,000 tokens in each:
	// round 2 cannot start a call, and the run stops before, not after.
	h := newHarness(t)
	budget := llm.NewBudget(45000)
	h.opts.Reviewers[0].LLM = budget.Wrap(heavy{h.reviewer}, 1000)
	h.opts.Analyzer.LLM = budget.Wrap(heavy{h.analyzer}, 1000)
	h.opts.Budget = budget
	h.reviewer.answers = []string{reviewerAnswer(bug), reviewerAnswer()}
	h.analyzer.answers = []string{analyzerAnswer(), analyzerAnswer()}
	h.fixer.report = &FixReport{Verified: true, Pushed: true, HeadOID: "bbbbbbbb"}

	res, err := h.run(t)

	if err != nil {
		t.Fatalf("a reached budget is an outcome, not an error: %v", err)
	}
	if res.Outcome != OutcomeBlocked || !strings.HasPrefix(res.Reason, "token budget reached: ") {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	if h.reviewer.calls != 1 || h.analyzer.calls != 1 {
		t.Errorf("calls: reviewer %d, analyzer %d; want round 1's only", h.reviewer.calls, h.analyzer.calls)
	}
	if b := res.Budget; b == nil || !b.Reached || b.MaxTokens != 45000 || b.Spent.Input+b.Spent.Output != 44010 {
		t.Errorf("budget %+v, want reached with the 44010 tokens of round 1 spent", b)
	}
	// Round 1's report was posted, so the run says on the PR why it stopped.
	if k := h.gh.comments; len(k) != 2 || !strings.Contains(k[1].Body, "**Stopped:** token budget reached") {
		t.Errorf("comments: %d, last:\n%s", len(k), k[len(k)-1].Body)
	}
	if s := RenderSummary(res); !strings.Contains(s, "**Tokens:** 44010 of the budget of 45000 spent (44000 in / 10 out) — token budget reached") {
		t.Errorf("summary:\n%s", s)
	}
}

// heavy reports 22,000 input tokens for every call of m.
type heavy struct{ m *scripted }

func (h heavy) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, err := h.m.Chat(ctx, req)
	resp.Usage.Input = 22000
	return resp, err
}
