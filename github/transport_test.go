package github

import (
	"net/http"
	"testing"
)

type recordRT struct{ got http.Header }

func (r *recordRT) RoundTrip(req *http.Request) (*http.Response, error) {
	r.got = req.Header.Clone()
	return &http.Response{StatusCode: 200, Body: http.NoBody, Request: req}, nil
}

func TestTokenGoesOnlyToTheConfiguredHostAndPort(t *testing.T) {
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
