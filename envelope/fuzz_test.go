package envelope

import (
	"errors"
	"strings"
	"testing"
)

type fuzzShape struct {
	Agent    string   `json:"agent"`
	PR       int      `json:"prNumber"`
	Items    []string `json:"items"`
	Optional *string  `json:"optional" envelope:"optional"`
}

// FuzzDecode: any answer decodes into the shape with exactly one envelope,
// or fails with a typed envelope error naming the role; never a panic.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"BEGIN_JSON\n{\"agent\":\"r\",\"prNumber\":1,\"items\":[]}\nEND_JSON",
		"no envelope", "BEGIN_JSON {} END_JSON", "BEGIN_JSON {\"agent\":1} END_JSON",
		"BEGIN_JSON {\"agent\":\"a\",\"prNumber\":1,\"items\":[]} END_JSON BEGIN_JSON {} END_JSON",
		"BEGIN_JSON {\"agent\":\"a\",\"prNumber\":1,\"items\":[\"x\"],\"extra\":true} END_JSON trailing",
		"BEGIN_JSON {\"agent\":\"a\" END_JSON", "END_JSON BEGIN_JSON", "```json\nBEGIN_JSON\n{\"agent\":\"é\",\"prNumber\":-1,\"items\":null}\nEND_JSON\n```",
	} {
		f.Add(s)
	}
	kinds := []error{ErrNoEnvelope, ErrTwoEnvelopes, ErrInvalidJSON, ErrWrongType, ErrMissingField, ErrInvalidValue}
	f.Fuzz(func(t *testing.T, answer string) {
		var v fuzzShape
		err := Decode("fuzz-role", answer, &v)
		if err == nil {
			if strings.Count(answer, BeginMarker) < 1 {
				t.Fatal("decoded an answer without an envelope")
			}
			return
		}
		var ee *Error
		if !errors.As(err, &ee) || ee.Role != "fuzz-role" {
			t.Fatalf("untyped error or wrong role: %v", err)
		}
		known := false
		for _, k := range kinds {
			known = known || errors.Is(err, k)
		}
		if !known {
			t.Fatalf("unknown kind: %v", err)
		}
	})
}
