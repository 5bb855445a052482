package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/ocdx/gh-ocdx/internal/httpretry"
)

// The two wire formats are written by hand rather than with the official
// SDKs: we use one endpoint of each, and dropping the SDKs took the binary
// from 74 to 17 MB and `--version` from 29 to 17 ms (BENCHMARKS.md). poster
// keeps the SDKs' retry rules; contract_test.go holds the requests and the
// answers against the SDKs' own types.

// maxAnswer bounds what is read of one answer; no chat completion is near it.
const maxAnswer = 32 << 20

// decoder assembles one answer: from stream events, or from a whole JSON
// answer when a compatible server does not stream. A fresh one reads each
// attempt.
type decoder interface {
	event(name string, data []byte) error
	whole(body []byte) error
	// done says the stream's end event came; a stream without it was cut.
	done() bool
	// output is the output tokens so far: the provider's count once it
	// gave one, else an estimate from the bytes of text and arguments.
	output() int64
	response() (Response, error)
}

// poster sends a JSON request to one endpoint with the retry rules of the
// official SDKs, run by internal/httpretry: connection errors, timeouts,
// streams cut before their end, 408, 409, 429 and 5xx are retried up to
// MaxRetries times, after the server's Retry-After(-Ms) when it gives one
// and after Backoff (0.5 s) doubling to 8 s (with jitter) otherwise; an
// x-should-retry header overrides the status; quota and billing errors are
// final. A Retry-After beyond MaxRetryAfter makes the answer final. An
// attempt is cut when no byte comes for Options.Timeout, or when it passes
// Options.MaxDuration, and is then tried again as a whole.
type poster struct {
	hc     *http.Client
	url    string
	header http.Header
	opts   Options
	model  string // "provider/model", for progress
}

// post sends body and returns the answer assembled by a decoder from
// newDecoder. Error answers become an *APIError; an answer that does not
// decode wraps ErrBadResponse.
func (p *poster) post(ctx context.Context, body any, newDecoder func() decoder) (Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return Response{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(b))
	if err != nil {
		return Response{}, err
	}
	req.Header = p.header.Clone()
	var got decoder
	backoff := p.opts.Backoff
	c := &httpretry.Client{
		Send:     p.hc.Do,
		Attempts: p.opts.MaxRetries + 1,
		Timeout:  p.opts.MaxDuration,
		Cut: func() error {
			return fmt.Errorf("%w: the answer took over %s", errCut, p.opts.MaxDuration)
		},
		Idle: p.opts.Timeout,
		IdleCut: func() error {
			return fmt.Errorf("%w: no data for %s", errCut, p.opts.Timeout)
		},
		Backoff:       backoff,
		MaxBackoff:    16 * backoff,
		Jitter:        0.25,
		MaxWait:       p.opts.MaxRetryAfter,
		GiveUpOverMax: true,
		ReadAll:       maxAnswer,
		Consume: func(res *http.Response) error {
			got = nil
			d := newDecoder()
			if err := p.read(res, d); err != nil {
				return withRequestID(err, res.Header)
			}
			got = d
			return nil
		},
		Retry: retryable,
	}
	if p.opts.OnRetry != nil {
		c.OnRetry = func(next, of int, wait time.Duration, res *http.Response, err error) {
			r := Retry{Attempt: next, Of: of, Wait: wait, Err: err}
			if res != nil {
				r.Status = res.StatusCode
			}
			p.opts.OnRetry(r)
		}
	}
	res, err := c.Do(req)
	switch {
	case ctx.Err() != nil:
		return Response{}, ctx.Err()
	case errors.Is(err, httpretry.ErrTooLarge):
		return Response{}, fmt.Errorf("%w: the answer exceeds %d MiB", ErrBadResponse, maxAnswer>>20)
	case err != nil:
		return Response{}, err
	}
	if res.StatusCode/100 != 2 {
		answer, _ := io.ReadAll(res.Body) // in memory already
		return Response{}, apiError(res.StatusCode, res.Header, answer)
	}
	p.progress(got, true)
	return got.response()
}

// read feeds one 2xx answer to d: a stream event by event, or a whole JSON
// answer from a server that does not stream.
func (p *poster) read(res *http.Response, d decoder) error {
	body := &limited{r: res.Body, n: maxAnswer}
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if mt != "text/event-stream" {
		b, err := io.ReadAll(body)
		if err != nil {
			return err
		}
		return d.whole(b)
	}
	last := int64(-1)
	err := readSSE(body, func(name string, data []byte) error {
		if err := d.event(name, data); err != nil {
			return err
		}
		if n := d.output(); n != last {
			last = n
			p.progress(d, false)
		}
		return nil
	})
	var api *APIError
	switch {
	case err == nil && !d.done():
		return errStreamCut
	case err == nil, errors.As(err, &api), errors.Is(err, ErrBadResponse), errors.Is(err, httpretry.ErrTooLarge):
		return err
	}
	return fmt.Errorf("%w: %v", errStreamCut, err) // the connection broke
}

func (p *poster) progress(d decoder, done bool) {
	if p.opts.Progress != nil {
		p.opts.Progress(Progress{Model: p.model, Output: d.output(), Done: done})
	}
}

// limited fails with httpretry.ErrTooLarge past n bytes.
type limited struct {
	r io.Reader
	n int64
}

