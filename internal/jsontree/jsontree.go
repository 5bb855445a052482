// Package jsontree maps the strings of a JSON document (docs/architecture.md,
// The model wire): a tool call's arguments masked before they leave the
// machine, or cut to fit a request, stay valid JSON.
package jsontree

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// MapStrings applies f to every string value and object key in a JSON
// document, keeping it valid JSON. A document that is not JSON is treated
// as one string.
func MapStrings(doc json.RawMessage, f func(string) string) json.RawMessage {
	v, err := Decode(doc)
	if err != nil {
		if s := string(doc); f(s) != s {
			return Marshal(f(s))
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
	return Marshal(v)
}

// Marshal encodes v without HTML escaping, so text keeps its bytes.
func Marshal(v any) json.RawMessage {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return json.RawMessage("null")
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// Decode decodes a JSON document whose numbers keep their digits; text
// after the value is an error.
func Decode(doc []byte) (any, error) {
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

// Copy returns a copy of a decoded JSON value with f applied to its
// strings.
func Copy(v any, f func(string) string) any {
	switch t := v.(type) {
	case string:
		return f(t)
	case []any:
		out := make([]any, len(t))
		for i := range t {
			out[i] = Copy(t[i], f)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = Copy(x, f)
		}
		return out
	}
	return v
}

// walkKeysAndStrings is Walk that maps object keys too: a model's
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

// Walk applies f to the strings of a decoded JSON value in place.
func Walk(v any, f func(string) string) any {
	switch t := v.(type) {
	case string:
		return f(t)
	case []any:
		for i := range t {
			t[i] = Walk(t[i], f)
		}
	case map[string]any:
		for k := range t {
			t[k] = Walk(t[k], f)
		}
	}
	return v
}
