// Package github is gh-ocdx's access to GitHub, on go-gh v2: one GraphQL query
// for a pull request's context, its diff, comments, reviews and head check.
// Reads are retried when safe; writes never are.
package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/cli/go-gh/v2/pkg/api"
	"github.com/cli/go-gh/v2/pkg/auth"
)

// Repo names a repository on a host.
type Repo struct {
	Host, Owner, Name string
}

func (r Repo) String() string { return r.Owner + "/" + r.Name }

// Client talks to one GitHub host.
type Client struct {
	host string
	http *http.Client // go-gh's client: headers, auth, retries
	gql  *api.GraphQLClient
	rest *api.RESTClient
}

// Options tune a Client; the zero value is what the CLI uses.
type Options struct {
	Token    string        // default: auth.TokenForHost(host)
	Timeout  time.Duration // per attempt of a request; default 60s
	Attempts int           // tries for idempotent reads; default 4
	Backoff  time.Duration // first wait between tries without Retry-After; default 1s
	MaxWait  time.Duration // cap on an honoured Retry-After; default 60s
}

// New returns a client for host (as in GH_HOST: "github.com", a GHES name, or
// host:port).
func New(host string, o Options) (*Client, error) {
	if o.Token == "" {
		o.Token, _ = auth.TokenForHost(host)
	}
	if o.Token == "" {
		return nil, fmt.Errorf("not logged in to %s: run 'gh auth login --hostname %s' or set GH_TOKEN (GH_ENTERPRISE_TOKEN for GitHub Enterprise)", host, host)
	}
	if o.Timeout == 0 {
		o.Timeout = 60 * time.Second
	}
	if o.Attempts == 0 {
		o.Attempts = 4
	}
	if o.Backoff == 0 {
		o.Backoff = time.Second
	}
	if o.MaxWait == 0 {
		o.MaxWait = 60 * time.Second
	}
	// The time limit is per attempt, in the retry transport: a limit on the
	// http.Client would cover all attempts and leave a stalled read unretried.
	opts := api.ClientOptions{
		Host:      host,
		AuthToken: o.Token,
		Transport: &boundTransport{next: &authTransport{host: host, token: o.Token, next: &retryTransport{
			next: http.DefaultTransport, perTry: o.Timeout, attempts: o.Attempts, backoff: o.Backoff, maxWait: o.MaxWait,
		}}},
		CheckRedirect: checkRedirect,
	}
	hc, err := api.NewHTTPClient(opts)
	if err != nil {
		return nil, err
	}
	gql, err := api.NewGraphQLClient(opts)
	if err != nil {
		return nil, err
	}
	rest, err := api.NewRESTClient(opts)
	if err != nil {
		return nil, err
	}
	return &Client{host: host, http: hc, gql: gql, rest: rest}, nil
}

// restURL is the REST API root for the host, as go-gh computes it.
func (c *Client) restURL(path string) string {
	switch h := strings.ToLower(c.host); {
	case h == "github.com":
		return "https://api.github.com/" + path
	case h == "github.localhost":
		return "http://api.github.localhost/" + path
	default:
		return "https://" + c.host + "/api/v3/" + path
	}
}

// notFoundError: the pull request (or issue) does not exist or is not visible
// with this token.
type notFoundError struct {
	What string // "PR #12"
	Repo Repo
}

func (e *notFoundError) Error() string {
	return fmt.Sprintf("%s not found in %s: check the number, and that your token can see the repository (-R OWNER/REPO picks another)", e.What, e.Repo)
}

// explain turns an API failure into a message that says what to do.
func (c *Client) explain(err error, what string, repo Repo) error {
	if err == nil {
		return nil
	}
	var he *api.HTTPError
	if errors.As(err, &he) {
		switch he.StatusCode {
		case http.StatusNotFound:
			return &notFoundError{What: what, Repo: repo}
		case http.StatusUnauthorized:
			return fmt.Errorf("GitHub rejected the token for %s (HTTP 401): run 'gh auth login --hostname %s' or set a valid GH_TOKEN", c.host, c.host)
		case http.StatusForbidden:
			return fmt.Errorf("GitHub refused access to %s in %s (HTTP 403: %s): check the token's scopes ('gh auth status')", what, repo, he.Message)
		}
		if he.StatusCode >= 500 {
			return fmt.Errorf("GitHub failed while reading %s in %s (HTTP %d, after retries): try again later", what, repo, he.StatusCode)
		}
		return fmt.Errorf("GitHub request for %s in %s failed: %w", what, repo, err)
	}
	var ge *api.GraphQLError
	if errors.As(err, &ge) {
		for _, e := range ge.Errors {
			if e.Type == "NOT_FOUND" {
				return &notFoundError{What: what, Repo: repo}
			}
		}
		return fmt.Errorf("GitHub could not answer the query for %s in %s: %w", what, repo, err)
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	if errors.As(err, &se) || errors.As(err, &te) {
		return fmt.Errorf("GitHub's answer for %s in %s was not valid JSON (%v): try again later; if it persists, check GH_HOST and any proxy in between", what, repo, err)
	}
	var ae *answerError
	if errors.As(err, &ae) {
		return fmt.Errorf("%s in %s: %w", what, repo, ae)
	}
	var rl *rateLimitError
	if errors.As(err, &rl) {
		return fmt.Errorf("reading %s in %s: %w", what, repo, err)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("could not reach GitHub at %s for %s: %w", c.host, what, err)
}
