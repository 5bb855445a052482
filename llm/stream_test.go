package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

func ask(t *testing.T, m Model) (Response, error) {
	t.Helper()
	return m.Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}})
}

// The answer streams: the fake answers a streaming request with events, and
// the client asks for usage in the OpenAI stream.
func TestBothProvidersStream(t *testing.T) {
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		fm.Script(w.name, testkit.Step{Text: "a streamed answer in pieces", Calls: []testkit.FakeCall{call("read_file", `{"path":"a.go","start_line":1}`)}, InputTokens: 300, OutputTokens: 42})
		resp, err := ask(t, newModel(t, fm, w, fast))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != "a streamed answer in pieces" || len(resp.Calls) != 1 || string(resp.Calls[0].Args) != `{"path":"a.go","start_line":1}` || resp.Calls[0].ID == "" {
			t.Errorf("assembled %+v", resp)
		}
		if resp.Usage.Output != 42 || resp.Usage.Input != 300 || resp.Truncated {
			t.Errorf("usage %+v, truncated %v", resp.Usage, resp.Truncated)
		}
		body := string(fm.Requests(w.name)[0].Body)
		if !strings.Contains(body, `"stream":true`) || w.format == "openai" && !strings.Contains(body, `"stream_options":{"include_usage":true}`) {
			t.Errorf("request does not ask for a stream with usage: %s", body)
		}
	})
}

// A stream cut midway (a hang-up, an overloaded error event) is retried as
// a whole call: the partial text is never used.
func TestCutStreamRetriedWhole(t *testing.T) {
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		fm.Script(w.name, testkit.CutStream("half of an answer"), testkit.Step{Text: "the rest of it", StreamError: "overloaded_error"}, testkit.Reply("whole"))
		resp, err := ask(t, newModel(t, fm, w, fast))
		if err != nil || resp.Text != "whole" {
			t.Fatalf("%+v %v", resp, err)
		}
		if n := len(fm.Requests(w.name)); n != 3 {
			t.Errorf("%d requests, want 3", n)
		}
		// Every attempt cut: an error, never the half answer.
		fm.Script(w.name, testkit.CutStream("half"), testkit.CutStream("half"))
		resp, err = ask(t, newModel(t, fm, w, Options{MaxRetries: 1, Backoff: time.Millisecond}))
		if err == nil || resp.Text != "" || !strings.Contains(err.Error(), "ended before its end") || !strings.HasPrefix(err.Error(), w.spec) {
			t.Errorf("%+v %v", resp, err)
		}
	})
}

// A stream that ends cleanly but before its end event ([DONE] or a finish
// reason) was cut all the same, as is an event without its empty line.
func TestStreamWithoutItsEndIsCut(t *testing.T) {
	for _, f := range []*fixedStream{
		{events: []string{`{"choices":[{"index":0,"delta":{"content":"half"}}]}`}},
		{events: []string{`{"choices":[{"index":0,"delta":{"content":"half"}}]}`, "[DONE]"}, cut: true},
	} {
		_, err := ask(t, overTransport(t, f, Options{MaxRetries: 1, Backoff: time.Millisecond}))
		if !errors.Is(err, errStreamCut) || f.calls != 2 {
			t.Errorf("err = %v after %d attempts, want a cut stream after 2", err, f.calls)
		}
	}
}

