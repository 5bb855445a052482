package effort

import (
	"strings"
	"testing"
)

func TestDecide(t *testing.T) {
	auth := []PathRule{{Glob: "auth/**", Tier: Deep}, {Glob: "examples/**", Tier: Quick}}
	for _, tc := range []struct {
		name  string
		asked Tier
		f     Facts
		want  Tier
		why   string
	}{
		{"documentation only", Auto, Facts{Files: []string{"README.md", "docs/guide/setup.md"}, Lines: 40}, Quick, "2 files changed, all documentation"},
		{"tests and generated", "", Facts{Files: []string{"cache/cache_test.go", "go.sum", "api/v1/api.pb.go"}, Lines: 90}, Quick, "all tests, generated"},
		{"a rule's quick", Auto, Facts{Files: []string{"examples/demo.go"}, Rules: auth, Lines: 5}, Quick, "quick by a paths rule"},
		{"code", Auto, Facts{Files: []string{"README.md", "cache/cache.go"}, Lines: 12}, Standard, `"cache/cache.go" is code`},
		{"a sensitive path is always deep", Auto, Facts{Files: []string{"README.md", "auth/token.go"}, Rules: auth, Lines: 3}, Deep, `"auth/**"`},
		{"a secret is never quick", Auto, Facts{Files: []string{"docs/setup.md"}, Secrets: 1, Lines: 4}, Standard, "found 1 secret: never quick"},
		{"not even when asked", Quick, Facts{Files: []string{"cache/cache.go"}, Secrets: 2}, Standard, "quick was asked for, but the secret scan found 2 secrets"},
		{"an earlier security finding", Auto, Facts{Files: []string{"README.md"}, Security: true}, Deep, "security finding"},
		{"a large change", Auto, Facts{Files: []string{"docs/a.md"}, Lines: LargeChange + 1}, Deep, "1001 lines changed"},
		{"asked for by flag", Quick, Facts{Files: []string{"auth/token.go"}, Rules: auth}, Quick, "asked for"},
		{"asked for deep", Deep, Facts{Files: []string{"README.md"}}, Deep, "asked for"},
		{"nothing changed", Auto, Facts{}, Standard, "no changed file"},
		{"a test data file named like code", Auto, Facts{Files: []string{"pkg/testdata/input.go"}}, Quick, "tests"},
		{"a document in a code path stays code when a rule names it", Auto, Facts{Files: []string{"auth/README.md"}, Rules: auth}, Deep, `"auth/**"`},
	} {
		got := Decide(tc.asked, tc.f)
		if got.Tier != tc.want || !strings.Contains(got.Why, tc.why) {
			t.Errorf("%s: %s (%s), want %s (…%s…)", tc.name, got.Tier, got.Why, tc.want, tc.why)
		}
		if want := tc.asked; want == "" && got.Asked != Auto || want != "" && got.Asked != want {
			t.Errorf("%s: asked %q", tc.name, got.Asked)
		}
	}
}

func TestParse(t *testing.T) {
	for _, s := range []string{"quick", "standard", "deep", "auto"} {
		if got, err := Parse(s); err != nil || string(got) != s {
			t.Errorf("Parse(%q) = %q, %v", s, got, err)
		}
	}
	if got, err := Parse(""); err != nil || got != Auto {
		t.Errorf("Parse(\"\") = %q, %v: want auto", got, err)
	}
	if _, err := Parse("max"); err == nil || !strings.Contains(err.Error(), "quick, standard, deep, auto") {
		t.Errorf("Parse(max): %v", err)
	}
}
