package llm

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// secrets holds one sample of each secret-shaped pattern masked, with the line
// that must not leave the machine.
var secrets = map[string]string{
	"aws access key":  "AKIAIOSFODNN7EXAMPLE",
	"aws session key": "ASIAY34FZKBOKMUTVV7A",
	"private key":     "MIIEowIBAAKCAQEAxSECRETKEYBODYLINE0123456789abcdef",
	"slack token":     "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp",
	"github ghp":      "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
	"github gho":      "gho_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
	"github ghu":      "ghu_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
	"github ghs":      "ghs_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
	"github ghr":      "ghr_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
	"github pat":      "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCD",
	"openai key":      "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789",
}

func secretText() string {
	var b strings.Builder
	for name, s := range secrets {
		if name == "private key" {
			b.WriteString("-----BEGIN RSA PRIVATE KEY-----\n" + s + "\n-----END RSA PRIVATE KEY-----\n")
			continue
		}
		b.WriteString("config." + strings.ReplaceAll(name, " ", "_") + " = \"" + s + "\"\n")
	}
	return b.String()
}

func TestSecretsMaskedOnTheWire(t *testing.T) {
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		// The model echoes a secret in its arguments; the file it reads and
		// the diff in the task hold every pattern.
		args, _ := json.Marshal(map[string]string{"path": "leak.env", "why": "saw " + secrets["github ghp"] + " here"})
		fm.Script(w.name, testkit.CallTools(call("read_file", string(args))), testkit.Reply("done"))
		a := &Agent{
			Role: "reviewer-1", Model: newModel(t, fm, w, fast),
			System: "System with " + secrets["openai key"],
			Task:   "Review this diff:\n+" + strings.ReplaceAll(secretText(), "\n", "\n+"),
			Tools:  []Tool{files(map[string]string{"leak.env": secretText()})},
		}
		if _, err := a.Run(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		reqs := fm.Requests(w.name)
		if len(reqs) != 2 {
			t.Fatalf("%d requests", len(reqs))
		}
		for i, r := range reqs {
			for name, s := range secrets {
				if strings.Contains(string(r.Body), s) {
					t.Errorf("request %d carries the %s %s", i, name, s)
				}
			}
			if !strings.Contains(string(r.Body), "[SECRET:") {
				t.Errorf("request %d has no [SECRET:kind] marker", i)
			}
		}
		// The arguments stay a JSON object the API accepts, with only the
		// secret value replaced.
		if !strings.Contains(string(reqs[1].Body), "leak.env") {
			t.Error("masking lost the non-secret arguments")
		}
		_, msgs := decodeWire(t, w.format, reqs[1].Body)
		if got := msgs[2].Results[0].Content; strings.Count(got, "[SECRET:") != strings.Count(secretText(), "\n") || !strings.Contains(got, "config.github_pat = \"[SECRET:github-token]\"") {
			t.Errorf("file content masked as:\n%s", got)
		}
	})
}

// TestKnownCredentialsMaskedOnTheWire: a registered credential is hidden
// whatever its shape, in every part of a request, also inside a word.
func TestKnownCredentialsMaskedOnTheWire(t *testing.T) {
	const cred = "plainlowercasecredentialvaluewithnoshape"
	redact.Register(cred)
	eachWire(t, func(t *testing.T, fm *testkit.FakeModel, w wire) {
		args, _ := json.Marshal(map[string]string{"path": "notes.txt", "why": "saw x" + cred + "y"})
		fm.Script(w.name, testkit.CallTools(call("read_file", string(args))), testkit.Reply("done"))
		a := &Agent{
			Role: "reviewer-1", Model: newModel(t, fm, w, fast),
			System: "System " + cred, Task: "+token " + cred,
			Tools: []Tool{files(map[string]string{"notes.txt": "key=" + cred + "\n"})},
		}
		if _, err := a.Run(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		for i, r := range fm.Requests(w.name) {
			if strings.Contains(string(r.Body), cred) {
				t.Errorf("request %d carries the credential", i)
			}
			if !strings.Contains(string(r.Body), "[SECRET:credential]") {
				t.Errorf("request %d has no [SECRET:credential] marker: %s", i, r.Body)
			}
		}
	})
}

func TestOllama(t *testing.T) {
	fm := testkit.NewFakeModel(t)
	fm.Script("llama3:8b", testkit.Reply("hello"))
	m, err := New("ollama/llama3:8b", fm.Getenv, fast)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := m.Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "hi"}}})
	if err != nil || resp.Text != "hello" {
		t.Fatalf("%+v %v", resp, err)
	}
	r := fm.Requests("llama3:8b")[0]
	if r.Format != "openai" || r.Header.Get("Authorization") != "" {
		t.Errorf("format %s, Authorization %q", r.Format, r.Header.Get("Authorization"))
	}
	if !strings.Contains(string(r.Body), `"max_tokens":8192`) {
		t.Errorf("ollama wants max_tokens: %s", r.Body)
	}
}

func TestOllamaURL(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1":                    "http://127.0.0.1:11434/v1",
		"0.0.0.0:8080":                 "http://0.0.0.0:8080/v1",
		"http://gpu.local:11434/":      "http://gpu.local:11434/v1",
		"https://ollama.internal":      "https://ollama.internal/v1",
		"http://10.0.0.2:9000/ollama/": "http://10.0.0.2:9000/ollama/v1",
	} {
		if got, err := ollamaURL(in); err != nil || got != want {
			t.Errorf("ollamaURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestEnvironmentComesFromTheGetter(t *testing.T) {
	// The process environment points elsewhere; only the getter counts.
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_API_KEY", "process-key")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("ANTHROPIC_API_KEY", "process-key")
	fm := testkit.NewFakeModel(t)
	for _, w := range wires {
		m := newModel(t, fm, w, fast)
		if _, err := m.Chat(context.Background(), Request{Messages: []Message{{Role: User, Text: "hi"}}}); err != nil {
			t.Fatalf("%s: %v", w.format, err)
		}
		h := fm.Requests(w.name)[0].Header
		if w.format == "openai" && h.Get("Authorization") != "Bearer fake-openai-key" {
			t.Errorf("openai Authorization = %q", h.Get("Authorization"))
		}
		if w.format == "anthropic" && h.Get("X-Api-Key") != "fake-anthropic-key" {
			t.Errorf("anthropic x-api-key = %q", h.Get("X-Api-Key"))
		}
	}

	noEnv := func(string) string { return "" }
	for spec, want := range map[string]string{
		"openai/gpt-4.1":              "OPENAI_API_KEY is not set",
		"anthropic/claude-sonnet-4-5": "ANTHROPIC_API_KEY is not set",
		"github/gpt-4o":               "unknown provider",
		"gpt-4o":                      "provider/model",
	} {
		if _, err := New(spec, noEnv, Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New(%q) = %v, want an error with %q", spec, err, want)
		}
	}
	if _, err := New("ollama/qwen3", noEnv, Options{}); err != nil {
		t.Errorf("ollama needs no key: %v", err)
	}
}
