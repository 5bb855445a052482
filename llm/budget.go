package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// DefaultMaxOutput is the output cap of a call when Options.MaxTokens is
// not set: what a budget reserves for a call's answer.
const DefaultMaxOutput = defaultMaxTokens

// ErrBudget: a model call was not made because it could pass the run's
// token budget. errors.Is finds it in a *BudgetError.
var ErrBudget = errors.New("token budget reached")

// BudgetError is the call refused by a Budget, with what was spent.
type BudgetError struct {
	Max   int64 // the budget
	Spent Usage // by the calls made so far
	Need  int64 // the refused call: its input estimate plus its output cap
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("token budget reached: %d of %d tokens spent (%s); the next call could use up to %d more, so it was not made",
		e.Spent.Input+e.Spent.Output, e.Max, e.Spent, e.Need)
}

func (e *BudgetError) Is(target error) bool { return target == ErrBudget }

// Budget caps the tokens of every model call of a run, shared by the models
// it wraps (the reviewers run side by side). A call is made only when the
// tokens spent, those of the calls in flight, and its own worst case (the
// input estimate plus the output cap) stay within Max: the budget is never
// passed, at the price of stopping while some of it is left.
type Budget struct {
	Max      int64
	mu       sync.Mutex
	spent    Usage
	inFlight int64
}

// NewBudget is a budget of max tokens, input and output together.
func NewBudget(max int64) *Budget { return &Budget{Max: max} }

// Spent is what the calls made so far used.
func (b *Budget) Spent() Usage {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// Wrap returns m, whose calls draw on the budget; maxOutput is its output
// cap per call.
func (b *Budget) Wrap(m Model, maxOutput int64) Model {
	return &budgeted{Model: m, b: b, maxOutput: maxOutput}
}

type budgeted struct {
	Model
	b         *Budget
	maxOutput int64
}

func (m *budgeted) Chat(ctx context.Context, req Request) (Response, error) {
	b := m.b
	need := EstimateInput(req) + m.maxOutput
	b.mu.Lock()
	if total := b.spent.Input + b.spent.Output; total+b.inFlight+need > b.Max {
		err := &BudgetError{Max: b.Max, Spent: b.spent, Need: need}
		b.mu.Unlock()
		return Response{}, err
	}
	b.inFlight += need
	b.mu.Unlock()

	resp, err := m.Model.Chat(ctx, req)

	b.mu.Lock()
	defer b.mu.Unlock()
	b.inFlight -= need
	switch {
	case resp.Usage.Input+resp.Usage.Output > 0:
		b.spent = b.spent.Add(resp.Usage)
	case err == nil:
		// A server that reports no usage is charged the worst case.
		b.spent = b.spent.Add(Usage{Calls: 1, Input: need - m.maxOutput, Output: m.maxOutput})
	}
	return resp, err
}

// EstimateInput is a generous estimate of a request's input tokens: one
// token per 3 bytes of everything sent (English text and code average about
// 4), so that a budget check errs on the side of stopping.
func EstimateInput(req Request) int64 {
	n := len(req.System)
	for _, msg := range req.Messages {
		n += len(msg.Text) + len(msg.Note)
		for _, c := range msg.Calls {
			n += len(c.ID) + len(c.Name) + len(c.Args)
		}
		for _, r := range msg.Results {
			n += len(r.CallID) + len(r.Content)
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Schema)
	}
	return int64(n)/3 + 1
}
