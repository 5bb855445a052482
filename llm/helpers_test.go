package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// wire is one wire format and the model that reaches it.
type wire struct {
	format string // as testkit.ModelRequest.Format
	spec   string // provider/model
	name   string // model name on the wire
}

var wires = []wire{
	{"openai", "openai/gpt-test", "gpt-test"},
	{"anthropic", "anthropic/claude-test", "claude-test"},
}

// fast keeps retries and timeouts short so the suite stays quick.
var fast = Options{Timeout: 2 * time.Second, MaxRetries: 3, Backoff: time.Millisecond}

// overTransport is an openai/gpt-test client whose requests go to rt.
func overTransport(t testing.TB, rt http.RoundTripper, opts Options) *client {
	t.Helper()
	env := map[string]string{"OPENAI_BASE_URL": "http://model.invalid/v1", "OPENAI_API_KEY": "k"}
	c, err := newClient("openai/gpt-test", func(k string) string { return env[k] }, opts, &http.Client{Transport: rt})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func eachWire(t *testing.T, f func(t *testing.T, fm *testkit.FakeModel, w wire)) {
	for _, w := range wires {
		t.Run(w.format, func(t *testing.T) {
			t.Parallel()
			f(t, testkit.NewFakeModel(t), w)
		})
	}
}

func newModel(t testing.TB, fm *testkit.FakeModel, w wire, opts Options) Model {
	t.Helper()
	m, err := New(w.spec, fm.Getenv, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// files is a read-only read_file tool over a map.
func files(m map[string]string) Tool {
	return Tool{
		Name:        "read_file",
		Description: "Read a file of the repository.",
		Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"start_line":{"type":"integer"},"end_line":{"type":"integer"}},"required":["path"]}`),
		Parallel:    true,
		Run: func(_ context.Context, args json.RawMessage) (string, error) {
			var a struct{ Path string }
			if err := json.Unmarshal(args, &a); err != nil {
				return "", err
			}
			s, ok := m[a.Path]
			if !ok {
				return "", fmt.Errorf("%s: no such file", a.Path)
			}
			return s, nil
		},
	}
}

func call(name, args string) testkit.FakeCall { return testkit.FakeCall{Name: name, Args: args} }

// neutral decodes a request body of either format into its messages, for
// assertions that do not care about the format.
type wireMsg struct {
	Role    string
	Text    string
	Calls   []string // tool names
	Results []wireResult
}

type wireResult struct {
	ID, Content string
	IsError     bool
}

func decodeWire(t testing.TB, format string, body []byte) (system string, msgs []wireMsg) {
	t.Helper()
	if format == "openai" {
		var req struct {
			Messages []struct {
				Role       string          `json:"role"`
				Content    json.RawMessage `json:"content"`
				ToolCallID string          `json:"tool_call_id"`
				ToolCalls  []struct {
					Function struct{ Name string } `json:"function"`
				} `json:"tool_calls"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		for _, m := range req.Messages {
			var text string
			json.Unmarshal(m.Content, &text)
			switch m.Role {
			case "system":
				system = text
			case "tool":
				isErr := strings.HasPrefix(text, "ERROR: ")
				r := wireResult{ID: m.ToolCallID, Content: strings.TrimPrefix(text, "ERROR: "), IsError: isErr}
				if n := len(msgs); n > 0 && msgs[n-1].Role == "user" && msgs[n-1].Text == "" {
					msgs[n-1].Results = append(msgs[n-1].Results, r)
				} else {
					msgs = append(msgs, wireMsg{Role: "user", Results: []wireResult{r}})
				}
			case "user":
				if n := len(msgs); n > 0 && msgs[n-1].Role == "user" {
					msgs[n-1].Text = text
				} else {
					msgs = append(msgs, wireMsg{Role: "user", Text: text})
				}
			case "assistant":
				wm := wireMsg{Role: "assistant", Text: text}
				for _, c := range m.ToolCalls {
					wm.Calls = append(wm.Calls, c.Function.Name)
				}
				msgs = append(msgs, wm)
			}
		}
		return system, msgs
	}
	var req struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string          `json:"type"`
				Text      string          `json:"text"`
				Name      string          `json:"name"`
				ToolUseID string          `json:"tool_use_id"`
				IsError   bool            `json:"is_error"`
				Content   json.RawMessage `json:"content"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	system = blocksText(t, req.System)
	for _, m := range req.Messages {
		wm := wireMsg{Role: m.Role}
		for _, b := range m.Content {
			switch b.Type {
			case "text":
				wm.Text += b.Text
			case "tool_use":
				wm.Calls = append(wm.Calls, b.Name)
			case "tool_result":
				r := wireResult{ID: b.ToolUseID, IsError: b.IsError, Content: blocksText(t, b.Content)}
				wm.Results = append(wm.Results, r)
			}
		}
		msgs = append(msgs, wm)
	}
	return system, msgs
}

// blocksText reads Anthropic content the way the API takes it: a string or
// an array of text blocks.
func blocksText(t testing.TB, raw json.RawMessage) string {
	t.Helper()
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		t.Fatalf("content is neither a string nor text blocks: %s", raw)
	}
	for _, b := range blocks {
		s += b.Text
	}
	return s
}

func enveloped(v any) string {
	b, _ := json.Marshal(v)
	return "Done.\nBEGIN_JSON\n" + string(b) + "\nEND_JSON\n"
}

func readBody(req *http.Request) []byte {
	if req.Body == nil {
		return nil
	}
	b, _ := io.ReadAll(req.Body)
	return b
}

// fixedStream is a transport that answers every request with the events
// as a text/event-stream.
type fixedStream struct {
	events []string
	cut    bool // no empty line after the last event
	raw    bool // the events are the stream's text, fields and all
	calls  int
}

func (f *fixedStream) RoundTrip(r *http.Request) (*http.Response, error) {
	f.calls++
	var b strings.Builder
	for _, e := range f.events {
		if f.raw {
			b.WriteString(e)
			continue
		}
		b.WriteString("data: " + e + "\n\n")
	}
	s := b.String()
	if f.cut {
		s = strings.TrimSuffix(s, "\n")
	}
	h := http.Header{"Content-Type": {"text/event-stream"}}
	return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(strings.NewReader(s)), Request: r}, nil
}
