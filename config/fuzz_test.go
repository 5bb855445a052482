package config

import (
	"bytes"
	"testing"

	"github.com/ocdx/gh-ocdx/llm"
)

// FuzzParse: any bytes give either a valid configuration or problems that
// point inside the file; never a panic, never both, never neither.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		Example,
		`{}`, ``, `[]`, `null`, `{"reviewerModels": "openai/x"}`,
		`{"reviewerModels": ["openai/a"], "commentsAnalyzerModel": "openai/b", "prFixModel": "ollama/c", "verify": ["go test ./..."]}`,
		`{"reviewerModels": ["openai/a",], "commentsAnalyzerModel": "x"}`,
		`{"reviewerModels": ["a","b","c","d","e","f"], "verfy": [], "prFixModel": 3}`,
		"{\n  \"reviewerModels\": [\"anthropic/\u00e9\"],\n  \"reviewerModels\": []\n}",
		`{"reviewPrModel": null, "verify": [""]}`,
	} {
		f.Add([]byte(s))
	}
	getenv := func(k string) string {
		if k == "ANTHROPIC_API_KEY" {
			return ""
		}
		return "set"
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, problems := parse(data, getenv, nil)
		if (cfg == nil) == (len(problems) == 0) {
			t.Fatalf("want a config or problems, got config=%v problems=%v", cfg != nil, problems)
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, p := range problems {
			if p.Msg == "" || p.Line < 0 || p.Line > lines || (p.Line > 0 && p.Column < 1) {
				t.Fatalf("problem %+v does not point inside the %d-line file", p, lines)
			}
		}
		if cfg == nil {
			return
		}
		if n := len(cfg.Reviewers); n < 1 || n > MaxReviewers {
			t.Fatalf("accepted %d reviewers", n)
		}
		for _, m := range append(cfg.Reviewers, cfg.CommentsAnalyzer, cfg.PRFix, cfg.ReviewPR) {
			if _, err := llm.ParseModel(m.String()); err != nil {
				t.Fatalf("accepted model %q: %v", m, err)
			}
			if m.Provider.Name == "anthropic" {
				t.Fatalf("accepted %s without its credential", m)
			}
		}
		for _, v := range cfg.Verify {
			if v == "" {
				t.Fatal("accepted an empty verify command")
			}
		}
	})
}
