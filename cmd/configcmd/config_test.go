package configcmd

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/setup"
)

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A configuration of ollama models only, relying on both defaults.
const minimalConfig = `{"reviewerModels": ["ollama/llama3", "ollama/qwen"], "commentsAnalyzerModel": "ollama/qwen", "prFixModel": "ollama/qwen"}`

// --- flag parsing ---

func TestConfigFlagParsing(t *testing.T) {
	parsers := map[string]func(*cmdutil.Deps, []string) error{
		"init":     func(d *cmdutil.Deps, a []string) error { _, err := ParseInit(d, a); return err },
		"show":     func(d *cmdutil.Deps, a []string) error { _, err := ParseShow(d, a); return err },
		"validate": func(d *cmdutil.Deps, a []string) error { _, err := ParseValidate(d, a); return err },
	}
	for verb, parse := range parsers {
		t.Run(verb, func(t *testing.T) {
			d, _, _ := cmdtest.DepsEnv(nil)
			if err := parse(d, nil); err != nil {
				t.Errorf("no arguments: %v", err)
			}
			for _, args := range [][]string{{"extra"}, {"--bogus"}, {"--pr", "3"}} {
				var usage *cmdutil.UsageError
				if err := parse(d, args); !errors.As(err, &usage) {
					t.Errorf("%v: error %v, want a usage error", args, err)
				}
			}
			d, out, _ := cmdtest.DepsEnv(nil)
			if err := parse(d, []string{"--help"}); !errors.Is(err, cmdutil.ErrHelpShown) || !strings.Contains(out.String(), "Usage: gh ocdx config "+verb) {
				t.Errorf("--help: %v, output %q", err, out)
			}
		})
	}
	d, _, _ := cmdtest.DepsEnv(nil)
	if opts, err := ParseShow(d, []string{"--json"}); err != nil || opts.Export == nil {
		t.Errorf("show --json = %+v, %v", opts, err)
	}
}

// --- run functions ---

