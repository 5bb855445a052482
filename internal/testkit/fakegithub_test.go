package testkit

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
)

// recordingTB stands in for a test to catch what the fake reports.
type recordingTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, format)
}

func (r *recordingTB) failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.errs) > 0
}

func TestFakeGitHubFailsTheTestOnADocumentGitHubWouldReject(t *testing.T) {
	rec := &recordingTB{TB: t}
	gh := NewGitHub(rec)
	gh.AddPR("o/r", PR{Number: 1, Title: "T"})
	pem, _ := os.ReadFile(gh.CertFile)
	pool := newPool(t, pem)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: pool}}

	post := func(query string, vars map[string]any) map[string]any {
		body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
		req, _ := http.NewRequest(http.MethodPost, "https://"+gh.Host()+"/api/graphql", bytes.NewReader(body))
		req.Header.Set("Authorization", "token "+gh.Token)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return out
	}

	good := post(`query($n: Int!) { repository(owner: "o", name: "r") { pullRequest(number: $n) { title } } }`, map[string]any{"n": 1})
	if rec.failed() || !strings.Contains(toJSON(good), `"title":"T"`) {
		t.Fatalf("a valid query must pass and be answered: %v %v", rec.errs, good)
	}
	for _, bad := range []struct {
		q    string
		vars map[string]any
	}{
		{`query { repository(owner: "o", name: "r") { pullRequest(number: 1) { titel } } }`, nil},                                   // unknown field
		{`query { repository(owner: "o") { nameWithOwner } }`, nil},                                                                 // missing argument
		{`query($n: Int!) { repository(owner: "o", name: "r") { pullRequest(number: $n) { title } } }`, map[string]any{"n": "one"}}, // wrong variable type, in the document accepted above
	} {
		rec.errs = nil
		post(bad.q, bad.vars)
		if !rec.failed() {
			t.Errorf("the fake must fail the test for %s", bad.q)
		}
	}
}

func toJSON(v any) string { b, _ := json.Marshal(v); return string(b) }
func newPool(t *testing.T, pem []byte) *tls.Config {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatal("bad certificate")
	}
	return &tls.Config{RootCAs: pool}
}
