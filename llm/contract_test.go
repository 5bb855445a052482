//go:build sdkcontract

package llm

// Contract tests against the official SDKs, imported here only (they never
// link into the binary; TestSDKsNotLinked checks it): every request shape
// gh-ocdx sends is compared with what the SDK sends for the same
// conversation and decoded into the SDK's param type, and every answer
// fixture of testdata/contract is parsed by both and the results compared.
// They build only with the sdkcontract tag, which .ci/run sets: compiling
// both SDKs costs a fresh checkout minutes that go test ./... should not.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/ocdx/gh-ocdx/internal/tokens"
)

// conversations are the request shapes gh-ocdx sends.
var conversations = map[string]Request{
	"plain":              {System: "You review code.", Messages: []Message{{Role: User, Text: "Review PR #7."}}},
	"tools":              {System: "You review code.", Messages: []Message{{Role: User, Text: "Review PR #7."}}, Tools: contractTools},
	"no tools this turn": {System: "s", Messages: []Message{{Role: User, Text: "Answer now."}}, Tools: contractTools, NoTools: true},
	"tool results": {System: "You fix code.", Tools: contractTools, Messages: []Message{
		{Role: User, Text: "Fix QUAL-1."},
		{Role: Assistant, Text: "Reading first.", Calls: []ToolCall{
			{ID: "call_1", Name: "read_file", Args: json.RawMessage(`{"path":"a.go"}`)},
			{ID: "call_2", Name: "read_file", Args: json.RawMessage(`{"path":"missing.go"}`)},
		}},
		{Role: User, Results: []ToolResult{{CallID: "call_1", Content: "package a"}, {CallID: "call_2", Content: "no such file", IsError: true}}},
	}},
	"cache breakpoints": {System: "You fix code.", Tools: contractTools, Messages: []Message{
		{Role: User, Text: "Fix QUAL-1."},
		{Role: Assistant, Calls: []ToolCall{{ID: "toolu_1", Name: "read_file", Args: json.RawMessage(`{"path":"a.go"}`)}}},
		{Role: User, Results: []ToolResult{{CallID: "toolu_1", Content: "package a"}}, Note: "## Working note\nread a.go"},
	}},
}

var contractTools = []ToolSpec{{Name: "read_file", Description: "Read a file.",
	Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}

// recorder is a server that keeps each request body and answers with body.
func recorder(t *testing.T, contentType, body string) (string, func() []byte) {
	var mu sync.Mutex
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = b
		mu.Unlock()
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []byte { mu.Lock(); defer mu.Unlock(); return got }
}

// sameJSON compares two JSON documents as values, after norm.
func sameJSON(t *testing.T, what string, ours, sdk []byte, norm func(any) any) {
	t.Helper()
	var a, b any
	if err := json.Unmarshal(ours, &a); err != nil {
		t.Fatalf("%s: ours: %v", what, err)
	}
	if err := json.Unmarshal(sdk, &b); err != nil {
		t.Fatalf("%s: sdk: %v", what, err)
	}
	if norm != nil {
		a, b = norm(a), norm(b)
	}
	if !reflect.DeepEqual(a, b) {
		ja, _ := json.MarshalIndent(a, "", " ")
		jb, _ := json.MarshalIndent(b, "", " ")
		t.Errorf("%s differs\ngh-ocdx: %s\nSDK:     %s", what, ja, jb)
	}
}

const doneStream = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"

func TestOpenAIRequestsMatchTheSDK(t *testing.T) {
	for name, req := range conversations {
		t.Run(name, func(t *testing.T) {
			url, last := recorder(t, "text/event-stream", doneStream)
			env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": url}
			c, err := newClient("openai/gpt-4.1", func(k string) string { return env[k] }, Options{MaxTokens: 4096}, http.DefaultClient)
			if err != nil {
				t.Fatal(err)
			}
			// The official endpoint's parameter, as the SDK's users send it.
			c.p.(*openAIChat).official = true
			if _, err := c.Chat(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			ours := last()

			sdk := openai.NewClient(ooption.WithBaseURL(url), ooption.WithAPIKey("k"), ooption.WithMaxRetries(0))
			stream := sdk.Chat.Completions.NewStreaming(context.Background(), openAIParams(req))
			for stream.Next() {
			}
			if err := stream.Err(); err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "request", ours, last(), nil)

			// Every field we send is one the SDK's param type knows.
			var p openai.ChatCompletionNewParams
			if err := json.Unmarshal(ours, &p); err != nil {
				t.Fatal(err)
			}
			back, _ := json.Marshal(p)
			sameJSON(t, "request through ChatCompletionNewParams", ours, back, noStream)
		})
	}
}

// openAIParams is the conversation as an SDK user writes it.
func openAIParams(req Request) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{Model: "gpt-4.1", MaxCompletionTokens: openai.Int(4096),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}}
	if req.System != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		if m.Role == User {
			for _, r := range m.Results {
				content := r.Content
				if r.IsError {
					content = "ERROR: " + content
				}
				p.Messages = append(p.Messages, openai.ToolMessage(content, r.CallID))
			}
			if t := withNote(m); t != "" {
				p.Messages = append(p.Messages, openai.UserMessage(t))
			}
			continue
		}
		a := openai.ChatCompletionAssistantMessageParam{}
		if m.Text != "" {
			a.Content.OfString = openai.String(m.Text)
		}
		for _, c := range m.Calls {
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID: c.ID, Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: string(c.Args)}}})
		}
		p.Messages = append(p.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
	}
	for _, t := range req.Tools {
		var schema shared.FunctionParameters
		json.Unmarshal(t.Schema, &schema)
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: t.Name, Description: openai.String(t.Description), Parameters: schema}))
	}
	if req.NoTools {
		p.ToolChoice.OfAuto = openai.String("none")
	}
	return p
}

