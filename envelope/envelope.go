// Package envelope reads a role's answer (docs/architecture.md, Envelopes):
// the one BEGIN_JSON … END_JSON block a model's final text must hold,
// decoded strictly into the shape the role answers with. A model's answer
// is hostile input: anything else is a typed error that names the role.
package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ocdx/gh-ocdx/internal/text"
)

// Envelope markers: a role's final text holds exactly one block between them
// (docs/architecture.md, Envelopes).
const (
	BeginMarker = "BEGIN_JSON"
	EndMarker   = "END_JSON"
)

// Kinds of envelope failure; test with errors.Is.
var (
	ErrNoEnvelope   = errors.New("no BEGIN_JSON … END_JSON envelope")
	ErrTwoEnvelopes = errors.New("more than one envelope")
	ErrInvalidJSON  = errors.New("invalid JSON in the envelope")
	ErrWrongType    = errors.New("wrong type in the envelope")
	ErrMissingField = errors.New("missing required field in the envelope")
	ErrInvalidValue = errors.New("invalid value in the envelope")
)

// Error says why a role's answer was rejected; Kind is one of the
// Err* values above.
type Error struct {
	Role    string
	Kind    error
	Detail  string // field path or parser message
	Excerpt string // a short quote of the offending text
}

func (e *Error) Error() string {
	s := e.Role + ": " + e.Kind.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Excerpt != "" {
		s += " (near " + strconv.Quote(e.Excerpt) + ")"
	}
	return s
}

func (e *Error) Unwrap() error { return e.Kind }

// Validator is implemented by shapes with rules beyond types and required
// fields (enumerations); Decode calls it after decoding.
type Validator interface {
	Validate() error
}

const excerptLen = 80

// Decode extracts the one envelope from a role's answer and decodes it into
// v, a pointer to a struct. Decoding is strict: a JSON value of the wrong
// type fails, and so does a missing field unless its json tag has
// omitempty/omitzero or the field is tagged envelope:"optional"; null
// counts as missing except for pointer fields. Unknown fields are ignored.
func Decode(role, answer string, v any) error {
	if t := reflect.TypeOf(v); t == nil || t.Kind() != reflect.Pointer {
		return fmt.Errorf("envelope.Decode: want a pointer, got %T", v)
	}
	raw, err := Extract(role, answer)
	if err != nil {
		return err
	}
	fail := func(kind error, detail, excerpt string) error {
		return &Error{Role: role, Kind: kind, Detail: detail, Excerpt: excerpt}
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	var probe json.RawMessage
	if err := d.Decode(&probe); err != nil {
		return fail(ErrInvalidJSON, err.Error(), around(string(raw), syntaxOffset(err)))
	}
	if _, err := d.Token(); err != io.EOF {
		return fail(ErrInvalidJSON, "text after the JSON value", around(string(raw), int(d.InputOffset())))
	}
	if err := checkRequired(reflect.TypeOf(v).Elem(), probe, ""); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			return fail(fe.kind, fe.path, fe.excerpt)
		}
		return fail(ErrInvalidJSON, err.Error(), text.Cut(string(raw), excerptLen))
	}
	if err := json.Unmarshal(probe, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fail(ErrWrongType, fmt.Sprintf("%s: %s where %s is expected", te.Field, te.Value, te.Type), around(string(probe), int(te.Offset)))
		}
		return fail(ErrInvalidJSON, err.Error(), text.Cut(string(probe), excerptLen))
	}
	if val, ok := v.(Validator); ok {
		if err := val.Validate(); err != nil {
			return fail(ErrInvalidValue, err.Error(), "")
		}
	}
	return nil
}