// OCDX_MODEL_TIMEOUT is an inactivity deadline: a stream that keeps coming
// runs past it, a silent one is cut.
func TestSlowStreamIsNotCut(t *testing.T) {
	t.Parallel()
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		opts := Options{Timeout: 400 * time.Millisecond, MaxRetries: -1}
		fm.Script(w.name, testkit.Step{Text: "slow but steady", Pace: 150 * time.Millisecond})
		start := time.Now()
		resp, err := ask(t, newModel(t, fm, w, opts))
		if err != nil || resp.Text != "slow but steady" {
			t.Fatalf("%+v %v", resp, err)
		}
		if d := time.Since(start); d < 2*opts.Timeout {
			t.Errorf("the stream took %s; the test needs it longer than the timeout", d)
		}
		fm.Script(w.name, testkit.Step{Text: "goes silent", Pace: time.Second})
		if _, err := ask(t, newModel(t, fm, w, opts)); !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "no data for 400ms") {
			t.Errorf("err = %v, want a timeout for no data", err)
		}
		// The overall cap cuts a stream however steadily it comes.
		fm.Script(w.name, testkit.Step{Text: "slow but steady", Pace: 150 * time.Millisecond})
		if _, err := ask(t, newModel(t, fm, w, Options{Timeout: time.Second, MaxDuration: 300 * time.Millisecond, MaxRetries: -1})); !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "took over 300ms") {
			t.Errorf("err = %v, want a timeout for the overall cap", err)
		}
	})
}

func TestProgressReportsTokensAsTheyCome(t *testing.T) {
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		fm.Script(w.name, testkit.Step{Text: strings.Repeat("tokens ", 60), OutputTokens: 99})
		var mu sync.Mutex
		var seen []Progress
		opts := fast
		opts.Progress = func(p Progress) { mu.Lock(); seen = append(seen, p); mu.Unlock() }
		if _, err := ask(t, newModel(t, fm, w, opts)); err != nil {
			t.Fatal(err)
		}
		if len(seen) < 3 {
			t.Fatalf("progress %+v, want several reports", seen)
		}
		// Estimates grow; the provider's count at the end replaces them.
		for i, p := range seen[:len(seen)-1] {
			if p.Done || p.Model != w.spec || i+3 < len(seen) && p.Output > seen[i+1].Output {
				t.Errorf("report %d: %+v", i, p)
			}
		}
		if last := seen[len(seen)-1]; !last.Done || last.Output != 99 {
			t.Errorf("last report %+v, want done with the provider's 99", last)
		}
	})
}

// Quota and billing errors are final: no retry, and the message says what
// the server said and which key to look at.
func TestQuotaIsNotRetried(t *testing.T) {
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		keyEnv, quota := "OPENAI_API_KEY", testkit.Step{Status: 429, ErrorType: "insufficient_quota"}
		if w.format == "anthropic" {
			keyEnv, quota = "ANTHROPIC_API_KEY", testkit.Step{Status: 402, ErrorType: "billing_error"}
		}
		fm.Script(w.name, quota)
		_, err := ask(t, newModel(t, fm, w, fast))
		var api *APIError
		if !errors.As(err, &api) || !api.Quota() || api.RequestID != testkit.RequestID || api.Type != quota.ErrorType {
			t.Fatalf("err = %#v", err)
		}
		if n := len(fm.Requests(w.name)); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
		for _, want := range []string{quota.ErrorType, testkit.RequestID, keyEnv, w.spec} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q does not say %q", err, want)
			}
		}
		// The loop stops on it, naming the configuration key.
		ce := AsConfigError("reviewerModels[1]", err)
		if ce == nil || !strings.Contains(ce.Error(), "reviewerModels[1]") || !strings.Contains(ce.Error(), keyEnv) {
			t.Errorf("config error %v", ce)
		}
		// A rate limit is still retried.
		fm.Script(w.name, testkit.Fail(429, "0"), testkit.Reply("later"))
		if resp, err := ask(t, newModel(t, fm, w, fast)); err != nil || resp.Text != "later" {
			t.Errorf("%+v %v", resp, err)
		}
		// So is a quota error event in the middle of a stream: not retried.
		before := len(fm.Requests(w.name))
		fm.Script(w.name, testkit.Step{Text: "some text", StreamError: map[string]string{"openai": "insufficient_quota", "anthropic": "billing_error"}[w.format]})
		if _, err := ask(t, newModel(t, fm, w, fast)); !errors.As(err, &api) || !api.Quota() {
			t.Errorf("err = %v, want a quota error", err)
		}
		if n := len(fm.Requests(w.name)) - before; n != 1 {
			t.Errorf("%d requests for a quota error event, want 1", n)
		}
	})
}

