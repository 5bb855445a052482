package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
)

// ErrBudget: a model call was not made because it could pass the run's
// token budget. errors.Is finds it in a *BudgetError.
var ErrBudget = errors.New("token budget reached")

// BudgetError is the call, agent or round a Budget refused, with what was
// spent and what was left.
type BudgetError struct {
	Max   int64        // the budget
	Spent tokens.Usage // by the calls made so far
	Need  int64        // what was refused: input estimates plus output caps
	Left  int64        // what the budget had free: not spent, in flight or reserved
	// For names what was refused ("round 2", "pr-fix"); "" for one call.
	For string
}

func (e *BudgetError) Error() string {
	if e.For != "" {
		return fmt.Sprintf("token budget reached: %s needs up to %s tokens, %s left", e.For, text.Thousands(e.Need), text.Thousands(max(e.Left, 0)))
	}
	return fmt.Sprintf("token budget reached: %d of %d tokens spent (%s); the next call could use up to %d more, so it was not made",
		e.Spent.Input+e.Spent.Output, e.Max, e.Spent, e.Need)
}

func (e *BudgetError) Is(target error) bool { return target == ErrBudget }

// Budget caps the tokens of every model call of a run, shared by the models
// it wraps (the reviewers run side by side). The budget is never passed:
// a call is made only when its worst case (the input estimate plus the
// output cap) fits in what is neither spent, nor held by calls in flight,
// nor reserved. What a call did not use is free again when it ends.
//
// An Agent whose model draws on a budget (Wrap) holds the worst case of
// its final answer from the start of its run to its end (its first request
// with tools off and its working note at its cap): its other calls are
// made from what is free, and when the next one does not fit, the agent
// answers with its tools off instead (docs/architecture.md, Budget and
// costs). Reserve holds that for several agents at once, all or none, so
// that a round either starts with every role able to answer or does not
// start.
type Budget struct {
	Max      int64
	mu       sync.Mutex
	spent    tokens.Usage
	inFlight int64
	reserved int64
}

// NewBudget is a budget of max tokens, input and output together.
func NewBudget(max int64) *Budget { return &Budget{Max: max} }

// Spent is what the calls made so far used.
func (b *Budget) Spent() tokens.Usage {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// free is what no call spent, holds in flight or has reserved; b.mu held.
func (b *Budget) free() int64 {
	return b.Max - b.spent.Input - b.spent.Output - b.inFlight - b.reserved
}

// Wrap returns m, whose calls draw on the budget; maxOutput is its output
// cap per call.
func (b *Budget) Wrap(m Model, maxOutput int64) Model {
	return &budgeted{Model: m, b: b, maxOutput: maxOutput}
}

// Reserve holds, for each agent whose model draws on b, the worst case of
// its final answer (Agent.finalInput and the output cap) until its run
// ends: for all of them or, when they do not all fit, for none, and a
// *BudgetError naming what (e.g. "round 2") says what was needed and what
// was left. The agents are given in a round's configured order.
func (b *Budget) Reserve(what string, agents ...*Agent) error {
	needs := make([]int64, len(agents))
	var total int64
	for i, a := range agents {
		bm, ok := a.Model.(*budgeted)
		if !ok || bm.b != b {
			continue
		}
		in, err := a.finalInput()
		if err != nil {
			return err
		}
		needs[i] = in + bm.maxOutput
		total += needs[i]
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if left := b.free(); total > left {
		return &BudgetError{Max: b.Max, Spent: b.spent, Need: total, Left: left, For: what}
	}
	b.reserved += total
	for i, a := range agents {
		if needs[i] > 0 {
			a.held = &hold{b: b, n: needs[i]}
		}
	}
	return nil
}

// hold is tokens of a Budget reserved for one agent's final answer.
type hold struct {
	b *Budget
	n int64
}

// release gives back what the agent's calls did not take of it.
func (h *hold) release() {
	if h == nil {
		return
	}
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	h.b.reserved -= h.n
	h.n = 0
}

type budgeted struct {
	Model
	b         *Budget
	maxOutput int64
}

// Chat makes one call if its worst case fits in what is free.
func (m *budgeted) Chat(ctx context.Context, req Request) (Response, error) {
	need, berr := m.take(req, nil)
	if berr != nil {
		return Response{}, berr
	}
	resp, err := m.Model.Chat(ctx, req)
	m.settle(need, resp, err)
	return resp, err
}

// need is the worst case of req: its input estimate plus the output cap.
func (m *budgeted) need(req Request) int64 { return EstimateInput(req) + m.maxOutput }

// take holds the worst case of req for a call about to be made, from what
// is free and, for an agent's final answer, from h first; in one step, so
// that agents side by side never both count on the same tokens. Nothing is
// taken when it does not fit: the *BudgetError says what was missing.
func (m *budgeted) take(req Request, h *hold) (int64, *BudgetError) {
	b := m.b
	need := m.need(req)
	b.mu.Lock()
	defer b.mu.Unlock()
	var fromHold int64
	if h != nil {
		fromHold = min(need, h.n)
	}
	// What the hold covers needs nothing free: a server that reported more
	// than estimated can leave less than nothing free, never take a hold.
	if left := b.free(); need > fromHold && need-fromHold > left {
		return 0, &BudgetError{Max: b.Max, Spent: b.spent, Need: need, Left: left + fromHold}
	}
	if h != nil {
		h.n -= fromHold
		b.reserved -= fromHold
	}
	b.inFlight += need
	return need, nil
}

// settle ends a call that took need: what it used is spent, the rest is
// free again.
func (m *budgeted) settle(need int64, resp Response, err error) {
	b := m.b
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inFlight -= need
	switch {
	case resp.Usage.Input+resp.Usage.Output > 0:
		b.spent = b.spent.Add(resp.Usage)
	case err == nil:
		// A server that reports no usage is charged the worst case.
		b.spent = b.spent.Add(tokens.Usage{Calls: 1, Input: need - m.maxOutput, Output: m.maxOutput})
	}
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
