package testkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FakeModel is a model server on a loopback socket that speaks the OpenAI
// Chat Completions and the Anthropic Messages wire formats, tool calls
// included: a request with "stream": true is answered with server-sent
// events as the APIs stream them, another with one JSON answer. Each model name has a queue of scripted steps; when
// the queue is empty its default step answers. Like the real APIs it
// answers 400 to requests they would reject (see CheckRequest).
//
//	OpenAI:    POST /v1/chat/completions   (OPENAI_BASE_URL=URL()+"/v1", OLLAMA_HOST=URL())
//	Anthropic: POST /v1/messages           (ANTHROPIC_BASE_URL=URL())
//	Both:      GET /v1/models, and GET /v1/models/{id} as Anthropic has it
//
// After Models, it serves only the models named: the list says so, and a
// chat with another model is answered 404, as the APIs answer it.
type FakeModel struct {
	// ModelPage caps an Anthropic models page (0: the API's default of 20,
	// or the limit asked for), so that tests can make the client page.
	ModelPage int

	known []string // nil: every model is served
	srv   *httptest.Server

	mu       sync.Mutex
	queues   map[string][]Step
	defaults map[string]Step
	answers  map[string]func(ModelRequest) Step
	log      map[string][]ModelRequest
	prefixes map[string][]string // Anthropic prompt-cache entries per model
	nextID   int
}

// Step is one scripted answer. Build it with Reply, CallTools, Fail, Stall
// or Garbage; the fields may also be combined (a stall followed by a reply).
type Step struct {
	Text       string        // assistant text
	Calls      []FakeCall    // tool calls, alongside Text if both are set
	Status     int           // answer with this HTTP error status instead
	RetryAfter string        // Retry-After header sent with Status
	ErrorType  string        // the error's type (and OpenAI code) sent with Status: "insufficient_quota", "billing_error"; "" for the status's usual one
	Stall      time.Duration // wait this long first (cut short if the client hangs up)
	Raw        string        // send this body verbatim with status 200
	Drop       bool          // close the connection without an answer

	// A streamed answer can fail midway, after its first events: Cut
	// hangs up without the end event, StreamError sends an error event of
	// that type ("overloaded_error", "insufficient_quota") instead of the
	// rest. Pace waits between events (an answer not streamed waits six
	// times Pace, as for the whole generation).
	Cut         bool
	StreamError string
	Pace        time.Duration
	// Truncated ends the answer as the output cap does: finish_reason
	// "length", stop_reason "max_tokens", the last call's arguments cut.
	Truncated bool

	// Reported usage; zero means derived from sizes: input = request
	// bytes/4, output = answer bytes/4 + 1.
	InputTokens, OutputTokens int
}

// FakeCall is a tool call the fake model makes. Args is a JSON object.
type FakeCall struct {
	Name string
	Args string
}

// ModelRequest is one request as the fake received it.
type ModelRequest struct {
	Format string // "openai" or "anthropic"
	Header http.Header
	Body   []byte
}

// Reply answers with text and no tool call.
func Reply(text string) Step { return Step{Text: text} }

// CallTools answers with tool calls (several are parallel calls).
func CallTools(calls ...FakeCall) Step { return Step{Calls: calls} }

// Fail answers with an HTTP error status; retryAfter ("" for none) is sent
// as the Retry-After header.
func Fail(status int, retryAfter string) Step { return Step{Status: status, RetryAfter: retryAfter} }

// Stall waits d before answering with text (or until the client gives up).
func Stall(d time.Duration, text string) Step { return Step{Stall: d, Text: text} }

// Garbage answers 200 with a body that is not a valid response.
func Garbage(body string) Step { return Step{Raw: body} }

// Drop closes the connection without answering.
func Drop() Step { return Step{Drop: true} }

// CutStream starts streaming text and hangs up before the end.
func CutStream(text string) Step { return Step{Text: text, Cut: true} }

// Truncate answers as the output cap cuts an answer: the text and calls
// given, the last call's arguments cut in half.
func Truncate(text string, calls ...FakeCall) Step {
	return Step{Text: text, Calls: calls, Truncated: true}
}

