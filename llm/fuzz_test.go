package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzComposedRequests runs the agent loop with a random model seeded by the
// fuzzer; randomModel checks every composed request (no orphaned call or
// result, unique ids, history within budget, accepted by both wire formats).
func FuzzComposedRequests(f *testing.F) {
	f.Add(uint64(1), uint64(2), uint16(0))
	f.Add(uint64(42), uint64(7), uint16(9000))
	f.Add(uint64(0), uint64(0), uint16(65535))
	tools := []Tool{
		{Name: "read_file", Schema: json.RawMessage(`{"type":"object"}`), Parallel: true, Run: randomTool(1)},
		{Name: "search", Schema: json.RawMessage(`{"type":"object"}`), Parallel: true, Run: randomTool(2)},
		{Name: "edit_file", Schema: json.RawMessage(`{"type":"object"}`), Run: randomTool(3)},
	}
	f.Fuzz(func(t *testing.T, s1, s2 uint64, b uint16) {
		rng := rand.New(rand.NewPCG(s1, s2))
		budget := MinBudget + int(b)
		m := &randomModel{t: t, rng: rng, budget: budget, turns: 5 + rng.IntN(40)}
		a := &Agent{Role: "fuzz", Model: m, System: "s", Task: "the task", Tools: tools, Budget: budget, MaxIters: 100}
		var out struct {
			Done bool `json:"done"`
		}
		if _, err := a.Run(context.Background(), &out); err != nil || !out.Done {
			t.Fatalf("%v", err)
		}
	})
}

// fixedAnswer is a transport that answers every request with one body.
type fixedAnswer string

func (a fixedAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(string(a))), Request: r}, nil
}

// FuzzAnswers: whatever a server answers with status 200, the model client
// returns a response or ErrBadResponse; never a panic, and tool calls always
// carry JSON arguments the next request can send back.
func FuzzAnswers(f *testing.F) {
	for _, s := range []string{
		okBody, `{"choices":[]}`, `{"choices":[{"message":{"content":[{"text":"a"}],"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"not json"}}]}}]}`,
		`{"content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t","name":"f","input":{"a":1}}],"stop_reason":"tool_use","usage":{"input_tokens":1}}`,
		`{"content":[],"stop_reason":"end_turn"}`, `{"content":[{"type":"tool_use","input":null}],"stop_reason":"x"}`, `null`, `[]`, `{"choices":null}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) { checkAnswer(t, fixedAnswer(body)) })
}

// FuzzStreams: the same for a streamed answer, which may also end as a cut
// stream or with the stream's error event.
func FuzzStreams(f *testing.F) {
	for _, name := range []string{"openai_stream_tools.sse", "openai_stream_length.sse", "anthropic_stream_tool_use.sse", "anthropic_stream_max_tokens.sse"} {
		b, err := os.ReadFile(filepath.Join("testdata", "contract", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":3,\"function\":{\"arguments\":\"{\"}}]},\"finish_reason\":\"length\"}]}\n\n")
	f.Add("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":5}\n\n")
	f.Add("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}\n\n")
	f.Fuzz(func(t *testing.T, body string) { checkAnswer(t, &fixedStream{events: []string{body}, raw: true}) })
}

func checkAnswer(t *testing.T, rt http.RoundTripper) {
	hc := &http.Client{Transport: rt}
	opts := Options{Timeout: time.Second, MaxRetries: -1}.withDefaults()
	post := func(url string) *poster { return &poster{hc: hc, url: url, header: jsonHeader(), opts: opts} }
	for _, p := range []chatter{
		newOpenAI("m", post("http://model.invalid/v1/chat/completions"), 10, true),
		newAnthropic("m", post("http://model.invalid/v1/messages"), 10),
	} {
		resp, err := p.chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}})
		if err != nil {
			var api *APIError
			if !errors.Is(err, ErrBadResponse) && !errors.Is(err, errStreamCut) && !errors.As(err, &api) {
				t.Fatalf("%T: %v is not ErrBadResponse, a cut stream or an error event", p, err)
			}
			continue
		}
		for _, c := range resp.Calls {
			if !json.Valid(c.Args) {
				t.Fatalf("%T: call %q has arguments %q that are not JSON", p, c.Name, c.Args)
			}
		}
	}
}
