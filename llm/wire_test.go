package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// answer is one scripted HTTP answer of a bare server, for the retry rules
// the fake model does not script (headers, cut bodies).
type answer struct {
	status int
	header map[string]string
	body   string
	cut    bool // promise a longer body than sent, then hang up
}

const okBody = `{"choices":[{"message":{"role":"assistant","content":"hi"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`

// serveAnswers serves the answers in order to an OpenAI-format client and
// counts the requests.
func serveAnswers(t *testing.T, answers ...answer) (Model, func() int) {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		a := answers[min(n, len(answers)-1)]
		n++
		mu.Unlock()
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		if a.cut {
			w.Header().Set("Content-Length", "10000")
		}
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(srv.Close)
	env := map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1", "OPENAI_API_KEY": "k"}
	m, err := New("openai/gpt-test", func(k string) string { return env[k] }, Options{Timeout: 2 * time.Second, MaxRetries: 2, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return m, func() int { mu.Lock(); defer mu.Unlock(); return n }
}

func TestRetryRules(t *testing.T) {
	ok := answer{status: 200, body: okBody}
	for _, c := range []struct {
		name     string
		answers  []answer
		requests int
		status   int // of the final *APIError; 0 for success
	}{
		{"409 is retried", []answer{{status: 409, body: `{}`}, ok}, 2, 0},
		{"408 is retried", []answer{{status: 408, body: `{}`}, ok}, 2, 0},
		{"x-should-retry true overrides a 400", []answer{{status: 400, header: map[string]string{"X-Should-Retry": "true"}}, ok}, 2, 0},
		{"x-should-retry false overrides a 503", []answer{{status: 503, header: map[string]string{"X-Should-Retry": "false"}}, ok}, 1, 503},
		{"a body cut short is retried", []answer{{status: 200, body: okBody[:40], cut: true}, ok}, 2, 0},
		{"retries are bounded", []answer{{status: 500}}, 3, 500},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m, requests := serveAnswers(t, c.answers...)
			resp, err := m.Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}})
			var api *APIError
			switch {
			case c.status == 0 && (err != nil || resp.Text != "hi"):
				t.Errorf("%+v %v", resp, err)
			case c.status != 0 && (!errors.As(err, &api) || api.Status != c.status):
				t.Errorf("err = %v, want HTTP %d", err, c.status)
			}
			if n := requests(); n != c.requests {
				t.Errorf("%d requests, want %d", n, c.requests)
			}
		})
	}
}

func TestRetryAfterMs(t *testing.T) {
	t.Parallel()
	// Without the header the first backoff is at most 0.5 s.
	m, requests := serveAnswers(t, answer{status: 429, header: map[string]string{"Retry-After-Ms": "800"}}, answer{status: 200, body: okBody})
	start := time.Now()
	if _, err := m.Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 800*time.Millisecond || requests() != 2 {
		t.Errorf("retried after %s with %d requests; the server asked for 800 ms", d, requests())
	}
}

func TestErrorMessageOfCompatibleServers(t *testing.T) {
	// Ollama and others answer {"error":"…"} rather than an error object.
	m, _ := serveAnswers(t, answer{status: 404, body: `{"error":"model \"qwen9\" not found, try pulling it first"}`})
	_, err := m.Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}})
	if err == nil || !strings.Contains(err.Error(), `model "qwen9" not found`) || !strings.Contains(err.Error(), "check the model name") {
		t.Errorf("err = %v", err)
	}
}

func TestContentAsParts(t *testing.T) {
	// Some OpenAI-compatible servers answer content as an array of parts.
	m, _ := serveAnswers(t, answer{status: 200, body: `{"choices":[{"message":{"role":"assistant","content":[{"type":"text","text":"hel"},{"type":"text","text":"lo"}]}}]}`})
	resp, err := m.Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}})
	if err != nil || resp.Text != "hello" {
		t.Errorf("%+v %v", resp, err)
	}
}

// lateAnswer is a transport that answers only once the attempt is cut, with
// the empty 200 a server writes when it sees the connection drop.
type lateAnswer struct{ calls int }

func (l *lateAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	l.calls++
	<-r.Context().Done()
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
}

func TestAnswerRacingTheAttemptLimitIsATimeout(t *testing.T) {
	t.Parallel()
	late := &lateAnswer{}
	c := overTransport(t, late, Options{Timeout: 50 * time.Millisecond, MaxRetries: 1})
	_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}})
	if !errors.Is(err, ErrTimeout) || late.calls != 2 {
		t.Errorf("err = %v after %d attempts, want ErrTimeout after 2", err, late.calls)
	}
}

