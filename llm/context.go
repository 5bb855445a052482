package llm

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/internal/jsontree"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/worknote"
)

// The bounded context (docs/architecture.md, The agents): a request holds the
// system prompt, one user message with the task, the newest tool exchanges
// whose sizes fit the budget, and the working note at the end of the last
// message. An exchange is an assistant turn and the user turn answering it,
// so calls and results are kept or dropped together and never orphaned.

// exchange is one assistant turn (text and/or calls) and the user turn that
// answers it (a result per call, and/or text).
type exchange struct {
	ask   Message
	reply Message
	size  int
}

// itemOverhead approximates the wire bytes around each message, call and
// result, so that many small items still count against the budget.
const itemOverhead = 64

// Defaults and limits of the bounded context.
const (
	DefaultBudget   = 32 << 10
	MinBudget       = 8 << 10
	MaxCallsPerTurn = 16
)

func exchangeSize(e exchange) int {
	return msgSize(e.ask) + msgSize(e.reply)
}

func msgSize(m Message) int {
	n := itemOverhead + len(m.Text)
	for _, c := range m.Calls {
		n += itemOverhead + len(c.ID) + len(c.Name) + len(c.Args)
	}
	for _, r := range m.Results {
		n += itemOverhead + len(r.CallID) + len(r.Content)
	}
	return n
}

// fit shrinks an exchange to at most budget bytes: the fixed parts (ids,
// names, overheads) stay, and the variable parts (texts, arguments,
// results) share what is left, the largest cut first to a common level.
func fit(e exchange, budget int) exchange {
	e.size = exchangeSize(e)
	if e.size <= budget {
		return e
	}
	e.ask.Calls = slices.Clone(e.ask.Calls)
	e.reply.Results = slices.Clone(e.reply.Results)

	var sizes []int
	fixed := 2 * itemOverhead
	sizes = append(sizes, len(e.ask.Text), len(e.reply.Text))
	for _, c := range e.ask.Calls {
		fixed += itemOverhead + len(c.ID) + len(c.Name)
		sizes = append(sizes, len(c.Args))
	}
	for _, r := range e.reply.Results {
		fixed += itemOverhead + len(r.CallID)
		sizes = append(sizes, len(r.Content))
	}
	level := waterLevel(sizes, max(budget-fixed, 0))

	e.ask.Text = cutText(e.ask.Text, level, "…[cut]")
	e.reply.Text = cutText(e.reply.Text, level, "…[cut]")
	for i, c := range e.ask.Calls {
		c.Args = shrinkArgs(c.Args, level)
		e.ask.Calls[i] = c
	}
	for i, r := range e.reply.Results {
		r.Content = cutText(r.Content, level, fmt.Sprintf("\n[result cut to %d bytes to fit the context; ask for a smaller part]", level))
		e.reply.Results[i] = r
	}
	e.size = exchangeSize(e)
	return e
}

// waterLevel returns the largest c with sum(min(size, c)) <= avail.
func waterLevel(sizes []int, avail int) int {
	s := slices.Clone(sizes)
	slices.Sort(s)
	left := avail
	for i, v := range s {
		k := len(s) - i
		if v*k > left {
			return left / k
		}
		left -= v
	}
	return avail
}

// cutText cuts s to at most n bytes, ending with mark when there is room.
func cutText(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	if n < 2*len(mark) {
		mark = "…"
		if n < 2*len(mark) {
			return text.Head(s, n)
		}
	}
	return text.Head(s, n-len(mark)) + mark
}

// shrinkArgs cuts the string values inside JSON arguments, the longest
// first, until the document is at most n bytes; when even empty strings do
// not fit, the arguments become an empty object.
func shrinkArgs(args []byte, n int) []byte {
	if len(args) <= n {
		return args
	}
	v, err := jsontree.Decode(args)
	if err != nil {
		return []byte("{}")
	}
	var leaves []int
	jsontree.Walk(v, func(s string) string { leaves = append(leaves, len(s)); return s })
	skeleton := len(jsontree.Marshal(jsontree.Copy(v, func(string) string { return "" })))
	if skeleton > n {
		return []byte("{}")
	}
	level := waterLevel(leaves, n-skeleton)
	for level >= 0 { // escaping can make the text longer than its bytes
		out := jsontree.Marshal(jsontree.Copy(v, func(s string) string { return cutText(s, level, "…[cut]") }))
		if len(out) <= n {
			return out
		}
		level -= max(len(out)-n, 1)
	}
	return []byte("{}")
}

// compose builds the request for the next turn and says from which
// exchange on the history was sent. The window only moves forward, so the
// caller may forget the exchanges before it. The note comes last: what is
// before it stays the same from call to call until the window moves, so
// the providers can cache it.
func compose(system string, task Message, note *worknote.Note, hist []exchange, budget int, tools []ToolSpec, final bool) (Request, int) {
	start, used := len(hist), 0
	for i := len(hist) - 1; i >= 0; i-- {
		if used+hist[i].size > budget && i < len(hist)-1 {
			break
		}
		used += hist[i].size
		start = i
	}
	msgs := make([]Message, 0, 1+2*(len(hist)-start))
	msgs = append(msgs, task)
	for _, e := range hist[start:] {
		msgs = append(msgs, e.ask, e.reply)
	}
	last := &msgs[len(msgs)-1]
	last.Note = note.String()
	if final {
		last.Text, last.Note = strings.TrimLeft(withNote(*last)+"\n\n"+finalTurn, "\n"), ""
	}
	return Request{System: system, Messages: msgs, Tools: tools, NoTools: final}, start
}

// withNote is the message's text with its note after it, for providers that
// send one text.
func withNote(m Message) string {
	switch {
	case m.Note == "":
		return m.Text
	case m.Text == "":
		return m.Note
	}
	return strings.TrimRight(m.Text, "\n") + "\n\n" + m.Note
}

const finalTurn = "This is your last turn: tools are off. Answer now with your final answer."
