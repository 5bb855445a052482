package setup

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/evidence"
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

// config show gives the analyzers in effect, where they came from, and the
// model cutoffs, in Markdown and JSON alike; a token in an argv is masked.
func TestShowGivesAnalyzersAndCutoffs(t *testing.T) {
	const token = "ghp_0123456789abcdefghijklmnopqrstuvwxyz"
	c := &config.Config{Path: "/home/u/.config/gh-ocdx/config.json",
		Analyzers: []config.Analyzer{
			{Name: "staticcheck", Argv: []string{"staticcheck", "./..."}, Format: evidence.Format("errorformat"), Timeout: 90 * time.Second},
			{Name: "scan", Argv: []string{"scan", "--token", token}, Timeout: config.DefaultAnalyzerTimeout},
		},
		ModelCutoffs: map[string]time.Time{"openai/gpt-4.1": time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)},
	}
	getenv := func(string) string { return "" }
	md := Markdown(c, getenv)
	for _, want := range []string{"## Analyzers\n\nCommands whose output is evidence for a review, from the configuration:",
		"| staticcheck | `staticcheck ./...` | errorformat | 1m30s |", "| scan | `scan --token [SECRET:", "| detected | 5m0s |",
		"## Model cutoffs", "| openai/gpt-4.1 | 2024-06-01 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("want %q in:\n%s", want, md)
		}
	}
	js, err := json.Marshal(Show(c, getenv))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"analyzers":[{"name":"staticcheck","argv":["staticcheck","./..."],"format":"errorformat","timeout":90}`,
		`"analyzersFrom":"/home/u/.config/gh-ocdx/config.json"`, `"modelCutoffs":{"openai/gpt-4.1":"2024-06-01"}`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("want %s in %s", want, js)
		}
	}
	if strings.Contains(md+string(js), token) {
		t.Errorf("a token shown:\n%s\n%s", md, js)
	}

	c.ApplyPolicy(&config.Policy{Analyzers: c.Analyzers[:1]}, ".ocdx.json on main at 1a2b3c4")
	if md := Markdown(c, getenv); !strings.Contains(md, "from `.ocdx.json on main at 1a2b3c4`") {
		t.Errorf("the repository's analyzers not said so:\n%s", md)
	}
	c.Analyzers, c.AnalyzersFrom = nil, ""
	md = Markdown(c, getenv)
	if !strings.Contains(md, "## Analyzers\n\nNone: ") {
		t.Errorf("no analyzers not said:\n%s", md)
	}
	if s := Show(c, getenv); s.Analyzers == nil || s.AnalyzersFrom != "" {
		t.Errorf("no analyzers in JSON: %+v from %q", s.Analyzers, s.AnalyzersFrom)
	}
}
