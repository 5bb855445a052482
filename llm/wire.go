package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/ocdx/gh-ocdx/internal/httpretry"
)

// The two wire formats are written by hand rather than with the official
// SDKs: we use one endpoint of each, and dropping the SDKs took the binary
// from 74 to 17 MB and `--version` from 29 to 17 ms (BENCHMARKS.md). poster
// keeps the SDKs' retry rules.

// maxAnswer bounds what is read of one answer; no chat completion is near it.
const maxAnswer = 32 << 20

// poster sends a JSON request to one endpoint with the retry rules of the
// official SDKs, run by internal/httpretry: connection errors, timeouts,
// 408, 409, 429 and 5xx are retried up to MaxRetries times, after the
// server's Retry-After(-Ms) when it gives one and after 0.5 s doubling to
// 8 s (with jitter) otherwise; an x-should-retry header overrides the
// status. A Retry-After beyond MaxRetryAfter makes the answer final.
// Options.Timeout bounds each attempt, the reading of the answer included,
// so that an answer cut by the limit is retried, never taken as short.
type poster struct {
	hc     *http.Client
	url    string
	header http.Header
	opts   Options
}

// post sends body and decodes a 2xx answer into out. Other answers become
// an *APIError; an answer that does not decode wraps ErrBadResponse.
func (p *poster) post(ctx context.Context, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header = p.header.Clone()
	c := &httpretry.Client{
		Send:     p.hc.Do,
		Attempts: p.opts.MaxRetries + 1,
		Timeout:  p.opts.Timeout,
		Cut: func() error {
			return fmt.Errorf("attempt cut after %s: %w", p.opts.Timeout, context.DeadlineExceeded)
		},
		Backoff:       500 * time.Millisecond,
		MaxBackoff:    8 * time.Second,
		Jitter:        0.25,
		MaxWait:       p.opts.MaxRetryAfter,
		GiveUpOverMax: true,
		ReadAll:       maxAnswer,
		Retry:         retryable,
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
		return ctx.Err()
	case errors.Is(err, httpretry.ErrTooLarge):
		return fmt.Errorf("%w: the answer exceeds %d MiB", ErrBadResponse, maxAnswer>>20)
	case err != nil:
		return err
	}
	answer, _ := io.ReadAll(res.Body) // in memory already
	if res.StatusCode/100 != 2 {
		return &APIError{Status: res.StatusCode, Message: errorMessage(answer), RetryAfter: retryAfter(res.Header)}
	}
	if err := json.Unmarshal(answer, out); err != nil {
		return fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	return nil
}

// jsonHeader is what every request carries, whatever the provider.
func jsonHeader() http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set("User-Agent", "gh-ocdx")
	return h
}

// retryable says whether an attempt is worth another.
func retryable(res *http.Response, err error) httpretry.Decision {
	if errors.Is(err, httpretry.ErrTooLarge) {
		return httpretry.Decision{}
	}
	if err != nil {
		return httpretry.Decision{Retry: true}
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
	switch s := res.StatusCode; {
	case s == http.StatusRequestTimeout, s == http.StatusConflict,
		s == http.StatusTooManyRequests, s >= 500:
		return retry
	}
	return httpretry.Decision{}
}

// retryAfter is the wait the server asked for; 0 when none.
func retryAfter(h http.Header) time.Duration {
	d, _ := httpretry.RetryAfter(h)
	return d
}

// errorMessage finds the message in an error answer: {"error":{"message":…}}
// (OpenAI, Anthropic) or {"error":"…"} (Ollama and other compatible
// servers).
func errorMessage(answer []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(answer, &e) != nil {
		return ""
	}
	var obj struct {
		Message string `json:"message"`
	}
	var s string
	switch {
	case json.Unmarshal(e.Error, &obj) == nil:
		return obj.Message
	case json.Unmarshal(e.Error, &s) == nil:
		return s
	}
	return ""
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