func TestConfigInit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new", "gh-ocdx", "config.json")
	d, out, _ := cmdtest.DepsEnv(map[string]string{"OCDX_CONFIG": path, "OPENAI_API_KEY": "sk-x", "OLLAMA_HOST": noOllama})
	if err := configInit(t.Context(), d, &InitOptions{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != config.InitFile(nil) {
		t.Fatalf("wrote %q, %v; want the example without verify (no repository here)", data, err)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700 | os.ModeDir} {
		if st, err := os.Stat(p); err != nil || st.Mode() != want {
			t.Errorf("%s: mode %v, want %v", p, st.Mode(), want)
		}
	}
	for _, w := range []string{"Wrote " + path, "export ANTHROPIC_API_KEY=...", "(not set yet)", "export OPENAI_API_KEY=...", "(already set)", "gh ocdx config validate"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}

	writeFile(t, path, "{}")
	d, out, _ = cmdtest.DepsEnv(map[string]string{"OCDX_CONFIG": path})
	err = configInit(t.Context(), d, &InitOptions{})
	if err == nil || !strings.Contains(err.Error(), "already exists at "+path) || !strings.Contains(err.Error(), "gh ocdx config show") {
		t.Errorf("second init: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "{}" || out.Len() != 0 {
		t.Errorf("second init changed the file (%q) or printed %q", data, out)
	}
}

// noOllama is an OLLAMA_HOST where nothing answers (port 1 is refused at
// once), so that an ollama of the developer's is not offered.
const noOllama = "http://127.0.0.1:1"

// A local ollama that answers is offered: without a terminal its first
// model is written in every role, without its default tag, and the
// output says so; in a terminal another listed model can be chosen, or
// the offer declined for the example. One that serves no model, or
// answers something else than a list, is not offered.
func TestConfigInitOffersALocalOllama(t *testing.T) {
	fm := testkit.NewFakeModel(t)
	fm.Models("qwen2.5-coder:latest", "llama3:8b")
	init := func(ask cmdutil.Prompter) (string, string) {
		t.Helper()
		path := filepath.Join(t.TempDir(), "config.json")
		d, out, _ := cmdtest.DepsEnv(map[string]string{"OCDX_CONFIG": path, "OLLAMA_HOST": fm.URL()})
		if err := configInit(t.Context(), d, &InitOptions{Prompter: ask}); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data), out.String()
	}

	data, out := init(nil)
	if data != config.LocalFile("qwen2.5-coder", nil) {
		t.Errorf("without a terminal, wrote:\n%s", data)
	}
	for _, w := range []string{"It names ollama/qwen2.5-coder, served by ollama at " + fm.URL() + ", in every role", "gh ocdx review works now, without a key"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	ask := &cmdtest.Prompter{Picks: []int{1}, Inputs: []string{""}}
	if data, _ = init(ask); data != config.LocalFile("llama3:8b", nil) {
		t.Errorf("the second model chosen, wrote:\n%s", data)
	}
	if data, out = init(&cmdtest.Prompter{Pick: 2, Inputs: []string{""}}); data != config.InitFile(nil) || strings.Contains(out, "ollama at") {
		t.Errorf("the offer declined, wrote:\n%s\n%s", data, out)
	}

	fm.Models()
	if data, _ = init(nil); data != config.InitFile(nil) {
		t.Errorf("an ollama serving no model was offered:\n%s", data)
	}
}

func TestConfigInitNextToLegacy(t *testing.T) {
	home := t.TempDir()
	legacy := writeFile(t, filepath.Join(home, ".config", "opencode", "ocdx.json"), minimalConfig)
	d, out, _ := cmdtest.DepsEnv(map[string]string{"HOME": home, "OLLAMA_HOST": noOllama})
	if err := configInit(t.Context(), d, &InitOptions{}); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(home, ".config", "gh-ocdx", "config.json")
	if _, err := os.Stat(want); err != nil {
		t.Fatalf("init did not write %s: %v", want, err)
	}
	if !strings.Contains(out.String(), "legacy configuration "+legacy+" is no longer read") {
		t.Errorf("output does not mention the legacy file:\n%s", out)
	}
}

func TestConfigShowMarkdown(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "config.json"), `{"reviewerModels": ["openai/gpt-4.1"], "commentsAnalyzerModel": "ollama/qwen", "prFixModel": "ollama/qwen"}`)
	repo := filepath.Join(dir, "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	override := writeFile(t, filepath.Join(repo, ".ocdx.json"), `{"verify": ["make check"]}`)
	sub := filepath.Join(repo, "pkg", "x")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	d, out, _ := cmdtest.DepsEnv(map[string]string{
		"OCDX_CONFIG": path, "OPENAI_API_KEY": "sk-secret-value",
		"OPENAI_BASE_URL": "https://user:hunter2@llm.example/v1?key=topsecret", "OLLAMA_HOST": "127.0.0.1:9999",
	})
	if err := configShow(d, &ShowOptions{WorkDir: sub}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, w := range []string{
		"Read from `" + path + "`", "| reviewer 1 | openai/gpt-4.1 |", "| comments analyzer | ollama/qwen |",
		"| review-pr | openai/gpt-4.1 (default: the first reviewer) |", "from `" + override + "`", "- `make check`",
		"| openai | https://llm.example/v1 | `$OPENAI_API_KEY` (set) |", "| ollama | 127.0.0.1:9999 | none needed |",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
	for _, secret := range []string{"sk-secret", "hunter2", "topsecret"} {
		if strings.Contains(got, secret) {
			t.Errorf("output shows the secret %q:\n%s", secret, got)
		}
	}
}

func TestConfigShowJSON(t *testing.T) {
	path := writeFile(t, filepath.Join(t.TempDir(), "config.json"), minimalConfig)
	d, out, _ := cmdtest.DepsEnv(map[string]string{"OCDX_CONFIG": path})
	if err := configShow(d, &ShowOptions{Export: &cmdutil.Exporter{}, WorkDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	var got setup.Shown
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if got.Path != path || got.ReviewPRModel != "ollama/llama3" || got.Verify == nil || len(got.Verify) != 0 ||
		got.VerifyFrom != "" || !slices.Equal(got.Defaults, []string{"reviewPrModel", "verify"}) ||
		len(got.Providers) != 1 || got.Providers[0].Endpoint != "http://127.0.0.1:11434" {
		t.Errorf("show --json = %+v", got)
	}
}

func TestConfigValidate(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "config.json"), minimalConfig)
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	d, out, _ := cmdtest.DepsEnv(map[string]string{"OCDX_CONFIG": path})
	if err := configValidate(t.Context(), d, &ValidateOptions{WorkDir: dir}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "✓ "+path+" is valid\n" {
		t.Errorf("stdout = %q", out)
	}

	override := writeFile(t, filepath.Join(dir, ".ocdx.json"), `{"verify": ["make"]}`)
	d, out, _ = cmdtest.DepsEnv(map[string]string{"OCDX_CONFIG": path})
	if err := configValidate(t.Context(), d, &ValidateOptions{WorkDir: dir}); err != nil || out.String() != "✓ "+path+" is valid\n✓ "+override+" ("+setup.WorktreePolicy+") is valid\n" {
		t.Errorf("with .ocdx.json: %v, stdout %q", err, out)
	}

	writeFile(t, override, `{"verify": ["make"], "prFixModel": "openai/x"}`)
	d, out, _ = cmdtest.DepsEnv(map[string]string{"OCDX_CONFIG": path})
	err := configValidate(t.Context(), d, &ValidateOptions{WorkDir: dir})
	if err == nil || !strings.Contains(err.Error(), override) || out.Len() != 0 {
		t.Errorf("bad .ocdx.json: %v, stdout %q", err, out)
	}
}

func TestLoadConfigLogsLegacy(t *testing.T) {
	home := t.TempDir()
	legacy := writeFile(t, filepath.Join(home, ".config", "opencode", "ocdx.json"), minimalConfig)
	d, _, errOut := cmdtest.DepsEnv(map[string]string{"HOME": home})
	c, err := cmdutil.LoadConfig(d)
	if err != nil || c.Path != legacy {
		t.Fatalf("loadConfig = %+v, %v", c, err)
	}
	if !strings.Contains(errOut.String(), "reading the legacy configuration "+legacy+"; move it to "+filepath.Join(home, ".config", "gh-ocdx", "config.json")) {
		t.Errorf("stderr = %q", errOut)
	}
}

// --- the real binary ---

func TestConfigBinaryInitThenValidate(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	path := env.Vars["OCDX_CONFIG"]
	res := env.Run(t, "config", "init")
	if res.Code != 0 || !strings.Contains(res.Stdout, "Wrote "+path) {
		t.Fatalf("init: %+v", res)
	}
	env.Set("OPENAI_API_KEY", "sk-test")
	env.Set("ANTHROPIC_API_KEY", "sk-ant-test")
	if res := env.Run(t, "config", "validate"); res.Code != 0 || res.Stdout != "✓ "+path+" is valid\n" {
		t.Errorf("validate: %+v", res)
	}
	res = env.Run(t, "config", "init")
	if res.Code != 1 || res.Stdout != "" || !strings.Contains(res.Stderr, "error: a configuration already exists at "+path) {
		t.Errorf("second init: %+v", res)
	}
}

func TestConfigBinaryErrors(t *testing.T) {
	example := strings.TrimSpace(config.Example)
	tests := []struct {
		name, content string // content "" leaves the file missing
		want          string
	}{
		{"missing file", "", "error: no configuration file at %s\n\nCreate it with 'gh ocdx config init'"},
		{"bad JSON", "{\n  \"reviewerModels\": [\"ollama/a\"]\n  \"prFixModel\": \"ollama/a\"\n}", "error: invalid configuration in %s:\n  - line 3, column 3: JSON syntax error"},
		{"no reviewers", `{"reviewerModels": [], "commentsAnalyzerModel": "ollama/a", "prFixModel": "ollama/a"}`, "reviewerModels: is empty"},
		{"six reviewers", `{"reviewerModels": ["ollama/a","ollama/b","ollama/c","ollama/d","ollama/e","ollama/f"], "commentsAnalyzerModel": "ollama/a", "prFixModel": "ollama/a"}`, "reviewerModels: has 6 models, at most 5 are allowed"},
		{"unknown key", `{"reviewerModels": ["ollama/a"], "commentsAnalyzerModel": "ollama/a", "prfixModel": "ollama/a"}`, `unknown key "prfixModel"; did you mean "prFixModel"?`},
		{"bad provider", `{"reviewerModels": ["gemini/pro"], "commentsAnalyzerModel": "ollama/a", "prFixModel": "ollama/a"}`, `"gemini/pro" names an unknown provider "gemini"`},
		{"missing credential", `{"reviewerModels": ["anthropic/claude"], "commentsAnalyzerModel": "ollama/a", "prFixModel": "ollama/a"}`, "ANTHROPIC_API_KEY is not set, and anthropic/claude (reviewerModels[0], reviewPrModel) needs it"},
		{"wrong type", `{"reviewerModels": "ollama/a", "commentsAnalyzerModel": "ollama/a", "prFixModel": "ollama/a"}`, "line 1, column 20: reviewerModels: must be an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testkit.NewEnv(t)
			path := env.Vars["OCDX_CONFIG"]
			if tt.content != "" {
				writeFile(t, path, tt.content)
			}
			want := strings.ReplaceAll(tt.want, "%s", path)
			for _, verb := range []string{"validate", "show"} {
				res := env.Run(t, "config", verb)
				if verb == "validate" && tt.name == "missing credential" {
					// The file is fine: validate lists the missing key as
					// one problem among any others, the verdict last.
					if res.Code != 1 || res.Stdout != "X "+want+"; export ANTHROPIC_API_KEY=<your API key>\nX "+path+": 1 problem\n" ||
						strings.Contains(res.Stderr, "error: ") || strings.Contains(res.Stderr, example) {
						t.Errorf("config validate: %+v", res)
					}
					continue
				}
				// show shows the file as it is, when there is one.
				if res.Code != 1 || (res.Stdout != "") != (verb == "show" && tt.content != "") {
					t.Errorf("config %s: exit %d, stdout %q", verb, res.Code, res.Stdout)
				}
				for _, w := range []string{"error: ", path, want, example} {
					if !strings.Contains(res.Stderr, w) {
						t.Errorf("config %s: stderr lacks %q:\n%s", verb, w, res.Stderr)
					}
				}
			}
		})
	}
}

func TestConfigBinaryRepoOverride(t *testing.T) {
	env := testkit.NewEnv(t)
	writeFile(t, env.Vars["OCDX_CONFIG"], minimalConfig)
	if err := os.Mkdir(filepath.Join(env.Dir, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	override := writeFile(t, filepath.Join(env.Dir, ".ocdx.json"), `{"verify": ["go test ./..."]}`)
	res := env.Run(t, "config", "show", "--json")
	var got setup.Shown
	if err := json.Unmarshal([]byte(res.Stdout), &got); res.Code != 0 || err != nil {
		t.Fatalf("show --json: %+v (%v)", res, err)
	}
	if !slices.Equal(got.Verify, []string{"go test ./..."}) || got.VerifyFrom != override {
		t.Errorf("verify %v from %q, want the repository's", got.Verify, got.VerifyFrom)
	}

	writeFile(t, override, `{"verify": ["go test ./..."], "reviewerModels": ["ollama/a"]}`)
	res = env.Run(t, "config", "validate")
	if res.Code != 1 || res.Stdout != "" || !strings.Contains(res.Stderr, "error: invalid repository configuration in "+override) ||
		!strings.Contains(res.Stderr, `unknown key "reviewerModels"`) || !strings.Contains(res.Stderr, strings.TrimSpace(config.RepoExample)) {
		t.Errorf("bad .ocdx.json: %+v", res)
	}
}

func TestConfigBinaryShowJSONDefaults(t *testing.T) {
	env := testkit.NewEnv(t)
	writeFile(t, env.Vars["OCDX_CONFIG"], minimalConfig)
	res := env.Run(t, "config", "show", "--json")
	var got map[string]any
	if err := json.Unmarshal([]byte(res.Stdout), &got); res.Code != 0 || err != nil {
		t.Fatalf("show --json: %+v (%v)", res, err)
	}
	if got["reviewPrModel"] != "ollama/llama3" || got["path"] != env.Vars["OCDX_CONFIG"] {
		t.Errorf("show --json = %v", got)
	}
	if v, _ := json.Marshal(got["verify"]); string(v) != `[]` {
		t.Errorf("verify = %s, want none", v)
	}
	res = env.Run(t, "config", "show")
	if res.Code != 0 || !strings.HasPrefix(res.Stdout, "# gh-ocdx configuration") || strings.Contains(res.Stdout, "outputTokens") {
		t.Errorf("show: %+v", res)
	}
}

// config show names the roles given their own output cap.
func TestConfigBinaryShowOutputTokens(t *testing.T) {
	env := testkit.NewEnv(t)
	writeFile(t, env.Vars["OCDX_CONFIG"], strings.Replace(minimalConfig, "{", `{"outputTokens": {"prFixModel": 32000, "reviewerModels": 4096},`, 1))
	res := env.Run(t, "config", "show", "--json")
	var got setup.Shown
	if err := json.Unmarshal([]byte(res.Stdout), &got); res.Code != 0 || err != nil {
		t.Fatalf("show --json: %+v (%v)", res, err)
	}
	if got.OutputTokens["prFixModel"] != 32000 || got.OutputTokens["reviewerModels"] != 4096 || len(got.OutputTokens) != 2 {
		t.Errorf("outputTokens = %v", got.OutputTokens)
	}
	res = env.Run(t, "config", "show")
	if !strings.Contains(res.Stdout, "Output caps (outputTokens), in tokens per answer: prFixModel 32000, reviewerModels 4096; other roles 8192.") {
		t.Errorf("show: %+v", res)
	}
}

func TestConfigBinaryUsageErrors(t *testing.T) {
	env := testkit.NewEnv(t)
	for _, args := range [][]string{
		{"config", "validate", "extra"}, {"config", "show", "--bogus"}, {"config", "init", "--force"}, {"config", "nope"},
	} {
		res := env.Run(t, args...)
		if res.Code != 2 || res.Stdout != "" || !strings.Contains(res.Stderr, "Usage: gh ocdx config") {
			t.Errorf("%v: %+v", args, res)
		}
	}
	if _, err := os.Stat(env.Vars["OCDX_CONFIG"]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a usage error wrote the configuration: %v", err)
	}
}

func TestConfigBinaryDefaultLocations(t *testing.T) {
	env := testkit.NewEnv(t)
	env.Set("OCDX_CONFIG", "")
	home := env.Vars["HOME"]
	legacy := writeFile(t, filepath.Join(home, ".config", "opencode", "ocdx.json"), minimalConfig)
	res := env.Run(t, "config", "validate")
	if res.Code != 0 || res.Stdout != "✓ "+legacy+" is valid\n" || !strings.Contains(res.Stderr, "reading the legacy configuration "+legacy) {
		t.Errorf("legacy: %+v", res)
	}

	xdg := filepath.Join(env.Root, "xdg")
	env.Set("XDG_CONFIG_HOME", xdg)
	res = env.Run(t, "config", "init")
	want := filepath.Join(xdg, "gh-ocdx", "config.json")
	if res.Code != 0 || !strings.Contains(res.Stdout, "Wrote "+want) {
		t.Errorf("init with XDG_CONFIG_HOME: %+v", res)
	}

	env.Set("XDG_CONFIG_HOME", "")
	res = env.Run(t, "config", "init")
	want = filepath.Join(home, ".config", "gh-ocdx", "config.json")
	if res.Code != 0 || !strings.Contains(res.Stdout, "Wrote "+want) || !strings.Contains(res.Stdout, legacy+" is no longer read") {
		t.Errorf("init with HOME only: %+v", res)
	}
	env.Set("OPENAI_API_KEY", "k")
	env.Set("ANTHROPIC_API_KEY", "k")
	res = env.Run(t, "config", "validate")
	if res.Code != 0 || res.Stdout != "✓ "+want+" is valid\n" || strings.Contains(res.Stderr, "legacy") {
		t.Errorf("validate after init: %+v", res)
	}
}

// An invalid file is still shown, each problem under the line it is about,
// and config show fails (exit 1) saying how many there are.
func TestConfigShowInvalid(t *testing.T) {
	path := writeFile(t, filepath.Join(t.TempDir(), "config.json"), `{
  "reviewerModels": ["ollama/llama3", "gpt-4.1"],
  "commentsAnalyzerModel": "ollama/qwen",
  "prFixModel": "openai/gpt-4.1",
  "prFixModle": "x"
}`)
	d, out, _ := cmdtest.DepsEnv(map[string]string{"OCDX_CONFIG": path})
	err := configShow(d, &ShowOptions{WorkDir: t.TempDir()})
	var ce *config.Error
	if !errors.As(err, &ce) || len(ce.Problems) != 3 {
		t.Fatalf("err = %v", err)
	}
	got := out.String()
	for _, w := range []string{
		path + " (invalid)",
		`   2    "reviewerModels": ["ollama/llama3", "gpt-4.1"],` + "\n      " + strings.Repeat(" ", 38) + "^ reviewerModels[1]:",
		`   5    "prFixModle": "x"` + "\n        ^ ",
		"Also:\n  - OPENAI_API_KEY",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}

	out.Reset()
	err = configShow(d, &ShowOptions{Export: &cmdutil.Exporter{}, WorkDir: t.TempDir()})
	var js struct {
		Valid    bool
		Problems []struct{ Line int }
	}
	if jerr := json.Unmarshal(out.Bytes(), &js); err == nil || jerr != nil || js.Valid || len(js.Problems) != 3 || js.Problems[0].Line != 2 {
		t.Errorf("--json: %v, %v, %+v\n%s", err, jerr, js, out)
	}
}

// A file whose only problems are missing credentials is not called invalid.
func TestConfigShowMissingCredentialsOnly(t *testing.T) {
	path := writeFile(t, filepath.Join(t.TempDir(), "config.json"), `{"reviewerModels": ["openai/gpt-4.1"], "commentsAnalyzerModel": "ollama/qwen", "prFixModel": "ollama/qwen"}`)
	d, out, _ := cmdtest.DepsEnv(map[string]string{"OCDX_CONFIG": path})
	if err := configShow(d, &ShowOptions{WorkDir: t.TempDir()}); err == nil {
		t.Fatal("want the missing key reported")
	}
	if got := out.String(); !strings.Contains(got, path+" (the file is fine; what is missing is below)") || !strings.Contains(got, "Also:\n  - OPENAI_API_KEY") {
		t.Errorf("shown:\n%s", got)
	}
}

// config show names the verifier when verifierModel is set, and says there
// is none otherwise; validate asks for its provider's key only when set.
func TestConfigShowVerifier(t *testing.T) {
	path := writeFile(t, filepath.Join(t.TempDir(), "config.json"), minimalConfig)
	d, out, _ := cmdtest.DepsEnv(map[string]string{"OCDX_CONFIG": path})
	if err := configShow(d, &ShowOptions{WorkDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| verifier | none (set verifierModel") {
		t.Errorf("show without a verifier:\n%s", out)
	}
	withVerifier := strings.Replace(minimalConfig, "{", `{"verifierModel": "anthropic/claude-haiku-4-5", `, 1)
	writeFile(t, path, withVerifier)
	d, out, _ = cmdtest.DepsEnv(map[string]string{"OCDX_CONFIG": path})
	if err := configValidate(t.Context(), d, &ValidateOptions{WorkDir: t.TempDir()}); err != cmdutil.ErrShown || !strings.HasPrefix(out.String(), "X ANTHROPIC_API_KEY is not set") {
		t.Errorf("validate without the verifier's key: %v\n%s", err, out)
	}
	d, out, _ = cmdtest.DepsEnv(map[string]string{"OCDX_CONFIG": path, "ANTHROPIC_API_KEY": "sk-ant-test"})
	if err := configShow(d, &ShowOptions{Export: &cmdutil.Exporter{}, WorkDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	var got setup.Shown
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.VerifierModel != "anthropic/claude-haiku-4-5" {
		t.Errorf("show --json: verifierModel %q (%v)", got.VerifierModel, err)
	}
}
