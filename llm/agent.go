package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/ocdx/gh-ocdx/envelope"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/worknote"
)

// Tool is one agent tool: a Go function and the JSON Schema
// of its arguments object. An error from Run goes back to the model as an
// error result; it does not stop the loop.
type Tool struct {
	Name        string
	Description string
	Schema      json.RawMessage
	// Parallel tools (reads, lookups) may run concurrently when the model
	// calls several in one turn; a turn with any other tool runs its calls
	// one after the other, in order.
	Parallel bool
	Run      func(ctx context.Context, args json.RawMessage) (string, error)
}

// Agent is one role's tool-calling loop.
type Agent struct {
	Role   string // names the role in errors and usage, e.g. "reviewer-1"
	Model  Model
	System string
	Task   string
	// Breaks are offsets in Task where a part every call of the role
	// shares, round after round, ends (at most two): a provider that caches
	// only what a request marks is told to cache up to each.
	Breaks   []int
	Tools    []Tool
	MaxIters int            // model calls before the role fails (default 30); one corrective turn comes on top
	Budget   int            // bytes of recent tool exchanges per request (default DefaultBudget, at least MinBudget)
	Note     *worknote.Note // the working note; nil starts a fresh one

	held *hold // set by Budget.Reserve: the tokens kept for its final answer
}

// Result is what a run produced.
type Result struct {
	Text    string         // the final answer
	Usage   tokens.Usage   // summed over the run
	PerCall []tokens.Usage // one entry per model call
}

// ErrIterationCap marks a role that used all its model calls without a
// final answer.
var ErrIterationCap = errors.New("no final answer within the iteration cap")

const (
	defaultMaxIters = 30
	correction      = "Your answer has no " + envelope.BeginMarker + " … " + envelope.EndMarker + " envelope. Reply again with exactly one JSON object between a line " +
		envelope.BeginMarker + " and a line " + envelope.EndMarker + ", shaped as the task asks, and nothing else."
)

// Run loops until the model answers with text. With out non-nil the answer
// must hold one envelope, decoded into out by Decode; an answer without
// one gets a single corrective turn before the role fails. The usage of
// every call made is returned, also on error.
func (a *Agent) Run(ctx context.Context, out any) (Result, error) {
	maxIters := a.MaxIters
	if maxIters <= 0 {
		maxIters = defaultMaxIters
	}
	budget := a.contextBudget()
	note := a.Note
	if note == nil {
		note = worknote.New(worknote.WIP{}, 0)
	}
	// A model that draws on a token budget: the worst case of the final
	// answer is held from now on (Budget.Reserve did it for a round's
	// roles), so the agent is never refused in mid-work.
	bm, _ := a.Model.(*budgeted)
	h := a.held
	a.held = nil
	defer func() { h.release() }()
	tools, specs, err := a.tools()
	if err != nil {
		return Result{}, err
	}
	if bm != nil && h == nil {
		if err := bm.b.Reserve(a.Role, a); err != nil {
			return Result{}, fmt.Errorf("%s: %w", a.Role, err)
		}
		h, a.held = a.held, nil
	}

	var res Result
	var hist []exchange
	ids := map[string]bool{} // call ids used so far
	corrected := false
	answerNow := false // the budget has no room for another call with tools
	for call := 1; call <= maxIters; call++ {
		final := call == maxIters || answerNow
		var resp Response
		var start int
		if bm == nil {
			var req Request
			req, start = compose(a.System, a.task(), note, hist, budget, specs, final)
			resp, err = a.Model.Chat(ctx, req)
		} else {
			// Once the budget has no room for a call with tools, every
			// later call is the final one.
			resp, start, final, err = a.budgetedChat(ctx, bm, h, note, hist, budget, specs, final)
			answerNow = final
		}
		hist = hist[start:]
		if err == nil || resp.Usage.Calls > 0 { // an answer cut by the output cap was paid for too
			res.PerCall = append(res.PerCall, resp.Usage)
			res.Usage = res.Usage.Add(resp.Usage)
		}
		if err != nil {
			return res, fmt.Errorf("%s: %w", a.Role, err)
		}

		if len(resp.Calls) > 0 && !(final && resp.Text != "") {
			if final {
				break
			}
			hist = append(hist, fit(a.runCalls(ctx, call, resp, tools, note, ids), budget))
			if err := ctx.Err(); err != nil {
				return res, fmt.Errorf("%s: %w", a.Role, err)
			}
			continue
		}
		res.Text = resp.Text
		if out == nil {
			return res, nil
		}
		err = envelope.Decode(a.Role, resp.Text, out)
		if errors.Is(err, envelope.ErrNoEnvelope) && !corrected {
			corrected = true
			maxIters++ // the corrective turn comes on top of the cap
			note.Did("answered without an envelope; asked again")
			said := resp.Text
			if strings.TrimSpace(said) == "" {
				said = "(empty answer)" // both APIs reject an empty assistant turn
			}
			hist = append(hist, fit(exchange{
				ask:   Message{Role: Assistant, Text: said},
				reply: Message{Role: User, Text: correction},
			}, budget))
			continue
		}
		return res, err
	}
	return res, fmt.Errorf("%s: %w (%d model calls)", a.Role, ErrIterationCap, len(res.PerCall))
}

