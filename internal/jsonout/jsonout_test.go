package jsonout

import (
	"strings"
	"testing"
)

// Fields are selected on an object and on each object of a list; with the
// verb's type, a field the object leaves out is there with its zero value.
func TestSelectFields(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,"b":{"c":2},"d":3}`:     `{"a":1,"b":{"c":2}}`,
		`[{"a":1,"d":3},{"b":2,"d":4}]`: `[{"a":1},{"b":2}]`,
	} {
		got, err := selectFields([]byte(in), []string{"a", "b"}, nil)
		if err != nil || string(got) != want {
			t.Errorf("selectFields(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	type out struct {
		N    int               `json:"n,omitempty"`
		On   bool              `json:"on,omitempty"`
		List []string          `json:"list,omitempty"`
		Map  map[string]int    `json:"map,omitempty"`
		Ptr  *struct{ X int }  `json:"ptr,omitempty"`
		Name string            `json:"name,omitempty"`
		Raw  map[string]string `json:"-"`
	}
	for names, want := range map[string]string{
		// Sorted by name, as gh sorts them, whatever order they were
		// asked in.
		"on,list":                `{"list":[],"on":false}`,
		"name,n,map,ptr,on,list": `{"list":[],"map":{},"n":7,"name":"","on":false,"ptr":null}`,
		"":                       `{"list":[],"map":{},"n":7,"name":"","on":false,"ptr":null}`,
	} {
		var fields []string
		if names != "" {
			fields = strings.Split(names, ",")
		}
		got, err := selectFields([]byte(`{"n":7}`), fields, zeroFields(&out{N: 7}))
		if err != nil || string(got) != want {
			t.Errorf("%q: %s, %v; want %s", names, got, err, want)
		}
	}
}
