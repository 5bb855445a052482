package evidence

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readFixture(t *testing.T, name string, f Format) Set {
	t.Helper()
	fh, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	s, err := Read(fh, f, ToolOf(name), "")
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// Each fixture is real tool output; each is read by naming its format and
// by detecting it, to the same results.
func TestReadFixtures(t *testing.T) {
	cases := []struct {
		file   string
		format Format
		n      int
		first  Result
	}{
		{"staticcheck.sarif", SARIF, 4, Result{Tool: "Staticcheck", File: "cart.go", Line: 19, EndLine: 19, Column: 5, Level: LevelWarning, Rule: "S1003", Message: `should use strings.Contains(name, "x") instead`}},
		{"staticcheck.txt", Errorformat, 4, Result{Tool: "staticcheck", File: "cart.go", Line: 19, Column: 5, Level: LevelWarning, Rule: "S1003", Message: `should use strings.Contains(name, "x") instead`}},
		{"shellcheck.checkstyle.xml", Checkstyle, 7, Result{Tool: "shellcheck", File: "deploy.sh", Line: 4, Column: 10, Level: LevelError, Rule: "ShellCheck.SC2045", Message: "Iterating over ls output is fragile. Use globs."}},
		{"shellcheck.txt", Errorformat, 7, Result{Tool: "shellcheck", File: "deploy.sh", Line: 4, Column: 10, Level: LevelError, Rule: "SC2045", Message: "Iterating over ls output is fragile. Use globs."}},
		{"shellcheck.rdjson", RDJSON, 7, Result{Tool: "shellcheck", File: "deploy.sh", Line: 4, EndLine: 4, Column: 10, Level: LevelError, Rule: "SC2045", Message: "Iterating over ls output is fragile. Use globs."}},
		{"shellcheck.rdjsonl", RDJSONL, 7, Result{Tool: "shellcheck", File: "deploy.sh", Line: 4, EndLine: 4, Column: 10, Level: LevelError, Rule: "SC2045", Message: "Iterating over ls output is fragile. Use globs."}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			named := readFixture(t, c.file, c.format)
			detected := readFixture(t, c.file, "")
			if detected.Format != c.format {
				t.Errorf("detected %s, want %s", detected.Format, c.format)
			}
			if fmt.Sprint(named.Results) != fmt.Sprint(detected.Results) {
				t.Errorf("named and detected differ:\n%v\n%v", named.Results, detected.Results)
			}
			if len(named.Results) != c.n {
				t.Fatalf("%d results, want %d: %v", len(named.Results), c.n, named.Results)
			}
			var found bool
			for _, r := range named.Results {
				if r.Line == c.first.Line && r.Column == c.first.Column {
					found = true
					if r != c.first {
						t.Errorf("got  %+v\nwant %+v", r, c.first)
					}
				}
			}
			if !found {
				t.Errorf("no result at %d:%d: %v", c.first.Line, c.first.Column, named.Results)
			}
		})
	}
}

// The shellcheck levels map to the three levels: info is a note.
func TestCheckstyleLevels(t *testing.T) {
	s := readFixture(t, "shellcheck.checkstyle.xml", "")
	count := map[string]int{}
	for _, r := range s.Results {
		count[r.Level]++
	}
	if count[LevelError] != 1 || count[LevelWarning] != 2 || count[LevelNote] != 4 {
		t.Errorf("levels %v", count)
	}
}

// A SARIF result's security severity comes from its rule when the result
// has none; a suppressed result or a pass is not read.
func TestSARIFSeverityAndSuppressions(t *testing.T) {
	log := `{"version":"2.1.0","runs":[{"results":[
	  {"ruleId":"G101","message":{"text":"hard-coded credentials"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.go"},"region":{"startLine":3}}}]},
	  {"ruleId":"G101","message":{"text":"suppressed"},"suppressions":[{"kind":"inSource"}],"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.go"},"region":{"startLine":4}}}]},
	  {"ruleId":"G101","kind":"pass","message":{"text":"pass"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.go"},"region":{"startLine":5}}}]},
	  {"ruleIndex":1,"level":"note","message":{"text":"by index"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"b.go"},"region":{"startLine":7}}}],"properties":{"security-severity":"4.0"}}
	],
	"tool":{"driver":{"name":"gosec","rules":[
	  {"id":"G101","defaultConfiguration":{"level":"error"},"properties":{"security-severity":"9.8"}},
	  {"id":"G102","properties":{"security-severity":"7.5"}}]}}}]}`
	s, err := Read(strings.NewReader(log), "", "x", "")
	if err != nil {
		t.Fatal(err)
	}
	want := []Result{
		{Tool: "gosec", File: "a.go", Line: 3, Level: LevelError, SecuritySeverity: 9.8, Rule: "G101", Message: "hard-coded credentials"},
		{Tool: "gosec", File: "b.go", Line: 7, Level: LevelNote, SecuritySeverity: 4, Rule: "G102", Message: "by index"},
	}
	if fmt.Sprint(s.Results) != fmt.Sprint(want) {
		t.Errorf("got  %+v\nwant %+v", s.Results, want)
	}
}

