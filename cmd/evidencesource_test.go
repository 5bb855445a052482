package cmd

import (
	"testing"

	"github.com/ocdx/gh-ocdx/evidence"
	"github.com/ocdx/gh-ocdx/github"
)

// GitHub's evidence takes its priority from the one table: a critical
// code-scanning alert is P0, a high one P1 whatever its level, a failure
// annotation P1, a notice P3; a title of one word is the rule, a longer
// one opens the message; text is cleaned as a file's.
func TestGitHubEvidenceAsResults(t *testing.T) {
	alert := func(level, sec string) github.CodeScanningAlert {
		var a github.CodeScanningAlert
		a.Tool.Name, a.Rule.ID, a.Rule.Severity, a.Rule.SecuritySeverityLevel = "CodeQL", "go/sql-injection", level, sec
		a.MostRecentInstance.Location.Path, a.MostRecentInstance.Location.StartLine = "db.go", 4
		a.Rule.Description = "SQL built from user input"
		return a
	}
	s := alertSet("refs/pull/3/head", []github.CodeScanningAlert{alert("error", "critical"), alert("note", "high"), alert("warning", "")})
	var got []string
	for _, r := range s.Results {
		got = append(got, evidence.Priority(r))
	}
	if len(got) != 3 || got[0] != "P0" || got[1] != "P1" || got[2] != "P2" || s.Results[0].Message != "SQL built from user input" || s.Results[0].Tool != "CodeQL" {
		t.Errorf("alerts: %v %+v", got, s.Results)
	}
	var run github.CheckRun
	run.Name, run.ID = "lint (ubuntu)", 9
	as := []github.Annotation{
		{Path: "a.go", StartLine: 2, EndLine: 3, Level: "failure", Title: "errcheck", Message: "error not checked"},
		{Path: "a.go", StartLine: 5, EndLine: 5, Level: "notice", Title: "Check notice", Message: "see @octocat \x1b[31m"},
	}
	s = annotationSet(run, as)
	a, b := s.Results[0], s.Results[1]
	if a.Tool != "lint ubuntu" || a.Rule != "errcheck" || evidence.Priority(a) != "P1" || a.EndLine != 3 {
		t.Errorf("failure annotation %+v", a)
	}
	if b.Rule != "" || evidence.Priority(b) != "P3" || b.Message[:13] != "Check notice:" || b.Message == "Check notice: see @octocat \x1b[31m" {
		t.Errorf("notice annotation %+v", b)
	}
}
