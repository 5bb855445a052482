package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/envelope"
	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/internal/tokens"
)

type verdict struct {
	Conclusion string   `json:"conclusion"`
	Files      []string `json:"files"`
	Note       string   `json:"note,omitempty"`
}

func TestToolLoopMultiStep(t *testing.T) {
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		fm.Script(w.name,
			testkit.CallTools(call("read_file", `{"path":"a.go"}`)),
			testkit.Step{Text: "Now the test.", Calls: []testkit.FakeCall{call("read_file", `{"path":"a_test.go"}`)}},
			testkit.Reply(enveloped(verdict{Conclusion: "approve", Files: []string{"a.go", "a_test.go"}})),
		)
		a := &Agent{
			Role: "reviewer-1", Model: newModel(t, fm, w, fast),
			System: "You review code.", Task: "Review PR #7.",
			Tools: []Tool{files(map[string]string{"a.go": "package a // A", "a_test.go": "package a // T"})},
		}
		var v verdict
		res, err := a.Run(context.Background(), &v)
		if err != nil {
			t.Fatal(err)
		}
		if v.Conclusion != "approve" || len(v.Files) != 2 {
			t.Fatalf("decoded %+v", v)
		}
		reqs := fm.Requests(w.name)
		if len(reqs) != 3 || res.Usage.Calls != 3 || len(res.PerCall) != 3 {
			t.Fatalf("%d requests, usage %+v", len(reqs), res.Usage)
		}
		system, msgs := decodeWire(t, w.format, reqs[2].Body)
		if system != "You review code." {
			t.Errorf("system = %q", system)
		}
		// task, call, result, call, result+note
		if len(msgs) != 5 || msgs[0].Text != "Review PR #7." || !strings.HasPrefix(msgs[4].Text, "## Working note") {
			t.Fatalf("third request messages: %+v", msgs)
		}
		if msgs[3].Text != "Now the test." || msgs[2].Results[0].Content != "package a // A" || msgs[4].Results[0].Content != "package a // T" {
			t.Errorf("history: %+v", msgs)
		}
		if !strings.Contains(msgs[4].Text, `read_file {"path":"a.go"} → ok, 14 bytes`) {
			t.Errorf("note lacks the first step:\n%s", msgs[4].Text)
		}
	})
}

func TestParallelToolCalls(t *testing.T) {
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		fm.Script(w.name,
			testkit.CallTools(call("read_file", `{"path":"a"}`), call("read_file", `{"path":"b"}`), call("read_file", `{"path":"c"}`)),
			testkit.Reply("all read"),
		)
		var running, peak atomic.Int32
		slow := files(map[string]string{"a": "A", "b": "B", "c": "C"})
		inner := slow.Run
		slow.Run = func(ctx context.Context, args json.RawMessage) (string, error) {
			n := running.Add(1)
			defer running.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(50 * time.Millisecond)
			return inner(ctx, args)
		}
		a := &Agent{Role: "reviewer-2", Model: newModel(t, fm, w, fast), Task: "t", Tools: []Tool{slow}}
		res, err := a.Run(context.Background(), nil)
		if err != nil || res.Text != "all read" {
			t.Fatalf("%q %v", res.Text, err)
		}
		if peak.Load() < 2 {
			t.Errorf("parallel calls ran one at a time (peak %d)", peak.Load())
		}
		// With a tool that is not Parallel in the turn, calls run in order.
		peak.Store(0)
		write := slow
		write.Name, write.Parallel = "write_file", false
		fm.Script(w.name, testkit.CallTools(call("read_file", `{"path":"a"}`), call("write_file", `{"path":"b"}`), call("read_file", `{"path":"c"}`)), testkit.Reply("ok"))
		a.Tools = []Tool{slow, write}
		if _, err := a.Run(context.Background(), nil); err != nil || peak.Load() != 1 {
			t.Errorf("mixed turn: peak %d, err %v", peak.Load(), err)
		}
		_, msgs := decodeWire(t, w.format, fm.Requests(w.name)[1].Body)
		if len(msgs) != 3 || len(msgs[1].Calls) != 3 || len(msgs[2].Results) != 3 {
			t.Fatalf("messages %+v", msgs)
		}
		for i, want := range []string{"A", "B", "C"} {
			if msgs[2].Results[i].Content != want {
				t.Errorf("result %d = %q, want %q (call order)", i, msgs[2].Results[i].Content, want)
			}
		}
	})
}

