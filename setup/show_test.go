package setup

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/llm"
)

// config show names a provider's endpoint and never what could carry a
// secret in it: user info, a query, a fragment.
func TestEndpointShowsNoSecret(t *testing.T) {
	p := llm.Providers["openai"]
	for raw, want := range map[string]string{
		"":                                     p.DefaultURL,
		"https://user:sk-secret@host/v1?key=x": "https://host/v1",
		"127.0.0.1:11434":                      "127.0.0.1:11434",
		"user:sk-secret@host":                  "(set in $" + p.BaseURLEnv + ")",
	} {
		got := Endpoint(func(k string) string {
			if k == p.BaseURLEnv {
				return raw
			}
			return ""
		}, p)
		if got != want || strings.Contains(got, "secret") {
			t.Errorf("%s=%q: %q, want %q", p.BaseURLEnv, raw, got, want)
		}
	}
}

// An invalid file is listed as it is, each problem under its line, those of
// no line after it, and a credential in the file masked.
func TestErrorListingMarksEachProblem(t *testing.T) {
	e := &config.Error{Path: "/c.json", Problems: []config.Problem{
		{Line: 2, Column: 3, Key: "reviewerModels", Msg: "want a list"},
		{Env: "OPENAI_API_KEY", Msg: "not set"},
	}}
	got := Listing(e, []byte("{\n  \"reviewerModels\": 1,\n  \"token\": \"ghp_0123456789abcdefghijklmnopqrstuvwxyz\"\n}\n"))
	for _, want := range []string{"/c.json (invalid):", "   2    \"reviewerModels\": 1,\n        ^ reviewerModels: want a list\n", "Also:\n  - not set"} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "ghp_0123") {
		t.Errorf("a credential shown:\n%s", got)
	}
}
