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
	// Timeout is the inactivity deadline: an attempt that receives no byte
	// for this long is cut and retried (default 2m). The answer streams,
	// so a long generation is not cut while tokens keep coming.
	Timeout       time.Duration
	MaxDuration   time.Duration // an attempt's overall cap, however steadily it streams (default 30m)
	MaxRetries    int           // retries on 408/409/429/5xx, cut streams and connection errors (default 3); <0 for none
	MaxRetryAfter time.Duration // a longer Retry-After ends the call instead of sleeping (default 1m)
	Backoff       time.Duration // the first wait between attempts when the server asks none; doubles up to 16 times it (default 0.5s)
	MaxTokens     int64         // output cap per call (default 8192)
	// Progress, when set, is told the output tokens of a call as they
	// arrive (from the calling goroutine; keep it quick).
	Progress func(Progress)
	// OnRetry, when set, is told of each retry before its wait, for
	// progress displays.
	OnRetry func(Retry)
}

// Progress is how far the answer of one model call is.
type Progress struct {
	Model  string // "provider/model"
	Output int64  // output tokens so far: estimated from the bytes until the provider counts them at the end
	Done   bool   // the answer is complete; Output is the provider's count
}

// Retry describes a failed attempt about to be retried.
type Retry struct {
	Attempt, Of int           // the attempt about to be made (2 for the first retry) and the total
	Wait        time.Duration // before it
	Status      int           // the failed attempt's HTTP status; 0 for a connection error or a cut attempt
	Err         error         // the failed attempt's error when it had no answer
}

const (
	defaultTimeout       = 2 * time.Minute
	defaultMaxDuration   = 30 * time.Minute
	defaultMaxRetries    = 3
	defaultMaxRetryAfter = time.Minute
	defaultBackoff       = 500 * time.Millisecond
	// DefaultMaxTokens is the output cap of a role the configuration's
	// outputTokens does not name.
	DefaultMaxTokens = 8192
)

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = defaultTimeout
	}
	if o.MaxDuration <= 0 {
		o.MaxDuration = defaultMaxDuration
	}
	if o.Backoff <= 0 {
		o.Backoff = defaultBackoff
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
		o.MaxTokens = DefaultMaxTokens
	}
	return o
}

// New returns the Model for a "provider/model" string, configured from the
// provider's environment variables (Providers) read through getenv. Every request
// it sends has its secrets masked first.
func New(model string, getenv func(string) string, opts Options) (Model, error) {
	return newClient(model, getenv, opts, http.DefaultClient)
}

// newClient is New over hc, whose own timeouts are not needed: poster
// bounds each attempt with its own deadlines.
func newClient(model string, getenv func(string) string, opts Options, hc *http.Client) (*client, error) {
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
	post := func(url string, h http.Header) *poster {
		return &poster{hc: hc, url: url, header: h, opts: opts, model: m.String()}
	}
	var p chatter
	switch m.Provider.Name {
	case "openai":
		// The official API wants max_completion_tokens; a compatible server
		// behind OPENAI_BASE_URL may know only max_tokens.
		official := strings.TrimRight(base, "/") == strings.TrimRight(m.Provider.DefaultURL, "/")
		p = newOpenAI(m.Name, post(strings.TrimRight(base, "/")+"/chat/completions", openAIHeader(key)), opts.MaxTokens, official)
	case "ollama":
		u, err := ollamaURL(base)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", m, m.Provider.BaseURLEnv, err)
		}
		p = newOpenAI(m.Name, post(u+"/chat/completions", openAIHeader("")), opts.MaxTokens, false)
	case "anthropic":
		p = newAnthropic(m.Name, post(strings.TrimRight(base, "/")+"/v1/messages", anthropicHeader(key)), opts.MaxTokens)
	default:
		return nil, fmt.Errorf("%s: provider %q has no client", m, m.Provider.Name)
	}
	return &client{name: m.String(), p: p, opts: opts, urlEnv: m.Provider.BaseURLEnv, keyEnv: m.Provider.CredentialEnv}, nil
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
	name   string
	p      chatter
	opts   Options
	urlEnv string // the variable that points at the server, for error hints
	keyEnv string // the variable holding the API key; "" for none
}

func (c *client) Chat(ctx context.Context, req Request) (Response, error) {
	resp, err := c.p.chat(ctx, maskRequest(req))
	if err != nil {
		return Response{}, c.wrap(err)
	}
	resp.Usage.Calls = 1
	if resp.Truncated && len(resp.Calls) == 0 {
		// A cut text is no answer: the envelope is cut with it, or a
		// reasoning model spent the whole cap thinking.
		what := fmt.Sprintf("after %d characters of text", len(resp.Text))
		if strings.TrimSpace(resp.Text) == "" {
			what = "before any text (a reasoning model may have spent it thinking)"
		}
		return resp, fmt.Errorf("%s: %w of %d tokens %s; raise it with \"outputTokens\" in the configuration", c.name, ErrOutputCap, c.opts.MaxTokens, what)
	}
	return resp, nil
}

// ErrOutputCap marks an answer the output cap (Options.MaxTokens) cut:
// finish_reason "length", stop_reason "max_tokens".
var ErrOutputCap = errors.New("the answer hit the output cap")

// APIError is an error answer from a provider after any retries.
type APIError struct {
	Model      string // "provider/model"
	Status     int
	Message    string
	Type       string        // the error's type: "rate_limit_error", "insufficient_quota", "billing_error", …
	Code       string        // the error's code (OpenAI): "insufficient_quota", "model_not_found", …
	RequestID  string        // x-request-id (OpenAI) or request-id (Anthropic), for the provider's support
	RetryAfter time.Duration // what the server asked for, when it did
	KeyEnv     string        // the variable holding the API key used; "" for none
}

// Quota says the account behind the key has no quota or credit left: no
// retry helps (OpenAI insufficient_quota, Anthropic billing_error, 402).
func (e *APIError) Quota() bool {
	return e.Status == http.StatusPaymentRequired || e.Type == "billing_error" ||
		e.Type == "insufficient_quota" || e.Code == "insufficient_quota"
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("%s: HTTP %d %s", e.Model, e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		s += ": " + e.Message
	}
	var said []string
	for _, kv := range [][2]string{{"type", e.Type}, {"code", e.Code}, {"request ID", e.RequestID}} {
		if kv[1] != "" && (kv[0] != "code" || e.Code != e.Type) {
			said = append(said, kv[0]+" "+kv[1])
		}
	}
	if len(said) > 0 {
		s += " (" + strings.Join(said, ", ") + ")"
	}
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (the server asks to retry after %s)", e.RetryAfter.Round(time.Second))
	}
	key := "the API key in the environment"
	if e.KeyEnv != "" {
		key = e.KeyEnv
	}
	switch {
	case e.Quota():
		s += fmt.Sprintf(" (the account of %s has no quota or credit left: add some, or configure another model instead of %s)", key, e.Model)
	case e.Status == http.StatusUnauthorized, e.Status == http.StatusForbidden:
		s += " (check " + key + ")"
	case e.Status == http.StatusNotFound:
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
		api.Model, api.KeyEnv = c.name, c.keyEnv
		return api
	}
	var ne net.Error
	if errors.Is(err, errCut) || errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%s: %w (%v; an attempt is cut after %s without data or %s in all: set OCDX_MODEL_TIMEOUT for a longer wait)", c.name, ErrTimeout, err, c.opts.Timeout, c.opts.MaxDuration)
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return fmt.Errorf("%s: %w (is the server running? %s sets its address)", c.name, err, c.urlEnv)
	}
	return fmt.Errorf("%s: %w", c.name, err)
}
