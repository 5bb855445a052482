package llm

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/ocdx/gh-ocdx/worknote"
)

// NoteTool is the agents' `note` tool: the model keeps a decision
// or its next step in the working note, which outlives the tool results
// that drop out of the context.
func NoteTool(n *worknote.Note) Tool {
	return Tool{
		Name:        "note",
		Description: "Record a decision or your next step in the working note. The note is shown on every turn, while older tool results are dropped.",
		Schema:      json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"the decision or next step, one or two sentences"}},"required":["text"]}`),
		Parallel:    true,
		Run: func(_ context.Context, args json.RawMessage) (string, error) {
			var a struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(args, &a); err != nil || strings.TrimSpace(a.Text) == "" {
				return "", errors.New(`note needs {"text": "..."}`)
			}
			n.Add(strings.TrimSpace(a.Text))
			return "noted", nil
		},
	}
}
