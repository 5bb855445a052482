package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/ocdx/gh-ocdx/internal/redact"
)

// maskRequest returns req with every secret value replaced by its
// [SECRET:kind] marker, the credentials gh-ocdx holds included: prompts,
// diffs, file contents, tool results and the string values inside tool-call
// arguments. Every request of every provider passes here (client.Chat).
// The caller's request is not modified.
func maskRequest(req Request) Request {
	req.System = redact.Mask(req.System)
	msgs := make([]Message, len(req.Messages))
	for i, m := range req.Messages {
		m.Text, m.Note = redact.Mask(m.Text), redact.Mask(m.Note)
		if len(m.Calls) > 0 {
			calls := make([]ToolCall, len(m.Calls))
			for j, c := range m.Calls {
				c.Args = mapStrings(c.Args, redact.Mask)
				calls[j] = c
			}
			m.Calls = calls
		}
		if len(m.Results) > 0 {
			res := make([]ToolResult, len(m.Results))
			for j, r := range m.Results {
				r.Content = redact.Mask(r.Content)
				res[j] = r
			}
			m.Results = res
		}
		msgs[i] = m
	}
	req.Messages = msgs
	return req
}

// mapStrings applies f to every string value in a JSON document, keeping
// it valid JSON. A document that is not JSON is treated as one string.
func mapStrings(doc json.RawMessage, f func(string) string) json.RawMessage {
	v, err := decodeJSON(doc)
	if err != nil {
		if s := string(doc); f(s) != s {
			return marshal(f(s))
		}
		return doc
	}
	changed := false
	v = walkKeysAndStrings(v, func(s string) string {
		t := f(s)
		if t != s {
			changed = true
		}
		return t
	})
	if !changed {
		return doc
	}
	return marshal(v)
}

// marshal encodes v without HTML escaping, so text keeps its bytes.
func marshal(v any) json.RawMessage {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return json.RawMessage("null")
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

func decodeJSON(doc []byte) (any, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber() // numbers keep their digits
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	// Text after the value is not JSON: the document is then one string,
	// so nothing in that text escapes masking.
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("text after the JSON value")
	}
	return v, nil
}

// copyTree returns a copy of a decoded JSON value with f applied to its
// strings.
func copyTree(v any, f func(string) string) any {
	switch t := v.(type) {
	case string:
		return f(t)
	case []any:
		out := make([]any, len(t))
		for i := range t {
			out[i] = copyTree(t[i], f)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = copyTree(x, f)
		}
		return out
	}
	return v
}

// walkKeysAndStrings is walkStrings that maps object keys too: a model's
// arguments are its own text, and a secret may stand anywhere in them.
func walkKeysAndStrings(v any, f func(string) string) any {
	switch t := v.(type) {
	case string:
		return f(t)
	case []any:
		for i := range t {
			t[i] = walkKeysAndStrings(t[i], f)
		}
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[f(k)] = walkKeysAndStrings(x, f)
		}
		return out
	}
	return v
}

// walkStrings applies f to the strings of a decoded JSON value in place.
func walkStrings(v any, f func(string) string) any {
	switch t := v.(type) {
	case string:
		return f(t)
	case []any:
		for i := range t {
			t[i] = walkStrings(t[i], f)
		}
	case map[string]any:
		for k := range t {
			t[k] = walkStrings(t[k], f)
		}
	}
	return v
}