// NewFakeModel starts the server; it stops when the test ends. The default
// step of every model is a plain "ok" reply.
func NewFakeModel(t T) *FakeModel {
	f := &FakeModel{
		queues:   map[string][]Step{},
		defaults: map[string]Step{"": Reply("ok")},
		answers:  map[string]func(ModelRequest) Step{},
		log:      map[string][]ModelRequest{},
		prefixes: map[string][]string{},
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// URL is the server root, http://127.0.0.1:PORT.
func (f *FakeModel) URL() string { return f.srv.URL }

// Env lists the variables that point every provider at the fake, as
// KEY=VALUE pairs for exec.Cmd.Env.
func (f *FakeModel) Env() []string {
	return []string{
		"OPENAI_BASE_URL=" + f.srv.URL + "/v1",
		"OPENAI_API_KEY=fake-openai-key",
		"ANTHROPIC_BASE_URL=" + f.srv.URL,
		"ANTHROPIC_API_KEY=fake-anthropic-key",
		"OLLAMA_HOST=" + f.srv.URL,
	}
}

// Configure points every provider of env at the fake.
func (f *FakeModel) Configure(e *Env) {
	for _, kv := range f.Env() {
		k, v, _ := strings.Cut(kv, "=")
		e.Set(k, v)
	}
}

// Getenv looks a variable up in Env, for code that takes an env getter.
func (f *FakeModel) Getenv(key string) string {
	for _, kv := range f.Env() {
		if k, v, _ := strings.Cut(kv, "="); k == key {
			return v
		}
	}
	return ""
}

// Script appends steps to a model's queue. The model is the name after the
// provider prefix, as sent in the request ("gpt-4.1", not "openai/gpt-4.1").
func (f *FakeModel) Script(model string, steps ...Step) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queues[model] = append(f.queues[model], steps...)
}

// Default sets the step used when a model's queue is empty; model "" sets
// it for every model without its own default.
func (f *FakeModel) Default(model string, s Step) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.defaults[model] = s
}

// Answer makes fn answer a model's requests when its queue is empty, in
// place of its default: for a test whose answers follow the state of the
// world (the PR's head) rather than the order of the calls.
func (f *FakeModel) Answer(model string, fn func(ModelRequest) Step) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers[model] = fn
}

// Requests returns the requests received for a model, oldest first.
func (f *FakeModel) Requests(model string) []ModelRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]ModelRequest(nil), f.log[model]...)
}

// Models sets the models the fake serves (names after the provider prefix).
func (f *FakeModel) Models(names ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.known = append([]string{}, names...)
}

// served lists the models GET /v1/models answers with: those set by
// Models, else every model scripted or given a default.
func (f *FakeModel) served() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.known != nil {
		return slices.Clone(f.known)
	}
	var out []string
	for m := range f.queues {
		out = append(out, m)
	}
	for m := range f.defaults {
		if m != "" && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	return out
}

// serveModels answers the models endpoints in the format the headers say:
// Anthropic's (x-api-key) pages with has_more and after_id; OpenAI's lists
// everything at once.
func (f *FakeModel) serveModels(w http.ResponseWriter, r *http.Request) {
	anthropic := r.Header.Get("X-Api-Key") != ""
	format := map[bool]string{true: "anthropic", false: "openai"}[anthropic]
	if anthropic && r.Header.Get("Anthropic-Version") == "" {
		writeError(w, format, http.StatusBadRequest, "", "anthropic-version: header is required")
		return
	}
	names := f.served()
	w.Header().Set("Content-Type", "application/json")
	if id, ok := strings.CutPrefix(r.URL.Path, "/v1/models/"); ok {
		if !slices.Contains(names, id) {
			writeError(w, format, http.StatusNotFound, "", "model: "+id)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"type": "model", "id": id, "display_name": id, "created_at": "2025-01-01T00:00:00Z"})
		return
	}
	if !anthropic {
		data := []any{}
		for _, n := range names {
			data = append(data, map[string]any{"id": n, "object": "model", "created": 1700000000, "owned_by": "fake"})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
		return
	}
	size := 20
	if l, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil && l > 0 {
		size = min(l, 1000)
	}
	if f.ModelPage > 0 {
		size = min(size, f.ModelPage)
	}
	from := 0
	if after := r.URL.Query().Get("after_id"); after != "" {
		from = slices.Index(names, after) + 1
	}
	page := names[from:min(from+size, len(names))]
	data := []any{}
	for _, n := range page {
		data = append(data, map[string]any{"type": "model", "id": n, "display_name": n, "created_at": "2025-01-01T00:00:00Z"})
	}
	var first, last any
	if len(page) > 0 {
		first, last = page[0], page[len(page)-1]
	}
	json.NewEncoder(w).Encode(map[string]any{"data": data, "has_more": from+len(page) < len(names), "first_id": first, "last_id": last})
}