// Extract returns the JSON text between the markers of the single
// envelope in answer. Markdown code fences inside the envelope are dropped.
func Extract(role, answer string) (json.RawMessage, error) {
	n := strings.Count(answer, BeginMarker)
	switch {
	case n == 0 || !strings.Contains(answer, EndMarker):
		return nil, &Error{Role: role, Kind: ErrNoEnvelope, Excerpt: text.Cut(strings.TrimSpace(answer), excerptLen)}
	case n > 1:
		first := strings.Index(answer, BeginMarker)
		second := first + 1 + strings.Index(answer[first+1:], BeginMarker)
		return nil, &Error{Role: role, Kind: ErrTwoEnvelopes, Detail: fmt.Sprintf("%d BEGIN_JSON markers", n), Excerpt: around(answer, second+len(BeginMarker)/2)}
	}
	start := strings.Index(answer, BeginMarker) + len(BeginMarker)
	end := strings.Index(answer[start:], EndMarker)
	if end < 0 {
		return nil, &Error{Role: role, Kind: ErrNoEnvelope, Detail: "END_JSON comes before BEGIN_JSON", Excerpt: text.Cut(strings.TrimSpace(answer), excerptLen)}
	}
	if strings.Count(answer[start+end:], EndMarker) > 1 {
		return nil, &Error{Role: role, Kind: ErrTwoEnvelopes, Detail: "more than one END_JSON marker", Excerpt: around(answer, start+end)}
	}
	body := strings.TrimSpace(answer[start : start+end])
	body = strings.TrimPrefix(body, "```json")
	body = strings.TrimPrefix(body, "```")
	body = strings.TrimSuffix(body, "```")
	body = strings.TrimSpace(body)
	if body == "" {
		return nil, &Error{Role: role, Kind: ErrInvalidJSON, Detail: "the envelope is empty"}
	}
	return json.RawMessage(body), nil
}

// around quotes up to excerptLen bytes of s centred on offset.
func around(s string, offset int) string {
	offset = min(max(offset, 0), len(s))
	from := max(offset-excerptLen/2, 0)
	for from > 0 && !utf8.RuneStart(s[from]) {
		from--
	}
	return text.Head(s[from:], excerptLen)
}

func syntaxOffset(err error) int {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return int(se.Offset)
	}
	return 0
}

type fieldError struct {
	kind    error
	path    string
	excerpt string
}

func (e *fieldError) Error() string { return e.path + ": " + e.kind.Error() }

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// checkRequired walks the JSON value along the Go type t and reports the
// first required field that is absent (or null where null is no value),
// and the first object or array found where the type wants something else.
func checkRequired(t reflect.Type, raw json.RawMessage, path string) error {
	trimmed := bytes.TrimSpace(raw)
	isNull := bytes.Equal(trimmed, []byte("null"))
	if t.Kind() == reflect.Pointer {
		if isNull {
			return nil
		}
		t = t.Elem()
	}
	if t == rawMessageType || t.Kind() == reflect.Interface {
		return nil
	}
	if isNull {
		return &fieldError{kind: ErrMissingField, path: orRoot(path) + " is null", excerpt: ""}
	}
	switch t.Kind() {
	case reflect.Struct:
		if reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
			return nil
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &obj); err != nil {
			return &fieldError{kind: ErrWrongType, path: orRoot(path) + ": want an object", excerpt: text.Cut(string(trimmed), excerptLen)}
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			optional := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero") || f.Tag.Get("envelope") == "optional"
			fp := join(path, name)
			val, present := obj[name]
			if !present || (bytes.Equal(bytes.TrimSpace(val), []byte("null")) && f.Type.Kind() != reflect.Pointer) {
				if optional {
					continue
				}
				what := " is missing"
				if present {
					what = " is null"
				}
				return &fieldError{kind: ErrMissingField, path: fp + what, excerpt: text.Cut(string(trimmed), excerptLen)}
			}
			if err := checkRequired(f.Type, val, fp); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // []byte decodes from a base64 string
		}
		var items []json.RawMessage
		if err := json.Unmarshal(trimmed, &items); err != nil {
			return &fieldError{kind: ErrWrongType, path: orRoot(path) + ": want an array", excerpt: text.Cut(string(trimmed), excerptLen)}
		}
		for i, it := range items {
			if err := checkRequired(t.Elem(), it, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &obj); err != nil {
			return &fieldError{kind: ErrWrongType, path: orRoot(path) + ": want an object", excerpt: text.Cut(string(trimmed), excerptLen)}
		}
		for k, it := range obj {
			if err := checkRequired(t.Elem(), it, join(path, k)); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func orRoot(path string) string {
	if path == "" {
		return "the envelope"
	}
	return path
}
