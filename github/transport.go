package github

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/internal/httpretry"
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

// rateLimitError is returned when GitHub kept refusing an idempotent read
// for rate limiting after all retries. RetryAfter is GitHub's last hint.
type rateLimitError struct {
	RetryAfter time.Duration
	Status     int
}

func (e *rateLimitError) Error() string {
	return fmt.Sprintf("GitHub rate limit (HTTP %d): try again in %s", e.Status, e.RetryAfter.Round(time.Second))
}

// retryTransport retries idempotent reads (GET, HEAD and GraphQL queries) on
// 5xx, 429, secondary rate limits and dropped connections, honouring
// Retry-After, through internal/httpretry. Anything else, POSTs of comments
// and reviews included, is sent once: a blind retry could post twice
// (docs/architecture.md, Posting).
type retryTransport struct {
	next     http.RoundTripper
	perTry   time.Duration // each attempt's own time limit, so a stalled read is cut and tried again
	attempts int           // total tries, first one included
	backoff  time.Duration // first wait without Retry-After; doubles each time
	maxWait  time.Duration // longest Retry-After we are willing to sleep
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c := &httpretry.Client{
		Send:     t.next.RoundTrip,
		Attempts: t.attempts,
		Timeout:  t.perTry,
		Cut: func() error {
			return fmt.Errorf("no answer within %s (set OCDX_GITHUB_TIMEOUT for a longer wait): %w", t.perTry, errAttemptTimeout)
		},
		Backoff: t.backoff,
		MaxWait: t.maxWait,
		Once: func(req *http.Request) (bool, error) {
			idempotent, err := idempotent(req)
			return !idempotent, err
		},
		Retry:     shouldRetry,
		Exhausted: rateLimited,
	}
	return c.Do(req)
}

// rateLimited turns a rate limit that outlasted the attempts into a
// rateLimitError.
func rateLimited(resp *http.Response, err error, wait time.Duration) (*http.Response, error) {
	if resp != nil && isRateLimit(resp) {
		resp.Body.Close()
		return nil, &rateLimitError{RetryAfter: wait, Status: resp.StatusCode}
	}
	return resp, err
}

// errAttemptTimeout marks an attempt cut by its time limit: worth retrying.
var errAttemptTimeout = errors.New("request timed out")

// idempotent reports whether req may be sent again. A GraphQL request's
// body is read to tell a query from a mutation, and put back.
func idempotent(req *http.Request) (bool, error) {
	switch req.Method {
	case http.MethodGet, http.MethodHead:
		return true, nil
	case http.MethodPost:
		if !strings.HasSuffix(req.URL.Path, "/graphql") || req.Body == nil {
			return false, nil
		}
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return false, err
		}
		req.Body = io.NopCloser(bytes.NewReader(b))
		// A GraphQL query is a read; a mutation is not.
		return !bytes.Contains(b, []byte(`"query":"mutation`)), nil
	}
	return false, nil
}

// shouldRetry: a dropped connection or a cut attempt, 5xx and rate limits
// are worth another attempt.
func shouldRetry(resp *http.Response, err error) httpretry.Decision {
	if err != nil {
		return httpretry.Decision{Retry: errors.Is(err, errAttemptTimeout) || !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)}
	}
	if resp.StatusCode >= 500 || isRateLimit(resp) {
		d, ok := retryAfter(resp)
		return httpretry.Decision{Retry: true, Wait: d, Asked: ok}
	}
	return httpretry.Decision{}
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

// retryAfter is Retry-After, else the reset time of an exhausted quota.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	if d, ok := httpretry.RetryAfter(resp.Header); ok {
		return d, true
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "0" {
		if n, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			return max(time.Until(time.Unix(n, 0)), 0), true
		}
	}
	return 0, false
}
