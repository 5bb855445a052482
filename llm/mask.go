package llm

import (
	"github.com/ocdx/gh-ocdx/internal/jsontree"
	"github.com/ocdx/gh-ocdx/internal/redact"
)

// maskRequest returns req with every secret value replaced by its
// [SECRET:kind] marker, the credentials gh-ocdx holds included: prompts,
// diffs, file contents, tool results and the string values inside tool-call
// arguments. Every request of every provider passes here (client.Chat).
// The caller's request is not modified.
func maskRequest(req Request) Request {
	req.System = redact.Mask(req.System)
	msgs := make([]Message, len(req.Messages))
	for i, m := range req.Messages {
		m.Text, m.Note = redact.Mask(m.Text), redact.Mask(m.Note)
		if len(m.Calls) > 0 {
			calls := make([]ToolCall, len(m.Calls))
			for j, c := range m.Calls {
				c.Args = jsontree.MapStrings(c.Args, redact.Mask)
				calls[j] = c
			}
			m.Calls = calls
		}
		if len(m.Results) > 0 {
			res := make([]ToolResult, len(m.Results))
			for j, r := range m.Results {
				r.Content = redact.Mask(r.Content)
				res[j] = r
			}
			m.Results = res
		}
		msgs[i] = m
	}
	req.Messages = msgs
	return req
}