func TestToolErrorsGoBackToTheModel(t *testing.T) {
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		fm.Script(w.name,
			testkit.CallTools(call("read_file", `{"path":"missing.go"}`), call("nope", `{}`), call("read_file", `"a string"`)),
			testkit.CallTools(call("boom", `{}`)),
			testkit.Reply("done"),
		)
		boom := Tool{Name: "boom", Schema: json.RawMessage(`{"type":"object"}`), Run: func(context.Context, json.RawMessage) (string, error) {
			panic("kaput")
		}}
		a := &Agent{Role: "pr-fix", Model: newModel(t, fm, w, fast), Task: "t", Tools: []Tool{files(nil), boom}}
		if _, err := a.Run(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		_, msgs := decodeWire(t, w.format, fm.Requests(w.name)[2].Body)
		got := append(msgs[2].Results, msgs[4].Results...)
		wants := []string{"missing.go: no such file", `unknown tool "nope"`, "not a JSON object", "tool boom failed: kaput"}
		if len(got) != len(wants) {
			t.Fatalf("results %+v", got)
		}
		for i, want := range wants {
			if !got[i].IsError || !strings.Contains(got[i].Content, want) {
				t.Errorf("result %d = %+v, want an error result with %q", i, got[i], want)
			}
		}
		if w.format == "anthropic" && !strings.Contains(string(fm.Requests(w.name)[1].Body), `"is_error":true`) {
			t.Error("anthropic tool_result lacks is_error")
		}
	})
}

func TestRetryAfter429(t *testing.T) {
	t.Parallel()
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		fm.Script(w.name, testkit.Fail(429, "1"), testkit.Reply("hi"))
		start := time.Now()
		resp, err := newModel(t, fm, w, fast).Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}})
		if err != nil || resp.Text != "hi" {
			t.Fatalf("%+v %v", resp, err)
		}
		if d := time.Since(start); d < 900*time.Millisecond {
			t.Errorf("retried after %s, Retry-After said 1s", d)
		}
		if n := len(fm.Requests(w.name)); n != 2 {
			t.Errorf("%d requests, want 2", n)
		}
	})
}

func TestLongRetryAfterEndsTheCall(t *testing.T) {
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		fm.Script(w.name, testkit.Fail(429, "3600"), testkit.Reply("not reached"))
		start := time.Now()
		_, err := newModel(t, fm, w, fast).Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}})
		var api *APIError
		if !errors.As(err, &api) || api.Status != 429 || api.RetryAfter != time.Hour || !strings.Contains(err.Error(), "retry after 1h0m0s") {
			t.Fatalf("err = %v", err)
		}
		if d := time.Since(start); d > time.Second || len(fm.Requests(w.name)) != 1 {
			t.Errorf("waited %s, %d requests", d, len(fm.Requests(w.name)))
		}
	})
}

func TestRetry5xx(t *testing.T) {
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		fm.Script(w.name, testkit.Fail(500, ""), testkit.Fail(529, "0"), testkit.Reply("hi"))
		resp, err := newModel(t, fm, w, fast).Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}})
		if err != nil || resp.Text != "hi" {
			t.Fatalf("%+v %v", resp, err)
		}
		if n := len(fm.Requests(w.name)); n != 3 {
			t.Errorf("%d requests, want 3", n)
		}
		// Retries are bounded: four 503s with MaxRetries 2 give up after 3 attempts.
		fm.Script(w.name, testkit.Fail(503, "0"), testkit.Fail(503, "0"), testkit.Fail(503, "0"), testkit.Fail(503, "0"))
		_, err = newModel(t, fm, w, Options{Timeout: time.Second, MaxRetries: 2, Backoff: time.Millisecond}).Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}})
		var api *APIError
		if !errors.As(err, &api) || api.Status != 503 || api.Model != w.spec {
			t.Fatalf("err = %v", err)
		}
		if n := len(fm.Requests(w.name)); n != 6 {
			t.Errorf("%d requests in all, want 6", n)
		}
	})
}

