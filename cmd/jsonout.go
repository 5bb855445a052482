package cmd

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
	"github.com/itchyny/gojq"
	"github.com/ocdx/gh-ocdx/internal/ghtemplate"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// jsonFlags are gh's output flags on a verb with JSON output: --json
// [fields], --jq and --template (go-gh's jq and template, as gh uses them).
// Field names are camelCase and the same across verbs: pr is
// {number, repository, url}, counts are p0…p3, durations are in seconds.
type jsonFlags struct {
	fields []string // the top-level fields of the verb's JSON
	// positional: the verb takes a positional argument (a PR), so only a
	// list of known fields after a bare --json is taken for one.
	positional bool
	value      string // --json's value; "*": given bare, every field
	jq, tmpl   string
}

// addJSONFlags adds the output flags; v is a value of the verb's JSON
// type (an element of it, for a list), whose fields --json may select.
func addJSONFlags(fs *flagSet, v any) *jsonFlags {
	j := &jsonFlags{fields: jsonFields(v)}
	fs.StringVar(&j.value, "json", "", "Output JSON: every field, or the comma-separated `fields` given ("+strings.Join(slices.Sorted(slices.Values(j.fields)), ", ")+")")
	fs.Lookup("json").NoOptDefVal = "*"
	fs.StringVarP(&j.jq, "jq", "q", "", "Filter the JSON output with a jq `expression`")
	fs.StringVarP(&j.tmpl, "template", "t", "", "Format the JSON output with a Go `template` (as gh's --template)")
	return j
}

// args rewrites "--json a,b" (the fields as the next argument, as gh takes
// them) into "--json=a,b", so that they are not taken for a positional
// argument. As in gh, the word after --json is its fields, so that a
// mistyped field is a usage error rather than a pull request's branch; for
// a verb that takes a pull request, one written as a number, #number or
// URL is left alone: "--json 7" is every field of PR 7.
func (j *jsonFlags) args(args []string) []string {
	out := slices.Clone(args)
	for i := 0; i+1 < len(out); i++ {
		if out[i] == "--" {
			break
		}
		if out[i] == "--json" && j.takesFields(out[i+1]) {
			out = slices.Replace(out, i, i+2, "--json="+out[i+1])
		}
	}
	return out
}

// takesFields reports whether s, the word after a bare --json, is its
// fields.
func (j *jsonFlags) takesFields(s string) bool {
	switch {
	case s == "" || strings.HasPrefix(s, "-"):
		return false
	case !j.positional || strings.Contains(s, ","):
		return true
	}
	pr, err := parsePRArg(s)
	return err != nil || pr.Branch != ""
}

// exporter checks the flags once they are parsed; nil when no JSON output
// was asked for. --jq or --template alone imply every field.
func (j *jsonFlags) exporter(fs *flagSet) (*exporter, error) {
	if j.value == "" && j.jq == "" && j.tmpl == "" {
		return nil, nil
	}
	if j.jq != "" && j.tmpl != "" {
		return nil, fs.usageErr("--jq and --template cannot be used together")
	}
	e := &exporter{jq: j.jq, tmpl: j.tmpl}
	if fs.Changed("json") && j.value == "" {
		return nil, fieldsErr("Specify one or more comma-separated fields for `--json`:", j.fields)
	}
	if j.value != "" && j.value != "*" {
		for _, f := range strings.Split(j.value, ",") {
			f = strings.TrimSpace(f)
			if !slices.Contains(j.fields, f) {
				return nil, fieldsErr(fmt.Sprintf("Unknown JSON field: %q\nAvailable fields:", f), j.fields)
			}
			if !slices.Contains(e.fields, f) {
				e.fields = append(e.fields, f)
			}
		}
	}
	if j.jq != "" {
		if _, err := gojq.Parse(j.jq); err != nil {
			return nil, fs.usageErr("invalid --jq expression: %v", err)
		}
	}
	if j.tmpl != "" {
		if err := ghtemplate.New(io.Discard, 80, false).Parse(j.tmpl); err != nil {
			return nil, fs.usageErr("invalid --template: %v", err)
		}
	}
	return e, nil
}

// fieldsErr is gh's message about --json's fields: head, then every field
// a line, sorted. A usage error (exit 2) without the usage: the list is
// what to read.
func fieldsErr(head string, fields []string) error {
	sorted := slices.Sorted(slices.Values(fields))
	return &UsageError{Msg: head + "\n  " + strings.Join(sorted, "\n  ")}
}

// only keeps the fields of an exporter to those of one kind of output
// (state show's one pull request or its list): a field of the other is
// unknown here.
func (e *exporter) only(fields []string) error {
	for _, f := range e.fields {
		if !slices.Contains(fields, f) {
			return fieldsErr(fmt.Sprintf("Unknown JSON field: %q\nAvailable fields:", f), fields)
		}
	}
	return nil
}

// exporter writes a verb's result as JSON: the selected fields, through jq
// or a template when asked.
type exporter struct {
	fields   []string // nil: every field
	jq, tmpl string
}

func (e *exporter) write(d *Deps, v any) error {
	b, err := marshal(v)
	if err != nil {
		return err
	}
	if zero := zeroFields(v); zero != nil || len(e.fields) > 0 {
		if b, err = selectFields(b, e.fields, zero); err != nil {
			return err
		}
	}
	switch {
	case e.jq != "":
		if err := jq.Evaluate(bytes.NewReader(b), d.IO.Out, e.jq); err != nil {
			return fmt.Errorf("--jq %q: %v", e.jq, err)
		}
		return nil
	case e.tmpl != "":
		t := ghtemplate.New(d.IO.Out, d.IO.TerminalWidth(), false)
		if err := t.Parse(e.tmpl); err != nil {
			return err
		}
		if err := t.Execute(b); err != nil {
			return fmt.Errorf("--template: %v", err)
		}
		return t.Flush()
	}
	if d.IO.stdoutTTY && d.IO.rawOut != nil && markdownTheme(d.Getenv) != "none" {
		// Coloured as gh colours JSON on a terminal. The text is made
		// inert first (C1 controls and bidi overrides become visible);
		// the rest of what could act on a terminal is escaped JSON.
		return jsonpretty.Format(d.IO.rawOut, strings.NewReader(text.Inert(string(b))), "  ", true)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = d.IO.Out.Write(out.Bytes())
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

// jsonFields are the JSON names of the fields of v's struct type (a
// pointer's, or a slice's element's), in their order.
func jsonFields(v any) []string {
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