func (f *FakeModel) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && (r.URL.Path == "/v1/models" || strings.HasPrefix(r.URL.Path, "/v1/models/")) {
		f.serveModels(w, r)
		return
	}
	var format string
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		format = "openai"
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		format = "anthropic"
	default:
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	// One parse for the model and the streaming options: a prompt is large.
	// A field of another type than these (a "stream" that is not a
	// boolean) leaves that field unset rather than the request refused.
	var head struct {
		Model         string `json:"model"`
		Stream        bool   `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal(body, &head); err != nil && !errors.As(err, &typeErr) || head.Model == "" {
		writeError(w, format, http.StatusBadRequest, "", "request body is not JSON with a model")
		return
	}

	f.mu.Lock()
	req := ModelRequest{Format: format, Header: r.Header.Clone(), Body: body}
	f.log[head.Model] = append(f.log[head.Model], req)
	if f.known != nil && !slices.Contains(f.known, head.Model) {
		f.mu.Unlock()
		msg := "model: " + head.Model
		if format == "openai" {
			msg = "The model `" + head.Model + "` does not exist or you do not have access to it."
		}
		writeError(w, format, http.StatusNotFound, "", msg)
		return
	}
	step, ok := f.defaults[head.Model]
	if !ok {
		step = f.defaults[""]
	}
	answer := f.answers[head.Model]
	if q := f.queues[head.Model]; len(q) > 0 {
		step, f.queues[head.Model], answer = q[0], q[1:], nil
	}
	f.mu.Unlock()
	if answer != nil {
		step = answer(req)
	}

	if step.Stall > 0 {
		select {
		case <-time.After(step.Stall):
		case <-r.Context().Done():
			return
		}
	}
	if ServeFault(w, format, step) {
		return
	}
	if step.Truncated && len(step.Calls) > 0 {
		step.Calls = append([]FakeCall(nil), step.Calls...)
		last := &step.Calls[len(step.Calls)-1]
		last.Args = last.Args[:len(last.Args)/2]
	}
	if status, msg := checkHeader(format, r.Header); status != 0 {
		writeError(w, format, status, "", msg)
		return
	}
	if err := CheckRequest(format, body); err != nil {
		writeError(w, format, http.StatusBadRequest, "", err.Error())
		return
	}
	in, out := step.InputTokens, step.OutputTokens
	var read, written int
	if in == 0 {
		in = len(body) / 4
		read, written = f.cached(format, head.Model, body)
	}
	if out == 0 {
		n := len(step.Text)
		for _, c := range step.Calls {
			n += len(c.Name) + len(c.Args)
		}
		out = n/4 + 1
	}
	if head.Stream {
		sw := &sse{w: w, pace: step.Pace, ctx: r.Context()}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		if format == "openai" {
			f.openAIStream(sw, head.Model, step, in, read, out, head.StreamOptions.IncludeUsage)
		} else {
			f.anthropicStream(sw, head.Model, step, in, read, written, out)
		}
		return
	}
	if step.Pace > 0 {
		// Not streamed, the answer comes once all of it is generated.
		select {
		case <-time.After(6 * step.Pace):
		case <-r.Context().Done():
			return
		}
	}
	var resp any
	if format == "openai" {
		resp = f.openAIResponse(head.Model, step, in, read, out)
	} else {
		resp = f.anthropicResponse(head.Model, step, in, read, written, out)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

// sse writes server-sent events, flushing each.
type sse struct {
	w    http.ResponseWriter
	pace time.Duration
	ctx  interface{ Done() <-chan struct{} }
	n    int
}

func (s *sse) send(event string, data any) bool {
	if s.pace > 0 && s.n > 0 {
		select {
		case <-time.After(s.pace):
		case <-s.ctx.Done():
			return false
		}
	}
	s.n++
	var b []byte
	if raw, ok := data.(string); ok {
		b = []byte(raw)
	} else {
		b, _ = json.Marshal(data)
	}
	if event != "" {
		fmt.Fprintf(s.w, "event: %s\n", event)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if fl, ok := s.w.(http.Flusher); ok {
		fl.Flush()
	}
	return true
}

// hangUp ends the answer without its end event.
func (s *sse) hangUp() {
	if hj, ok := s.w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			c.Close()
		}
	}
}

// pieces splits s into up to n parts, as a model's deltas come.
func pieces(s string, n int) []string {
	if s == "" {
		return nil
	}
	size := max((len(s)+n-1)/n, 1)
	var out []string
	for len(s) > size {
		out = append(out, s[:size])
		s = s[size:]
	}
	return append(out, s)
}

// failMidway ends a stream as the step says after its first events, and
// reports whether it did.
func failMidway(s *sse, format string, step Step) bool {
	switch {
	case step.Cut:
		s.hangUp()
	case step.StreamError != "":
		e := map[string]any{"type": step.StreamError, "message": "scripted stream failure"}
		if format == "openai" {
			e["code"] = step.StreamError
			s.send("", map[string]any{"error": e})
		} else {
			s.send("error", map[string]any{"type": "error", "error": e})
		}
	default:
		return false
	}
	return true
}

// openAIStream streams an answer as Chat Completions does: a role chunk,
// content deltas, each tool call's id and name then its arguments in
// pieces, the finish reason, a usage chunk when asked, [DONE].
func (f *FakeModel) openAIStream(s *sse, model string, step Step, in, cached, out int, usage bool) {
	id, created := f.id("chatcmpl-"), time.Now().Unix()
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}}}
	}
	s.send("", chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil))
	text := pieces(step.Text, 3)
	for i, p := range text {
		s.send("", chunk(map[string]any{"content": p}, nil))
		if i == 0 && failMidway(s, "openai", step) {
			return
		}
	}
	if len(text) == 0 && failMidway(s, "openai", step) {
		return
	}
	for i, c := range step.Calls {
		s.send("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": f.id("call_"), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil))
		for _, p := range pieces(c.Args, 3) {
			s.send("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}, nil))
		}
	}
	finish := "stop"
	if len(step.Calls) > 0 {
		finish = "tool_calls"
	}
	if step.Truncated {
		finish = "length"
	}
	s.send("", chunk(map[string]any{}, finish))
	if usage {
		s.send("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model, "choices": []any{},
			"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out,
				"prompt_tokens_details": map[string]any{"cached_tokens": cached}}})
	}
	s.send("", "[DONE]")
}

// anthropicStream streams an answer as Messages does: message_start with
// the input usage, a ping, each block's start, deltas (text_delta,
// input_json_delta) and stop, message_delta with the stop reason and the
// output usage, message_stop.
func (f *FakeModel) anthropicStream(s *sse, model string, step Step, in, read, written, out int) {
	s.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": f.id("msg_"), "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": in - read - written, "output_tokens": 1,
			"cache_read_input_tokens": read, "cache_creation_input_tokens": written}}})
	s.send("ping", map[string]any{"type": "ping"})
	index := 0
	if step.Text != "" {
		s.send("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": map[string]any{"type": "text", "text": ""}})
		for i, p := range pieces(step.Text, 3) {
			s.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "text_delta", "text": p}})
			if i == 0 && failMidway(s, "anthropic", step) {
				return
			}
		}
		s.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	} else if failMidway(s, "anthropic", step) {
		return
	}
	stop := "end_turn"
	for _, c := range step.Calls {
		s.send("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": map[string]any{
			"type": "tool_use", "id": f.id("toolu_"), "name": c.Name, "input": map[string]any{}}})
		for _, p := range pieces(c.Args, 3) {
			s.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": p}})
		}
		s.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
		stop = "tool_use"
	}
	if step.Truncated {
		stop = "max_tokens"
	}
	s.send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": out}})
	s.send("message_stop", map[string]any{"type": "message_stop"})
}

// ServeFault answers s when it is a failure (Status, Raw or Drop) and
// reports whether it did; other model servers of the tests use it too.
func ServeFault(w http.ResponseWriter, format string, s Step) bool {
	switch {
	case s.Drop:
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
			}
		}
	case s.Status != 0:
		writeTypedError(w, format, s.Status, s.RetryAfter, s.ErrorType, "scripted failure")
	case s.Raw != "":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, s.Raw)
	default:
		return false
	}
	return true
}

func (f *FakeModel) id(prefix string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	return prefix + strconv.Itoa(f.nextID)
}

// cached says how many input tokens (bytes/4) of a request the provider
// would read from its prompt cache, and how many it would write there.
// Anthropic writes the prefix up to each cache_control breakpoint, and
// reads the longest prefix an earlier request wrote (the API looks back
// about 20 blocks from a breakpoint; the fake does not limit it). OpenAI
// caches by itself the longest prefix shared with an earlier request, from
// 1,024 tokens, in steps of 128.
func (f *FakeModel) cached(format, model string, body []byte) (read, written int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if format == "anthropic" {
		// The cache holds content: compare without the markers, which move.
		marker := []byte(`,"cache_control":{"type":"ephemeral"}`)
		parts := bytes.Split(body, marker)
		if len(parts) == 1 {
			return 0, 0 // the API looks the cache up at breakpoints only
		}
		content := bytes.Join(parts, nil)
		longest := 0
		for _, p := range f.prefixes[model] {
			if len(p) > longest && bytes.HasPrefix(content, []byte(p)) {
				longest = len(p)
			}
		}
		end := 0
		for _, p := range parts[:len(parts)-1] {
			end += len(p)
			if end > longest {
				f.prefixes[model] = append(f.prefixes[model], string(content[:end]))
			}
		}
		return longest / 4, max(end-longest, 0) / 4
	}
	longest := 0
	log := f.log[model]
	for _, earlier := range log[:max(len(log)-1, 0)] { // the last one is this request
		n := 0
		for n < len(body) && n < len(earlier.Body) && body[n] == earlier.Body[n] {
			n++
		}
		longest = max(longest, n)
	}
	if tokens := longest / 4; tokens >= 1024 {
		return tokens / 128 * 128, 0
	}
	return 0, 0
}

func (f *FakeModel) openAIResponse(model string, s Step, in, cached, out int) any {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if s.Text != "" {
		msg["content"] = s.Text
	}
	finish := "stop"
	if len(s.Calls) > 0 {
		calls := make([]any, len(s.Calls))
		for i, c := range s.Calls {
			calls[i] = map[string]any{"id": f.id("call_"), "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Args}}
		}
		msg["tool_calls"] = calls
		finish = "tool_calls"
	}
	if s.Truncated {
		finish = "length"
	}
	return map[string]any{
		"id": f.id("chatcmpl-"), "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out,
			"prompt_tokens_details": map[string]any{"cached_tokens": cached}},
	}
}

func (f *FakeModel) anthropicResponse(model string, s Step, in, read, written, out int) any {
	content := []any{}
	if s.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": s.Text})
	}
	stop := "end_turn"
	for _, c := range s.Calls {
		var input any = json.RawMessage(c.Args)
		if !json.Valid([]byte(c.Args)) {
			input = map[string]any{} // a cut call: the API sends what it parsed
		}
		content = append(content, map[string]any{"type": "tool_use", "id": f.id("toolu_"), "name": c.Name, "input": input})
		stop = "tool_use"
	}
	if s.Truncated {
		stop = "max_tokens"
	}
	return map[string]any{
		"id": f.id("msg_"), "type": "message", "role": "assistant", "model": model, "content": content,
		"stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": in - read - written, "output_tokens": out,
			"cache_read_input_tokens": read, "cache_creation_input_tokens": written},
	}
}

func writeError(w http.ResponseWriter, format string, status int, retryAfter, msg string) {
	writeTypedError(w, format, status, retryAfter, "", msg)
}

// RequestID is the request ID the fake gives every error answer, in
// x-request-id (OpenAI) or request-id (Anthropic).
const RequestID = "req_fake0123"

func writeTypedError(w http.ResponseWriter, format string, status int, retryAfter, typ, msg string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	if format == "openai" {
		w.Header().Set("X-Request-Id", RequestID)
	} else {
		w.Header().Set("Request-Id", RequestID)
	}
	w.Header().Set("Content-Type", "application/json")
	// Clients obey x-should-retry over the status; say nothing so that the
	// status alone decides, as with most servers.
	w.WriteHeader(status)
	var code any
	if typ != "" {
		code = typ
	} else {
		typ = errorType(status)
	}
	if format == "openai" {
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}})
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

func errorType(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status == 529:
		return "overloaded_error"
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status >= 500:
		return "api_error"
	default:
		return "invalid_request_error"
	}
}

// checkHeader answers what the real APIs answer to a request without the
// headers they require.
func checkHeader(format string, h http.Header) (int, string) {
	if !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		return http.StatusBadRequest, "Content-Type must be application/json"
	}
	if format == "anthropic" {
		if h.Get("X-Api-Key") == "" {
			return http.StatusUnauthorized, "x-api-key header is required"
		}
		if h.Get("Anthropic-Version") == "" {
			return http.StatusBadRequest, "anthropic-version: header is required"
		}
	}
	return 0, ""
}

// toolName is the pattern both APIs require of a tool's name.
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// checkTool reports what is wrong with a tool definition: a bad name, or a
// schema that is not an object schema.
func checkTool(i int, name string, schema json.RawMessage) string {
	if !toolName.MatchString(name) {
		return fmt.Sprintf("tools[%d].name: %q does not match %s", i, name, toolName)
	}
	var s struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(schema, &s); err != nil || s.Type != "object" {
		return fmt.Sprintf("tools[%d]: the schema must be a JSON Schema of type object", i)
	}
	return ""
}

// CheckRequest reports what the real API of the format ("openai" or
// "anthropic") would reject in a request body: a tool call without its
// result, a result without its call, roles out of order, an empty turn.
func CheckRequest(format string, body []byte) error {
	msg := checkAnthropic
	if format == "openai" {
		msg = checkOpenAI
	}
	if m := msg(body); m != "" {
		return errors.New(m)
	}
	return nil
}

func checkOpenAI(body []byte) string {
	var req struct {
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return "invalid request: " + err.Error()
	}
	for i, t := range req.Tools {
		if t.Type != "function" {
			return fmt.Sprintf("tools[%d].type: %q, want \"function\"", i, t.Type)
		}
		if m := checkTool(i, t.Function.Name, t.Function.Parameters); m != "" {
			return m
		}
	}
	pending := map[string]bool{}
	for i, m := range req.Messages {
		if m.Role != "tool" && len(pending) > 0 {
			return fmt.Sprintf("messages[%d]: tool_calls without a response: %v", i, keys(pending))
		}
		switch m.Role {
		case "assistant":
			if len(m.ToolCalls) == 0 && (len(m.Content) == 0 || string(m.Content) == "null") {
				return fmt.Sprintf("messages[%d]: assistant message needs content or tool_calls", i)
			}
			for _, c := range m.ToolCalls {
				pending[c.ID] = true
			}
		case "tool":
			if !pending[m.ToolCallID] {
				return fmt.Sprintf("messages[%d]: tool message %q does not answer a preceding tool call", i, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
		}
	}
	if len(pending) > 0 {
		return fmt.Sprintf("tool_calls without a response: %v", keys(pending))
	}
	return ""
}

func checkAnthropic(body []byte) string {
	var req struct {
		MaxTokens int `json:"max_tokens"`
		Tools     []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return "invalid request: " + err.Error()
	}
	if req.MaxTokens <= 0 {
		return "max_tokens: field required"
	}
	for i, t := range req.Tools {
		if m := checkTool(i, t.Name, t.InputSchema); m != "" {
			return m
		}
	}
	pending := map[string]bool{}
	breakpoints := 0
	for i, m := range req.Messages {
		if want := []string{"user", "assistant"}[i%2]; m.Role != want {
			return fmt.Sprintf("messages[%d]: role %q, want %q (roles alternate, starting with user)", i, m.Role, want)
		}
		var blocks []struct {
			Type         string          `json:"type"`
			Text         *string         `json:"text"`
			ID           string          `json:"id"`
			ToolUseID    string          `json:"tool_use_id"`
			Input        json.RawMessage `json:"input"`
			CacheControl *struct {
				Type string `json:"type"`
			} `json:"cache_control"`
		}
		if !bytes.HasPrefix(bytes.TrimSpace(m.Content), []byte(`"`)) {
			if err := json.Unmarshal(m.Content, &blocks); err != nil {
				return fmt.Sprintf("messages[%d].content: %v", i, err)
			}
			if len(blocks) == 0 {
				return fmt.Sprintf("messages[%d]: content must be non-empty", i)
			}
		}
		answered := map[string]bool{}
		for _, b := range blocks {
			if b.CacheControl != nil {
				if b.CacheControl.Type != "ephemeral" {
					return fmt.Sprintf("messages[%d]: cache_control.type %q, want \"ephemeral\"", i, b.CacheControl.Type)
				}
				if breakpoints++; breakpoints > 4 {
					return "A maximum of 4 blocks with cache_control may be provided"
				}
			}
			switch b.Type {
			case "text":
				if b.Text == nil || *b.Text == "" {
					return fmt.Sprintf("messages[%d]: text content blocks must be non-empty", i)
				}
			case "tool_use":
				if len(req.Tools) == 0 {
					return "tool_use blocks require tools to be defined"
				}
				if !bytes.HasPrefix(bytes.TrimSpace(b.Input), []byte("{")) {
					return fmt.Sprintf("messages[%d]: tool_use input must be an object", i)
				}
				pending[b.ID] = true
			case "tool_result":
				if !pending[b.ToolUseID] {
					return fmt.Sprintf("messages[%d]: tool_result %q has no tool_use in the previous message", i, b.ToolUseID)
				}
				answered[b.ToolUseID] = true
			}
		}
		if m.Role == "user" {
			for id := range pending {
				if !answered[id] {
					return fmt.Sprintf("messages[%d]: tool_use %q has no tool_result right after it", i, id)
				}
			}
			pending = map[string]bool{}
		}
	}
	if len(pending) > 0 {
		return fmt.Sprintf("last message: tool_use without a tool_result: %v", keys(pending))
	}
	return ""
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// VerifierVerdict is one answer of the verifier role, for VerifierReply:
// Verdict is "confirmed" or "refuted".
type VerifierVerdict struct {
	ID, Verdict, Evidence string
}

// VerifierReply is the verifier's envelope with verdicts, as a model
// playing it answers (prompts/verifier.md); script it on the verifier's
// model.
func VerifierReply(verdicts ...VerifierVerdict) Step {
	list := []map[string]string{}
	for _, v := range verdicts {
		list = append(list, map[string]string{"id": v.ID, "verdict": v.Verdict, "evidence": v.Evidence})
	}
	b, _ := json.Marshal(map[string]any{"agent": "verifier", "verdicts": list})
	return Reply("BEGIN_JSON\n" + string(b) + "\nEND_JSON")
}