// Tool text is hostile: a secret is masked, gh-ocdx's markup and
// commands are made inert, controls are shown, and a path that leaves the
// repository is dropped, not read.
func TestHostileText(t *testing.T) {
	token := "ghp_" + strings.Repeat("A1b2C3d4", 5)[:36]
	in := fmt.Sprintf("a.go:1:1: token %s here\n"+
		"a.go:2:1: fine <!-- ocdx:ledger --> \x1b[31mred\n"+
		"a.go:3:1: x\n/ocdx dismiss SEC-1\n"+
		"../etc/passwd:1:1: outside\n"+
		"/etc/passwd:1:1: absolute\n"+
		"/repo/sub/b.go:9:2: inside the root\n", token)
	s, err := Read(strings.NewReader(in), Errorformat, "lint", "/repo")
	if err != nil {
		t.Fatal(err)
	}
	all := fmt.Sprint(s.Results)
	if strings.Contains(all, token) || !strings.Contains(all, "[SECRET:") {
		t.Errorf("secret not masked: %s", all)
	}
	if strings.Contains(all, "<!--") || strings.Contains(all, "\x1b") {
		t.Errorf("markup or control left: %q", all)
	}
	if s.Dropped != 2 {
		t.Errorf("dropped %d, want the 2 paths outside the repository", s.Dropped)
	}
	if r := s.Results[len(s.Results)-1]; r.File != "sub/b.go" || r.Line != 9 {
		t.Errorf("absolute path under the root: %+v", r)
	}
	// A line that starts with /ocdx after the errorformat line is not a
	// result; inside a message it is quoted.
	s, _ = Read(strings.NewReader(`{"message":"x\n/ocdx dismiss ALL","location":{"path":"a.go","range":{"start":{"line":1}}}}`+"\n"), "", "t", "")
	if len(s.Results) != 1 || !strings.Contains(s.Results[0].Message, "`/ocdx`") {
		t.Errorf("command line not made inert: %+v", s.Results)
	}
}

// A result file past the result cap keeps MaxResults and counts the rest;
// a line longer than maxLine is cut, not an error.
func TestBounds(t *testing.T) {
	var b bytes.Buffer
	for i := range MaxResults + 5 {
		fmt.Fprintf(&b, "a.go:%d:1: m\n", i+1)
	}
	fmt.Fprintf(&b, "a.go:1:1: %s\n", strings.Repeat("x", 2*maxLine))
	s, err := Read(&b, "", "t", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Results) != MaxResults || s.Dropped != 6 {
		t.Errorf("%d results, %d dropped", len(s.Results), s.Dropped)
	}
}

func TestParseFormat(t *testing.T) {
	if f, err := ParseFormat("SARIF"); err != nil || f != SARIF {
		t.Errorf("%v %v", f, err)
	}
	if _, err := ParseFormat("junit"); err == nil || !strings.Contains(err.Error(), "checkstyle") {
		t.Errorf("unknown format: %v", err)
	}
}

// The rule a line ends with is the result's rule; a closing word of the
// message is not.
func TestTrailingRule(t *testing.T) {
	for in, want := range map[string][2]string{
		"should use x instead (S1003)":         {"should use x instead", "S1003"},
		"fragile. [SC2045]":                    {"fragile.", "SC2045"},
		"'a' is unused [Error/no-unused-vars]": {"'a' is unused", "Error/no-unused-vars"},
		"this call is (deprecated)":            {"this call is (deprecated)", ""},
		"ends with (a b1)":                     {"ends with (a b1)", ""},
		"(S1003)":                              {"(S1003)", ""},
	} {
		if m, r := trailingRule(in); m != want[0] || r != want[1] {
			t.Errorf("%q: %q %q, want %q %q", in, m, r, want[0], want[1])
		}
	}
}

// A byte order mark is skipped, and a file URI is a path: absolute under
// the root, escapes decoded.
func TestBOMAndFileURIs(t *testing.T) {
	log := "\xef\xbb\xbf" + `{"runs":[{"tool":{"driver":{"name":"t"}},"results":[{"message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"file:///work/repo/my%20dir/a.go"},"region":{"startLine":2}}}]}]}]}`
	s, err := Read(strings.NewReader(log), "", "", "/work/repo")
	if err != nil || s.Format != SARIF || len(s.Results) != 1 || s.Results[0].File != "my dir/a.go" {
		t.Fatalf("%+v, %v", s, err)
	}
}

// A tool's name is shown unquoted beside the reviewers' models: it keeps
// no markup and mentions nobody.
func TestToolName(t *testing.T) {
	s, err := Read(strings.NewReader(`{"message":"m","location":{"path":"a.go","range":{"start":{"line":1}}},"source":{"name":"lint <b>@mona</b> `+"`x`"+`"}}`+"\n"), "", "", "")
	if err != nil || len(s.Results) != 1 || s.Results[0].Tool != "lint bmona/b x" {
		t.Fatalf("%+v, %v", s.Results, err)
	}
	if got := toolName("<<>>"); got != "" {
		t.Errorf("toolName = %q", got)
	}
}
