package cmdutil

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/itchyny/gojq"
	"github.com/ocdx/gh-ocdx/internal/ghtemplate"
	"github.com/ocdx/gh-ocdx/internal/jsonout"
)

// JSONFlags are gh's output flags on a verb with JSON output: --json
// [fields], --jq and --template (go-gh's jq and template, as gh uses them).
// Field names are camelCase and the same across verbs: pr is
// {number, repository, url}, counts are p0…p3, durations are in seconds.
type JSONFlags struct {
	fields []string // the top-level fields of the verb's JSON
	// Positional: the verb takes a Positional argument (a PR), so only a
	// list of known fields after a bare --json is taken for one.
	Positional bool
	value      string // --json's value; "*": given bare, every field
	jq, tmpl   string
}

// AddJSONFlags adds the output flags; vs are values of the verb's JSON
// types (an element of it, for a list), whose fields --json may select:
// more than one when the verb writes one of several shapes.
func AddJSONFlags(fs *FlagSet, vs ...any) *JSONFlags {
	j := &JSONFlags{}
	for _, v := range vs {
		for _, f := range jsonout.Fields(v) {
			if !slices.Contains(j.fields, f) {
				j.fields = append(j.fields, f)
			}
		}
	}
	fs.StringVar(&j.value, "json", "", "Output JSON: every field, or the comma-separated `fields` given ("+strings.Join(slices.Sorted(slices.Values(j.fields)), ", ")+")")
	fs.Lookup("json").NoOptDefVal = "*"
	fs.StringVarP(&j.jq, "jq", "q", "", "Filter the JSON output with a jq `expression`")
	fs.StringVarP(&j.tmpl, "template", "t", "", "Format the JSON output with a Go `template` (as gh's --template)")
	return j
}

// Args rewrites "--json a,b" (the fields as the next argument, as gh takes
// them) into "--json=a,b", so that they are not taken for a Positional
// argument. As in gh, the word after --json is its fields, so that a
// mistyped field is a usage error rather than a pull request's branch; for
// a verb that takes a pull request, one written as a number, #number or
// URL is left alone: "--json 7" is every field of PR 7.
func (j *JSONFlags) Args(args []string) []string {
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
func (j *JSONFlags) takesFields(s string) bool {
	switch {
	case s == "" || strings.HasPrefix(s, "-"):
		return false
	case !j.Positional || strings.Contains(s, ","):
		return true
	}
	pr, err := ParsePRArg(s)
	return err != nil || pr.Branch != ""
}

// Exporter checks the flags once they are parsed; nil when no JSON output
// was asked for. --jq or --template alone imply every field.
func (j *JSONFlags) Exporter(fs *FlagSet) (*Exporter, error) {
	if j.value == "" && j.jq == "" && j.tmpl == "" {
		return nil, nil
	}
	if j.jq != "" && j.tmpl != "" {
		return nil, fs.UsageErr("--jq and --template cannot be used together")
	}
	e := &Exporter{JQ: j.jq, Template: j.tmpl}
	if fs.Changed("json") && j.value == "" {
		return nil, fieldsErr("Specify one or more comma-separated fields for `--json`:", j.fields)
	}
	if j.value != "" && j.value != "*" {
		for _, f := range strings.Split(j.value, ",") {
			f = strings.TrimSpace(f)
			if !slices.Contains(j.fields, f) {
				return nil, fieldsErr(fmt.Sprintf("Unknown JSON field: %q\nAvailable fields:", f), j.fields)
			}
			if !slices.Contains(e.Fields, f) {
				e.Fields = append(e.Fields, f)
			}
		}
	}
	if j.jq != "" {
		if _, err := gojq.Parse(j.jq); err != nil {
			return nil, fs.UsageErr("invalid --jq expression: %v", err)
		}
	}
	if j.tmpl != "" {
		if err := ghtemplate.New(io.Discard, 80, false).Parse(j.tmpl); err != nil {
			return nil, fs.UsageErr("invalid --template: %v", err)
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

// Only keeps the fields of an Exporter to those of one kind of output
// (state show's one pull request or its list): a field of the other is
// unknown here.
func (e *Exporter) Only(fields []string) error {
	for _, f := range e.Fields {
		if !slices.Contains(fields, f) {
			return fieldsErr(fmt.Sprintf("Unknown JSON field: %q\nAvailable fields:", f), fields)
		}
	}
	return nil
}

// Exporter writes a verb's result as JSON: the selected fields, through jq
// or a template when asked.
type Exporter struct {
	Fields       []string // nil: every field
	JQ, Template string
}

// Whole is this exporter writing every field, for a value whose fields
// the verb selected itself (Fields).
func (e *Exporter) Whole() *Exporter {
	w := *e
	w.Fields = nil
	return &w
}

// Write writes v on stdout as --json, --jq or --template asked.
func (e *Exporter) Write(d *Deps, v any) error {
	b, err := jsonout.Select(v, e.Fields)
	if err != nil {
		return err
	}
	var colour io.Writer // coloured as gh colours JSON on a terminal
	if d.IO.StdoutTTY && d.IO.RawOut != nil && colourOn(d.Getenv) {
		colour = d.IO.RawOut
	}
	return jsonout.Write(d.IO.Out, b, e.JQ, e.Template, d.IO.TerminalWidth(), colour)
}
