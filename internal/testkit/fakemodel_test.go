package testkit

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", "k")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v map[string]any
	json.NewDecoder(res.Body).Decode(&v)
	return res, v
}

func TestFakeModelScriptsPerModel(t *testing.T) {
	f := NewFakeModel(t)
	f.Script("a", CallTools(FakeCall{Name: "read_file", Args: `{"path":"x"}`}), Fail(429, "1"))
	f.Default("b", Reply("b default"))

	_, v := post(t, f.Getenv("OPENAI_BASE_URL")+"/chat/completions", `{"model":"a","messages":[{"role":"user","content":"hi"}]}`)
	msg := v["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
	call := msg["tool_calls"].([]any)[0].(map[string]any)
	if call["function"].(map[string]any)["arguments"] != `{"path":"x"}` || v["usage"].(map[string]any)["prompt_tokens"] == nil {
		t.Errorf("openai answer %v", v)
	}
	res, v := post(t, f.Getenv("ANTHROPIC_BASE_URL")+"/v1/messages", `{"model":"a","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "1" || v["error"].(map[string]any)["type"] != "rate_limit_error" {
		t.Errorf("anthropic failure %d %v", res.StatusCode, v)
	}
	_, v = post(t, f.URL()+"/v1/messages", `{"model":"a","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)
	if v["content"].([]any)[0].(map[string]any)["text"] != "ok" {
		t.Errorf("empty queue should use the global default: %v", v)
	}
	_, v = post(t, f.URL()+"/v1/messages", `{"model":"b","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)
	if v["content"].([]any)[0].(map[string]any)["text"] != "b default" || v["stop_reason"] != "end_turn" {
		t.Errorf("model default: %v", v)
	}
	if n := len(f.Requests("a")); n != 3 || f.Requests("a")[1].Format != "anthropic" || !strings.Contains(string(f.Requests("a")[0].Body), `"content":"hi"`) {
		t.Errorf("log of a: %d requests", n)
	}
}

func TestFakeModelRejectsOrphans(t *testing.T) {
	f := NewFakeModel(t)
	for _, c := range []struct{ format, path, body string }{
		{"openai", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"c1","content":"r"}]}`},
		{"openai", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"x"}]}`},
		{"anthropic", "/v1/messages", `{"model":"m","max_tokens":5,"tools":[{"name":"f","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"user","content":[{"type":"text","text":"no result"}]}]}`},
		{"anthropic", "/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"r"}]}]}`},
		{"anthropic", "/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"assistant","content":"hi"}]}`},
		{"openai", "/v1/chat/completions", `{"model":"m","tools":[{"type":"function","function":{"name":"read file","parameters":{"type":"object"}}}],"messages":[{"role":"user","content":"hi"}]}`},
		{"openai", "/v1/chat/completions", `{"model":"m","tools":[{"type":"function","function":{"name":"f","parameters":{"type":"string"}}}],"messages":[{"role":"user","content":"hi"}]}`},
		{"anthropic", "/v1/messages", `{"model":"m","max_tokens":5,"tools":[{"name":"f"}],"messages":[{"role":"user","content":"hi"}]}`},
		{"anthropic", "/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"forever"}}]}]}`},
	} {
		res, v := post(t, f.URL()+c.path, c.body)
		if res.StatusCode != 400 || v["error"] == nil {
			t.Errorf("%s %s: status %d", c.format, c.body, res.StatusCode)
		}
	}
	// Like the real API, the fake refuses a Messages request without its
	// version header.
	res, err := http.Post(f.URL()+"/v1/messages", "application/json", strings.NewReader(`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Errorf("anthropic request without x-api-key: status %d", res.StatusCode)
	}
	if res, _ := post(t, f.URL()+"/v1/other", `{}`); res.StatusCode != 404 {
		t.Errorf("unknown path: %d", res.StatusCode)
	}
}