func TestAnthropicRequestsMatchTheSDK(t *testing.T) {
	for name, req := range conversations {
		t.Run(name, func(t *testing.T) {
			url, last := recorder(t, "text/event-stream", readFixture(t, "anthropic_stream_text.sse"))
			env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": url}
			c, err := newClient("anthropic/claude-sonnet-4-5", func(k string) string { return env[k] }, Options{MaxTokens: 4096}, http.DefaultClient)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Chat(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			ours := last()

			sdk := anthropic.NewClient(aoption.WithBaseURL(url), aoption.WithAPIKey("k"), aoption.WithMaxRetries(0))
			stream := sdk.Messages.NewStreaming(context.Background(), anthropicParams(req))
			for stream.Next() {
			}
			if err := stream.Err(); err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "request", ours, last(), anthropicForms)

			var p anthropic.MessageNewParams
			if err := json.Unmarshal(ours, &p); err != nil {
				t.Fatal(err)
			}
			back, _ := json.Marshal(p)
			sameJSON(t, "request through MessageNewParams", ours, back, func(v any) any { return anthropicForms(noStream(v)) })
		})
	}
}

// anthropicParams is the conversation as an SDK user writes it, with the
// cache breakpoints gh-ocdx sets: the task, and the newest result before
// the working note, once the agent has a note.
func anthropicParams(req Request) anthropic.MessageNewParams {
	p := anthropic.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 4096, System: []anthropic.TextBlockParam{{Text: req.System}}}
	cache := false
	for _, m := range req.Messages {
		cache = cache || m.Note != ""
	}
	for i, m := range req.Messages {
		var blocks []anthropic.ContentBlockParamUnion
		for _, r := range m.Results {
			blocks = append(blocks, anthropic.NewToolResultBlock(r.CallID, r.Content, r.IsError))
		}
		if m.Text != "" {
			blocks = append(blocks, anthropic.NewTextBlock(m.Text))
		}
		if cache && len(blocks) > 0 && (i == 0 || m.Note != "") {
			if cc := blocks[len(blocks)-1].GetCacheControl(); cc != nil {
				*cc = anthropic.NewCacheControlEphemeralParam()
			}
		}
		if m.Note != "" {
			blocks = append(blocks, anthropic.NewTextBlock(m.Note))
		}
		for _, c := range m.Calls {
			blocks = append(blocks, anthropic.NewToolUseBlock(c.ID, c.Args, c.Name))
		}
		if m.Role == User {
			p.Messages = append(p.Messages, anthropic.NewUserMessage(blocks...))
		} else {
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(blocks...))
		}
	}
	for _, t := range req.Tools {
		var s struct {
			Properties any      `json:"properties"`
			Required   []string `json:"required"`
		}
		json.Unmarshal(t.Schema, &s)
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{Name: t.Name, Description: anthropic.String(t.Description),
			InputSchema: anthropic.ToolInputSchemaParam{Properties: s.Properties, Required: s.Required}}})
	}
	if req.NoTools {
		p.ToolChoice = anthropic.ToolChoiceUnionParam{OfNone: &anthropic.ToolChoiceNoneParam{}}
	}
	return p
}

// noStream drops "stream": the SDKs' param types leave it out, their
// NewStreaming adds it.
func noStream(v any) any {
	if m, ok := v.(map[string]any); ok {
		delete(m, "stream")
	}
	return v
}

// anthropicForms writes the equivalent forms the Messages API takes in one
// way: system as a string or text blocks, a tool result's content as a
// string or text blocks, is_error false or absent.
func anthropicForms(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if k == "is_error" && e == false {
				continue
			}
			if s, ok := e.(string); ok && (k == "system" || k == "content" && x["type"] == "tool_result") {
				e = []any{map[string]any{"type": "text", "text": s}}
			}
			out[k] = anthropicForms(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = anthropicForms(e)
		}
		return out
	}
	return v
}

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "contract", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// parsed is what a parser made of an answer, in terms both share.
type parsed struct {
	Text      string
	Calls     []ToolCall
	Usage     tokens.Usage
	Truncated bool
}

