package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// ConfigError is a model call the provider refused for a reason no retry
// or later round changes: the model does not exist (404), the key may
// not use it (401, 403), or its account has no quota or credit left. It
// names the configuration key to correct.
type ConfigError struct {
	Key string // e.g. "reviewerModels[1]"
	Err *APIError
}

func (e *ConfigError) Error() string {
	model := e.Err.Model
	hint := "check the name with gh ocdx config validate --online"
	if e.Err.Status != http.StatusNotFound {
		hint = "check the API key in the environment and the model's access, then run gh ocdx config validate --online"
	}
	what := strings.ToLower(http.StatusText(e.Err.Status))
	switch {
	case e.Err.Quota():
		what = cmp.Or(e.Err.Code, e.Err.Type, what)
		key := cmp.Or(e.Err.KeyEnv, "the API key")
		hint = fmt.Sprintf("the account of %s has no quota or credit left: add some, or set %s to another model", key, e.Key)
	case e.Err.Status == http.StatusNotFound:
		what = "model not found"
	}
	if e.Err.RequestID != "" {
		hint += " (request ID " + e.Err.RequestID + ")"
	}
	msg := ""
	if e.Err.Message != "" {
		msg = " (" + e.Err.Message + ")"
	}
	return fmt.Sprintf("%s %q: the provider answered %d %s%s; %s", e.Key, model, e.Err.Status, what, msg, hint)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// AsConfigError returns err as a *ConfigError of key when a provider
// answered it with 401, 403, 404 or a quota error, else nil.
func AsConfigError(key string, err error) *ConfigError {
	var ce *ConfigError
	if errors.As(err, &ce) {
		return ce
	}
	var api *APIError
	if !errors.As(err, &api) {
		return nil
	}
	switch {
	case api.Status == http.StatusUnauthorized, api.Status == http.StatusForbidden, api.Status == http.StatusNotFound, api.Quota():
		return &ConfigError{Key: key, Err: api}
	}
	return nil
}

// listTimeout bounds one request of ListModels.
const listTimeout = 30 * time.Second

// ModelList is what a provider answered it serves.
type ModelList struct {
	Names []string // as listed
	// Has reports whether the provider serves name: one of Names, an
	// Ollama name without its ":latest" tag, or an Anthropic alias, which
	// the list does not show but GET /v1/models/{name} resolves.
	Has func(ctx context.Context, name string) (bool, error)
}

// ListModels asks a provider which models it serves, without spending
// tokens: GET /v1/models of OpenAI and OpenAI-compatible servers (Ollama
// included), and of Anthropic page by page.
func ListModels(ctx context.Context, p Provider, getenv func(string) string) (*ModelList, error) {
	var err error
	base := p.DefaultURL
	if v := strings.TrimSpace(getenv(p.BaseURLEnv)); v != "" {
		base = v
	}
	base = strings.TrimRight(base, "/")
	key := ""
	if p.CredentialEnv != "" {
		if key = getenv(p.CredentialEnv); key == "" {
			return nil, fmt.Errorf("%s: %s is not set", p.Name, p.CredentialEnv)
		}
	}
	h := jsonHeader()
	var names []string
	switch p.Name {
	case "openai", "ollama":
		if p.Name == "ollama" {
			if base, err = ollamaURL(base); err != nil {
				return nil, fmt.Errorf("%s: %w", p.BaseURLEnv, err)
			}
		} else {
			h.Set("Authorization", "Bearer "+key)
		}
		var page struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if err := getJSON(ctx, p.Name, base+"/models", h, &page); err != nil {
			return nil, err
		}
		for _, m := range page.Data {
			names = append(names, m.ID)
		}
	case "anthropic":
		h.Set("X-Api-Key", key)
		h.Set("Anthropic-Version", anthropicVersion)
		after := ""
		for pages := 0; pages < 100; pages++ {
			q := url.Values{"limit": {"1000"}}
			if after != "" {
				q.Set("after_id", after)
			}
			var page struct {
				Data []struct {
					ID string `json:"id"`
				} `json:"data"`
				HasMore bool   `json:"has_more"`
				LastID  string `json:"last_id"`
			}
			if err := getJSON(ctx, p.Name, base+"/v1/models?"+q.Encode(), h, &page); err != nil {
				return nil, err
			}
			for _, m := range page.Data {
				names = append(names, m.ID)
			}
			if !page.HasMore || page.LastID == "" || page.LastID == after {
				break
			}
			after = page.LastID
		}
	default:
		return nil, fmt.Errorf("provider %q has no client", p.Name)
	}
	return &ModelList{Names: names, Has: func(ctx context.Context, name string) (bool, error) {
		if slices.Contains(names, name) || (p.Name == "ollama" && !strings.Contains(name, ":") && slices.Contains(names, name+":latest")) {
			return true, nil
		}
		if p.Name != "anthropic" {
			return false, nil
		}
		var m struct {
			ID string `json:"id"`
		}
		err := getJSON(ctx, p.Name, base+"/v1/models/"+url.PathEscape(name), h, &m)
		var api *APIError
		if errors.As(err, &api) && api.Status == http.StatusNotFound {
			return false, nil
		}
		return err == nil, err
	}}, nil
}

// getJSON GETs u and decodes a 2xx answer; another answer is an *APIError.
func getJSON(ctx context.Context, provider, u string, h http.Header, out any) error {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header = h.Clone()
	req.Header.Del("Content-Type")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", provider, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("%s: %w", provider, err)
	}
	if res.StatusCode/100 != 2 {
		e := apiError(res.StatusCode, res.Header, body)
		e.Model = provider
		return e
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s: %w: %v", provider, ErrBadResponse, err)
	}
	return nil
}
