package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/internal/tokens"
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

func newAnthropic(model string, post *poster, maxTokens int64) *anthropicChat {
	return &anthropicChat{model: model, post: post, maxTokens: maxTokens}
}

func anthropicHeader(key string) http.Header {
	h := jsonHeader()
	h.Set("X-Api-Key", key)
	h.Set("Anthropic-Version", anthropicVersion)
	return h
}

// The request and answer of POST /v1/messages, as far as we use them.
type (
	// anthropicRequest's fields are in the order the API builds its
	// cached prefix (tools, system, messages): the body reads as the
	// prompt does, the most stable part first.
	anthropicRequest struct {
		Model      string             `json:"model"`
		MaxTokens  int64              `json:"max_tokens"`
		Tools      []anthropicTool    `json:"tools,omitempty"`
		System     string             `json:"system,omitempty"`
		Messages   []anthropicMessage `json:"messages"`
		ToolChoice *typed             `json:"tool_choice,omitempty"`
		Stream     bool               `json:"stream,omitempty"`
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
	anthropicUsage struct {
		InputTokens              *int64 `json:"input_tokens"`
		OutputTokens             *int64 `json:"output_tokens"`
		CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
	}
	anthropicAnswer struct {
		Content    []anthropicBlock `json:"content"`
		StopReason string           `json:"stop_reason"`
		Usage      anthropicUsage   `json:"usage"`
	}
	// anthropicEvent is one event of a streamed answer, whatever its type.
	anthropicEvent struct {
		Type         string          `json:"type"`
		Message      anthropicAnswer `json:"message"`       // message_start
		Index        int             `json:"index"`         // content_block_*
		ContentBlock anthropicBlock  `json:"content_block"` // content_block_start
		Delta        struct {
			Type        string `json:"type"`
			Text        string `json:"text"`
			PartialJSON string `json:"partial_json"`
			StopReason  string `json:"stop_reason"`
		} `json:"delta"` // content_block_delta, message_delta
		Usage anthropicUsage  `json:"usage"` // message_delta
		Error json.RawMessage `json:"error"` // error
	}
)

func (c *anthropicChat) chat(ctx context.Context, req Request) (Response, error) {
	body, err := anthropicBody(c.model, req, c.maxTokens)
	if err != nil {
		return Response{}, err
	}
	return c.post.post(ctx, body, func() decoder { return &anthropicStream{} })
}

// anthropicStream assembles a Messages answer from its events:
// message_start (input usage), content_block_start/delta/stop (text, and
// tool_use input as input_json_delta pieces), message_delta (stop reason,
// cumulative usage), message_stop; ping is ignored and error fails the
// attempt.
type anthropicStream struct {
	blocks  []anthropicBlock
	partial map[int]*strings.Builder // tool_use input pieces by block index
	stop    string
	usage   anthropicUsage
	ended   bool // message_stop came
	bytes   int
}

func (s *anthropicStream) event(_ string, data []byte) error {
	var ev anthropicEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return fmt.Errorf("%w: a stream event: %v", ErrBadResponse, err)
	}
	switch ev.Type {
	case "message_start":
		s.usage = ev.Message.Usage
	case "content_block_start":
		if ev.Index != len(s.blocks) {
			return fmt.Errorf("%w: content block %d starts after %d blocks", ErrBadResponse, ev.Index, len(s.blocks))
		}
		s.blocks = append(s.blocks, ev.ContentBlock)
		s.bytes += len(ev.ContentBlock.Text)
	case "content_block_delta":
		if ev.Index < 0 || ev.Index >= len(s.blocks) {
			return fmt.Errorf("%w: a delta for content block %d of %d", ErrBadResponse, ev.Index, len(s.blocks))
		}
		switch ev.Delta.Type {
		case "text_delta":
			s.blocks[ev.Index].Text += ev.Delta.Text
			s.bytes += len(ev.Delta.Text)
		case "input_json_delta":
			if s.partial == nil {
				s.partial = map[int]*strings.Builder{}
			}
			if s.partial[ev.Index] == nil {
				s.partial[ev.Index] = &strings.Builder{}
			}
			s.partial[ev.Index].WriteString(ev.Delta.PartialJSON)
			s.bytes += len(ev.Delta.PartialJSON)
		}
	case "message_delta":
		s.stop = ev.Delta.StopReason
		// Counts here are totals for the message: they replace, not add.
		u := &s.usage
		for _, f := range []struct{ dst, src **int64 }{
			{&u.OutputTokens, &ev.Usage.OutputTokens}, {&u.InputTokens, &ev.Usage.InputTokens},
			{&u.CacheCreationInputTokens, &ev.Usage.CacheCreationInputTokens}, {&u.CacheReadInputTokens, &ev.Usage.CacheReadInputTokens},
		} {
			if *f.src != nil {
				*f.dst = *f.src
			}
		}
	case "message_stop":
		s.ended = true
	case "error":
		return streamError(ev.Error)
	}
	return nil
}

// done: message_stop, or a stop reason from a server that ends without it.
func (s *anthropicStream) done() bool { return s.ended || s.stop != "" }

func (s *anthropicStream) output() int64 {
	if s.stop != "" && s.usage.OutputTokens != nil {
		return *s.usage.OutputTokens
	}
	return estimate(s.bytes)
}

func (s *anthropicStream) whole(body []byte) error {
	var res anthropicAnswer
	if err := json.Unmarshal(body, &res); err != nil {
		return fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	if len(res.Content) == 0 && res.StopReason == "" {
		return fmt.Errorf("%w: no content and no stop reason", ErrBadResponse)
	}
	s.blocks, s.stop, s.usage, s.ended = res.Content, res.StopReason, res.Usage, true
	return nil
}

func (s *anthropicStream) response() (Response, error) {
	n := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	u := s.usage
	out := Response{
		Usage:     tokens.Usage{Input: n(u.InputTokens) + n(u.CacheCreationInputTokens) + n(u.CacheReadInputTokens), Cached: n(u.CacheReadInputTokens), Output: n(u.OutputTokens)},
		Truncated: s.stop == "max_tokens",
	}
	for i, b := range s.blocks {
		switch b.Type {
		case "text":
			out.Text += b.Text
		case "tool_use":
			args := b.Input
			if p := s.partial[i]; p != nil && p.Len() > 0 {
				args = argsJSON(p.String())
			}
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage("{}")
			}
			out.Calls = append(out.Calls, ToolCall{ID: b.ID, Name: b.Name, Args: args})
		}
	}
	return out, nil
}

func anthropicBody(model string, req Request, maxTokens int64) (*anthropicRequest, error) {
	p := &anthropicRequest{Model: model, MaxTokens: maxTokens, System: req.System, Stream: true}
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
			rest, at := m.Text, 0
			for _, b := range stableBreaks(m) {
				blocks = append(blocks, anthropicBlock{Type: "text", Text: rest[:b-at], CacheControl: ephemeral})
				rest, at = rest[b-at:], b
			}
			if rest != "" {
				blocks = append(blocks, anthropicBlock{Type: "text", Text: rest})
			}
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

// stableBreaks are m's breaks that split its text, in order, at most two
// (one at its end marks the whole text, from the first call on): with the
// task's end and the note, a request marks at most the four breakpoints
// the API takes.
func stableBreaks(m Message) []int {
	var out []int
	last := 0
	for _, b := range m.Breaks {
		if b > last && b <= len(m.Text) && len(out) < 2 {
			out = append(out, b)
			last = b
		}
	}
	return out
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
