package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// The two wire formats are written by hand rather than with the official
// SDKs: we use one endpoint of each, and dropping the SDKs took the binary
// from 74 to 17 MB and `--version` from 29 to 17 ms (BENCHMARKS.md). poster
// keeps the SDKs' retry rules.

// maxAnswer bounds what is read of one answer; no chat completion is near it.
const maxAnswer = 32 << 20

// poster sends a JSON request to one endpoint with the retry rules of the
// official SDKs: connection errors, timeouts, 408, 409, 429 and 5xx are
// retried up to MaxRetries times, after the server's Retry-After(-Ms) when
// it gives one and after 0.5 s doubling to 8 s (with jitter) otherwise; an
// x-should-retry header overrides the status. A Retry-After beyond
// MaxRetryAfter makes the answer final. Options.Timeout bounds each attempt.
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
	for retry := 0; ; retry++ {
		status, h, answer, err := p.attempt(ctx, b)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, ErrBadResponse):
			return err
		}
		if err == nil && status/100 == 2 {
			if err := json.Unmarshal(answer, out); err != nil {
				return fmt.Errorf("%w: %v", ErrBadResponse, err)
			}
			return nil
		}
		if err == nil {
			err = &APIError{Status: status, Message: errorMessage(answer), RetryAfter: retryAfter(h)}
		}
		wait, again := p.retryable(status, h, retry)
		if !again || retry >= p.opts.MaxRetries {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// attempt sends one request and reads the whole answer within the attempt's
// time limit, so that an answer cut by the limit is an error (worth
// retrying), never a short answer.
func (p *poster) attempt(ctx context.Context, body []byte) (int, http.Header, []byte, error) {
	actx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header = p.header.Clone()
	res, err := p.hc.Do(req)
	var answer []byte
	if err == nil {
		defer res.Body.Close()
		answer, err = io.ReadAll(io.LimitReader(res.Body, maxAnswer+1))
	}
	switch {
	case actx.Err() != nil:
		// net/http may hand back an answer that raced the cancellation, such
		// as the empty 200 of a server that saw the connection drop.
		return 0, nil, nil, fmt.Errorf("attempt cut after %s: %w", p.opts.Timeout, context.DeadlineExceeded)
	case err != nil:
		return 0, nil, nil, err
	case len(answer) > maxAnswer:
		return 0, nil, nil, fmt.Errorf("%w: the answer exceeds %d MiB", ErrBadResponse, maxAnswer>>20)
	}
	return res.StatusCode, res.Header, answer, nil
}

// jsonHeader is what every request carries, whatever the provider.
func jsonHeader() http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set("User-Agent", "gh-ocdx")
	return h
}

// retryable says whether an attempt that ended with status (0: no answer)
// is worth another, and after how long.
func (p *poster) retryable(status int, h http.Header, retry int) (time.Duration, bool) {
	backoff := min(500*time.Millisecond<<retry, 8*time.Second)
	backoff -= time.Duration(rand.Float64() * 0.25 * float64(backoff))
	if status == 0 {
		return backoff, true
	}
	if d := retryAfter(h); d > p.opts.MaxRetryAfter {
		return 0, false
	} else if d > 0 {
		backoff = d
	}
	switch h.Get("X-Should-Retry") {
	case "true":
		return backoff, true
	case "false":
		return 0, false
	}
	switch {
	case status == http.StatusRequestTimeout, status == http.StatusConflict,
		status == http.StatusTooManyRequests, status >= 500:
		return backoff, true
	}
	return 0, false
}

// retryAfter reads Retry-After-Ms or Retry-After (seconds or a date); 0
// when absent.
func retryAfter(h http.Header) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := h.Get("Retry-After")
	if sec, err := strconv.ParseFloat(v, 64); err == nil && sec > 0 {
		return time.Duration(sec * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
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
