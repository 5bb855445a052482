// Package ghtemplate is gh's --template: Go's text/template run over a
// result's JSON, with the functions gh documents in `gh help formatting`
// (autocolor, color, hyperlink, join, pluck, tablerow, tablerender,
// timeago, timefmt, truncate, contains, hasPrefix, hasSuffix, regexMatch,
// replace), tables laid out by go-gh's table printer as gh lays them out.
//
// It replaces go-gh's template package, which links all of sprig for five
// one-line functions: sprig's dependencies' initialisers (semver's
// expressions, decimal, …) cost ~1.5 ms of every start of the binary,
// --version included (docs/architecture.md, Output).
package ghtemplate

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/cli/go-gh/v2/pkg/tableprinter"
	"github.com/cli/go-gh/v2/pkg/text"
	"github.com/mgutz/ansi"
)

// Template is a parsed --template writing to one output.
type Template struct {
	out    io.Writer
	width  int
	colour bool
	tmpl   *template.Template
	tp     tableprinter.TablePrinter
}

// New returns a template writing to w, tables fitted to width columns;
// autocolor colours only when colour is true (color always does).
func New(w io.Writer, width int, colour bool) *Template {
	return &Template{out: w, width: width, colour: colour, tp: tableprinter.New(w, true, width)}
}

// Parse parses src with gh's functions.
func (t *Template) Parse(src string) error {
	now := time.Now()
	autocolor := colorFunc
	if !t.colour {
		autocolor = func(_ string, v any) (string, error) { return scalar(v) }
	}
	funcs := template.FuncMap{
		"autocolor": autocolor,
		"color":     colorFunc,
		"hyperlink": func(link, label string) string {
			if label == "" {
				label = link
			}
			return "\x1b]8;;" + link + "\x1b\\" + label + "\x1b]8;;\x1b\\"
		},
		"join":  joinFunc,
		"pluck": pluckFunc,
		"tablerow": func(fields ...any) (string, error) {
			for _, f := range fields {
				s, err := scalar(f)
				if err != nil {
					return "", fmt.Errorf("failed to write table row: %v", err)
				}
				t.tp.AddField(s, tableprinter.WithTruncate(truncateMultiline))
			}
			t.tp.EndRow()
			return "", nil
		},
		"tablerender": func() (string, error) {
			defer func() { t.tp = tableprinter.New(t.out, true, t.width) }()
			if err := t.tp.Render(); err != nil {
				return "", fmt.Errorf("failed to render table: %v", err)
			}
			return "", nil
		},
		"timeago": func(s string) (string, error) {
			at, err := time.Parse(time.RFC3339, s)
			if err != nil {
				return "", err
			}
			return timeAgo(now.Sub(at)), nil
		},
		"timefmt": func(layout, s string) (string, error) {
			at, err := time.Parse(time.RFC3339, s)
			if err != nil {
				return "", err
			}
			return at.Format(layout), nil
		},
		"truncate": func(width int, v any) (string, error) {
			switch v := v.(type) {
			case nil:
				return "", nil
			case string:
				return text.Truncate(width, v), nil
			}
			return "", fmt.Errorf("invalid value; expected string, got %T", v)
		},
		// sprig's, as gh offers them: the string searched comes last.
		"contains":  func(sub, s string) bool { return strings.Contains(s, sub) },
		"hasPrefix": func(prefix, s string) bool { return strings.HasPrefix(s, prefix) },
		"hasSuffix": func(suffix, s string) bool { return strings.HasSuffix(s, suffix) },
		"regexMatch": func(expr, s string) bool {
			ok, _ := regexp.MatchString(expr, s)
			return ok
		},
		"replace": func(old, new, s string) string { return strings.ReplaceAll(s, old, new) },
	}
	var err error
	t.tmpl, err = template.New("").Funcs(funcs).Parse(src)
	return err
}

// Execute runs the template over the JSON document data.
func (t *Template) Execute(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	return t.tmpl.Execute(t.out, v)
}

// Flush renders the table rows the template added without rendering them.
func (t *Template) Flush() error {
	if err := t.tp.Render(); err != nil {
		return fmt.Errorf("failed to render table: %v", err)
	}
	return nil
}

func colorFunc(name string, v any) (string, error) {
	s, err := scalar(v)
	if err != nil {
		return "", err
	}
	return ansi.Color(s, name), nil
}

func joinFunc(sep string, vs []any) (string, error) {
	var parts []string
	for _, v := range vs {
		s, err := scalar(v)
		if err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, sep), nil
}

func pluckFunc(field string, vs []any) ([]any, error) {
	var out []any
	for _, v := range vs {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("pluck %q: %T is not an object", field, v)
		}
		out = append(out, m[field])
	}
	return out, nil
}

// scalar is a JSON scalar as gh writes it in a template: whole numbers
// without a fraction, others with two decimals, null as nothing.
func scalar(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case float64:
		if math.Trunc(v) == v {
			return strconv.FormatFloat(v, 'f', 0, 64), nil
		}
		return strconv.FormatFloat(v, 'f', 2, 64), nil
	case nil:
		return "", nil
	case bool:
		return strconv.FormatBool(v), nil
	}
	return "", fmt.Errorf("cannot convert type to string: %v", v)
}

func timeAgo(ago time.Duration) string {
	switch {
	case ago < time.Minute:
		return "just now"
	case ago < time.Hour:
		return text.Pluralize(int(ago.Minutes()), "minute") + " ago"
	case ago < 24*time.Hour:
		return text.Pluralize(int(ago.Hours()), "hour") + " ago"
	case ago < 30*24*time.Hour:
		return text.Pluralize(int(ago.Hours())/24, "day") + " ago"
	case ago < 365*24*time.Hour:
		return text.Pluralize(int(ago.Hours())/24/30, "month") + " ago"
	}
	return text.Pluralize(int(ago.Hours()/24/365), "year") + " ago"
}

// truncateMultiline keeps a table cell on one line.
func truncateMultiline(width int, s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i] + "..."
	}
	return text.Truncate(width, s)
}