// contextBudget is the bytes of recent tool exchanges a request carries.
func (a *Agent) contextBudget() int {
	budget := a.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	return max(budget, MinBudget)
}

// tools checks the agent's tools and returns them by name and as specs.
func (a *Agent) tools() (map[string]Tool, []ToolSpec, error) {
	tools := make(map[string]Tool, len(a.Tools))
	specs := make([]ToolSpec, 0, len(a.Tools))
	for _, t := range a.Tools {
		if err := checkSchema(ToolSpec{Name: t.Name, Schema: t.Schema}); err != nil || t.Run == nil {
			return nil, nil, fmt.Errorf("%s: tool %q needs a JSON object schema and a Run func", a.Role, t.Name)
		}
		if _, dup := tools[t.Name]; dup {
			return nil, nil, fmt.Errorf("%s: two tools named %q", a.Role, t.Name)
		}
		tools[t.Name] = t
		specs = append(specs, ToolSpec{Name: t.Name, Description: t.Description, Schema: t.Schema})
	}
	return tools, specs, nil
}

// finalInput is the most input tokens the agent's final answer needs
// with no tool exchange left in it: its first request as the last turn,
// with the working note grown to its cap. Budget.Reserve holds this, plus
// the output cap, so the agent can always answer.
func (a *Agent) finalInput() (int64, error) {
	_, specs, err := a.tools()
	if err != nil {
		return 0, err
	}
	note := a.Note
	if note == nil {
		note = worknote.New(worknote.WIP{}, 0)
	}
	req, _ := compose(a.System, a.task(), note, nil, a.contextBudget(), specs, true)
	return EstimateInput(req) + int64(note.Room())/3 + 1, nil
}

// budgetedChat is one call of Run through the token budget bm. A call
// with tools that does not fit makes it the final one (answer now); the
// final answer draws on the held tokens h first, the oldest exchanges of
// hist left out as far as it takes to fit (the working note keeps what was
// done; without any it fits the hold alone, Agent.finalInput). It returns
// the answer, the first exchange of hist the request carried, and whether
// the call was the final one.
func (a *Agent) budgetedChat(ctx context.Context, bm *budgeted, h *hold, note *worknote.Note, hist []exchange, budget int, specs []ToolSpec, final bool) (Response, int, bool, error) {
	req, start := compose(a.System, a.task(), note, hist, budget, specs, final)
	var taken int64
	var berr *BudgetError
	if !final {
		if taken, berr = bm.take(req, nil); berr != nil {
			final = true
			req, start = compose(a.System, a.task(), note, hist, budget, specs, final)
		}
	}
	if final {
		for {
			if taken, berr = bm.take(req, h); berr == nil || start >= len(hist) {
				break
			}
			var from int
			req, from = compose(a.System, a.task(), note, hist[start+1:], budget, specs, final)
			start += 1 + from
		}
	}
	if berr != nil {
		return Response{}, start, final, berr
	}
	resp, err := bm.Model.Chat(ctx, req)
	bm.settle(taken, resp, err)
	return resp, start, final, err
}

