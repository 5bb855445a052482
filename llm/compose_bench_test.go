package llm

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/worknote"
)

// BenchmarkCompose builds the request of turn 200 of a tool loop: the
// newest exchanges that fit DefaultBudget, the task and the working note.
//
//	go test -run '^$' -bench Compose ./llm
func BenchmarkCompose(b *testing.B) {
	note := worknote.New(worknote.WIP{}, 0)
	for i := range 200 {
		note.Add(fmt.Sprintf("step %d: read big.go again, still looking", i))
	}
	result := strings.Repeat("func f() {}\n", 256)
	hist := make([]exchange, 200)
	for i := range hist {
		hist[i] = fit(exchange{
			ask:   Message{Role: Assistant, Calls: []ToolCall{{ID: fmt.Sprint("call-", i), Name: "read_file", Args: json.RawMessage(`{"path":"big.go"}`)}}},
			reply: Message{Role: User, Results: []ToolResult{{CallID: fmt.Sprint("call-", i), Content: result}}},
		}, DefaultBudget)
	}
	tools := []ToolSpec{{Name: "read_file", Description: "Read a file.", Schema: json.RawMessage(`{"type":"object"}`)}}
	for b.Loop() {
		if req, start := compose("You fix code.", Message{Role: User, Text: "Fix the findings."}, note, hist, DefaultBudget, tools, false); start == 0 || len(req.Messages) < 3 {
			b.Fatal(start, len(req.Messages))
		}
	}
}

// BenchmarkOpenAIBody turns a full-budget request into the bytes sent to
// Chat Completions, the other half of composing a request.
func BenchmarkOpenAIBody(b *testing.B) {
	benchParams(b, func(req Request) error { return encode(openAIBody("gpt-test", req, 8192, true)) })
}

// BenchmarkAnthropicBody is BenchmarkOpenAIBody for the Messages API.
func BenchmarkAnthropicBody(b *testing.B) {
	benchParams(b, func(req Request) error { return encode(anthropicBody("claude-test", req, 8192)) })
}

func encode[T any](body T, err error) error {
	if err != nil {
		return err
	}
	_, err = json.Marshal(body)
	return err
}

func benchParams(b *testing.B, f func(Request) error) {
	result := strings.Repeat("func f() {}\n", 256)
	req := Request{System: "You fix code.", Messages: []Message{{Role: User, Text: "Fix the findings."}},
		Tools: []ToolSpec{{Name: "read_file", Description: "Read a file.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}}
	for i := range 10 {
		id := fmt.Sprint("call-", i)
		req.Messages = append(req.Messages,
			Message{Role: Assistant, Calls: []ToolCall{{ID: id, Name: "read_file", Args: json.RawMessage(`{"path":"big.go"}`)}}},
			Message{Role: User, Results: []ToolResult{{CallID: id, Content: result}}})
	}
	for b.Loop() {
		if err := f(req); err != nil {
			b.Fatal(err)
		}
	}
}