func TestAnthropicCacheBreakpoints(t *testing.T) {
	fm := testkit.NewFakeModel(t)
	w := wires[1]
	fm.Script(w.name, testkit.CallTools(call("read_file", `{"path":"a.go"}`)), testkit.CallTools(call("read_file", `{"path":"b.go"}`)), testkit.Reply("done"))
	a := &Agent{Role: "reviewer-1", Model: newModel(t, fm, w, fast), System: "You review code.", Task: "Review PR #7.\n",
		Tools: []Tool{files(map[string]string{"a.go": "package a", "b.go": "package b"})}}
	if _, err := a.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	type block struct {
		Type         string          `json:"type"`
		Text         string          `json:"text"`
		CacheControl json.RawMessage `json:"cache_control"`
	}
	// layout gives each message's blocks as type, with a * for a breakpoint.
	layout := func(body []byte) string {
		var req struct {
			Messages []struct {
				Content []block `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, m := range req.Messages {
			var bs []string
			for _, b := range m.Content {
				if b.Type == "text" && strings.HasPrefix(b.Text, "## Working note") {
					b.Type = "note"
				}
				if b.CacheControl != nil {
					if string(b.CacheControl) != `{"type":"ephemeral"}` {
						t.Errorf("cache_control %s", b.CacheControl)
					}
					b.Type += "*"
				}
				bs = append(bs, b.Type)
			}
			msgs = append(msgs, strings.Join(bs, "+"))
		}
		return strings.Join(msgs, " | ")
	}
	reqs := fm.Requests(w.name)
	// The first call has no note and no breakpoint: a single-call agent pays
	// no cache write. Later calls mark the task and the newest result, the
	// note after it stays out of the cache.
	for i, want := range []string{
		"text",
		"text* | tool_use | tool_result*+note",
		"text* | tool_use | tool_result | tool_use | tool_result*+note",
	} {
		if got := layout(reqs[i].Body); got != want {
			t.Errorf("request %d: %s, want %s", i+1, got, want)
		}
	}
}

func TestCachedInputIsCounted(t *testing.T) {
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		fm.Script(w.name, testkit.CallTools(call("read_file", `{"path":"a.go"}`)), testkit.CallTools(call("read_file", `{"path":"a.go"}`)), testkit.Reply("done"))
		a := &Agent{Role: "reviewer-1", Model: newModel(t, fm, w, fast), System: "You review code.",
			Task:  "Review PR #7.\n" + strings.Repeat("+ a line of the diff\n", 400), // 8 KB, past OpenAI's 1,024-token minimum
			Tools: []Tool{files(map[string]string{"a.go": "package a"})}}
		res, err := a.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		// OpenAI reads the shared prefix from call 2 on; Anthropic writes at
		// call 2 and reads at call 3.
		if res.Usage.Calls != 3 || res.Usage.Cached < 1024 || res.Usage.Cached >= res.Usage.Input {
			t.Errorf("usage %+v, want about 2,000 of the input tokens cached", res.Usage)
		}
		if !strings.Contains(res.Usage.String(), fmt.Sprintf("(%d cached)", res.Usage.Cached)) {
			t.Errorf("usage reads %q", res.Usage)
		}
	})
}

func TestUnreachableServerNamesItsVariable(t *testing.T) {
	env := map[string]string{"OLLAMA_HOST": "127.0.0.1:1"}
	m, err := New("ollama/qwen3", func(k string) string { return env[k] }, Options{MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}})
	if err == nil || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "OLLAMA_HOST sets its address") {
		t.Errorf("err = %v, want the refusal and the variable to change", err)
	}
	// A stalled server: the hint names the setting for a longer wait.
	late := &lateAnswer{}
	c := overTransport(t, late, Options{Timeout: 50 * time.Millisecond, Backoff: time.Millisecond})
	if _, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "x"}}}); err == nil || !strings.Contains(err.Error(), "OCDX_MODEL_TIMEOUT") {
		t.Errorf("err = %v, want the OCDX_MODEL_TIMEOUT hint", err)
	}
}

// A task with stable parts (Agent.Breaks) is sent to Anthropic as one text
// block per part, each stable one marked: from the first call on, the next
// round's request reads them from the cache. A break out of range, or a
// third, marks nothing. A break at the task's end marks the whole task,
// with no empty block after it: a role that always makes several calls
// (review-pr) has its second call read the task from the cache.
func TestAnthropicCachesTheStableParts(t *testing.T) {
	parts := "instructions and the PR. " + "this round's diff. " + "you are reviewer-1."
	whole := strings.Repeat("the PR and its diff. ", 200)
	for _, tc := range []struct {
		name, task string
		breaks     []int
		want       []string
	}{
		{"parts", parts, []int{len("instructions and the PR. "), len("instructions and the PR. this round's diff. "), len(parts) + 5},
			[]string{`"instructions and the PR. " true`, `"this round's diff. " true`, `"you are reviewer-1." false`}},
		{"whole", whole, []int{len(whole)}, []string{fmt.Sprintf("%q true", whole)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fm := testkit.NewFakeModel(t)
			w := wires[1]
			fm.Script(w.name, testkit.Reply("one"), testkit.Reply("two"))
			var cached [2]int64
			for i := range 2 {
				a := &Agent{Role: "reviewer-1", Model: newModel(t, fm, w, fast), System: "You review code.", Task: tc.task, Breaks: tc.breaks}
				res, err := a.Run(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				cached[i] = res.Usage.Cached
			}
			if cached[0] != 0 || cached[1] == 0 {
				t.Errorf("cached input %v: the second request must read the stable parts from the cache", cached)
			}
			var req struct {
				Messages []struct {
					Content []struct {
						Text         string          `json:"text"`
						CacheControl json.RawMessage `json:"cache_control"`
					} `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(fm.Requests(w.name)[0].Body, &req); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range req.Messages[0].Content {
				got = append(got, fmt.Sprintf("%q %t", b.Text, b.CacheControl != nil))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("blocks %.300v, want %.300v", got, tc.want)
			}
		})
	}
}
