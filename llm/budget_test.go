package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
)

// gate is a model whose calls wait until released, reporting usage.
type gate struct {
	started chan struct{}
	release chan struct{}
	usage   tokens.Usage
}

func (g *gate) Chat(ctx context.Context, _ Request) (Response, error) {
	g.started <- struct{}{}
	<-g.release
	return Response{Text: "ok", Usage: g.usage}, nil
}

func TestBudgetCountsCallsInFlightAndRefusesBeforeTheCall(t *testing.T) {
	req := Request{System: strings.Repeat("s", 300), Messages: []Message{{Role: User, Text: strings.Repeat("t", 300)}}}
	need := EstimateInput(req) + 100 // 201 + 100
	if need != 301 {
		t.Fatalf("need %d", need)
	}
	b := NewBudget(2*need - 1)
	g := &gate{started: make(chan struct{}), release: make(chan struct{}), usage: tokens.Usage{Calls: 1, Input: 150, Output: 50}}
	m := b.Wrap(g, 100)

	done := make(chan error)
	go func() {
		_, err := m.Chat(context.Background(), req)
		done <- err
	}()
	<-g.started
	// The first call may use up to 301 tokens: a second one side by side
	// could pass 601, so it is refused without reaching the model.
	_, err := m.Chat(context.Background(), req)
	var be *BudgetError
	if !errors.Is(err, ErrBudget) || !errors.As(err, &be) || be.Need != need || be.Spent.Calls != 0 {
		t.Fatalf("second call: %v", err)
	}
	close(g.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s := b.Spent(); s.Input != 150 || s.Output != 50 {
		t.Errorf("spent %+v, want the usage reported", s)
	}
	// 200 spent + 301 fits in 601: the next call is made.
	go func() { <-g.started }()
	if _, err := m.Chat(context.Background(), req); err != nil {
		t.Errorf("third call: %v", err)
	}
	if got := be.Error(); !strings.HasPrefix(got, "token budget reached: 0 of 601 tokens spent") {
		t.Errorf("message %q", got)
	}
}

// reader asks for a file on every call it may use tools, and answers with
// its envelope when tools are off; each call reports its input estimate
// and 10 output tokens.
type reader struct {
	calls, final atomic.Int64
}

func (r *reader) Chat(_ context.Context, req Request) (Response, error) {
	n := r.calls.Add(1)
	u := tokens.Usage{Calls: 1, Input: EstimateInput(req), Output: 10}
	if req.NoTools {
		r.final.Add(1)
		return Response{Text: "BEGIN_JSON\n{\"conclusion\":\"approve\",\"files\":[]}\nEND_JSON", Usage: u}, nil
	}
	return Response{Calls: []ToolCall{{ID: fmt.Sprintf("c%d", n), Name: "read_file", Args: json.RawMessage(`{"path":"a.go"}`)}}, Usage: u}, nil
}

func budgetAgent(b *Budget, role string, m Model) *Agent {
	return &Agent{Role: role, Model: b.Wrap(m, 100), System: "You review code.", Task: "Review PR #7. " + strings.Repeat("x", 3000),
		Tools: []Tool{files(map[string]string{"a.go": strings.Repeat("package a\n", 40)})}}
}

func TestBudgetReservesARoundAllOrNone(t *testing.T) {
	b := NewBudget(1000)
	m := &reader{}
	agents := []*Agent{budgetAgent(b, "reviewer-1", m), budgetAgent(b, "reviewer-2", m), budgetAgent(b, "comments-analyzer", m)}
	in, err := agents[0].finalInput()
	if err != nil {
		t.Fatal(err)
	}
	one := in + 100

	// The three first calls do not fit in 1,000 tokens: the round does
	// not start, and no model is called.
	err = b.Reserve("round 2", agents...)
	var be *BudgetError
	if !errors.As(err, &be) || !errors.Is(err, ErrBudget) || be.Need != 3*one || be.Left != 1000 {
		t.Fatalf("reserve: %v", err)
	}
	if want := fmt.Sprintf("token budget reached: round 2 needs up to %s tokens, 1,000 left", text.Thousands(3*one)); err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	if m.calls.Load() != 0 {
		t.Errorf("%d calls made", m.calls.Load())
	}
	if b.reserved != 0 {
		t.Errorf("a refused round kept %d tokens reserved", b.reserved)
	}
}

func TestBudgetRoundNeverRefusesARoleAndIsNeverPassed(t *testing.T) {
	// Room for every role's first call and a few more: the roles, side by
	// side, read files while there is room, then answer with tools off.
	// None is refused, and the budget is not passed.
	b := NewBudget(0)
	m := &reader{}
	agents := []*Agent{budgetAgent(b, "reviewer-1", m), budgetAgent(b, "reviewer-2", m), budgetAgent(b, "comments-analyzer", m)}
	in, _ := agents[0].finalInput()
	one := in + 100
	b.Max = 5 * one
	if err := b.Reserve("round 1", agents...); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, len(agents))
	for _, a := range agents {
		go func() {
			var v verdict
			_, err := a.Run(context.Background(), &v)
			if err == nil && v.Conclusion != "approve" {
				err = fmt.Errorf("%s answered %+v", a.Role, v)
			}
			errs <- err
		}()
	}
	for range agents {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if m.final.Load() != 3 {
		t.Errorf("%d final answers, want 3", m.final.Load())
	}
	if s := b.Spent(); s.Input+s.Output > b.Max || m.calls.Load() <= 3 {
		t.Errorf("spent %d of %d in %d calls", s.Input+s.Output, b.Max, m.calls.Load())
	}
	if b.reserved != 0 || b.inFlight != 0 {
		t.Errorf("left reserved %d, in flight %d", b.reserved, b.inFlight)
	}
}

func TestBudgetAgentAnswersInsteadOfBeingRefused(t *testing.T) {
	// An agent that would read files for ever, with room for its first
	// call only: it is told to answer now, and answers, within the budget.
	b := NewBudget(0)
	m := &reader{}
	a := budgetAgent(b, "pr-fix", m)
	in, _ := a.finalInput()
	b.Max = in + 100 + 50
	var v verdict
	if _, err := a.Run(context.Background(), &v); err != nil || v.Conclusion != "approve" {
		t.Fatalf("%v %+v", err, v)
	}
	if m.calls.Load() != 1 || m.final.Load() != 1 {
		t.Errorf("%d calls, %d final", m.calls.Load(), m.final.Load())
	}

	// With no room for its first call, the agent says so before any call.
	m2 := &reader{}
	a = budgetAgent(b, "pr-fix", m2)
	_, err := a.Run(context.Background(), &v)
	if !errors.Is(err, ErrBudget) || !strings.Contains(err.Error(), "pr-fix needs up to ") || m2.calls.Load() != 0 {
		t.Errorf("%v, %d calls", err, m2.calls.Load())
	}
}
