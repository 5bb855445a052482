package cmd

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/itchyny/gojq"
	"github.com/ocdx/gh-ocdx/internal/ghtemplate"
	"github.com/ocdx/gh-ocdx/internal/jsonout"
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
	j := &jsonFlags{fields: jsonout.Fields(v)}
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
	b, err := jsonout.Select(v, e.fields)
	if err != nil {
		return err
	}
	var colour io.Writer // coloured as gh colours JSON on a terminal
	if d.IO.stdoutTTY && d.IO.rawOut != nil && colourOn(d.Getenv) {
		colour = d.IO.rawOut
	}
	return jsonout.Write(d.IO.Out, b, e.jq, e.tmpl, d.IO.TerminalWidth(), colour)
}
