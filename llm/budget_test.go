package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// gate is a model whose calls wait until released, reporting usage.
type gate struct {
	started chan struct{}
	release chan struct{}
	usage   Usage
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
	g := &gate{started: make(chan struct{}), release: make(chan struct{}), usage: Usage{Calls: 1, Input: 150, Output: 50}}
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
