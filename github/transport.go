package github

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// authTransport sends the token to the exact configured host. go-gh compares
// host names without the port, so a host such as 127.0.0.1:8443 (some GHES
// setups) would otherwise receive no token at all.
type authTransport struct {
	host  string // as configured, port included
	token string
	next  http.RoundTripper
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.token != "" && req.Header.Get("Authorization") == "" && strings.EqualFold(req.URL.Host, t.host) {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "token "+t.token)
	}
	return t.next.RoundTrip(req)
}

// RateLimitError is returned when GitHub kept refusing an idempotent read
// for rate limiting after all retries. RetryAfter is GitHub's last hint.
type RateLimitError struct {
	RetryAfter time.Duration
	Status     int
}

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("GitHub rate limit (HTTP %d): try again in %s", e.Status, e.RetryAfter.Round(time.Second))
}

// retryTransport retries idempotent reads (GET, HEAD and GraphQL queries) on
// 5xx, 429, secondary rate limits and dropped connections, honouring
// Retry-After. Anything else, POSTs of comments and reviews included, is sent
// once: a blind retry could post twice.
type retryTransport struct {
	next     http.RoundTripper
	perTry   time.Duration // each attempt's own time limit, so a stalled read is cut and tried again
	attempts int           // total tries, first one included
	backoff  time.Duration // first wait without Retry-After; doubles each time
	maxWait  time.Duration // longest Retry-After we are willing to sleep
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, idempotent, err := idempotentBody(req)
	if err != nil {
		return nil, err
	}
	if !idempotent {
		return t.try(req)
	}
	wait := t.backoff
	for attempt := 1; ; attempt++ {
		if body != nil {
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
		resp, err := t.try(req)
		if err != nil && req.Context().Err() != nil {
			return nil, err // the caller gave up: no retry
		}
		delay, retry := t.shouldRetry(resp, err, wait)
		if !retry || attempt >= t.attempts {
			if retry && resp != nil && isRateLimit(resp) {
				resp.Body.Close()
				return nil, &RateLimitError{RetryAfter: delay, Status: resp.StatusCode}
			}
			return resp, err
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		if err := sleep(req.Context(), delay); err != nil {
			return nil, err
		}
		wait *= 2
	}
}

// try sends one attempt under its own time limit. The limit stays on while
// the caller reads the body, and ends when it closes it.
func (t *retryTransport) try(req *http.Request) (*http.Response, error) {
	if t.perTry <= 0 {
		return t.next.RoundTrip(req)
	}
	ctx, cancel := context.WithTimeout(req.Context(), t.perTry)
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err == nil && ctx.Err() != nil {
		// net/http hands back a response that raced the cancellation, such
		// as the empty 200 a server writes once it sees the connection drop.
		// The attempt was cut all the same.
		resp.Body.Close()
		resp, err = nil, ctx.Err()
	}
	if err != nil {
		cut := t.cut(ctx, req.Context())
		cancel()
		if cut {
			err = t.timeoutError()
		}
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel, t: t, ctx: ctx, parent: req.Context(),
		closeDelimited: resp.ContentLength < 0 && !resp.Uncompressed && !slices.Contains(resp.TransferEncoding, "chunked")}
	return resp, nil
}

// cut reports whether the attempt's own limit ended it, rather than the
// caller giving up.
func (t *retryTransport) cut(ctx, parent context.Context) bool {
	return ctx.Err() == context.DeadlineExceeded && parent.Err() == nil
}

func (t *retryTransport) timeoutError() error {
	return fmt.Errorf("no answer within %s (set OCDX_GITHUB_TIMEOUT for a longer wait): %w", t.perTry, errAttemptTimeout)
}

// errAttemptTimeout marks an attempt cut by its time limit: worth retrying.
var errAttemptTimeout = errors.New("request timed out")

// cancelBody ends the attempt's limit on Close, and reports a body cut by
// that limit as a timeout rather than as the transport's raw error.
type cancelBody struct {
	io.ReadCloser
	cancel      context.CancelFunc
	t           *retryTransport
	ctx, parent context.Context
	// No length and not chunked: the body ends when the connection does, so
	// an end seen after the limit may be the cut, not the whole answer.
	closeDelimited bool
}

func (b *cancelBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && (err != io.EOF || b.closeDelimited) && b.t.cut(b.ctx, b.parent) {
		err = b.t.timeoutError()
	}
	return n, err
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// idempotentBody reports whether req may be sent again, and buffers its body
// so it can be.
func idempotentBody(req *http.Request) ([]byte, bool, error) {
	switch req.Method {
	case http.MethodGet, http.MethodHead:
		return nil, true, nil
	case http.MethodPost:
		if !strings.HasSuffix(req.URL.Path, "/graphql") || req.Body == nil {
			return nil, false, nil
		}
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, false, err
		}
		req.Body = io.NopCloser(bytes.NewReader(b))
		// A GraphQL query is a read; a mutation is not.
		return b, !bytes.Contains(b, []byte(`"query":"mutation`)), nil
	}
	return nil, false, nil
}

func (t *retryTransport) shouldRetry(resp *http.Response, err error, wait time.Duration) (time.Duration, bool) {
	if err != nil {
		return wait, errors.Is(err, errAttemptTimeout) || !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
	}
	if resp.StatusCode >= 500 || isRateLimit(resp) {
		if d, ok := retryAfter(resp); ok {
			return min(d, t.maxWait), true
		}
		return wait, true
	}
	return 0, false
}

// isRateLimit: 429, or 403 with an exhausted quota or a Retry-After (GitHub's
// secondary rate limit).
func isRateLimit(resp *http.Response) bool {
	if resp.StatusCode == http.StatusTooManyRequests {
		return true
	}
	return resp.StatusCode == http.StatusForbidden &&
		(resp.Header.Get("Retry-After") != "" || resp.Header.Get("X-RateLimit-Remaining") == "0")
}

func retryAfter(resp *http.Response) (time.Duration, bool) {
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 0 {
			return time.Duration(n) * time.Second, true
		}
		if t, err := http.ParseTime(s); err == nil {
			return max(time.Until(t), 0), true
		}
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "0" {
		if n, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			return max(time.Until(time.Unix(n, 0)), 0), true
		}
	}
	return 0, false
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
