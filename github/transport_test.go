package github

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

type recordRT struct{ got http.Header }

func (r *recordRT) RoundTrip(req *http.Request) (*http.Response, error) {
	r.got = req.Header.Clone()
	return &http.Response{StatusCode: 200, Body: http.NoBody, Request: req}, nil
}

func TestTokenGoesOnlyToTheConfiguredHostAndPort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url  string
		want string
	}{
		{"https://127.0.0.1:8443/api/graphql", "token secret"},
		{"https://127.0.0.1:9999/api/graphql", ""}, // same IP, other port
		{"https://evil.example/api/v3/x", ""},
	} {
		rec := &recordRT{}
		tr := &authTransport{host: "127.0.0.1:8443", token: "secret", next: rec}
		req, _ := http.NewRequest(http.MethodGet, tc.url, nil)
		if _, err := tr.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
		if got := rec.got.Get("Authorization"); got != tc.want {
			t.Errorf("%s: Authorization %q, want %q", tc.url, got, tc.want)
		}
		if req.Header.Get("Authorization") != "" {
			t.Error("the caller's request must not be modified")
		}
	}
}

// lateRT stalls its first `late` requests until their context ends, then
// answers an empty 200 anyway, as net/http does when a server's reply to the
// dropped connection races the cancellation.
type lateRT struct {
	late, calls int
}

func (r *lateRT) RoundTrip(req *http.Request) (*http.Response, error) {
	r.calls++
	if r.calls <= r.late {
		<-req.Context().Done()
		return &http.Response{StatusCode: 200, ContentLength: 0, Body: http.NoBody, Request: req}, nil
	}
	return &http.Response{StatusCode: 200, ContentLength: 2, Body: io.NopCloser(strings.NewReader("{}")), Request: req}, nil
}

func TestAnswerAfterTheAttemptLimitIsATimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		method      string
		late        int
		wantCalls   int
		wantBody    string
		wantTimeout bool
	}{
		{"read stalled once", http.MethodGet, 1, 2, "{}", false},
		{"read stalled on every try", http.MethodGet, 3, 3, "", true},
		{"write stalled", http.MethodPost, 1, 1, "", true},
	} {
		rt := &lateRT{late: tc.late}
		tr := &retryTransport{next: rt, perTry: 20 * time.Millisecond, attempts: 3, backoff: time.Millisecond, maxWait: time.Second}
		req, _ := http.NewRequest(tc.method, "https://example.test/api/v3/repos/o/r/issues/1/comments", strings.NewReader("{}"))
		resp, err := tr.RoundTrip(req)
		if rt.calls != tc.wantCalls {
			t.Errorf("%s: %d calls, want %d", tc.name, rt.calls, tc.wantCalls)
		}
		if tc.wantTimeout {
			if !errors.Is(err, errAttemptTimeout) || !strings.Contains(err.Error(), "no answer within 20ms") {
				t.Errorf("%s: %v, want the attempt timeout", tc.name, err)
			}
			if resp != nil {
				t.Errorf("%s: a response came with the timeout", tc.name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(b) != tc.wantBody {
			t.Errorf("%s: body %q, %v; want %q", tc.name, b, err, tc.wantBody)
		}
	}
}

// stallBodyRT answers at once and then stalls the body until the request's
// context ends; the body then ends as end says.
type stallBodyRT struct {
	length int64 // -1: no length, the body ends with the connection
	end    error
}

type stallBody struct {
	ctx context.Context
	end error
}

func (b *stallBody) Read([]byte) (int, error) { <-b.ctx.Done(); return 0, b.end }
func (b *stallBody) Close() error             { return nil }

func (r *stallBodyRT) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, ContentLength: r.length, Body: &stallBody{req.Context(), r.end}, Request: req}, nil
}

func TestBodyCutByTheAttemptLimitIsATimeout(t *testing.T) {
	t.Parallel()
	// A real connection: headers and part of a body, then nothing.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		io.WriteString(w, `{"data":`)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name string
		next http.RoundTripper
	}{
		{"stalled after headers", srv.Client().Transport},
		{"connection-delimited body ending after the limit", &stallBodyRT{length: -1, end: io.EOF}},
		{"body failing after the limit", &stallBodyRT{length: 100, end: context.DeadlineExceeded}},
	} {
		tr := &retryTransport{next: tc.next, perTry: 100 * time.Millisecond, attempts: 2, backoff: time.Millisecond, maxWait: time.Second}
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v3/repos/o/r/pulls/1", nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !errors.Is(err, errAttemptTimeout) || !strings.Contains(err.Error(), "no answer within 100ms") {
			t.Errorf("%s: read %q, %v; want the attempt timeout", tc.name, b, err)
		}
	}
}

// A bot's thread comments carry its REST login ("name[bot]"), the form the
// viewer has; a user owning the bare name stays someone else.
func TestABotsThreadCommentsAndReviewsCarryItsLogin(t *testing.T) {
	t.Parallel()
	var resp struct {
		Author *actor `json:"author"`
	}
	for in, want := range map[string]string{
		`{"author": {"__typename": "Bot", "login": "github-actions"}}`:      "github-actions[bot]",
		`{"author": {"__typename": "Bot", "login": "github-actions[bot]"}}`: "github-actions[bot]",
		`{"author": {"__typename": "User", "login": "github-actions"}}`:     "github-actions",
		`{"author": null}`: "",
	} {
		resp.Author = nil
		if err := json.Unmarshal([]byte(in), &resp); err != nil {
			t.Fatal(err)
		}
		if got := resp.Author.String(); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}
