package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
)

var ephemeral = &typed{Type: "ephemeral"}

// anthropicVersion is the Messages API version we speak.
const anthropicVersion = "2023-06-01"

// anthropicChat speaks the Messages API.
type anthropicChat struct {
	model     string
	post      *poster
	maxTokens int64
}

func newAnthropic(model, baseURL, key string, hc *http.Client, opts Options) *anthropicChat {
	h := jsonHeader()
	h.Set("X-Api-Key", key)
	h.Set("Anthropic-Version", anthropicVersion)
	return &anthropicChat{
		model:     model,
		post:      &poster{hc: hc, url: baseURL + "/v1/messages", header: h, opts: opts},
		maxTokens: opts.MaxTokens,
	}
}

// The request and answer of POST /v1/messages, as far as we use them.
type (
	anthropicRequest struct {
		Model      string             `json:"model"`
		MaxTokens  int64              `json:"max_tokens"`
		System     string             `json:"system,omitempty"`
		Messages   []anthropicMessage `json:"messages"`
		Tools      []anthropicTool    `json:"tools,omitempty"`
		ToolChoice *typed             `json:"tool_choice,omitempty"`
	}
	anthropicMessage struct {
		Role    string           `json:"role"`
		Content []anthropicBlock `json:"content"`
	}
	// anthropicBlock is a text, tool_use or tool_result block.
	anthropicBlock struct {
		Type      string          `json:"type"`
		Text      string          `json:"text,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Input     json.RawMessage `json:"input,omitempty"`
		ToolUseID string          `json:"tool_use_id,omitempty"`
		Content   string          `json:"content,omitempty"`
		IsError   bool            `json:"is_error,omitempty"`
		// CacheControl marks the end of a prefix the API caches for five
		// minutes; a later request with the same prefix reads it at a tenth
		// of the price.
		CacheControl *typed `json:"cache_control,omitempty"`
	}
	// typed is an object with only a type: a tool choice, a cache control.
	typed struct {
		Type string `json:"type"`
	}
	anthropicTool struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	anthropicAnswer struct {
		Content    []anthropicBlock `json:"content"`
		StopReason string           `json:"stop_reason"`
		Usage      struct {
			InputTokens              int64 `json:"input_tokens"`
			OutputTokens             int64 `json:"output_tokens"`
			CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
			CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		} `json:"usage"`
	}
)

func (c *anthropicChat) chat(ctx context.Context, req Request) (Response, error) {
	body, err := anthropicBody(c.model, req, c.maxTokens)
	if err != nil {
		return Response{}, err
	}
	var res anthropicAnswer
	if err := c.post.post(ctx, body, &res); err != nil {
		return Response{}, err
	}
	if len(res.Content) == 0 && res.StopReason == "" {
		return Response{}, fmt.Errorf("%w: no content and no stop reason", ErrBadResponse)
	}
	u := res.Usage
	out := Response{Usage: Usage{Input: u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens, Cached: u.CacheReadInputTokens, Output: u.OutputTokens}}
	for _, b := range res.Content {
		switch b.Type {
		case "text":
			out.Text += b.Text
		case "tool_use":
			args := b.Input
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			out.Calls = append(out.Calls, ToolCall{ID: b.ID, Name: b.Name, Args: args})
		}
	}
	return out, nil
}

func anthropicBody(model string, req Request, maxTokens int64) (*anthropicRequest, error) {
	p := &anthropicRequest{Model: model, MaxTokens: maxTokens, System: req.System}
	// Once the agent loops (it has a note), the task and everything up to the
	// note are cached: the next call reads them back at a tenth of the price.
	cache := slices.ContainsFunc(req.Messages, func(m Message) bool { return m.Note != "" })
	for i, m := range req.Messages {
		var blocks []anthropicBlock
		switch m.Role {
		case User:
			// tool_result blocks come first in the user message.
			for _, r := range m.Results {
				blocks = append(blocks, anthropicBlock{Type: "tool_result", ToolUseID: r.CallID, Content: r.Content, IsError: r.IsError})
			}
		case Assistant:
		default:
			return nil, fmt.Errorf("message role %q", m.Role)
		}
		if m.Text != "" {
			blocks = append(blocks, anthropicBlock{Type: "text", Text: m.Text})
		}
		if cache && len(blocks) > 0 && (i == 0 || m.Note != "") {
			blocks[len(blocks)-1].CacheControl = ephemeral
		}
		if m.Note != "" {
			blocks = append(blocks, anthropicBlock{Type: "text", Text: m.Note})
		}
		for _, c := range m.Calls {
			blocks = append(blocks, anthropicBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: inputObject(c.Args)})
		}
		p.Messages = append(p.Messages, anthropicMessage{Role: string(m.Role), Content: blocks})
	}
	for _, t := range req.Tools {
		if err := checkSchema(t); err != nil {
			return nil, err
		}
		p.Tools = append(p.Tools, anthropicTool{Name: t.Name, Description: t.Description, InputSchema: t.Schema})
	}
	if req.NoTools && len(req.Tools) > 0 {
		p.ToolChoice = &typed{Type: "none"}
	}
	return p, nil
}

// inputObject returns the call's arguments as the JSON object tool_use needs;
// arguments that are not an object are wrapped.
func inputObject(args json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) == nil && obj != nil {
		return args
	}
	b, _ := json.Marshal(map[string]json.RawMessage{"arguments": args})
	if !json.Valid(args) {
		b, _ = json.Marshal(map[string]string{"arguments": string(args)})
	}
	return b
}
