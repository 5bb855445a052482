package loop

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/roles"
	"github.com/ocdx/gh-ocdx/state"
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
	h.fixer.report = &state.FixResult{Status: state.FixPushed, Verified: true, Pushed: true, HeadOID: "bbbbbbbb"}

	res, err := h.run(t)

	if err != nil {
		t.Fatalf("a reached budget is an outcome, not an error: %v", err)
	}
	// Round 2 does not start: its roles' first calls do not fit in the
	// 990 tokens left.
	if res.Outcome != state.OutcomeBlocked || !strings.HasPrefix(res.Reason, "token budget reached: round 2 needs up to ") || !strings.HasSuffix(res.Reason, " tokens, 990 left") {
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
	if s := report.RenderSummary(res); !strings.Contains(s, "**Tokens:** 44,010 of the budget of 45,000 spent (44000 in / 10 out)\n") {
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

func TestRunEstimatesCostsPerRoleRoundAndRun(t *testing.T) {
	h := newHarness(t)
	// Each call reports 10 tokens in and 5 out: 0.01 + 0.01 dollars.
	h.opts.Prices = map[string]config.Price{"openai/a": {Input: 1000, CachedInput: 1000, Output: 2000}, "openai/b": {Input: 1000, CachedInput: 1000, Output: 2000}}
	h.reviewer.answers = []string{reviewerAnswer()}
	h.analyzer.answers = []string{analyzerAnswer()}

	res, err := h.run(t)

	if err != nil || res.Outcome != state.OutcomeConverged {
		t.Fatalf("%v %s", err, res.Reason)
	}
	rr := res.Rounds[0]
	if rr.Roles[0].CostUSD != 0.02 || rr.Costs["comments-analyzer"] != 0.02 || res.CostUSD != 0.04 {
		t.Errorf("costs: reviewer %v, round %v, run %v", rr.Roles[0].CostUSD, rr.Costs, res.CostUSD)
	}
	if body := h.gh.comments[0].Body; !strings.Contains(body, "10 in / 5 out · ~$0.0200") || !strings.Contains(body, "estimated cost ~$0.0400") {
		t.Errorf("report:\n%s", body)
	}
	if s := report.RenderSummary(res); !strings.Contains(s, "**Estimated cost:** ~$0.0400") || !strings.Contains(s, "- Tokens: 20 in / 10 out (~$0.0400)") {
		t.Errorf("summary:\n%s", s)
	}
	rec, err := h.store.PR(state.NewKey("h", "o", "r", 5))
	if err != nil {
		t.Fatal(err)
	}
	if u := rec.Runs[0].Rounds[0].Usage; len(u) != 2 || u[0].CostUSD != 0.02 {
		t.Errorf("recorded usage %+v", u)
	}
}

// TestRunKeepsTheReviewsOfARoundTheBudgetStarted: once a round started,
// its finished reviews count whatever the budget does after. The round
// gets exactly what it reserved and every call reports far more than
// estimated, so nothing is ever free: each role answers from its own
// reservation. Reviewer-1 answers without an envelope, and its corrective
// turn does not fit: it alone fails, and reviewer-2's review is posted and
// decides the round, partial.
func TestRunKeepsTheReviewsOfARoundTheBudgetStarted(t *testing.T) {
	setup := func(max int64) (*harness, *llm.Budget) {
		h := newHarness(t)
		second := &scripted{answers: []string{reviewerAnswer()}}
		budget := llm.NewBudget(max)
		h.opts.Reviewers = []roles.Role{
			{Name: "reviewer-1", Model: "openai/a", LLM: budget.Wrap(heavy{h.reviewer}, 1000)},
			{Name: "reviewer-2", Model: "openai/c", LLM: budget.Wrap(heavy{second}, 1000)},
		}
		h.opts.Analyzer.LLM = budget.Wrap(heavy{h.analyzer}, 1000)
		h.opts.Budget = budget
		h.reviewer.answers = []string{"I think it is fine.", reviewerAnswer()}
		h.analyzer.answers = []string{analyzerAnswer()}
		return h, budget
	}
	// What round 1 needs, as the run says when it cannot start.
	h, _ := setup(1)
	res, err := h.run(t)
	var need int64
	if err != nil || res.Budget == nil || !res.Budget.Reached {
		t.Fatalf("probe: %v %+v", err, res)
	}
	if _, err := fmt.Sscanf(strings.ReplaceAll(strings.TrimPrefix(res.Reason, "token budget reached: round 1 needs up to "), ",", ""), "%d", &need); err != nil {
		t.Fatalf("reason %q: %v", res.Reason, err)
	}

	h, _ = setup(need)
	res, err = h.run(t)

	if err != nil || res.Outcome != state.OutcomeConverged || res.Budget.Reached {
		for _, r := range res.Rounds {
			t.Logf("%+v", r.Roles)
		}
		t.Fatalf("outcome %s (%v): %s", res.Outcome, err, res.Reason)
	}
	if len(res.Partial) != 1 || res.Partial[0] != "reviewer-1" {
		t.Errorf("partial %v, want reviewer-1 alone", res.Partial)
	}
	if r := res.Rounds[0].Roles[0]; r.OK || !strings.Contains(r.Error, "token budget reached") {
		t.Errorf("reviewer-1: %+v", r)
	}
	if len(h.gh.comments) != 1 || !strings.Contains(h.gh.comments[0].Body, "reviewer-2") {
		t.Errorf("want the round's review posted, got %d comments", len(h.gh.comments))
	}
}

// TestAVerifierThatDoesNotFitTheBudgetDoesNotRun: the verifier comes after
// the round's reviews; when its answer does not fit in what the budget has
// left, it is not called, the findings stand as the reviewers raised them
// and the run goes on with the round's reviews, never thrown away.
func TestAVerifierThatDoesNotFitTheBudgetDoesNotRun(t *testing.T) {
	h := newHarness(t)
	h.opts.CanPush, h.opts.ReviewOnlyReason = false, "a fork"
	verifier := &scripted{answers: []string{"never asked"}}
	// Reviewer and analyzer report 22,000 tokens each: after round 1 the
	// budget has less left than any answer of the verifier needs.
	budget := llm.NewBudget(46000)
	h.opts.Reviewers[0].LLM = budget.Wrap(heavy{h.reviewer}, 1000)
	h.opts.Analyzer.LLM = budget.Wrap(heavy{h.analyzer}, 1000)
	h.opts.Verifier = &roles.Role{Name: "verifier", Model: "openai/v", LLM: budget.Wrap(verifier, 1000)}
	h.opts.Budget = budget
	h.reviewer.answers = []string{reviewerAnswer(bug)}
	h.analyzer.answers = []string{analyzerAnswer()}

	res, err := h.run(t)

	if err != nil || res.Outcome != state.OutcomeBlocked || strings.Contains(res.Reason, "token budget") {
		t.Fatalf("Run = %v, %+v: the round's reviews must decide it", err, res)
	}
	if verifier.calls != 0 {
		t.Errorf("the verifier was called %d times", verifier.calls)
	}
	rr := res.Rounds[0]
	if rr.Counts.P1 != 1 || len(rr.Refuted) != 0 || rr.Verifier == nil || rr.Verifier.OK || !strings.Contains(rr.Verifier.Error, "left") {
		t.Errorf("round: counts %+v, refuted %v, verifier %+v", rr.Counts, rr.Refuted, rr.Verifier)
	}
	if body := h.gh.comments[0].Body; !strings.Contains(body, "Verifier:") {
		t.Errorf("the report does not say the verifier did not run:\n%s", body)
	}
}

// When every reviewer of a round failed on the token budget (a corrective
// turn that did not fit), the run ends as the budget says, not as a
// configuration failure.
func TestEveryReviewerFailingOnTheBudgetIsTheBudgetReached(t *testing.T) {
	setup := func(max int64) *harness {
		h := newHarness(t)
		budget := llm.NewBudget(max)
		h.opts.Reviewers[0].LLM = budget.Wrap(heavy{h.reviewer}, 1000)
		h.opts.Budget = budget
		h.reviewer.answers = []string{"I think it is fine.", reviewerAnswer()}
		h.analyzer.answers = []string{analyzerAnswer()}
		return h
	}
	res, err := setup(1).run(t)
	var need int64
	if err != nil || res.Budget == nil || !res.Budget.Reached {
		t.Fatalf("probe: %v %+v", err, res)
	}
	if _, err := fmt.Sscanf(strings.ReplaceAll(strings.TrimPrefix(res.Reason, "token budget reached: round 1 needs up to "), ",", ""), "%d", &need); err != nil {
		t.Fatalf("reason %q: %v", res.Reason, err)
	}

	res, err = setup(need).run(t)

	if err != nil || res.Outcome != state.OutcomeBlocked || !strings.HasPrefix(res.Reason, "token budget reached") {
		t.Fatalf("outcome %s (%v): %s", res.Outcome, err, res.Reason)
	}
}
