// Package llm talks to the models: a provider-neutral chat request, the
// OpenAI, Anthropic and Ollama providers behind one interface, the
// tool-calling agent loop with a bounded context, the working note, the
// BEGIN_JSON … END_JSON envelope decoder and token usage accounting
// (docs/architecture.md, The agents; Envelopes).
package llm

import (
	"context"
	"encoding/json"

	"github.com/ocdx/gh-ocdx/internal/tokens"
)

// Model answers one chat request. The providers implement it; roles and
// the agent loop only see this.
type Model interface {
	Chat(ctx context.Context, req Request) (Response, error)
}

// Request is one provider-neutral chat request.
type Request struct {
	System   string
	Messages []Message // starts with a user message; roles alternate
	Tools    []ToolSpec
	NoTools  bool // the model must answer with text this turn (tools stay defined)
}

// Role is who wrote a message.
type Role string

const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// Message is one turn. An assistant message may carry tool calls; the user
// message after it carries their results, one per call, in call order,
// before any text.
type Message struct {
	Role Role
	Text string
	Note string // the working note, after Text; kept apart so a provider can cache what comes before it
	// Breaks are offsets in Text after which what came before is the same
	// from request to request (at most two are used): Anthropic caches up
	// to a marked point only; OpenAI caches any long shared prefix.
	Breaks  []int
	Calls   []ToolCall
	Results []ToolResult
}

// ToolCall is a call the model asked for. Args is a JSON object.
type ToolCall struct {
	ID   string
	Name string
	Args json.RawMessage
}

// ToolResult answers the call with the same ID.
type ToolResult struct {
	CallID  string
	Content string
	IsError bool
}

// ToolSpec describes a tool to the model; Schema is the JSON Schema of its
// arguments object.
type ToolSpec struct {
	Name        string
	Description string
	Schema      json.RawMessage
}

// Response is the model's answer: text, tool calls, or both.
type Response struct {
	Text  string
	Calls []ToolCall
	Usage tokens.Usage
	// Truncated says the output cap cut the answer (finish_reason
	// "length", stop_reason "max_tokens"): the last call's arguments are
	// incomplete. Chat fails a cut answer without calls with ErrOutputCap.
	Truncated bool
}