// The output cap cutting a text answer is an error that says so; cutting a
// tool call returns the call to the model, which writes smaller pieces.
func TestOutputCap(t *testing.T) {
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		fm.Script(w.name, testkit.Truncate("BEGIN_JSON\n{\"agent\":"))
		opts := fast
		opts.MaxTokens = 1234
		_, err := ask(t, newModel(t, fm, w, opts))
		if !errors.Is(err, ErrOutputCap) || !strings.Contains(err.Error(), "1234 tokens") || !strings.Contains(err.Error(), `"outputTokens"`) {
			t.Errorf("err = %v", err)
		}
		fm.Script(w.name, testkit.Truncate(""))
		if _, err := ask(t, newModel(t, fm, w, opts)); !errors.Is(err, ErrOutputCap) || !strings.Contains(err.Error(), "thinking") {
			t.Errorf("empty cut answer: %v", err)
		}

		var written []string
		write := Tool{Name: "write_file", Schema: json.RawMessage(`{"type":"object"}`), Run: func(_ context.Context, args json.RawMessage) (string, error) {
			written = append(written, string(args))
			return "written", nil
		}}
		fm.Script(w.name,
			testkit.Truncate("", call("write_file", `{"path":"big.go","content":"package big // and much more"}`)),
			testkit.CallTools(call("write_file", `{"path":"big.go","content":"package big"}`)),
			testkit.Reply("done"))
		a := &Agent{Role: "pr-fix", Model: newModel(t, fm, w, fast), System: "s", Task: "t", Tools: []Tool{write}}
		res, err := a.Run(context.Background(), nil)
		if err != nil || res.Text != "done" {
			t.Fatalf("%+v %v", res, err)
		}
		if len(written) != 1 || !strings.Contains(written[0], `"content":"package big"`) {
			t.Errorf("written %q, want only the whole call", written)
		}
		_, msgs := decodeWire(t, w.format, fm.Requests(w.name)[3].Body)
		if r := msgs[2].Results[0]; !r.IsError || !strings.Contains(r.Content, "cut by the output cap") || !strings.Contains(r.Content, "smaller pieces") {
			t.Errorf("the cut call's result: %+v", r)
		}
	})
}

// maxTokensRecorder answers every request with a stream and keeps its body.
type maxTokensRecorder struct{ body []byte }

func (r *maxTokensRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.body = readBody(req)
	return (&fixedStream{events: []string{`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`, "[DONE]"}}).RoundTrip(req)
}

// The official API gets max_completion_tokens; a server behind
// OPENAI_BASE_URL and Ollama get max_tokens, which every compatible server
// knows.
func TestOutputCapParameterPerEndpoint(t *testing.T) {
	for _, c := range []struct {
		spec, baseURL, want, not string
	}{
		{"openai/gpt-4.1", "", `"max_completion_tokens":777`, `"max_tokens"`},
		{"openai/gpt-4.1", "https://api.openai.com/v1/", `"max_completion_tokens":777`, `"max_tokens"`},
		{"openai/qwen3", "http://127.0.0.1:8000/v1", `"max_tokens":777`, `"max_completion_tokens"`},
		{"ollama/qwen3", "", `"max_tokens":777`, `"max_completion_tokens"`},
	} {
		rec := &maxTokensRecorder{}
		env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": c.baseURL}
		m, err := newClient(c.spec, func(k string) string { return env[k] }, Options{MaxTokens: 777}, &http.Client{Transport: rec})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ask(t, m); err != nil {
			t.Fatal(err)
		}
		if s := string(rec.body); !strings.Contains(s, c.want) || strings.Contains(s, c.not) {
			t.Errorf("%s at %q sent %s, want %s", c.spec, c.baseURL, s, c.want)
		}
	}
}
