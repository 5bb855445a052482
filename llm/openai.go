package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// openAIChat speaks Chat Completions, for OpenAI and OpenAI-compatible
// servers (Ollama, vLLM, LM Studio, llama.cpp, OpenRouter).
type openAIChat struct {
	model     string
	post      *poster
	maxTokens int64
	official  bool // OpenAI itself wants max_completion_tokens; compatible servers know max_tokens
}

func newOpenAI(model, baseURL, key string, hc *http.Client, opts Options, official bool) *openAIChat {
	h := jsonHeader()
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	return &openAIChat{
		model:     model,
		post:      &poster{hc: hc, url: baseURL + "/chat/completions", header: h, opts: opts},
		maxTokens: opts.MaxTokens,
		official:  official,
	}
}

// The request and answer of POST /chat/completions, as far as we use them.
type (
	openAIRequest struct {
		Model               string          `json:"model"`
		Messages            []openAIMessage `json:"messages"`
		Tools               []openAITool    `json:"tools,omitempty"`
		ToolChoice          string          `json:"tool_choice,omitempty"`
		MaxTokens           int64           `json:"max_tokens,omitempty"`
		MaxCompletionTokens int64           `json:"max_completion_tokens,omitempty"`
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
	openAIAnswer struct {
		Choices []struct {
			Message struct {
				Content   partsText        `json:"content"`
				Refusal   partsText        `json:"refusal"`
				ToolCalls []openAIToolCall `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
		Usage struct {
			PromptTokens        int64 `json:"prompt_tokens"` // cached included
			CompletionTokens    int64 `json:"completion_tokens"`
			PromptTokensDetails struct {
				CachedTokens int64 `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
)

func (c *openAIChat) chat(ctx context.Context, req Request) (Response, error) {
	body, err := openAIBody(c.model, req, c.maxTokens, c.official)
	if err != nil {
		return Response{}, err
	}
	var res openAIAnswer
	if err := c.post.post(ctx, body, &res); err != nil {
		return Response{}, err
	}
	if len(res.Choices) == 0 {
		return Response{}, fmt.Errorf("%w: no choices in the answer", ErrBadResponse)
	}
	msg := res.Choices[0].Message
	out := Response{
		Text:  string(msg.Content),
		Usage: Usage{Input: res.Usage.PromptTokens, Cached: res.Usage.PromptTokensDetails.CachedTokens, Output: res.Usage.CompletionTokens},
	}
	for _, tc := range msg.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		out.Calls = append(out.Calls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: argsJSON(tc.Function.Arguments)})
	}
	if out.Text == "" && len(out.Calls) == 0 {
		out.Text = string(msg.Refusal)
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
	p := &openAIRequest{Model: model}
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