// errCutCall answers a call whose arguments the output cap cut.
var errCutCall = errors.New("your call was cut by the output cap before its arguments were complete, and was not run; write smaller pieces (several edit_file calls, or a shorter write_file)")

// runCalls runs the tool calls of one turn and returns the exchange; every
// recorded call has its result.
func (a *Agent) runCalls(ctx context.Context, iter int, resp Response, tools map[string]Tool, note *worknote.Note, ids map[string]bool) exchange {
	calls := resp.Calls
	if extra := len(calls) - MaxCallsPerTurn; extra > 0 {
		note.Did(fmt.Sprintf("%d more calls in one turn were not run (at most %d per turn)", extra, MaxCallsPerTurn))
		calls = calls[:MaxCallsPerTurn]
	}
	// Some OpenAI-compatible servers send empty or repeated ids; the ids
	// only have to pair calls with results within this history.
	calls = append([]ToolCall(nil), calls...)
	for i := range calls {
		for n := 0; calls[i].ID == "" || ids[calls[i].ID]; n++ {
			calls[i].ID = "call_" + strconv.Itoa(iter) + "_" + strconv.Itoa(i) + strings.Repeat("_", n)
		}
		ids[calls[i].ID] = true
	}

	results := make([]ToolResult, len(calls))
	parallel := len(calls) > 1
	for _, c := range calls {
		if t, ok := tools[c.Name]; !ok || !t.Parallel {
			parallel = false
		}
	}
	run := func(i int) {
		c := calls[i]
		var content string
		var err error
		if resp.Truncated && i == len(resp.Calls)-1 {
			// The output cap cut this call's arguments: running what is
			// left of them (half a file) would do harm.
			err = errCutCall
		} else {
			content, err = a.runTool(ctx, tools, c)
		}
		results[i] = ToolResult{CallID: c.ID, Content: content, IsError: err != nil}
		if err != nil {
			results[i].Content = err.Error()
			note.Did(fmt.Sprintf("%s %s → error: %s", c.Name, summary(c.Args), text.Cut(text.FirstLine(err.Error()), 200)))
		} else {
			note.Did(fmt.Sprintf("%s %s → ok, %d bytes", c.Name, summary(c.Args), len(content)))
		}
	}
	if parallel {
		var wg sync.WaitGroup
		for i := range calls {
			wg.Go(func() { run(i) })
		}
		wg.Wait()
	} else {
		for i := range calls {
			run(i)
		}
	}
	return exchange{
		ask:   Message{Role: Assistant, Text: resp.Text, Calls: calls},
		reply: Message{Role: User, Results: results},
	}
}

func (a *Agent) runTool(ctx context.Context, tools map[string]Tool, c ToolCall) (out string, err error) {
	t, ok := tools[c.Name]
	if !ok {
		names := make([]string, 0, len(a.Tools))
		for _, t := range a.Tools {
			names = append(names, t.Name)
		}
		return "", fmt.Errorf("unknown tool %q; the tools are: %s", c.Name, strings.Join(names, ", "))
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(c.Args, &obj) != nil || obj == nil {
		return "", fmt.Errorf("the arguments of %s are not a JSON object: %s", c.Name, text.Cut(string(c.Args), 200))
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("tool %s failed: %v", c.Name, p)
		}
	}()
	return t.Run(ctx, c.Args)
}

// summary renders call arguments for the note on one short line.
func summary(args json.RawMessage) string {
	return text.Cut(text.OneLine(string(args)), 160)
}

// task is the agent's first message: its task, with where its stable
// parts end.
func (a *Agent) task() Message { return Message{Role: User, Text: a.Task, Breaks: a.Breaks} }
