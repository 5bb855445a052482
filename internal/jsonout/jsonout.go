// Package jsonout writes a verb's result as gh writes --json: the fields
// asked for (each there, with its zero value when the value leaves it out),
// sorted, through --jq or --template when asked, coloured on a terminal.
package jsonout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/cli/go-gh/v2/pkg/jq"
	"github.com/cli/go-gh/v2/pkg/jsonpretty"
	"github.com/ocdx/gh-ocdx/internal/ghtemplate"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// Select is v as JSON, only the fields names (nil: every field); a struct
// type's fields the value leaves out (omitempty) are written with their
// zero values.
func Select(v any, names []string) ([]byte, error) {
	b, err := marshal(v)
	if err != nil {
		return nil, err
	}
	if zero := zeroFields(v); zero != nil || len(names) > 0 {
		return selectFields(b, names, zero)
	}
	return b, nil
}

// Write writes the JSON b to out: through the jq expression or the
// template when one is given (the template for a terminal width columns
// wide), else indented; coloured on colour, the terminal, when it is set.
func Write(out io.Writer, b []byte, jqExpr, tmpl string, width int, colour io.Writer) error {
	switch {
	case jqExpr != "":
		if err := jq.Evaluate(bytes.NewReader(b), out, jqExpr); err != nil {
			return fmt.Errorf("--jq %q: %v", jqExpr, err)
		}
		return nil
	case tmpl != "":
		t := ghtemplate.New(out, width, false)
		if err := t.Parse(tmpl); err != nil {
			return err
		}
		if err := t.Execute(b); err != nil {
			return fmt.Errorf("--template: %v", err)
		}
		return t.Flush()
	}
	if colour != nil {
		// The text is made inert first (C1 controls and bidi overrides
		// become visible); the rest of what could act on a terminal is
		// escaped JSON.
		return jsonpretty.Format(colour, strings.NewReader(text.Inert(string(b))), "  ", true)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		return err
	}
	buf.WriteByte('\n')
	_, err := out.Write(buf.Bytes())
	return err
}

// marshal is json.Marshal without HTML escaping: a report's "<!--" stays
// "<!--".
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// selectFields keeps the named fields of an object, or of each object of a
// list (nil names: every field), its keys sorted as gh sorts them. zero
// holds every field of the verb's JSON type with its zero value: a field
// the object leaves out (omitempty) is written with it, so that every
// field asked for is there. Without zero (not a struct), the object's own
// fields are kept.
func selectFields(b []byte, names []string, zero []field) ([]byte, error) {
	var list []map[string]json.RawMessage
	if json.Unmarshal(b, &list) == nil && list != nil {
		out := make([]json.RawMessage, len(list))
		for i, m := range list {
			out[i] = object(m, names, zero)
		}
		return marshal(out)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return b, nil // null, or not an object: nothing to select
	}
	return object(m, names, zero), nil
}

// object writes m's fields, sorted by name: zero's (those of names), else
// names'.
func object(m map[string]json.RawMessage, names []string, zero []field) json.RawMessage {
	zero = slices.SortedFunc(slices.Values(zero), func(a, b field) int { return strings.Compare(a.name, b.name) })
	var b bytes.Buffer
	b.WriteByte('{')
	add := func(name string, v json.RawMessage) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := marshal(name)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	if zero == nil {
		for _, n := range slices.Sorted(maps.Keys(m)) {
			if slices.Contains(names, n) {
				add(n, m[n])
			}
		}
	}
	for _, f := range zero {
		if names != nil && !slices.Contains(names, f.name) {
			continue
		}
		if v, ok := m[f.name]; ok {
			add(f.name, v)
		} else {
			add(f.name, f.zero)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// field is one field of a verb's JSON and its zero value: false, 0, "",
// [] or {} as its type is, null for a pointer.
type field struct {
	name string
	zero json.RawMessage
}

// zeroFields are the fields of v's struct type (a pointer's, or a slice's
// element's) with their zero values; nil when it is no struct.
func zeroFields(v any) []field {
	t := reflect.TypeOf(v)
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice) {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var out []field
	walkFields(t, func(name string, ft reflect.Type) {
		var z json.RawMessage
		switch ft.Kind() {
		case reflect.Pointer, reflect.Interface:
			z = json.RawMessage("null")
		case reflect.Slice, reflect.Array:
			z = json.RawMessage("[]")
		case reflect.Map:
			z = json.RawMessage("{}")
		default:
			z, _ = marshal(reflect.Zero(ft).Interface())
		}
		out = append(out, field{name, z})
	})
	return out
}

// Fields are the JSON names of the fields of v's struct type (a
// pointer's, or a slice's element's), in their order.
func Fields(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	var names []string
	walkFields(t, func(name string, _ reflect.Type) { names = append(names, name) })
	return names
}

// walkFields calls f with the JSON name and type of each field of struct
// type t, an embedded struct's fields in its place, as encoding/json does.
func walkFields(t reflect.Type, f func(name string, t reflect.Type)) {
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		switch {
		case name == "-" || !sf.IsExported():
		case name == "" && sf.Anonymous:
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			walkFields(et, f)
		case name == "":
			f(sf.Name, sf.Type)
		default:
			f(name, sf.Type)
		}
	}
}
