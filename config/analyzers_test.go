package config

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/evidence"
)

// An analyzers entry is read as given: argv untouched (no shell, nothing
// split), the format named or detected, the timeout in seconds or the
// default.
func TestAnalyzersParse(t *testing.T) {
	p, err := ParsePolicy([]byte(`{"analyzers": [
		{"name": "staticcheck", "argv": ["staticcheck", "-f", "text", "./..."], "format": "errorformat", "timeout": 120},
		{"name": "semgrep", "argv": ["semgrep", "--sarif", "$HOME; rm -rf /"]}
	]}`), ".ocdx.json", false)
	if err != nil {
		t.Fatal(err)
	}
	want := []Analyzer{
		{Name: "staticcheck", Argv: []string{"staticcheck", "-f", "text", "./..."}, Format: evidence.Errorformat, Timeout: 2 * time.Minute},
		{Name: "semgrep", Argv: []string{"semgrep", "--sarif", "$HOME; rm -rf /"}, Timeout: DefaultAnalyzerTimeout},
	}
	if !slices.EqualFunc(p.Analyzers, want, func(a, b Analyzer) bool {
		return a.Name == b.Name && slices.Equal(a.Argv, b.Argv) && a.Format == b.Format && a.Timeout == b.Timeout
	}) {
		t.Errorf("analyzers = %+v", p.Analyzers)
	}
}

// Each bad entry is one problem naming the file, the entry's key and the
// fix, all of them in one message.
func TestAnalyzersProblemsNameTheFix(t *testing.T) {
	_, err := ParsePolicy([]byte(`{"analyzers": [
		{"argv": ["lint"]},
		{"name": "sh -c", "argv": "lint ./..."},
		{"name": "lint", "argv": [], "format": "junit"},
		{"name": "tsc", "argv": ["tsc"], "timeout": 7200},
		{"name": "vet", "argv": ["go", "vet"]},
		{"name": "Vet", "argv": ["go", "vet"]},
		"make lint"
	]}`), ".ocdx.json on main at 1a2b3c4", true)
	if err == nil {
		t.Fatal("bad analyzers were accepted")
	}
	msg := err.Error()
	for _, want := range []string{
		".ocdx.json on main at 1a2b3c4",
		`analyzers[0]: has no "name"; name the tool`,
		`analyzers[1].name: is "sh -c"; a name is 1 to 64 letters`,
		`analyzers[1].argv: must be an array of strings`,
		`analyzers[2].argv: is empty; give the program and its arguments`,
		`analyzers[2].format: "junit" is not a format gh-ocdx reads: use one of sarif, rdjson, rdjsonl, checkstyle, errorformat`,
		`analyzers[3].timeout: must be a whole number of seconds from 1 to 1800, found 7200`,
		`analyzers[5].name: repeats "Vet"`,
		`analyzers[6]: must be an object such as`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q:\n%s", want, msg)
		}
	}
}

// The base branch's analyzers replace the user's, as its verify commands
// do, and say where they came from.
func TestRepositoryAnalyzersReplaceTheConfiguration(t *testing.T) {
	c, _, err := loadString(t, `{"reviewerModels": ["ollama/a"], "commentsAnalyzerModel": "ollama/b", "prFixModel": "ollama/c",
		"analyzers": [{"name": "mine", "argv": ["mylint"]}]}`, env{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Analyzers) != 1 || c.Analyzers[0].Name != "mine" || c.AnalyzersFrom != "" {
		t.Fatalf("the configuration's: %+v from %q", c.Analyzers, c.AnalyzersFrom)
	}
	c.ApplyPolicy(&Policy{}, ".ocdx.json on main")
	if c.Analyzers[0].Name != "mine" {
		t.Error("a policy without analyzers dropped the user's")
	}
	c.ApplyPolicy(&Policy{Analyzers: []Analyzer{{Name: "theirs", Argv: []string{"lint"}}}}, ".ocdx.json on main")
	if c.Analyzers[0].Name != "theirs" || c.AnalyzersFrom != ".ocdx.json on main" {
		t.Errorf("the repository's: %+v from %q", c.Analyzers, c.AnalyzersFrom)
	}
}

// The message for a bad .ocdx.json names every key it may set, analyzers
// included.
func TestPolicyMessageNamesEveryKey(t *testing.T) {
	for _, k := range policyKeys {
		if !strings.Contains(policyKeyList, `"`+k+`"`) {
			t.Errorf("the message's list of keys lacks %q", k)
		}
	}
}

// The example problems and config init's next steps show is an entry a
// user can paste as it is.
func TestAnalyzerExampleIsValid(t *testing.T) {
	p, err := ParsePolicy([]byte(`{"analyzers": [`+AnalyzerExample+`]}`), ".ocdx.json", false)
	if err != nil || len(p.Analyzers) != 1 || p.Analyzers[0].Name != "staticcheck" {
		t.Errorf("%v: %+v", err, p)
	}
}