func TestNoRetryOnClientErrors(t *testing.T) {
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		for _, status := range []int{400, 401, 403, 404} {
			name := fmt.Sprintf("%s-%d", w.name, status)
			fm.Script(name, testkit.Fail(status, "0"), testkit.Reply("not reached"))
			m, err := New(strings.Replace(w.spec, w.name, name, 1), fm.Getenv, fast)
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}})
			var api *APIError
			if !errors.As(err, &api) || api.Status != status || !strings.Contains(err.Error(), "scripted failure") {
				t.Errorf("status %d: err = %v", status, err)
			}
			if n := len(fm.Requests(name)); n != 1 {
				t.Errorf("status %d was retried (%d requests)", status, n)
			}
		}
	})
}

func TestStallCutByTimeout(t *testing.T) {
	t.Parallel()
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		opts := Options{Timeout: 300 * time.Millisecond, MaxRetries: 1, Backoff: time.Millisecond}
		fm.Script(w.name, testkit.Stall(10*time.Second, "late"), testkit.Reply("on time"))
		start := time.Now()
		resp, err := newModel(t, fm, w, opts).Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}})
		if err != nil || resp.Text != "on time" {
			t.Fatalf("%+v %v", resp, err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("stalled attempt not cut: %s", d)
		}
		// Every attempt stalls: a timeout error, within the retry bound.
		fm.Script(w.name, testkit.Stall(10*time.Second, ""), testkit.Stall(10*time.Second, ""))
		start = time.Now()
		_, err = newModel(t, fm, w, opts).Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}})
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("err = %v, want ErrTimeout", err)
		}
		if d := time.Since(start); d > 4*time.Second {
			t.Errorf("gave up after %s", d)
		}
	})
}

func TestGarbageBody(t *testing.T) {
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		for _, body := range []string{"<html>502 Bad Gateway</html>", `{"choices":`, `[]`, `{}`} {
			fm.Script(w.name, testkit.Garbage(body))
			_, err := newModel(t, fm, w, fast).Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}})
			if !errors.Is(err, ErrBadResponse) || !strings.HasPrefix(err.Error(), w.spec+": ") {
				t.Errorf("body %q: err = %v", body, err)
			}
		}
	})
}

func TestEnvelopeFailuresOnTheWire(t *testing.T) {
	cases := []struct {
		name     string
		answers  []string
		kind     error
		requests int
	}{
		{"garbage then corrected", []string{"lorem ipsum \x00\x01", enveloped(verdict{Conclusion: "approve", Files: []string{}})}, nil, 2},
		{"missing markers twice", []string{"I think it is fine.", `{"conclusion":"approve","files":[]}`}, envelope.ErrNoEnvelope, 2},
		{"invalid JSON", []string{"BEGIN_JSON\n{\"conclusion\": approve}\nEND_JSON"}, envelope.ErrInvalidJSON, 1},
		{"two envelopes", []string{enveloped(verdict{Conclusion: "a", Files: []string{}}) + enveloped(verdict{Conclusion: "b", Files: []string{}})}, envelope.ErrTwoEnvelopes, 1},
		{"wrong type", []string{`BEGIN_JSON {"conclusion":"approve","files":"a.go"} END_JSON`}, envelope.ErrWrongType, 1},
		{"missing field", []string{`BEGIN_JSON {"conclusion":"approve"} END_JSON`}, envelope.ErrMissingField, 1},
	}
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		for _, c := range cases {
			model := w.name + "-" + strings.ReplaceAll(c.name, " ", "-")
			for _, ans := range c.answers {
				fm.Script(model, testkit.Reply(ans))
			}
			spec := strings.SplitN(w.spec, "/", 2)[0] + "/" + model
			m, err := New(spec, fm.Getenv, fast)
			if err != nil {
				t.Fatal(err)
			}
			var v verdict
			_, err = (&Agent{Role: "reviewer-3", Model: m, Task: "t"}).Run(context.Background(), &v)
			if n := len(fm.Requests(model)); n != c.requests {
				t.Errorf("%s: %d requests, want %d", c.name, n, c.requests)
			}
			if c.kind == nil {
				if err != nil || v.Conclusion != "approve" {
					t.Errorf("%s: %v %+v", c.name, err, v)
				}
				_, msgs := decodeWire(t, w.format, fm.Requests(model)[1].Body)
				if len(msgs) != 3 || !strings.HasPrefix(msgs[2].Text, correction) || !strings.Contains(msgs[2].Text, "## Working note") {
					t.Errorf("%s: corrective turn: %+v", c.name, msgs)
				}
				continue
			}
			var ee *envelope.Error
			if !errors.Is(err, c.kind) || !errors.As(err, &ee) || ee.Role != "reviewer-3" || !strings.HasPrefix(err.Error(), "reviewer-3: ") {
				t.Errorf("%s: err = %v, want %v naming the role", c.name, err, c.kind)
			}
		}
	})
}

