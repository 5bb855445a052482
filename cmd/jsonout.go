package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
	fs.StringVar(&j.value, "json", "", "Output JSON: every field, or the comma-separated `fields` given ("+strings.Join(j.fields, ", ")+")")
	fs.Lookup("json").NoOptDefVal = "*"
	fs.StringVarP(&j.jq, "jq", "q", "", "Filter the JSON output with a jq `expression`")
	fs.StringVarP(&j.tmpl, "template", "t", "", "Format the JSON output with a Go `template` (as gh's --template)")
	return j
}

// args rewrites "--json a,b" (the fields as the next argument, as gh takes
// them) into "--json=a,b", so that they are not taken for a positional
// argument. For a verb that takes one, only a list of known fields is
// taken: "--json 7" leaves the PR number alone.
func (j *jsonFlags) args(args []string) []string {
	out := slices.Clone(args)
	for i := 0; i+1 < len(out); i++ {
		if out[i] == "--" {
			break
		}
		if out[i] == "--json" && (j.fieldList(out[i+1]) || !j.positional && !strings.HasPrefix(out[i+1], "-")) {
			out = slices.Replace(out, i, i+2, "--json="+out[i+1])
		}
	}
	return out
}

func (j *jsonFlags) fieldList(s string) bool {
	for _, f := range strings.Split(s, ",") {
		if !slices.Contains(j.fields, strings.TrimSpace(f)) {
			return false
		}
	}
	return s != ""
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
	if j.value != "" && j.value != "*" {
		for _, f := range strings.Split(j.value, ",") {
			f = strings.TrimSpace(f)
			if !slices.Contains(j.fields, f) {
				return nil, fs.usageErr("unknown JSON field %q: the fields are %s", f, strings.Join(j.fields, ", "))
			}
			e.fields = append(e.fields, f)
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
	if len(e.fields) > 0 {
		if b, err = selectFields(b, e.fields); err != nil {
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
// list (in the order of their names, as JSON objects from a map are).
func selectFields(b []byte, fields []string) ([]byte, error) {
	var list []map[string]json.RawMessage
	if json.Unmarshal(b, &list) == nil {
		for i, m := range list {
			list[i] = only(m, fields)
		}
		return marshal(list)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return marshal(only(m, fields))
}

func only(m map[string]json.RawMessage, fields []string) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(fields))
	for _, f := range fields {
		if v, ok := m[f]; ok {
			out[f] = v
		}
	}
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
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case name == "" && f.Anonymous:
			names = append(names, jsonFields(reflect.Zero(f.Type).Interface())...)
		case name == "":
			names = append(names, f.Name)
		default:
			names = append(names, name)
		}
	}
	return names
}
