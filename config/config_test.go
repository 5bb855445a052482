package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// env is a fake environment for the getenv parameter.
type env map[string]string

func (e env) get(k string) string { return e[k] }

// creds has every provider credential set.
var creds = env{"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "sk-ant-test"}

func write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadString writes content as the configuration and loads it with e plus OCDX_CONFIG.
func loadString(t *testing.T, content string, e env) (*Config, string, error) {
	t.Helper()
	path := write(t, filepath.Join(t.TempDir(), "config.json"), content)
	vars := env{"OCDX_CONFIG": path}
	for k, v := range e {
		vars[k] = v
	}
	c, err := LoadFor(vars.get, nil)
	return c, path, err
}

func TestLoadExample(t *testing.T) {
	c, path, err := loadString(t, Example, creds)
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != path || c.Legacy {
		t.Errorf("Path %q Legacy %v, want %q false", c.Path, c.Legacy, path)
	}
	var reviewers []string
	for _, m := range c.Reviewers {
		reviewers = append(reviewers, m.String())
	}
	if !slices.Equal(reviewers, []string{"openai/gpt-4.1", "anthropic/claude-sonnet-4-5"}) {
		t.Errorf("Reviewers = %v", reviewers)
	}
	if c.CommentsAnalyzer.String() != "openai/gpt-4.1-mini" || c.PRFix.String() != "anthropic/claude-sonnet-4-5" || c.ReviewPR.String() != "anthropic/claude-sonnet-4-5" {
		t.Errorf("roles = %v %v %v", c.CommentsAnalyzer, c.PRFix, c.ReviewPR)
	}
	if c.PRFix.Provider.CredentialEnv != "ANTHROPIC_API_KEY" {
		t.Errorf("PRFix provider = %+v", c.PRFix.Provider)
	}
	if !slices.Equal(c.Verify, []string{"go vet ./...", "go test ./..."}) || len(c.Defaults) != 0 {
		t.Errorf("Verify %v Defaults %v", c.Verify, c.Defaults)
	}
}

func TestLoadAppliesDefaults(t *testing.T) {
	c, _, err := loadString(t, `{"reviewerModels": ["ollama/llama3", "openai/gpt-4.1"], "commentsAnalyzerModel": "ollama/qwen", "prFixModel": "ollama/qwen"}`, env{"OPENAI_API_KEY": "k"})
	if err != nil {
		t.Fatal(err)
	}
	if c.ReviewPR.String() != "ollama/llama3" {
		t.Errorf("ReviewPR = %v, want the first reviewer", c.ReviewPR)
	}
	// No verify commands without the key: none exists in every repository.
	if len(c.Verify) != 0 || !slices.Contains(c.Defaults, "verify") {
		t.Errorf("Verify = %v, Defaults %v", c.Verify, c.Defaults)
	}
	if !slices.Equal(c.Defaults, []string{"reviewPrModel", "verify"}) {
		t.Errorf("Defaults = %v", c.Defaults)
	}
	if got := c.UsedProviders(); len(got) != 2 || got[0].Name != "ollama" || got[1].Name != "openai" {
		t.Errorf("UsedProviders = %v", got)
	}
}

func TestLoadAllowApprove(t *testing.T) {
	for content, want := range map[string]bool{
		`{"reviewerModels": ["ollama/a"], "commentsAnalyzerModel": "ollama/b", "prFixModel": "ollama/c"}`:                        false,
		`{"reviewerModels": ["ollama/a"], "commentsAnalyzerModel": "ollama/b", "prFixModel": "ollama/c", "allowApprove": true}`:  true,
		`{"reviewerModels": ["ollama/a"], "commentsAnalyzerModel": "ollama/b", "prFixModel": "ollama/c", "allowApprove": false}`: false,
	} {
		c, _, err := loadString(t, content, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.AllowApprove != want {
			t.Errorf("%s: AllowApprove = %v", content, c.AllowApprove)
		}
	}
}

// outputTokens sets a role's output cap; every reviewer shares the
// reviewers' cap, a role not named keeps the default (0 here).
func TestLoadOutputTokens(t *testing.T) {
	c, _, err := loadString(t, `{"reviewerModels": ["ollama/a", "ollama/b"], "commentsAnalyzerModel": "ollama/b", "prFixModel": "ollama/c",
		"outputTokens": {"prFixModel": 32000, "reviewerModels": 4096}}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]int64{"prFixModel": 32000, "reviewerModels[1]": 4096, "reviewerModels[0]": 4096, "commentsAnalyzerModel": 0} {
		if got := c.OutputCap(key); got != want {
			t.Errorf("OutputCap(%q) = %d, want %d", key, got, want)
		}
	}
}

// inlinePriorities chooses which findings go on their lines: P0–P2 unless
// the file says otherwise; anything but distinct P0..P3 is refused.
func TestLoadInlinePriorities(t *testing.T) {
	const base = `{"reviewerModels": ["ollama/a"], "commentsAnalyzerModel": "ollama/b", "prFixModel": "ollama/c"`
	for content, want := range map[string]string{
		base + `}`: "P0 P1 P2",
		base + `, "inlinePriorities": ["P0", "P1", "P2", "P3"]}`: "P0 P1 P2 P3",
		base + `, "inlinePriorities": []}`:                       "",
	} {
		c, _, err := loadString(t, content, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(c.InlinePriorities, " "); got != want || c.InlinePriorities == nil {
			t.Errorf("%s: InlinePriorities = %q, want %q", content, got, want)
		}
	}
	if c, _, err := loadString(t, base+`, "maxInlineComments": 4}`, nil); err != nil || c.MaxInlineComments != 4 {
		t.Errorf("maxInlineComments: %+v, %v", c, err)
	}
	for content, want := range map[string]string{
		base + `, "inlinePriorities": ["P4"]}`:       `inlinePriorities[0]: is "P4"; a priority is P0, P1, P2 or P3`,
		base + `, "inlinePriorities": ["P1", "P1"]}`: `inlinePriorities[1]: repeats P1`,
		base + `, "inlinePriorities": "P3"}`:         `inlinePriorities: must be an array of priorities`,
		base + `, "maxInlineComments": -1}`:          `maxInlineComments: must be a whole number above zero`,
	} {
		_, _, err := loadString(t, content, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", content, err, want)
		}
	}
}

func TestLoadOllamaNeedsNoCredential(t *testing.T) {
	if _, _, err := loadString(t, `{"reviewerModels": ["ollama/llama3"], "commentsAnalyzerModel": "ollama/llama3", "prFixModel": "ollama/meta/llama-3:8b"}`, nil); err != nil {
		t.Fatal(err)
	}
}

const valid3 = `"commentsAnalyzerModel": "openai/gpt-4.1-mini", "prFixModel": "openai/gpt-4.1"`

func TestLoadProblems(t *testing.T) {
	tests := []struct {
		name    string
		content string
		env     env
		want    []string // substrings of the message, in order
	}{
		{"syntax error", "{\n  \"reviewerModels\": [\"openai/gpt-4.1\"],\n  \"prFixModel\": \"openai/gpt-4.1\"\n  \"verify\": []\n}", creds,
			[]string{"line 4, column 3: JSON syntax error: invalid character '\"' after object key:value pair (is a comma missing before it?)"}},
		{"trailing comma", "{\"reviewerModels\": [\"openai/gpt-4.1\"],}", creds,
			[]string{"line 1, column 39: JSON syntax error: invalid character '}' looking for beginning of object key string (JSON allows no comma before it)"}},
		{"truncated", "{\n  \"reviewerModels\": [", creds,
			[]string{"line 2, column 22: JSON syntax error: unexpected end of JSON input"}},
		{"empty file", "  \n", creds, []string{"the file is empty"}},
		{"not an object", "\n[\"openai/gpt-4.1\"]", creds, []string{"line 2, column 1: the file must hold a JSON object ({ ... }), found an array"}},
		{"no reviewers", `{"reviewerModels": [], ` + valid3 + `}`, creds,
			[]string{"line 1, column 20: reviewerModels: is empty; list 1 to 5 reviewer models"}},
		{"six reviewers", `{"reviewerModels": ["openai/a", "openai/b", "openai/c", "openai/d", "openai/e", "openai/f"], ` + valid3 + `}`, creds,
			[]string{"reviewerModels: has 6 models, at most 5 are allowed; remove 1"}},
		{"reviewers a string", `{"reviewerModels": "openai/gpt-4.1", ` + valid3 + `}`, creds,
			[]string{`line 1, column 20: reviewerModels: must be an array of "provider/model" strings, found a string`}},
		{"reviewer a number", "{\"reviewerModels\": [\"openai/a\",\n 7], " + valid3 + `}`, creds,
			[]string{`line 2, column 2: reviewerModels[1]: must be a string such as "openai/gpt-4.1", found a number`}},
		{"model a number", `{"reviewerModels": ["openai/a"], "commentsAnalyzerModel": 4, "prFixModel": "openai/b"}`, creds,
			[]string{`commentsAnalyzerModel: must be a string such as "openai/gpt-4.1", found a number`}},
		{"optional null", `{"reviewerModels": ["openai/a"], ` + valid3 + `, "reviewPrModel": null}`, creds,
			[]string{`reviewPrModel: must be a string such as "openai/gpt-4.1", found null`}},
		{"empty model", `{"reviewerModels": ["openai/a"], "commentsAnalyzerModel": "", "prFixModel": "openai/b"}`, creds,
			[]string{"commentsAnalyzerModel: is empty; name a model as provider/model"}},
		{"unknown provider", `{"reviewerModels": ["azure/gpt-4.1"], ` + valid3 + `}`, creds,
			[]string{`reviewerModels[0]: "azure/gpt-4.1" names an unknown provider "azure"; known providers: anthropic, ollama, openai`}},
		{"no slash", `{"reviewerModels": ["gpt-4.1"], ` + valid3 + `}`, creds,
			[]string{`reviewerModels[0]: "gpt-4.1" is not of the form provider/model`}},
		{"missing required", `{"reviewerModels": ["openai/a"]}`, creds,
			[]string{"commentsAnalyzerModel: missing;", "prFixModel: missing;"}},
		{"missing reviewers", `{` + valid3 + `}`, creds, []string{"reviewerModels: missing; list 1 to 5 reviewer models"}},
		{"unknown key typo", "{\"reviewerModels\": [\"openai/a\"], " + valid3 + ",\n  \"verfiy\": [\"make\"]}", creds,
			[]string{`line 2, column 3: unknown key "verfiy"; did you mean "verify"?`}},
		{"unknown key case", `{"ReviewerModels": ["openai/a"], "reviewerModels": ["openai/a"], ` + valid3 + `}`, creds,
			[]string{`unknown key "ReviewerModels"; did you mean "reviewerModels"?`}},
		{"unknown key far", `{"reviewerModels": ["openai/a"], ` + valid3 + `, "temperature": 0.2}`, creds,
			[]string{`unknown key "temperature"; known keys: reviewerModels, commentsAnalyzerModel, prFixModel, reviewPrModel, verify, allowApprove`}},
		{"allowApprove a string", `{"reviewerModels": ["openai/a"], ` + valid3 + `, "allowApprove": "yes"}`, creds,
			[]string{`line 1, column 130: allowApprove: must be true or false, found a string`}},
		{"allowApprove null", `{"reviewerModels": ["openai/a"], ` + valid3 + `, "allowApprove": null}`, creds,
			[]string{`allowApprove: must be true or false, found null`}},
		{"outputTokens a number", `{"reviewerModels": ["openai/a"], ` + valid3 + `, "outputTokens": 8000}`, creds,
			[]string{`outputTokens: must be an object of role keys and token counts such as {"prFixModel": 16384}, found a number`}},
		{"outputTokens unknown role", `{"reviewerModels": ["openai/a"], ` + valid3 + `, "outputTokens": {"prFixModle": 8000}}`, creds,
			[]string{`unknown key "prFixModle"; did you mean "prFixModel"?`}},
		{"outputTokens not a count", `{"reviewerModels": ["openai/a"], ` + valid3 + `, "outputTokens": {"prFixModel": 0, "reviewerModels": "8k"}}`, creds,
			[]string{`outputTokens.prFixModel: must be a whole number of tokens from 1 to 1048576, found 0`, `outputTokens.reviewerModels: must be a whole number of tokens from 1 to 1048576, found "8k"`}},
		{"duplicate key", `{"reviewerModels": ["openai/a"], ` + valid3 + `, "prFixModel": "openai/c"}`, creds,
			[]string{"prFixModel: appears more than once"}},
		{"verify a string", `{"reviewerModels": ["openai/a"], ` + valid3 + `, "verify": "make test"}`, creds,
			[]string{"verify: must be an array of command strings, found a string"}},
		{"verify empty list", `{"reviewerModels": ["openai/a"], ` + valid3 + `, "verify": []}`, creds,
			[]string{"verify: is empty; list at least one command"}},
		{"verify empty entry", `{"reviewerModels": ["openai/a"], ` + valid3 + `, "verify": ["make", " "]}`, creds,
			[]string{"verify[1]: is empty; give a command"}},
		{"missing credential", `{"reviewerModels": ["openai/gpt-4.1", "anthropic/claude"], ` + valid3 + `}`, env{"ANTHROPIC_API_KEY": "x", "OPENAI_API_KEY": "  "},
			[]string{"OPENAI_API_KEY is not set, and openai/gpt-4.1 (reviewerModels[0], prFixModel, reviewPrModel), openai/gpt-4.1-mini (commentsAnalyzerModel) need it; export OPENAI_API_KEY=", "Export the missing variables in your shell"}},
		{"every problem at once", "{\n  \"reviewerModels\": \"openai/a\",\n  \"prFixModel\": \"x/y\",\n  \"verify\": [\"\"],\n  \"reviewPrModel\": \"anthropic/c\",\n  \"extra\": 1\n}", nil,
			[]string{
				"line 2, column 21: reviewerModels: must be an array",
				"line 3, column 17: prFixModel: \"x/y\" names an unknown provider",
				"line 4, column 14: verify[0]: is empty",
				"line 6, column 3: unknown key \"extra\"",
				"commentsAnalyzerModel: missing",
				"ANTHROPIC_API_KEY is not set, and anthropic/c (reviewPrModel) needs it",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, path, err := loadString(t, tt.content, tt.env)
			if c != nil {
				t.Fatalf("Load returned a config for an invalid file")
			}
			var cerr *Error
			if !errors.As(err, &cerr) {
				t.Fatalf("error %T %v, want *config.Error", err, err)
			}
			msg := err.Error()
			if cerr.Path != path || !strings.HasPrefix(msg, "invalid configuration in "+path+":\n") {
				t.Errorf("message does not start with the path %s:\n%s", path, msg)
			}
			if !strings.HasSuffix(msg, strings.TrimSpace(Example)) {
				t.Errorf("message does not end with the example:\n%s", msg)
			}
			rest := msg
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("message lacks %q (in order):\n%s", w, msg)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", "config.json")
	_, err := LoadFor(env{"OCDX_CONFIG": path}.get, nil)
	var cerr *Error
	if !errors.As(err, &cerr) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("error %T %v, want a *config.Error for a missing file", err, err)
	}
	msg := err.Error()
	for _, w := range []string{"no configuration file at " + path, "gh ocdx config init", Example[:40]} {
		if !strings.Contains(msg, w) {
			t.Errorf("message lacks %q:\n%s", w, msg)
		}
	}
}

func TestLoadUnreadable(t *testing.T) {
	dir := t.TempDir() // a directory where the file should be
	_, err := LoadFor(env{"OCDX_CONFIG": dir}.get, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "cannot read "+dir+": it is a directory, not a regular file") {
		t.Fatalf("error = %v", err)
	}
}

func TestLocate(t *testing.T) {
	home := t.TempDir()
	legacy := filepath.Join(home, ".config", "opencode", "ocdx.json")
	tests := []struct {
		name       string
		env        env
		files      []string
		wantPath   string
		wantLegacy bool
	}{
		{"OCDX_CONFIG wins", env{"OCDX_CONFIG": "/etc/ocdx.json", "HOME": home, "XDG_CONFIG_HOME": "/x"}, []string{legacy}, "/etc/ocdx.json", false},
		{"XDG_CONFIG_HOME", env{"HOME": home, "XDG_CONFIG_HOME": "/xdg"}, nil, "/xdg/gh-ocdx/config.json", false},
		{"HOME default", env{"HOME": home}, nil, filepath.Join(home, ".config", "gh-ocdx", "config.json"), false},
		{"relative XDG ignored", env{"HOME": home, "XDG_CONFIG_HOME": "rel"}, nil, filepath.Join(home, ".config", "gh-ocdx", "config.json"), false},
		{"legacy fallback", env{"HOME": home}, []string{legacy}, legacy, true},
		{"new file beats legacy", env{"HOME": home}, []string{legacy, filepath.Join(home, ".config", "gh-ocdx", "config.json")}, filepath.Join(home, ".config", "gh-ocdx", "config.json"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.RemoveAll(filepath.Join(home, ".config"))
			for _, f := range tt.files {
				write(t, f, Example)
			}
			loc, err := Locate(tt.env.get)
			if err != nil {
				t.Fatal(err)
			}
			if loc.Path != tt.wantPath || loc.Legacy != tt.wantLegacy {
				t.Errorf("Locate = %+v, want %s legacy=%v", loc, tt.wantPath, tt.wantLegacy)
			}
			if !tt.wantLegacy && loc.Preferred != loc.Path {
				t.Errorf("Preferred %s != Path %s", loc.Preferred, loc.Path)
			}
		})
	}
}

func TestLocateRelativeOCDXConfig(t *testing.T) {
	loc, err := Locate(env{"OCDX_CONFIG": "my.json"}.get)
	wd, _ := os.Getwd()
	if err != nil || loc.Path != filepath.Join(wd, "my.json") {
		t.Errorf("Locate = %+v, %v; want an absolute path", loc, err)
	}
}

func TestLocateWithoutHome(t *testing.T) {
	_, err := Locate(env{}.get)
	if err == nil || !strings.Contains(err.Error(), "set OCDX_CONFIG") {
		t.Errorf("error = %v", err)
	}
}

func TestLoadLegacy(t *testing.T) {
	home := t.TempDir()
	legacy := write(t, filepath.Join(home, ".config", "opencode", "ocdx.json"),
		`{"reviewerModels": ["openai/gpt-4.1"], "commentsAnalyzerModel": "openai/gpt-4.1", "prFixModel": "openai/gpt-4.1"}`)
	c, err := LoadFor(env{"HOME": home, "OPENAI_API_KEY": "k"}.get, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != legacy || !c.Legacy {
		t.Errorf("Path %s Legacy %v, want the legacy file", c.Path, c.Legacy)
	}
	// A broken legacy file is reported with its own path.
	write(t, legacy, `{"reviewerModels": []}`)
	_, err = LoadFor(env{"HOME": home}.get, nil)
	if err == nil || !strings.Contains(err.Error(), "invalid configuration in "+legacy) {
		t.Errorf("error = %v", err)
	}
}

func TestRepoVerify(t *testing.T) {
	root := t.TempDir()
	verify, path, err := RepoVerify(root)
	if verify != nil || path != "" || err != nil {
		t.Fatalf("without .ocdx.json: %v %q %v", verify, path, err)
	}
	want := write(t, filepath.Join(root, ".ocdx.json"), `{"verify": ["go vet ./...", "go test ./..."]}`)
	verify, path, err = RepoVerify(root)
	if err != nil || path != want || !slices.Equal(verify, []string{"go vet ./...", "go test ./..."}) {
		t.Fatalf("RepoVerify = %v %q %v", verify, path, err)
	}

	c, _, err := loadString(t, Example, creds)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.ApplyRepo(root); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Verify, verify) || c.VerifyFrom != want {
		t.Errorf("after ApplyRepo: Verify %v VerifyFrom %q", c.Verify, c.VerifyFrom)
	}
}

func TestRepoVerifyProblems(t *testing.T) {
	tests := []struct {
		name, content string
		want          string
	}{
		{"other key", `{"verify": ["make"], "prFixModel": "openai/x"}`, `line 1, column 22: unknown key "prFixModel"; known keys: verify, instructions, paths, ignore, ignoreDefaults`},
		{"typo", `{"verfy": ["make"]}`, `unknown key "verfy"; did you mean "verify"?`},
		{"typo of ignore", `{"ignores": ["a/**"]}`, `unknown key "ignores"; did you mean "ignore"?`},
		// The PR's author controls the repository's file: it cannot let a model approve.
		{"allowApprove", `{"verify": ["make"], "allowApprove": true}`, `unknown key "allowApprove"; known keys: verify`},
		{"budget is the user's", `{"maxTokens": 1}`, `unknown key "maxTokens"`},
		{"instructions not text", `{"instructions": ["a"]}`, `instructions: must be a string`},
		{"path without glob", `{"paths": [{"instructions": "x"}]}`, `paths[0]: has no "glob"`},
		{"path typo", `{"paths": [{"glob": "a/**", "instruction": "x"}]}`, `unknown key "instruction"; did you mean "instructions"?`},
		{"bad glob", `{"ignore": ["a/[b"]}`, `ignore[0]: "a/[b" is not a valid glob`},
		{"ignoreDefaults not a boolean", `{"ignoreDefaults": "no"}`, `ignoreDefaults: must be true or false`},
		{"bad JSON", "{\"verify\": [\"make\"]\n,,}", "line 2, column 2: JSON syntax error"},
		{"verify not a list", `{"verify": {"cmd": "make"}}`, "verify: must be an array of command strings, found an object"},
		{"empty entry", `{"verify": [""]}`, "verify[0]: is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			path := write(t, filepath.Join(root, ".ocdx.json"), tt.content)
			_, _, err := RepoVerify(root)
			var cerr *Error
			if !errors.As(err, &cerr) || !cerr.Repo {
				t.Fatalf("error %T %v, want a repository *config.Error", err, err)
			}
			msg := err.Error()
			for _, w := range []string{"invalid repository configuration in " + path + ":", tt.want, `may set only "verify"`, strings.TrimSpace(RepoExample)} {
				if !strings.Contains(msg, w) {
					t.Errorf("message lacks %q:\n%s", w, msg)
				}
			}
			c := &Config{Verify: []string{"make test"}}
			if err := c.ApplyRepo(root); err == nil || !slices.Equal(c.Verify, []string{"make test"}) {
				t.Errorf("ApplyRepo = %v, Verify %v; want the error and Verify unchanged", err, c.Verify)
			}
		})
	}
}

func TestRepoPolicy(t *testing.T) {
	const where = ".ocdx.json on main at 1a2b3c4"
	p, err := RepoPolicy([]byte(`{"verify": ["make lint", "go test ./..."]}`), where)
	verify := []string{"make lint", "go test ./..."}
	if err != nil || !slices.Equal(p.Verify, verify) {
		t.Fatalf("RepoPolicy = %v, %v", p, err)
	}
	c := &Config{Verify: []string{"make test"}}
	c.ApplyPolicy(p, where)
	if !slices.Equal(c.Verify, verify) || c.VerifyFrom != where || c.Policy != p {
		t.Errorf("after ApplyPolicy: %v from %q", c.Verify, c.VerifyFrom)
	}

	// The same strict rules as a work tree's file, naming the branch and commit.
	_, err = RepoPolicy([]byte(`{"verify": ["make"], "prFixModel": "openai/x"}`), where)
	var cerr *Error
	if !errors.As(err, &cerr) || !cerr.Repo || !cerr.Branch {
		t.Fatalf("error %T %v, want a repository *config.Error read from a branch", err, err)
	}
	for _, w := range []string{"invalid repository configuration in " + where + ":", `unknown key "prFixModel"`, "on that branch", "cannot change it for its own run"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message lacks %q:\n%s", w, err)
		}
	}
}

func TestSuggest(t *testing.T) {
	for key, want := range map[string]string{
		"reviewerModel": "reviewerModels", "prfixmodel": "prFixModel", "verfy": "verify",
		"reviewPRModel": "reviewPrModel", "model": "", "x": "", "commentsModel": "",
	} {
		if got := suggest(key, knownKeys); got != want {
			t.Errorf("suggest(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestReadFileBounds(t *testing.T) {
	dir := t.TempDir()
	const cfg = `{"reviewerModels": ["ollama/a"], "commentsAnalyzerModel": "ollama/a", "prFixModel": "ollama/a"}`
	// A byte order mark, as some Windows editors write, is accepted.
	if _, _, err := loadString(t, "\xef\xbb\xbf"+cfg, nil); err != nil {
		t.Errorf("a configuration starting with a UTF-8 BOM: %v", err)
	}
	if data, err := ReadFile(write(t, filepath.Join(dir, "bom.json"), "\xef\xbb\xbf{}")); err != nil || string(data) != "{}" {
		t.Errorf("ReadFile = %q, %v; want the BOM removed", data, err)
	}
	// Up to 1 MB is read; more is refused, naming the file.
	at := write(t, filepath.Join(dir, "at.json"), strings.Repeat(" ", MaxFileSize))
	if data, err := ReadFile(at); err != nil || len(data) != MaxFileSize {
		t.Errorf("a file of exactly %d bytes: %d bytes, %v", MaxFileSize, len(data), err)
	}
	big := write(t, filepath.Join(dir, "big.json"), strings.Repeat(" ", MaxFileSize+1))
	_, err := LoadFor(env{"OCDX_CONFIG": big}.get, nil)
	if err == nil || !strings.Contains(err.Error(), big) || !strings.Contains(err.Error(), "larger than 1024 KB") {
		t.Errorf("a file over 1 MB: %v", err)
	}
	// A directory and a device are refused before they are read.
	for path, want := range map[string]string{dir: "a directory", "/dev/zero": "a character device", "/dev/null": "a character device"} {
		if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadFile(%s) = %v, want %q", path, err, want)
		}
	}
	// The repository's .ocdx.json goes through the same reader.
	repo := t.TempDir()
	if err := os.Symlink("/dev/zero", filepath.Join(repo, RepoFile)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := RepoVerify(repo); err == nil || !strings.Contains(err.Error(), "a character device") {
		t.Errorf("RepoVerify with .ocdx.json -> /dev/zero: %v", err)
	}
}

// verifierModel is optional: absent, no verifier and no credential asked
// for it; set, its provider's key is required like any role's, and
// outputTokens may cap it.
func TestLoadVerifierModel(t *testing.T) {
	const base = `{"reviewerModels": ["ollama/a"], "commentsAnalyzerModel": "ollama/b", "prFixModel": "ollama/c"`
	c, _, err := loadString(t, base+`}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Verifier.Provider.Name != "" {
		t.Errorf("no verifierModel, but a verifier %s", c.Verifier)
	}
	c, _, err = loadString(t, base+`, "verifierModel": "anthropic/claude-haiku-4-5", "outputTokens": {"verifierModel": 2048}}`, creds)
	if err != nil {
		t.Fatal(err)
	}
	if c.Verifier.String() != "anthropic/claude-haiku-4-5" || c.OutputCap("verifierModel") != 2048 {
		t.Errorf("verifier %s, cap %d", c.Verifier, c.OutputCap("verifierModel"))
	}
	_, _, err = loadString(t, base+`, "verifierModel": "anthropic/claude-haiku-4-5"}`, nil)
	if err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") || !strings.Contains(err.Error(), "verifierModel") {
		t.Errorf("a verifier without its key: err = %v", err)
	}
	_, _, err = loadString(t, base+`, "verifierModel": "gpt-4.1"}`, nil)
	if err == nil || !strings.Contains(err.Error(), "verifierModel") {
		t.Errorf("a bad verifierModel: err = %v", err)
	}
}