func TestIterationCap(t *testing.T) {
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		fm.Default(w.name, testkit.CallTools(call("read_file", `{"path":"a"}`)))
		a := &Agent{Role: "reviewer-4", Model: newModel(t, fm, w, fast), Task: "t", Tools: []Tool{files(map[string]string{"a": "A"})}, MaxIters: 4}
		res, err := a.Run(context.Background(), nil)
		if !errors.Is(err, ErrIterationCap) || !strings.HasPrefix(err.Error(), "reviewer-4: ") {
			t.Fatalf("err = %v", err)
		}
		reqs := fm.Requests(w.name)
		if len(reqs) != 4 || res.Usage.Calls != 4 {
			t.Fatalf("%d requests, usage %+v", len(reqs), res.Usage)
		}
		// The last turn turns tools off and says so.
		last := string(reqs[3].Body)
		if !strings.Contains(last, "tools are off") || !strings.Contains(last, `"tool_choice":`) {
			t.Errorf("last request does not turn tools off:\n%s", last)
		}
		if strings.Contains(string(reqs[2].Body), `"tool_choice":`) {
			t.Error("tools were turned off before the last turn")
		}
	})
}

func TestUsageSums(t *testing.T) {
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		fm.Script(w.name,
			testkit.Step{Calls: []testkit.FakeCall{call("read_file", `{"path":"a"}`)}, InputTokens: 1000, OutputTokens: 20},
			testkit.Step{Text: "no envelope", InputTokens: 1200, OutputTokens: 5},
			testkit.Step{Text: enveloped(verdict{Conclusion: "approve", Files: []string{}}), InputTokens: 1300, OutputTokens: 40},
		)
		a := &Agent{Role: "comments-analyzer", Model: newModel(t, fm, w, fast), Task: "t", Tools: []Tool{files(map[string]string{"a": "A"})}}
		var v verdict
		res, err := a.Run(context.Background(), &v)
		if err != nil {
			t.Fatal(err)
		}
		want := tokens.Usage{Calls: 3, Input: 3500, Output: 65}
		if res.Usage != want {
			t.Errorf("usage %+v, want %+v", res.Usage, want)
		}
		if len(res.PerCall) != 3 || res.PerCall[1] != (tokens.Usage{Calls: 1, Input: 1200, Output: 5}) {
			t.Errorf("per call %+v", res.PerCall)
		}
	})
}

func TestUsageReturnedOnError(t *testing.T) {
	fm := testkit.NewFakeModel(t)
	w := wires[0]
	fm.Script(w.name, testkit.Step{Text: "BEGIN_JSON nope END_JSON", InputTokens: 70, OutputTokens: 7})
	res, err := (&Agent{Role: "r", Model: newModel(t, fm, w, fast), Task: "t"}).Run(context.Background(), &verdict{})
	if err == nil || res.Usage != (tokens.Usage{Calls: 1, Input: 70, Output: 7}) {
		t.Fatalf("%+v %v", res.Usage, err)
	}
}
