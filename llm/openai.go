package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// openAIChat speaks Chat Completions, for OpenAI and OpenAI-compatible
// servers (Ollama, vLLM, LM Studio, llama.cpp, OpenRouter).
type openAIChat struct {
	model     string
	svc       openai.ChatCompletionService
	maxTokens int64
	official  bool // OpenAI itself wants max_completion_tokens; compatible servers know max_tokens
}

func newOpenAI(model, baseURL, key string, hc *http.Client, opts Options, official bool) *openAIChat {
	o := []option.RequestOption{
		option.WithHTTPClient(hc),
		option.WithBaseURL(baseURL),
		option.WithMaxRetries(opts.MaxRetries),
	}
	if key != "" {
		o = append(o, option.WithAPIKey(key))
	}
	// The service, not openai.NewClient: the client would also read OPENAI_*
	// variables from the process environment behind the caller's back.
	return &openAIChat{model: model, svc: openai.NewChatCompletionService(o...), maxTokens: opts.MaxTokens, official: official}
}

func (c *openAIChat) chat(ctx context.Context, req Request) (Response, error) {
	params, err := openAIParams(c.model, req, c.maxTokens, c.official)
	if err != nil {
		return Response{}, err
	}
	res, err := c.svc.New(ctx, params)
	if err != nil {
		var api *openai.Error
		if errors.As(err, &api) {
			return Response{}, apiError(api.StatusCode, api.Message, api.Response)
		}
		return Response{}, classifyDecode(err)
	}
	if res == nil || len(res.Choices) == 0 {
		return Response{}, fmt.Errorf("%w: no choices in the answer", ErrBadResponse)
	}
	msg := res.Choices[0].Message
	out := Response{
		Text:  msg.Content,
		Usage: Usage{Input: res.Usage.PromptTokens, Output: res.Usage.CompletionTokens},
	}
	for _, tc := range msg.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		out.Calls = append(out.Calls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: argsJSON(tc.Function.Arguments)})
	}
	if out.Text == "" && len(out.Calls) == 0 && msg.Refusal != "" {
		out.Text = msg.Refusal
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

func openAIParams(model string, req Request, maxTokens int64, official bool) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(model)}
	if official {
		p.MaxCompletionTokens = openai.Int(maxTokens)
	} else {
		p.MaxTokens = openai.Int(maxTokens)
	}
	if req.System != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(req.System))
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
				p.Messages = append(p.Messages, openai.ToolMessage(content, r.CallID))
			}
			if m.Text != "" {
				p.Messages = append(p.Messages, openai.UserMessage(m.Text))
			}
		case Assistant:
			var a openai.ChatCompletionAssistantMessageParam
			if m.Text != "" {
				a.Content.OfString = openai.String(m.Text)
			}
			for _, c := range m.Calls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: string(c.Args)},
					},
				})
			}
			p.Messages = append(p.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		default:
			return p, fmt.Errorf("message role %q", m.Role)
		}
	}
	for _, t := range req.Tools {
		schema, err := schemaMap(t)
		if err != nil {
			return p, err
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: openai.String(t.Description),
			Parameters:  shared.FunctionParameters(schema),
		}))
	}
	if req.NoTools && len(req.Tools) > 0 {
		p.ToolChoice.OfAuto = openai.String("none")
	}
	return p, nil
}

func schemaMap(t ToolSpec) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(t.Schema, &m); err != nil || m == nil {
		return nil, fmt.Errorf("tool %s: schema is not a JSON object", t.Name)
	}
	return m, nil
}

// classifyDecode marks JSON decoding failures of an answer as ErrBadResponse
// and leaves transport errors alone.
func classifyDecode(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	return err
}
