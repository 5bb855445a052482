package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"
)

type fuzzShape struct {
	Agent    string   `json:"agent"`
	PR       int      `json:"prNumber"`
	Items    []string `json:"items"`
	Optional *string  `json:"optional" envelope:"optional"`
}

// FuzzDecode: any answer decodes into the shape with exactly one envelope,
// or fails with a typed envelope error naming the role; never a panic.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"BEGIN_JSON\n{\"agent\":\"r\",\"prNumber\":1,\"items\":[]}\nEND_JSON",
		"no envelope", "BEGIN_JSON {} END_JSON", "BEGIN_JSON {\"agent\":1} END_JSON",
		"BEGIN_JSON {\"agent\":\"a\",\"prNumber\":1,\"items\":[]} END_JSON BEGIN_JSON {} END_JSON",
		"BEGIN_JSON {\"agent\":\"a\",\"prNumber\":1,\"items\":[\"x\"],\"extra\":true} END_JSON trailing",
		"BEGIN_JSON {\"agent\":\"a\" END_JSON", "END_JSON BEGIN_JSON", "```json\nBEGIN_JSON\n{\"agent\":\"é\",\"prNumber\":-1,\"items\":null}\nEND_JSON\n```",
	} {
		f.Add(s)
	}
	kinds := []error{ErrNoEnvelope, ErrTwoEnvelopes, ErrInvalidJSON, ErrWrongType, ErrMissingField, ErrInvalidValue}
	f.Fuzz(func(t *testing.T, answer string) {
		var v fuzzShape
		err := Decode("fuzz-role", answer, &v)
		if err == nil {
			if strings.Count(answer, BeginMarker) < 1 {
				t.Fatal("decoded an answer without an envelope")
			}
			return
		}
		var ee *EnvelopeError
		if !errors.As(err, &ee) || ee.Role != "fuzz-role" {
			t.Fatalf("untyped error or wrong role: %v", err)
		}
		known := false
		for _, k := range kinds {
			known = known || errors.Is(err, k)
		}
		if !known {
			t.Fatalf("unknown kind: %v", err)
		}
	})
}

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
	f.Fuzz(func(t *testing.T, body string) {
		hc := &http.Client{Transport: fixedAnswer(body)}
		opts := Options{Timeout: time.Second, MaxRetries: 0}.withDefaults()
		post := func(url string) *poster { return &poster{hc: hc, url: url, header: jsonHeader(), opts: opts} }
		for _, p := range []chatter{
			newOpenAI("m", post("http://model.invalid/v1/chat/completions"), 10, true),
			newAnthropic("m", post("http://model.invalid/v1/messages"), 10),
		} {
			resp, err := p.chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}})
			if err != nil {
				if !errors.Is(err, ErrBadResponse) {
					t.Fatalf("%T: %v is not ErrBadResponse", p, err)
				}
				continue
			}
			for _, c := range resp.Calls {
				if !json.Valid(c.Args) {
					t.Fatalf("%T: call %q has arguments %q that are not JSON", p, c.Name, c.Args)
				}
			}
		}
	})
}
