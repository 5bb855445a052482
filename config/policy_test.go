package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/github"
)

func TestPolicyIgnore(t *testing.T) {
	p, err := ParsePolicy([]byte(`{"ignore": ["testdata/**"]}`), ".ocdx.json", false)
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]bool{"go.sum": true, "web/package-lock.json": true, "testdata/x.json": true, "main.go": false} {
		if got := p.Ignored(file); got != want {
			t.Errorf("Ignored(%q) = %v, want %v", file, got, want)
		}
	}
	off, err := ParsePolicy([]byte(`{"ignoreDefaults": false, "ignore": ["*.snap"]}`), ".ocdx.json", false)
	if err != nil {
		t.Fatal(err)
	}
	if off.Ignored("go.sum") || !off.Ignored("ui/a.snap") {
		t.Errorf("ignoreDefaults false: %v", off.Ignore)
	}
	// No .ocdx.json at all: the defaults.
	var none *Policy
	if !none.Ignored("yarn.lock") || none.Ignored("main.go") {
		t.Error("the nil policy does not ignore the defaults")
	}
}

func TestReadPolicyFromAWorkTree(t *testing.T) {
	root := t.TempDir()
	p, path, err := ReadPolicy(root)
	if err != nil || path != "" || !slices.Equal(p.Ignore, DefaultIgnore) || p.Guide != "" {
		t.Fatalf("empty tree: %+v %q %v", p, path, err)
	}
	write(t, filepath.Join(root, ".ocdx.json"), `{"instructions": "Wrap errors.", "paths": [{"glob": "api/**", "instructions": "Check auth."}]}`)
	if err := os.WriteFile(filepath.Join(root, "REVIEW.md"), []byte("# House rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, path, err = ReadPolicy(root)
	if err != nil || path == "" {
		t.Fatal(path, err)
	}
	if p.Instructions != "Wrap errors." || p.Guide != "# House rules\n" || p.Verify != nil ||
		!slices.Equal(p.Paths, []PathRule{{Glob: "api/**", Instructions: "Check auth."}}) {
		t.Errorf("policy %+v", p)
	}
	// No verify in the file: the configuration's stay.
	c := &Config{Verify: []string{"make test"}}
	if err := c.ApplyRepo(root); err != nil || c.VerifyFrom != "" || !slices.Equal(c.Verify, []string{"make test"}) || c.Policy.Instructions != "Wrap errors." {
		t.Errorf("ApplyRepo: %v, verify %v from %q", err, c.Verify, c.VerifyFrom)
	}
}

func TestBudgetAndPrices(t *testing.T) {
	const head = `{"reviewerModels": ["openai/gpt-4.1"], "commentsAnalyzerModel": "openai/gpt-4.1", "prFixModel": "openai/gpt-4.1"`
	c, _, err := loadString(t, head+`, "maxTokens": 500000, "prices": {"openai/gpt-4.1": {"input": 2, "cachedInput": 0.5, "output": 8}, "openai/mini": {"input": 0.4, "output": 1.6}}}`, creds)
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxTokens != 500000 || c.Prices["openai/gpt-4.1"] != (Price{Input: 2, CachedInput: 0.5, Output: 8}) || c.Prices["openai/mini"].CachedInput != 0.4 {
		t.Errorf("maxTokens %d, prices %+v", c.MaxTokens, c.Prices)
	}
	// 1M in of which 0.5M cached, 0.1M out: 0.5*2 + 0.5*0.5 + 0.1*8.
	if got := c.Prices["openai/gpt-4.1"].Cost(1000000, 500000, 100000); got != 2.05 {
		t.Errorf("cost %v", got)
	}
	for body, want := range map[string]string{
		`"maxTokens": 0`:      "maxTokens: must be a whole number above zero",
		`"maxTokens": "1000"`: "maxTokens: must be a whole number above zero",
		`"prices": {"gpt-4.1": {"input": 1, "output": 2}}`:                    `prices["gpt-4.1"]`,
		`"prices": {"openai/x": {"input": 1}}`:                                `has no "output"`,
		`"prices": {"openai/x": {"input": -1, "output": 2}}`:                  `prices["openai/x"].input: must be a number`,
		`"prices": {"openai/x": {"input": 1, "output": 2, "cachedImput": 1}}`: `did you mean "cachedInput"?`,
	} {
		if _, _, err := loadString(t, head+", "+body+"}", creds); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}

// The policy of a change comes from its base: FromBase takes the files as
// the base has them, and a base file that cannot be used is an error
// naming it, never a silent default.
func TestFromBase(t *testing.T) {
	const where = ".ocdx.json on main at 1a2b3c4"
	p, err := FromBase(where, github.PolicyFile{}, github.PolicyFile{}, github.PolicyFile{})
	if err != nil || p.Verify != nil || !slices.Equal(p.Ignore, DefaultIgnore) || p.Guide != "" {
		t.Fatalf("no files on the base: %+v %v", p, err)
	}
	p, err = FromBase(where, github.PolicyFile{Found: true, Text: `{"verify": ["make lint"], "ignore": ["gen/**"]}`}, github.PolicyFile{Found: true, Text: "Name the test."}, github.PolicyFile{})
	if err != nil || !slices.Equal(p.Verify, []string{"make lint"}) || !slices.Contains(p.Ignore, "gen/**") || p.Guide != "Name the test." {
		t.Fatalf("base files: %+v %v", p, err)
	}
	if p, err = FromBase(where, github.PolicyFile{}, github.PolicyFile{Found: true, NotText: true, Text: "\x00"}, github.PolicyFile{}); err != nil || p.Guide != "" {
		t.Errorf("a binary REVIEW.md is no guide: %q %v", p.Guide, err)
	}
	for name, f := range map[string]github.PolicyFile{
		"invalid":   {Found: true, Text: `{"verify": ["make"], "prFixModel": "openai/x"}`},
		"truncated": {Found: true, Text: `{"verify": [`, Truncated: true},
		"not text":  {Found: true, NotText: true},
	} {
		_, err := FromBase(where, f, github.PolicyFile{}, github.PolicyFile{})
		var cerr *Error
		if !errors.As(err, &cerr) || !strings.Contains(err.Error(), where) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// trustedLogins names the bots whose posts count as gh-ocdx's own: logins
// and App bots pass; anything else, or a misspelt key, is refused by name.
func TestPolicyTrustedLogins(t *testing.T) {
	p, err := ParsePolicy([]byte(`{"trustedLogins": ["github-actions[bot]", "octo-cat"]}`), ".ocdx.json", false)
	if err != nil || strings.Join(p.TrustedLogins, " ") != "github-actions[bot] octo-cat" {
		t.Fatalf("ParsePolicy = %+v, %v", p, err)
	}
	for content, want := range map[string]string{
		`{"trustedLogins": ["bad login"]}`:   `trustedLogins[0]: "bad login" is not a GitHub login`,
		`{"trustedLogins": "ci[bot]"}`:       "trustedLogins",
		`{"trustedLogin": ["ci[bot]"]}`:      `did you mean "trustedLogins"?`,
		`{"trustedLogins": ["-x", "ok"]}`:    `"-x" is not a GitHub login`,
		`{"trustedLogins": ["a[bot][bot]"]}`: "is not a GitHub login",
	} {
		_, err := ParsePolicy([]byte(content), ".ocdx.json", false)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", content, err, want)
		}
	}
}

// A repository tunes how much a review says on its lines: the budget of
// inline comments and their priorities; [] is none, an absent key the
// user's.
func TestPolicyNoiseBudget(t *testing.T) {
	p, err := ParsePolicy([]byte(`{"maxInlineComments": 3, "inlinePriorities": []}`), ".ocdx.json", false)
	if err != nil || p.MaxInlineComments != 3 || p.InlinePriorities == nil || len(p.InlinePriorities) != 0 {
		t.Fatalf("ParsePolicy = %+v, %v", p, err)
	}
	if p, err := ParsePolicy([]byte(`{}`), ".ocdx.json", false); err != nil || p.MaxInlineComments != 0 || p.InlinePriorities != nil {
		t.Fatalf("an empty policy sets neither: %+v, %v", p, err)
	}
	for content, want := range map[string]string{
		`{"maxInlineComments": 0}`:    "maxInlineComments: must be a whole number above zero",
		`{"maxInlineComments": "10"}`: "maxInlineComments: must be a whole number above zero",
		`{"maxInlineComment": 10}`:    `did you mean "maxInlineComments"?`,
	} {
		_, err := ParsePolicy([]byte(content), ".ocdx.json", false)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", content, err, want)
		}
	}
}

// /ocdx commands fix only when the repository says so: "commands":
// {"fix": true}; off by default.
func TestPolicyCommandsFix(t *testing.T) {
	if p, err := ParsePolicy([]byte(`{"commands": {"fix": true}}`), ".ocdx.json", false); err != nil || !p.CommandsFix {
		t.Fatalf("ParsePolicy = %+v, %v", p, err)
	}
	if p, err := ParsePolicy([]byte(`{}`), ".ocdx.json", false); err != nil || p.CommandsFix {
		t.Fatalf("an empty policy lets commands fix: %+v, %v", p, err)
	}
	for content, want := range map[string]string{
		`{"commands": true}`:            `commands: must be an object such as {"fix": true}`,
		`{"commands": {"fix": "yes"}}`:  "commands.fix: must be true or false",
		`{"commands": {"fixes": true}}`: `unknown key "fixes"`,
	} {
		_, err := ParsePolicy([]byte(content), ".ocdx.json", false)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", content, err, want)
		}
	}
}

// A paths rule may set the effort tier instead of instructions, or both;
// "auto" and unknown tiers are refused, naming the key.
func TestPolicyPathsEffort(t *testing.T) {
	p, err := ParsePolicy([]byte(`{"paths": [{"glob": "auth/**", "effort": "deep"}, {"glob": "api/**", "instructions": "Check permissions.", "effort": "standard"}]}`), ".ocdx.json", false)
	if err != nil {
		t.Fatal(err)
	}
	if p.Paths[0].Effort != effort.Deep || p.Paths[0].Instructions != "" || p.Paths[1].Effort != effort.Standard {
		t.Errorf("paths %+v", p.Paths)
	}
	for body, want := range map[string]string{
		`{"paths": [{"glob": "auth/**", "effort": "max"}]}`:  `paths[0].effort: "max" is not an effort tier`,
		`{"paths": [{"glob": "auth/**", "effort": "auto"}]}`: `paths[0].effort: "auto" is what a path without a rule gets`,
		`{"paths": [{"glob": "auth/**"}]}`:                   `has no "instructions" or "effort"`,
	} {
		if _, err := ParsePolicy([]byte(body), ".ocdx.json", false); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want …%s…", body, err, want)
		}
	}
}

// The configuration's effort is the tier runs use unless a flag says.
func TestConfigEffort(t *testing.T) {
	const head = `{"reviewerModels": ["openai/gpt-4.1"], "commentsAnalyzerModel": "openai/gpt-4.1", "prFixModel": "openai/gpt-4.1"`
	c, _, err := loadString(t, head+`, "effort": "quick"}`, creds)
	if err != nil || c.Effort != effort.Quick {
		t.Fatalf("effort %q, %v", c.Effort, err)
	}
	if _, _, err := loadString(t, head+`, "effort": "cheap"}`, creds); err == nil || !strings.Contains(err.Error(), `effort: "cheap" is not an effort tier: use one of quick, standard, deep, auto`) {
		t.Errorf("a bad tier: %v", err)
	}
}

// "evidence" names tool result files by glob; a bad glob is refused,
// naming its entry.
func TestPolicyEvidence(t *testing.T) {
	p, err := ParsePolicy([]byte(`{"evidence": ["results/*.sarif", "lint.txt"]}`), ".ocdx.json", false)
	if err != nil || !slices.Equal(p.Evidence, []string{"results/*.sarif", "lint.txt"}) {
		t.Fatalf("ParsePolicy = %+v, %v", p, err)
	}
	for content, want := range map[string]string{
		`{"evidence": ["a/[b"]}`: `evidence[0]: "a/[b" is not a valid glob`,
		`{"evidence": "x"}`:      "evidence: must be an array of glob strings",
		`{"evidnce": ["x"]}`:     `did you mean "evidence"?`,
	} {
		_, err := ParsePolicy([]byte(content), ".ocdx.json", false)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", content, err, want)
		}
	}
}
