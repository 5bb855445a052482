package github_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// hostile is a TLS server answering every request with h; the client trusts
// it as it trusts the fake GitHub.
func hostile(t *testing.T, h http.HandlerFunc) (*httptest.Server, *github.Client) {
	t.Helper()
	srv := testkit.NewTLSServer(t, h)
	c, err := github.New(strings.TrimPrefix(srv.URL, "https://"), github.Options{Token: "tok", Backoff: time.Millisecond, Timeout: 20 * time.Second, Attempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// huge writes a JSON answer of about n bytes, valid to its end.
func huge(n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":{"repository":null},"padding":"`)
		chunk := strings.Repeat("a", 64<<10)
		for i := 0; i < n/len(chunk); i++ {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
		io.WriteString(w, `"}`)
	}
}

func TestAnswersAreBounded(t *testing.T) {
	t.Parallel()
	_, c := hostile(t, huge(33<<20))
	ctx := context.Background()
	_, err := c.PullRequest(ctx, repo, 1)
	if err == nil || !strings.Contains(err.Error(), "GitHub's answer was larger than 32 MB") || !strings.Contains(err.Error(), "PR #1 in octo/widgets") {
		t.Errorf("GraphQL: %v", err)
	}
	_, err = c.Comments(ctx, repo, 1)
	if err == nil || !strings.Contains(err.Error(), "larger than 32 MB") {
		t.Errorf("REST: %v", err)
	}
	// Under the bound, the same answer is read.
	_, c = hostile(t, huge(1<<20))
	if _, err := c.PullRequest(ctx, repo, 1); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("a 1 MB answer: %v, want the PR not found (repository null)", err)
	}
}

func TestAnswerThatIsNotUTF8IsExplained(t *testing.T) {
	t.Parallel()
	_, c := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{\"data\":{\"repository\":{\"pullRequest\":{\"title\":\"caf\xe9\"}}}}")
	})
	_, err := c.PullRequest(context.Background(), repo, 1)
	if err == nil || !strings.Contains(err.Error(), "is not UTF-8 text (an invalid byte at offset 50)") || !strings.Contains(err.Error(), "check GH_HOST") {
		t.Errorf("got %v", err)
	}
}

func TestRedirects(t *testing.T) {
	t.Parallel()
	var elsewhere atomic.Int32
	other := testkit.NewTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		w.Write([]byte(`[]`))
	}))
	var posts atomic.Int32
	srv, c := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/comments"):
			posts.Add(1)
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
		case r.Method == http.MethodPost: // a review: a redirect to the same host
			posts.Add(1)
			http.Redirect(w, r, r.URL.Path+"/again", http.StatusPermanentRedirect)
		case strings.HasSuffix(r.URL.Path, "/issues/1/comments"):
			http.Redirect(w, r, "/api/v3/repos/octo/widgets/issues/2/comments", http.StatusFound)
		case strings.HasSuffix(r.URL.Path, "/issues/2/comments"):
			w.Write([]byte(`[{"id": 7, "body": "moved", "user": {"login": "ocdx-bot"}}]`))
		case strings.HasSuffix(r.URL.Path, "/issues/3/comments"):
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	})
	ctx := context.Background()
	// A write is never redirected, to another host or to the same one.
	_, err := c.PostComment(ctx, repo, 1, "hello")
	if err == nil || !strings.Contains(err.Error(), "a redirect to "+other.URL) || !strings.Contains(err.Error(), "never follows for a write") {
		t.Errorf("POST redirected elsewhere: %v", err)
	}
	_, err = c.PostReview(ctx, repo, 1, github.CommentOnly, "hello")
	if err == nil || !strings.Contains(err.Error(), "never follows for a write") {
		t.Errorf("POST redirected to the same host: %v", err)
	}
	if posts.Load() != 2 || elsewhere.Load() != 0 {
		t.Errorf("%d posts, %d requests elsewhere: want each write sent once, nothing to the other host", posts.Load(), elsewhere.Load())
	}
	// A read follows a redirect on the same host, not to another one.
	cs, err := c.Comments(ctx, repo, 1)
	if err != nil || len(cs) != 1 || cs[0].Body != "moved" {
		t.Errorf("GET redirected on the same host: %v, %v", cs, err)
	}
	_, err = c.Comments(ctx, repo, 3)
	if err == nil || !strings.Contains(err.Error(), "a redirect to another host") || elsewhere.Load() != 0 {
		t.Errorf("GET redirected elsewhere: %v (%d requests there)", err, elsewhere.Load())
	}
	_ = srv
}
