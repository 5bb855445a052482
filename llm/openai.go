package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/ocdx/gh-ocdx/internal/tokens"
)

// openAIChat speaks Chat Completions, for OpenAI and OpenAI-compatible
// servers (Ollama, vLLM, LM Studio, llama.cpp, OpenRouter).
type openAIChat struct {
	model     string
	post      *poster
	maxTokens int64
	official  bool // OpenAI itself wants max_completion_tokens; compatible servers know max_tokens
}

func newOpenAI(model string, post *poster, maxTokens int64, official bool) *openAIChat {
	return &openAIChat{model: model, post: post, maxTokens: maxTokens, official: official}
}

func openAIHeader(key string) http.Header {
	h := jsonHeader()
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	return h
}

// The request and answer of POST /chat/completions, as far as we use them.
type (
	// openAIRequest's tools come before the messages, as in the prompt
	// the API builds and caches by prefix: the most stable part first.
	openAIRequest struct {
		Model               string          `json:"model"`
		Tools               []openAITool    `json:"tools,omitempty"`
		Messages            []openAIMessage `json:"messages"`
		ToolChoice          string          `json:"tool_choice,omitempty"`
		MaxTokens           int64           `json:"max_tokens,omitempty"`
		MaxCompletionTokens int64           `json:"max_completion_tokens,omitempty"`
		Stream              bool            `json:"stream,omitempty"`
		StreamOptions       *streamOptions  `json:"stream_options,omitempty"`
	}
	streamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	}
	openAIMessage struct {
		Role       string           `json:"role"`
		Content    *string          `json:"content,omitempty"`
		ToolCalls  []openAIToolCall `json:"tool_calls,omitempty"`
		ToolCallID string           `json:"tool_call_id,omitempty"`
	}
	openAIToolCall struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	openAITool struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description,omitempty"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	openAIUsage struct {
		PromptTokens        int64 `json:"prompt_tokens"` // cached included
		CompletionTokens    int64 `json:"completion_tokens"`
		PromptTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	}
	openAIAnswer struct {
		Choices []struct {
			Message struct {
				Content   partsText        `json:"content"`
				Refusal   partsText        `json:"refusal"`
				ToolCalls []openAIToolCall `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage openAIUsage `json:"usage"`
	}
	// openAIChunk is one event of a streamed answer.
	openAIChunk struct {
		Choices []struct {
			Index int `json:"index"`
			Delta struct {
				Content   partsText `json:"content"`
				Refusal   partsText `json:"refusal"`
				ToolCalls []struct {
					Index    int    `json:"index"`
					ID       string `json:"id"`
					Type     string `json:"type"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Usage *openAIUsage    `json:"usage"`
		Error json.RawMessage `json:"error"`
	}
)

func (c *openAIChat) chat(ctx context.Context, req Request) (Response, error) {
	body, err := openAIBody(c.model, req, c.maxTokens, c.official)
	if err != nil {
		return Response{}, err
	}
	return c.post.post(ctx, body, func() decoder { return &openAIStream{} })
}

// openAIStream assembles a Chat Completions answer from its chunks: the
// first choice's text and tool calls (their arguments come in pieces,
// keyed by the call's index), the finish reason, and the usage chunk that
// stream_options.include_usage adds before [DONE].
type openAIStream struct {
	text, refusal strings.Builder
	calls         []openAIToolCall
	index         map[int]int // a call's index in the stream → its place in calls
	finish        string
	usage         *openAIUsage
	ended         bool // [DONE] came
	bytes         int
}

func (s *openAIStream) event(_ string, data []byte) error {
	if string(data) == "[DONE]" {
		s.ended = true
		return nil
	}
	var ch openAIChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return fmt.Errorf("%w: a stream chunk: %v", ErrBadResponse, err)
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		return streamError(ch.Error)
	}
	if ch.Usage != nil {
		s.usage = ch.Usage
	}
	for _, c := range ch.Choices {
		if c.Index != 0 {
			continue
		}
		s.text.WriteString(string(c.Delta.Content))
		s.refusal.WriteString(string(c.Delta.Refusal))
		s.bytes += len(c.Delta.Content) + len(c.Delta.Refusal)
		for _, tc := range c.Delta.ToolCalls {
			if s.index == nil {
				s.index = map[int]int{}
			}
			i, ok := s.index[tc.Index]
			// A new id at a known index is a new call (servers that send
			// each call whole, all at index 0).
			if !ok || tc.ID != "" && s.calls[i].ID != "" && tc.ID != s.calls[i].ID {
				i = len(s.calls)
				s.index[tc.Index] = i
				s.calls = append(s.calls, openAIToolCall{})
			}
			call := &s.calls[i]
			if tc.ID != "" {
				call.ID = tc.ID
			}
			if tc.Type != "" {
				call.Type = tc.Type
			}
			call.Function.Name += tc.Function.Name
			call.Function.Arguments += tc.Function.Arguments
			s.bytes += len(tc.Function.Name) + len(tc.Function.Arguments)
		}
		if c.FinishReason != nil && *c.FinishReason != "" {
			s.finish = *c.FinishReason
		}
	}
	return nil
}

