package ghtemplate

import (
	"strings"
	"testing"
	"time"
)

// data is a result as --json writes it.
const data = `{"pr": {"number": 31, "url": "https://github.com/octo/widgets/pull/31"},
 "outcome": "converged", "p1": 2, "cost": 0.125, "ok": true, "none": null,
 "at": "2026-11-25T10:15:00Z", "old": "2001-01-01T00:00:00Z",
 "findings": [{"id": "SEC-1a2b3c4d", "title": "Token in the log\nsecond line"}, {"id": "COR-0badc0de", "title": "Cache key"}]}`

func run(t *testing.T, src string, colour bool) string {
	t.Helper()
	var b strings.Builder
	tm := New(&b, 80, colour)
	if err := tm.Parse(src); err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	if err := tm.Execute([]byte(data)); err != nil {
		t.Fatalf("execute %q: %v", src, err)
	}
	if err := tm.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The functions gh documents in `gh help formatting`, as gh's templates
// behave.
func TestTemplateFunctions(t *testing.T) {
	for src, want := range map[string]string{
		`{{.pr.number}} {{.outcome}}`:                                "31 converged",
		`{{join ", " (pluck "id" .findings)}}`:                       "SEC-1a2b3c4d, COR-0badc0de",
		`{{join "|" (pluck "missing" .findings)}}`:                   "|",
		`{{truncate 8 .outcome}}`:                                    "conve...",
		`{{truncate 8 .none}}`:                                       "",
		`{{timefmt "2006-01-02" .at}}`:                               "2026-11-25",
		`{{contains "verg" .outcome}} {{contains .outcome "verg"}}`:  "true false",
		`{{hasPrefix "con" .outcome}} {{hasSuffix "ged" .outcome}}`:  "true true",
		`{{regexMatch "^con.*d$" .outcome}} {{regexMatch "x" "y"}}`:  "true false",
		`{{replace "e" "E" .outcome}}`:                               "convErgEd",
		`{{autocolor "red" .outcome}}`:                               "converged",
		`{{color "red" .outcome}}`:                                   "\x1b[0;31mconverged\x1b[0m",
		`{{hyperlink .pr.url "PR"}}`:                                 "\x1b]8;;https://github.com/octo/widgets/pull/31\x1b\\PR\x1b]8;;\x1b\\",
		`{{hyperlink .pr.url ""}}`:                                   "\x1b]8;;https://github.com/octo/widgets/pull/31\x1b\\https://github.com/octo/widgets/pull/31\x1b]8;;\x1b\\",
		`{{join " " (pluck "id" .findings)}} {{.p1}} {{.cost}}`:      "SEC-1a2b3c4d COR-0badc0de 2 0.125",
		`{{tablerow .p1 .cost .ok .none}}`:                           "2  0.12  true  \n",
		`{{range .findings}}{{tablerow .id .title}}{{end}}`:          "SEC-1a2b3c4d  Token in the ...\nCOR-0badc0de  Cache key\n",
		`{{range .findings}}{{tablerow .id}}{{end}}{{tablerender}}x`: "SEC-1a2b3c4d\nCOR-0badc0de\nx",
	} {
		if got := run(t, src, false); got != want {
			t.Errorf("%s: %q, want %q", src, got, want)
		}
	}
	if got := run(t, `{{autocolor "red" .outcome}}`, true); got != "\x1b[0;31mconverged\x1b[0m" {
		t.Errorf("autocolor with colour: %q", got)
	}
	if got := run(t, `{{timeago .old}}`, false); !strings.HasSuffix(got, " years ago") {
		t.Errorf("timeago: %q", got)
	}
	now := time.Now().UTC().Add(-3 * time.Hour).Format(time.RFC3339)
	var b strings.Builder
	tm := New(&b, 80, false)
	if err := tm.Parse(`{{timeago .}}`); err != nil || tm.Execute([]byte(`"`+now+`"`)) != nil || b.String() != "3 hours ago" {
		t.Errorf("timeago 3 hours: %q", b.String())
	}
}

func TestTemplateErrors(t *testing.T) {
	if err := New(&strings.Builder{}, 80, false).Parse(`{{.outcome`); err == nil {
		t.Error("an unclosed action parsed")
	}
	for _, src := range []string{`{{truncate 3 .p1}}`, `{{join "," .findings}}`, `{{pluck "id" .outcome}}`, `{{timefmt "2006" .outcome}}`} {
		tm := New(&strings.Builder{}, 80, false)
		if err := tm.Parse(src); err != nil {
			t.Fatal(err)
		}
		if err := tm.Execute([]byte(data)); err == nil {
			t.Errorf("%s: no error", src)
		}
	}
}