// describe writes with the comments analyzer's model unless describeModel
// names another, whose key is then needed.
func TestLoadDescribeModel(t *testing.T) {
	const base = `{"reviewerModels": ["ollama/a"], "commentsAnalyzerModel": "ollama/b", "prFixModel": "ollama/c"`
	c, _, err := loadString(t, base+`}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Describe.String() != "ollama/b" {
		t.Errorf("describe defaults to %s, want the comments analyzer's ollama/b", c.Describe)
	}
	c, _, err = loadString(t, base+`, "describeModel": "anthropic/claude-haiku-4-5", "outputTokens": {"describeModel": 4096}}`, creds)
	if err != nil {
		t.Fatal(err)
	}
	if c.Describe.String() != "anthropic/claude-haiku-4-5" || c.OutputCap("describeModel") != 4096 {
		t.Errorf("describe %s, cap %d", c.Describe, c.OutputCap("describeModel"))
	}
	_, _, err = loadString(t, base+`, "describeModel": "anthropic/claude-haiku-4-5"}`, nil)
	if err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") || !strings.Contains(err.Error(), "describeModel") {
		t.Errorf("a describeModel without its key: err = %v", err)
	}
}

// "describe": true in the user's configuration or in the base branch's
// .ocdx.json opens review-loop's first report with the description;
// anything but a boolean is a problem.
func TestDescribeFirst(t *testing.T) {
	const base = `{"reviewerModels": ["ollama/a"], "commentsAnalyzerModel": "ollama/b", "prFixModel": "ollama/c"`
	c, _, err := loadString(t, base+`}`, nil)
	if err != nil || c.DescribesFirst() {
		t.Fatalf("by default: %v, %v", c.DescribesFirst(), err)
	}
	if c, _, err = loadString(t, base+`, "describe": true}`, nil); err != nil || !c.DescribesFirst() {
		t.Errorf("the user's describe: %v, %v", c.DescribesFirst(), err)
	}
	if _, _, err = loadString(t, base+`, "describe": "yes"}`, nil); err == nil || !strings.Contains(err.Error(), "describe") {
		t.Errorf("describe as a string: %v", err)
	}
	c, _, _ = loadString(t, base+`}`, nil)
	p, err := RepoPolicy([]byte(`{"describe": true}`), ".ocdx.json on main at 1a2b3c4")
	if err != nil {
		t.Fatal(err)
	}
	c.ApplyPolicy(p, ".ocdx.json on main at 1a2b3c4")
	if !c.DescribesFirst() {
		t.Error("the base branch's describe: true is not applied")
	}
}

// "describe": {"compliance": "finding"} describes and makes a requirement
// not met a finding; "report" only describes; anything else is refused,
// naming the key.
func TestDescribeCompliance(t *testing.T) {
	const base = `{"reviewerModels": ["ollama/a"], "commentsAnalyzerModel": "ollama/b", "prFixModel": "ollama/c"`
	c, _, err := loadString(t, base+`, "describe": {"compliance": "finding"}}`, nil)
	if err != nil || !c.DescribesFirst() || !c.ComplianceAsFindings() {
		t.Fatalf("compliance finding: %v %v, %v", c.DescribesFirst(), c.ComplianceAsFindings(), err)
	}
	if c, _, err = loadString(t, base+`, "describe": {"compliance": "report"}}`, nil); err != nil || !c.DescribesFirst() || c.ComplianceAsFindings() {
		t.Errorf("compliance report: %v %v, %v", c.DescribesFirst(), c.ComplianceAsFindings(), err)
	}
	if c, _, err = loadString(t, base+`, "describe": true}`, nil); err != nil || c.ComplianceAsFindings() {
		t.Errorf("describe true makes no finding: %v", err)
	}
	if _, _, err = loadString(t, base+`, "describe": {"compliance": "block"}}`, nil); err == nil || !strings.Contains(err.Error(), `describe.compliance: must be "finding"`) {
		t.Errorf("a bad compliance: %v", err)
	}
	p, err := RepoPolicy([]byte(`{"describe": {"compliance": "finding"}}`), ".ocdx.json on main at 1a2b3c4")
	if err != nil {
		t.Fatal(err)
	}
	c, _, _ = loadString(t, base+`}`, nil)
	c.ApplyPolicy(p, ".ocdx.json on main at 1a2b3c4")
	if !c.ComplianceAsFindings() {
		t.Error("the base branch's compliance is not applied")
	}
}

// modelCutoffs names each model's training cutoff as a date; a date that
// does not parse is a problem naming the key, the file and the form.
func TestLoadModelCutoffs(t *testing.T) {
	const base = `{"reviewerModels": ["ollama/a"], "commentsAnalyzerModel": "ollama/b", "prFixModel": "ollama/c"`
	c, _, err := loadString(t, base+`, "modelCutoffs": {"ollama/a": "2024-06-01"}}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.ModelCutoffs["ollama/a"]; !got.Equal(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("the cutoff of ollama/a is %v", got)
	}
	for _, bad := range []string{`{"ollama/a": "June 2024"}`, `{"ollama/a": 2024}`, `["ollama/a"]`, `{"nomodel": "2024-06-01"}`} {
		_, path, err := loadString(t, base+`, "modelCutoffs": `+bad+`}`, nil)
		if err == nil || !strings.Contains(err.Error(), "modelCutoffs") || !strings.Contains(err.Error(), path) {
			t.Errorf("modelCutoffs %s: err = %v", bad, err)
		}
	}
	_, _, err = loadString(t, base+`, "modelCutoffs": {"ollama/a": "2024-13-01"}}`, nil)
	if err == nil || !strings.Contains(err.Error(), `"YYYY-MM-DD"`) {
		t.Errorf("a month 13: err = %v", err)
	}
}