// done: [DONE], or a finish reason from a server that ends without it.
func (s *openAIStream) done() bool { return s.ended || s.finish != "" }

func (s *openAIStream) output() int64 {
	if s.usage != nil {
		return s.usage.CompletionTokens
	}
	return estimate(s.bytes)
}

func (s *openAIStream) whole(body []byte) error {
	var res openAIAnswer
	if err := json.Unmarshal(body, &res); err != nil {
		return fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	if len(res.Choices) == 0 {
		return fmt.Errorf("%w: no choices in the answer", ErrBadResponse)
	}
	c := res.Choices[0]
	s.text.WriteString(string(c.Message.Content))
	s.refusal.WriteString(string(c.Message.Refusal))
	s.calls, s.finish, s.usage, s.ended = c.Message.ToolCalls, c.FinishReason, &res.Usage, true
	return nil
}

func (s *openAIStream) response() (Response, error) {
	out := Response{Text: s.text.String(), Truncated: s.finish == "length"}
	if u := s.usage; u != nil {
		out.Usage = tokens.Usage{Input: u.PromptTokens, Cached: u.PromptTokensDetails.CachedTokens, Output: u.CompletionTokens}
	}
	for _, tc := range s.calls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		out.Calls = append(out.Calls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: argsJSON(tc.Function.Arguments)})
	}
	if out.Text == "" && len(out.Calls) == 0 {
		out.Text = s.refusal.String()
	}
	return out, nil
}

// argsJSON keeps the model's arguments as they are when they are JSON, and
// wraps them as a JSON string otherwise, so the history stays valid JSON.
func argsJSON(s string) json.RawMessage {
	if s == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

func openAIBody(model string, req Request, maxTokens int64, official bool) (*openAIRequest, error) {
	p := &openAIRequest{Model: model, Stream: true, StreamOptions: &streamOptions{IncludeUsage: true}}
	if official {
		p.MaxCompletionTokens = maxTokens
	} else {
		p.MaxTokens = maxTokens
	}
	text := func(role, s string) openAIMessage { return openAIMessage{Role: role, Content: &s} }
	if req.System != "" {
		p.Messages = append(p.Messages, text("system", req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case User:
			for _, r := range m.Results {
				content := r.Content
				if r.IsError {
					// Chat Completions has no error flag; say it in the text.
					content = "ERROR: " + content
				}
				msg := text("tool", content)
				msg.ToolCallID = r.CallID
				p.Messages = append(p.Messages, msg)
			}
			if t := withNote(m); t != "" {
				p.Messages = append(p.Messages, text("user", t))
			}
		case Assistant:
			a := openAIMessage{Role: "assistant"}
			if m.Text != "" {
				a.Content = &m.Text
			}
			for _, c := range m.Calls {
				tc := openAIToolCall{ID: c.ID, Type: "function"}
				tc.Function.Name, tc.Function.Arguments = c.Name, string(c.Args)
				a.ToolCalls = append(a.ToolCalls, tc)
			}
			p.Messages = append(p.Messages, a)
		default:
			return nil, fmt.Errorf("message role %q", m.Role)
		}
	}
	for _, t := range req.Tools {
		if err := checkSchema(t); err != nil {
			return nil, err
		}
		tool := openAITool{Type: "function"}
		tool.Function.Name, tool.Function.Description, tool.Function.Parameters = t.Name, t.Description, t.Schema
		p.Tools = append(p.Tools, tool)
	}
	if req.NoTools && len(req.Tools) > 0 {
		p.ToolChoice = "none"
	}
	return p, nil
}

// partsText is message content as servers send it: a string, null, or (some
// OpenAI-compatible servers) an array of parts, whose texts are joined.
type partsText string

func (t *partsText) UnmarshalJSON(b []byte) error {
	var s *string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = partsText(deref(s))
		return nil
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(b, &parts); err != nil {
		return fmt.Errorf("content is neither text nor parts: %w", err)
	}
	var all strings.Builder
	for _, p := range parts {
		all.WriteString(p.Text)
	}
	*t = partsText(all.String())
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
