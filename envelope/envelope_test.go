package envelope

import (
	"errors"
	"strings"
	"testing"
)

type item struct {
	Name  string `json:"name"`
	Line  *int   `json:"line"`
	Extra string `json:"extra,omitempty"`
	Hint  string `json:"hint" envelope:"optional"`
}

type shape struct {
	Agent string         `json:"agent"`
	Count int            `json:"count"`
	OK    bool           `json:"ok"`
	Items []item         `json:"items"`
	Tags  map[string]int `json:"tags,omitempty"`
}

func (s *shape) Validate() error {
	if s.Count < 0 {
		return errors.New("count is negative")
	}
	return nil
}

func TestDecode(t *testing.T) {
	cases := []struct {
		name    string
		answer  string
		kind    error
		detail  string // in the message
		excerpt string // in the excerpt
	}{
		{"ok with prose and a fence", "Here it is.\nBEGIN_JSON\n```json\n" + `{"agent":"r","count":1,"ok":true,"items":[{"name":"a","line":null}],"unknown":{"x":1}}` + "\n```\nEND_JSON\nThanks.", nil, "", ""},
		{"no markers", "The PR looks fine to me, nothing to report.", ErrNoEnvelope, "", "The PR looks fine"},
		{"begin without end", "BEGIN_JSON {}", ErrNoEnvelope, "", "BEGIN_JSON"},
		{"end before begin", "END_JSON x BEGIN_JSON", ErrNoEnvelope, "END_JSON comes before", ""},
		{"two envelopes", "Sure. " + strings.Repeat(".", 100) + " BEGIN_JSON {} END_JSON and again BEGIN_JSON {} END_JSON", ErrTwoEnvelopes, "2 BEGIN_JSON", "and again BEGIN_JSON"},
		{"two ends", "BEGIN_JSON {} END_JSON END_JSON", ErrTwoEnvelopes, "END_JSON", ""},
		{"empty", "BEGIN_JSON \n END_JSON", ErrInvalidJSON, "empty", ""},
		{"invalid JSON", `BEGIN_JSON {"agent":"r","count":1,"ok":tru} END_JSON`, ErrInvalidJSON, "invalid character", `"ok":tru`},
		{"trailing text", `BEGIN_JSON {"agent":"r"} and more END_JSON`, ErrInvalidJSON, "after the JSON value", "and more"},
		{"array", `BEGIN_JSON [1,2] END_JSON`, ErrWrongType, "want an object", "[1,2]"},
		{"wrong scalar type", `BEGIN_JSON {"agent":"r","count":"three","ok":true,"items":[]} END_JSON`, ErrWrongType, "count", `"three"`},
		{"wrong nested type", `BEGIN_JSON {"agent":"r","count":1,"ok":true,"items":[{"name":"a","line":"12"}]} END_JSON`, ErrWrongType, "items.line", `"12"`},
		{"object for array", `BEGIN_JSON {"agent":"r","count":1,"ok":true,"items":{"name":"a"}} END_JSON`, ErrWrongType, "items: want an array", ""},
		{"missing top field", `BEGIN_JSON {"agent":"r","count":1,"items":[]} END_JSON`, ErrMissingField, "ok is missing", `"agent"`},
		{"missing nested field", `BEGIN_JSON {"agent":"r","count":1,"ok":false,"items":[{"name":"a","line":1},{"line":2}]} END_JSON`, ErrMissingField, "items[1].name is missing", `"line":2`},
		{"null where a value is needed", `BEGIN_JSON {"agent":null,"count":1,"ok":false,"items":[]} END_JSON`, ErrMissingField, "agent is null", ""},
		{"null pointer is present", `BEGIN_JSON {"agent":"r","count":1,"ok":false,"items":[{"name":"a"}]} END_JSON`, ErrMissingField, "items[0].line is missing", ""},
		{"validator", `BEGIN_JSON {"agent":"r","count":-1,"ok":false,"items":[]} END_JSON`, ErrInvalidValue, "count is negative", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var v shape
			err := Decode("reviewer-2", c.answer, &v)
			if c.kind == nil {
				if err != nil {
					t.Fatal(err)
				}
				if v.Agent != "r" || len(v.Items) != 1 || v.Items[0].Line != nil {
					t.Errorf("decoded %+v", v)
				}
				return
			}
			var ee *Error
			if !errors.Is(err, c.kind) || !errors.As(err, &ee) {
				t.Fatalf("err = %v, want %v", err, c.kind)
			}
			if ee.Role != "reviewer-2" || !strings.HasPrefix(err.Error(), "reviewer-2: ") {
				t.Errorf("error does not name the role: %v", err)
			}
			if !strings.Contains(err.Error(), c.detail) {
				t.Errorf("error %q lacks %q", err, c.detail)
			}
			if !strings.Contains(ee.Excerpt, c.excerpt) || len(ee.Excerpt) > excerptLen {
				t.Errorf("excerpt %q, want a short quote with %q", ee.Excerpt, c.excerpt)
			}
		})
	}
}

func TestDecodeExcerptIsShort(t *testing.T) {
	long := strings.Repeat("word ", 2000)
	err := Decode("pr-fix", long, &shape{})
	var ee *Error
	if !errors.As(err, &ee) || len(ee.Excerpt) > excerptLen || len(err.Error()) > 300 {
		t.Fatalf("error too long (%d bytes): %v", len(err.Error()), err)
	}
	err = Decode("pr-fix", "BEGIN_JSON {\"agent\": \"é"+strings.Repeat("é", 500)+" END_JSON", &shape{})
	if !errors.As(err, &ee) || !strings.HasPrefix(ee.Excerpt, "{") || !isValidUTF8(ee.Excerpt) {
		t.Fatalf("excerpt %q", ee.Excerpt)
	}
}

func isValidUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// A rejected answer says whose it was, why, where and what it read there,
// as the report's roles table shows it.
func TestErrorSaysWhoWhyAndWhere(t *testing.T) {
	e := &Error{Role: "reviewer-2", Kind: ErrMissingField, Detail: "findings[0].title", Excerpt: `{"id":"x"}`}
	if got, want := e.Error(), `reviewer-2: missing required field in the envelope: findings[0].title (near "{\"id\":\"x\"}")`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if got := (&Error{Role: "verifier", Kind: ErrNoEnvelope}).Error(); got != "verifier: no BEGIN_JSON … END_JSON envelope" {
		t.Errorf("got %s", got)
	}
	if !errors.Is(e, ErrMissingField) {
		t.Error("the kind does not unwrap")
	}
}