func (l *limited) Read(b []byte) (int, error) {
	n, err := l.r.Read(b)
	if l.n -= int64(n); l.n < 0 {
		return n, httpretry.ErrTooLarge
	}
	return n, err
}

// errCut marks an attempt cut by the inactivity deadline or the overall
// cap; client.wrap turns it into ErrTimeout with what to set.
var errCut = errors.New("attempt cut")

// jsonHeader is what every request carries, whatever the provider.
func jsonHeader() http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("User-Agent", "gh-ocdx")
	return h
}

// retryable says whether an attempt is worth another.
func retryable(res *http.Response, err error) httpretry.Decision {
	if err != nil {
		var api *APIError
		switch {
		case errors.As(err, &api):
			// An error event in the middle of a stream.
			return httpretry.Decision{Retry: api.retryable()}
		case errors.Is(err, httpretry.ErrTooLarge), errors.Is(err, ErrBadResponse):
			return httpretry.Decision{}
		}
		return httpretry.Decision{Retry: true} // connection errors, cuts, cut streams
	}
	if res.StatusCode/100 == 2 {
		return httpretry.Decision{}
	}
	d := retryAfter(res.Header)
	retry := httpretry.Decision{Retry: true, Wait: d, Asked: d > 0}
	switch res.Header.Get("X-Should-Retry") {
	case "true":
		return retry
	case "false":
		return httpretry.Decision{}
	}
	// The body is in memory: read it to tell a quota error from a rate limit.
	b, _ := io.ReadAll(res.Body)
	res.Body = io.NopCloser(bytes.NewReader(b))
	if !apiError(res.StatusCode, res.Header, b).retryable() {
		return httpretry.Decision{}
	}
	return retry
}

// retryable says whether the error may pass with another attempt: 408,
// 409, 429 and 5xx may, a quota or billing error never does.
func (e *APIError) retryable() bool {
	if e.Quota() {
		return false
	}
	switch s := e.Status; {
	case s == http.StatusRequestTimeout, s == http.StatusConflict,
		s == http.StatusTooManyRequests, s >= 500:
		return true
	}
	return false
}

// retryAfter is the wait the server asked for; 0 when none.
func retryAfter(h http.Header) time.Duration {
	d, _ := httpretry.RetryAfter(h)
	return d
}

// apiError reads an error answer: {"error":{"message","type","code"}}
// (OpenAI, Anthropic) or {"error":"…"} (Ollama and other compatible
// servers), with the request ID of the headers.
func apiError(status int, h http.Header, answer []byte) *APIError {
	e := &APIError{Status: status, RetryAfter: retryAfter(h)}
	var body struct {
		Error     json.RawMessage `json:"error"`
		RequestID string          `json:"request_id"`
	}
	if json.Unmarshal(answer, &body) == nil {
		e.fill(body.Error)
		e.RequestID = body.RequestID
	}
	if id := requestID(h); id != "" {
		e.RequestID = id
	}
	return e
}

// fill reads an error object (or string) into e.
func (e *APIError) fill(raw json.RawMessage) {
	var obj struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	var s string
	switch {
	case json.Unmarshal(raw, &obj) == nil:
		e.Message, e.Type = obj.Message, obj.Type
		var code string
		if json.Unmarshal(obj.Code, &code) != nil && len(obj.Code) > 0 && string(obj.Code) != "null" {
			code = string(obj.Code) // a number, from some compatible servers
		}
		e.Code = code
	case json.Unmarshal(raw, &s) == nil:
		e.Message = s
	}
}

// streamError is an error event of a stream (Anthropic's "error" event, an
// OpenAI chunk holding "error"): its type says whether to retry, as the
// status of the same error answered at once would.
func streamError(raw json.RawMessage) *APIError {
	e := &APIError{}
	e.fill(raw)
	e.Status = statusOf[e.Type]
	if e.Status == 0 {
		e.Status = http.StatusInternalServerError
	}
	return e
}

// statusOf is the status each Anthropic error type is answered with.
var statusOf = map[string]int{
	"invalid_request_error": 400, "authentication_error": 401, "billing_error": 402,
	"permission_error": 403, "not_found_error": 404, "request_too_large": 413,
	"rate_limit_error": 429, "api_error": 500, "timeout_error": 504, "overloaded_error": 529,
	"insufficient_quota": 429, "server_error": 500,
}

func requestID(h http.Header) string {
	if id := h.Get("X-Request-Id"); id != "" {
		return id
	}
	return h.Get("Request-Id")
}

// withRequestID gives an error event the request ID of its stream.
func withRequestID(err error, h http.Header) error {
	var api *APIError
	if errors.As(err, &api) && api.RequestID == "" {
		api.RequestID = requestID(h)
	}
	return err
}

// checkSchema makes sure a tool's schema is what both APIs accept: a JSON
// object describing an object.
func checkSchema(t ToolSpec) error {
	var s struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(t.Schema, &s); err != nil || s.Type != "object" {
		return fmt.Errorf("tool %s: schema is not a JSON object schema of type object", t.Name)
	}
	return nil
}

// estimate is the output tokens of n bytes of text, until the provider
// counts them.
func estimate(n int) int64 { return int64(n+3) / 4 }
