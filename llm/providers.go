package llm

import (
	"fmt"
	"sort"
	"strings"
)

// Provider describes a model provider that a "provider/model" string may name.
// New builds its clients from this table and config validates model names
// against it, so the clients and the validator never disagree.
type Provider struct {
	Name          string // the prefix before the slash
	CredentialEnv string // environment variable holding the API key; "" when none is needed
	BaseURLEnv    string // environment variable overriding the endpoint
	DefaultURL    string // endpoint when BaseURLEnv is unset
}

// Providers are the known providers, by prefix.
var Providers = map[string]Provider{
	"openai":    {Name: "openai", CredentialEnv: "OPENAI_API_KEY", BaseURLEnv: "OPENAI_BASE_URL", DefaultURL: "https://api.openai.com/v1"},
	"anthropic": {Name: "anthropic", CredentialEnv: "ANTHROPIC_API_KEY", BaseURLEnv: "ANTHROPIC_BASE_URL", DefaultURL: "https://api.anthropic.com"},
	"ollama":    {Name: "ollama", BaseURLEnv: "OLLAMA_HOST", DefaultURL: "http://127.0.0.1:11434"},
}

// ModelName is a parsed "provider/model" string.
type ModelName struct {
	Provider Provider
	Name     string // everything after the first slash, e.g. "gpt-4.1" or "meta/llama-3:8b"
}

func (m ModelName) String() string { return m.Provider.Name + "/" + m.Name }

// ParseModel parses "provider/model" and checks that the provider is known.
func ParseModel(s string) (ModelName, error) {
	prefix, name, ok := strings.Cut(s, "/")
	if !ok || prefix == "" || name == "" {
		return ModelName{}, fmt.Errorf("%q is not of the form provider/model (for example openai/gpt-4.1)", s)
	}
	p, known := Providers[prefix]
	if !known {
		return ModelName{}, fmt.Errorf("%q names an unknown provider %q; known providers: %s", s, prefix, strings.Join(providerNames(), ", "))
	}
	return ModelName{Provider: p, Name: name}, nil
}

func providerNames() []string {
	names := make([]string, 0, len(Providers))
	for n := range Providers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
