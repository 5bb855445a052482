package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

// anthropicChat speaks the Messages API.
type anthropicChat struct {
	model     string
	svc       anthropic.Client
	maxTokens int64
}

func newAnthropic(model, baseURL, key string, hc *http.Client, opts Options) *anthropicChat {
	svc := anthropic.NewClient(
		// The caller resolved the key and URL; ignore ANTHROPIC_* variables,
		// profiles and federation in the process environment.
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(hc),
		option.WithBaseURL(baseURL),
		option.WithAPIKey(key),
		option.WithMaxRetries(opts.MaxRetries),
		// Explicit, or the SDK refuses large max_tokens without streaming.
		option.WithRequestTimeout(opts.Timeout),
	)
	return &anthropicChat{model: model, svc: svc, maxTokens: opts.MaxTokens}
}

func (c *anthropicChat) chat(ctx context.Context, req Request) (Response, error) {
	params, err := anthropicParams(c.model, req, c.maxTokens)
	if err != nil {
		return Response{}, err
	}
	res, err := c.svc.Messages.New(ctx, params)
	if err != nil {
		var api *anthropic.Error
		if errors.As(err, &api) {
			return Response{}, apiError(api.StatusCode, anthropicMessage(api.RawJSON()), api.Response)
		}
		return Response{}, classifyDecode(err)
	}
	if res == nil || (len(res.Content) == 0 && res.StopReason == "") {
		return Response{}, fmt.Errorf("%w: no content and no stop reason", ErrBadResponse)
	}
	u := res.Usage
	out := Response{Usage: Usage{Input: u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens, Output: u.OutputTokens}}
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

func anthropicMessage(raw string) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(raw), &e) == nil {
		return e.Error.Message
	}
	return ""
}

func anthropicParams(model string, req Request, maxTokens int64) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: maxTokens}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	for _, m := range req.Messages {
		var blocks []anthropic.ContentBlockParamUnion
		switch m.Role {
		case User:
			// tool_result blocks come first in the user message.
			for _, r := range m.Results {
				blocks = append(blocks, anthropic.NewToolResultBlock(r.CallID, r.Content, r.IsError))
			}
			if m.Text != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Text))
			}
			p.Messages = append(p.Messages, anthropic.NewUserMessage(blocks...))
		case Assistant:
			if m.Text != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Text))
			}
			for _, c := range m.Calls {
				blocks = append(blocks, anthropic.NewToolUseBlock(c.ID, inputObject(c.Args), c.Name))
			}
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(blocks...))
		default:
			return p, fmt.Errorf("message role %q", m.Role)
		}
	}
	for _, t := range req.Tools {
		schema, err := schemaMap(t)
		if err != nil {
			return p, err
		}
		in := anthropic.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
		if req, ok := schema["required"].([]any); ok {
			for _, r := range req {
				if s, ok := r.(string); ok {
					in.Required = append(in.Required, s)
				}
			}
		}
		for k, v := range schema {
			if k != "type" && k != "properties" && k != "required" {
				in.ExtraFields[k] = v
			}
		}
		tool := anthropic.ToolUnionParamOfTool(in, t.Name)
		tool.OfTool.Description = anthropic.String(t.Description)
		p.Tools = append(p.Tools, tool)
	}
	if req.NoTools && len(req.Tools) > 0 {
		p.ToolChoice = anthropic.ToolChoiceUnionParam{OfNone: &anthropic.ToolChoiceNoneParam{}}
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
