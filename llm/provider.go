package llm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Options tune the HTTP side of a provider. Zero values take the defaults.
type Options struct {
	Timeout       time.Duration // per attempt; a stalled attempt is cut and retried (default 5m)
	MaxRetries    int           // retries on 408/409/429/5xx and connection errors (default 3); <0 for none
	MaxRetryAfter time.Duration // a longer Retry-After ends the call instead of sleeping (default 1m)
	MaxTokens     int64         // output cap per call (default 8192)
	// OnRetry, when set, is told of each retry before its wait, for
	// progress displays.
	OnRetry func(Retry)
}

// Retry describes a failed attempt about to be retried.
type Retry struct {
	Attempt, Of int           // the attempt about to be made (2 for the first retry) and the total
	Wait        time.Duration // before it
	Status      int           // the failed attempt's HTTP status; 0 for a connection error or a cut attempt
	Err         error         // the failed attempt's error when it had no answer
}

const (
	defaultTimeout       = 5 * time.Minute
	defaultMaxRetries    = 3
	defaultMaxRetryAfter = time.Minute
	defaultMaxTokens     = 8192
)

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = defaultTimeout
	}
	switch {
	case o.MaxRetries == 0:
		o.MaxRetries = defaultMaxRetries
	case o.MaxRetries < 0:
		o.MaxRetries = 0
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = defaultMaxRetryAfter
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = defaultMaxTokens
	}
	return o
}

// New returns the Model for a "provider/model" string, configured from the
// provider's environment variables (Providers) read through getenv. Every request
// it sends has its secrets masked first.
func New(model string, getenv func(string) string, opts Options) (Model, error) {
	m, err := ParseModel(model)
	if err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	key := ""
	if env := m.Provider.CredentialEnv; env != "" {
		key = getenv(env)
		if key == "" {
			return nil, fmt.Errorf("%s: %s is not set", m, env)
		}
	}
	base := m.Provider.DefaultURL
	if v := strings.TrimSpace(getenv(m.Provider.BaseURLEnv)); v != "" {
		base = v
	}
	hc := http.DefaultClient // poster bounds each attempt with its own deadline
	var p chatter
	switch m.Provider.Name {
	case "openai":
		p = newOpenAI(m.Name, strings.TrimRight(base, "/"), key, hc, opts, true)
	case "ollama":
		u, err := ollamaURL(base)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", m, m.Provider.BaseURLEnv, err)
		}
		p = newOpenAI(m.Name, u, "", hc, opts, false)
	case "anthropic":
		p = newAnthropic(m.Name, strings.TrimRight(base, "/"), key, hc, opts)
	default:
		return nil, fmt.Errorf("%s: provider %q has no client", m, m.Provider.Name)
	}
	return &client{name: m.String(), p: p, timeout: opts.Timeout, urlEnv: m.Provider.BaseURLEnv}, nil
}

// ollamaURL reads OLLAMA_HOST the way ollama does: "host" or "host:port"
// (port 11434 by default), or a URL; the OpenAI-compatible API lives
// under /v1.
func ollamaURL(host string) (string, error) {
	bare := !strings.Contains(host, "://")
	if bare {
		host = "http://" + host
	}
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("%q is not a host or URL", host)
	}
	if bare && u.Port() == "" {
		u.Host = net.JoinHostPort(u.Hostname(), "11434")
	}
	return strings.TrimRight(u.String(), "/") + "/v1", nil
}

// chatter is what a provider implements; client adds masking and errors.
type chatter interface {
	chat(ctx context.Context, req Request) (Response, error)
}

type client struct {
	name    string
	p       chatter
	timeout time.Duration
	urlEnv  string // the variable that points at the server, for error hints
}

func (c *client) Chat(ctx context.Context, req Request) (Response, error) {
	resp, err := c.p.chat(ctx, maskRequest(req))
	if err != nil {
		return Response{}, c.wrap(err)
	}
	resp.Usage.Calls = 1
	return resp, nil
}

// APIError is an error answer from a provider after any retries.
type APIError struct {
	Model      string // "provider/model"
	Status     int
	Message    string
	RetryAfter time.Duration // what the server asked for, when it did
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("%s: HTTP %d %s", e.Model, e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (the server asks to retry after %s)", e.RetryAfter.Round(time.Second))
	}
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		s += " (check the API key in the environment)"
	case http.StatusNotFound:
		s += " (check the model name and the base URL)"
	}
	return s
}

// ErrTimeout marks a call whose every attempt timed out.
var ErrTimeout = errors.New("model call timed out")

// ErrBadResponse marks an answer that does not decode or holds no message.
var ErrBadResponse = errors.New("malformed model response")

func (c *client) wrap(err error) error {
	var api *APIError
	if errors.As(err, &api) {
		api.Model = c.name
		return api
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%s: %w (no answer within %s per attempt; set OCDX_MODEL_TIMEOUT for a longer wait)", c.name, ErrTimeout, c.timeout)
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return fmt.Errorf("%s: %w (is the server running? %s sets its address)", c.name, err, c.urlEnv)
	}
	return fmt.Errorf("%s: %w", c.name, err)
}