// ours parses a fixture with gh-ocdx's client.
func ours(t *testing.T, spec, fixture string) parsed {
	ctype := "application/json"
	if strings.HasSuffix(fixture, ".sse") {
		ctype = "text/event-stream"
	}
	url, _ := recorder(t, ctype, readFixture(t, fixture))
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": url, "ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": url}
	c, err := newClient(spec, func(k string) string { return env[k] }, Options{MaxRetries: -1}, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}})
	if err != nil && !errors.Is(err, ErrOutputCap) {
		t.Fatal(err)
	}
	resp.Usage.Calls = 0
	return parsed(resp)
}

func TestOpenAIAnswersParseAsTheSDKParsesThem(t *testing.T) {
	for _, fixture := range []string{"openai_text.json", "openai_tools.json", "openai_length.json", "openai_stream_text.sse", "openai_stream_tools.sse", "openai_stream_length.sse"} {
		t.Run(fixture, func(t *testing.T) {
			var cc openai.ChatCompletion
			if strings.HasSuffix(fixture, ".json") {
				if err := json.Unmarshal([]byte(readFixture(t, fixture)), &cc); err != nil {
					t.Fatal(err)
				}
			} else {
				url, _ := recorder(t, "text/event-stream", readFixture(t, fixture))
				sdk := openai.NewClient(ooption.WithBaseURL(url), ooption.WithAPIKey("k"), ooption.WithMaxRetries(0))
				stream := sdk.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{Model: "gpt-4.1"})
				var acc openai.ChatCompletionAccumulator
				for stream.Next() {
					acc.AddChunk(stream.Current())
				}
				if err := stream.Err(); err != nil {
					t.Fatal(err)
				}
				cc = acc.ChatCompletion
			}
			ch := cc.Choices[0]
			want := parsed{Text: ch.Message.Content, Truncated: ch.FinishReason == "length",
				Usage: tokens.Usage{Input: cc.Usage.PromptTokens, Cached: cc.Usage.PromptTokensDetails.CachedTokens, Output: cc.Usage.CompletionTokens}}
			for _, c := range ch.Message.ToolCalls {
				want.Calls = append(want.Calls, ToolCall{ID: c.ID, Name: c.Function.Name, Args: json.RawMessage(c.Function.Arguments)})
			}
			compare(t, ours(t, "openai/gpt-4.1", fixture), want)
		})
	}
}

func TestAnthropicAnswersParseAsTheSDKParsesThem(t *testing.T) {
	for _, fixture := range []string{"anthropic_text.json", "anthropic_tool_use.json", "anthropic_max_tokens.json", "anthropic_stream_text.sse", "anthropic_stream_tool_use.sse", "anthropic_stream_max_tokens.sse"} {
		t.Run(fixture, func(t *testing.T) {
			var msg anthropic.Message
			if strings.HasSuffix(fixture, ".json") {
				if err := json.Unmarshal([]byte(readFixture(t, fixture)), &msg); err != nil {
					t.Fatal(err)
				}
			} else {
				url, _ := recorder(t, "text/event-stream", readFixture(t, fixture))
				sdk := anthropic.NewClient(aoption.WithBaseURL(url), aoption.WithAPIKey("k"), aoption.WithMaxRetries(0))
				stream := sdk.Messages.NewStreaming(context.Background(), anthropic.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 10,
					Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("x"))}})
				for stream.Next() {
					if err := msg.Accumulate(stream.Current()); err != nil {
						t.Fatal(err)
					}
				}
				if err := stream.Err(); err != nil {
					t.Fatal(err)
				}
			}
			u := msg.Usage
			want := parsed{Truncated: msg.StopReason == anthropic.StopReasonMaxTokens,
				Usage: tokens.Usage{Input: u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens, Cached: u.CacheReadInputTokens, Output: u.OutputTokens}}
			for _, b := range msg.Content {
				switch b.Type {
				case "text":
					want.Text += b.Text
				case "tool_use":
					want.Calls = append(want.Calls, ToolCall{ID: b.ID, Name: b.Name, Args: b.Input})
				}
			}
			compare(t, ours(t, "anthropic/claude-sonnet-4-5", fixture), want)
		})
	}
}

// compare checks text, usage, truncation and tool calls; arguments compare
// as JSON values. The arguments of a call the output cap cut are not
// compared (the SDKs keep the cut text or make {} of it): gh-ocdx never
// runs that call (TestOutputCap).
func compare(t *testing.T, got, want parsed) {
	t.Helper()
	if got.Text != want.Text || got.Usage != want.Usage || got.Truncated != want.Truncated || len(got.Calls) != len(want.Calls) {
		t.Fatalf("gh-ocdx %+v\nSDK     %+v", got, want)
	}
	for i, w := range want.Calls {
		g := got.Calls[i]
		if g.ID != w.ID || g.Name != w.Name {
			t.Errorf("call %d: %+v, SDK %+v", i, g, w)
		}
		if want.Truncated && i == len(want.Calls)-1 {
			continue
		}
		wantArgs := w.Args
		if len(wantArgs) == 0 {
			wantArgs = json.RawMessage("{}")
		}
		sameJSON(t, "arguments of "+g.Name, g.Args, wantArgs, nil)
	}
}
