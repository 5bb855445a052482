package evidence

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
)

const cartDiff = `diff --git a/cart.go b/cart.go
--- a/cart.go
+++ b/cart.go
@@ -17,6 +17,8 @@ func Total(prices []int) int {
 // Label shows a name.
 func Label(name string) string {
-	return name
+	if strings.Index(name, "x") != -1 {
+		name = strings.Replace(name, "x", "y", -1)
+	}
+	return fmt.Sprintf("%s", name)
 }
`

// A result on a line the PR adds is kept for the review; one on a line it
// does not touch, or in a file it does not change, is only counted.
func TestFuseLeavesOutUntouchedLines(t *testing.T) {
	s := readFixture(t, "staticcheck.sarif", "")
	changed := ChangedLines([]byte(cartDiff))
	f := Fuse([]Set{s}, changed)
	if len(f.OnChanged) != 2 || f.OnChanged[0].Line != 19 || f.OnChanged[1].Line != 22 {
		t.Fatalf("on changed lines: %+v", f.OnChanged)
	}
	if c := f.Counts; c.Results != 4 || c.OnChanged != 2 || c.LeftOut != 2 || strings.Join(c.Tools, ",") != "Staticcheck" {
		t.Errorf("counts %+v", c)
	}
	if got := f.Counts.String(); got != "evidence: 4 results of Staticcheck, 2 on the lines this PR changes, 2 left out (on lines it does not change)" {
		t.Errorf("String = %q", got)
	}
	fs := Findings(f.OnChanged, "now")
	if fs[0].Priority != "P2" || fs[0].Title != `S1003: should use strings.Contains(name, "x") instead` || fs[0].Source.Name != "Staticcheck" || !Own(fs[0]) || fs[0].ID == "" {
		t.Errorf("finding %+v", fs[0])
	}
}

// The one table: level, then security severity when more severe.
func TestPriority(t *testing.T) {
	for _, c := range []struct {
		level string
		sev   float64
		want  string
	}{
		{LevelError, 0, "P1"}, {LevelWarning, 0, "P2"}, {LevelNote, 0, "P3"},
		{LevelNote, 9.1, "P0"}, {LevelWarning, 7, "P1"}, {LevelNote, 6.9, "P3"}, {LevelError, 8, "P1"},
	} {
		if got := Priority(Result{Level: c.level, SecuritySeverity: c.sev}); got != c.want {
			t.Errorf("%s %.1f: %s, want %s", c.level, c.sev, got, c.want)
		}
	}
	fs := Findings([]Result{{Tool: "codeql", File: "a.go", Line: 1, Level: LevelError, SecuritySeverity: 9.8, Message: "SQL injection"}}, "")
	if !strings.HasPrefix(fs[0].ID, "SEC-") || fs[0].Priority != "P0" {
		t.Errorf("security result: %s %s", fs[0].ID, fs[0].Priority)
	}
}

// A reviewer confirms a tool's result by naming its rule near its line;
// far from it, or without the rule, it is another finding.
func TestConfirms(t *testing.T) {
	tool := Findings([]Result{{Tool: "shellcheck", File: "deploy.sh", Line: 4, Level: LevelError, Rule: "SC2045", Message: "Iterating over ls output is fragile."}}, "")[0]
	line := func(n int) *int { return &n }
	model := finding.Finding{File: "deploy.sh", Line: line(5), Title: "Loop over ls output (SC2045)", Source: &finding.Source{Type: "agent", Name: "reviewer-1"}}
	if !Confirms(tool, model) {
		t.Error("a reviewer naming the rule a line away does not confirm it")
	}
	far := model
	far.Line = line(20)
	silent := model
	silent.Title = "Loop over ls output"
	if Confirms(tool, far) || Confirms(tool, silent) || Confirms(model, tool) {
		t.Error("confirmed without the place, the rule, or by a reviewer's finding")
	}
}

// The reviewers' evidence is bounded: past MaxBrief, results are counted.
func TestBriefIsBounded(t *testing.T) {
	var rs []Result
	for i := range 500 {
		rs = append(rs, Result{Tool: "lint", File: "a.go", Line: i + 1, Level: LevelWarning, Message: strings.Repeat("word ", 40)})
	}
	b := Brief(rs)
	if len(b) > MaxBrief+100 || !strings.Contains(b, "more results left out") || !strings.HasPrefix(b, "- `a.go:1` lint (warning): word") {
		t.Errorf("brief of %d bytes:\n%.300s", len(b), b)
	}
	if Brief(nil) != "" {
		t.Error("empty evidence shows something")
	}
}

// After a fix, a tool's finding is still there when its tool reports the
// same rule near the line the fix moved it to; another rule, another tool
// or a line further off is not it.
func TestStillReported(t *testing.T) {
	fs := Findings([]Result{{Tool: "vet", File: "a.go", Line: 10, Level: LevelWarning, Rule: "SA4006", Message: "x is never used"}}, "now")
	sets := func(rs ...Result) []Set { return []Set{{Results: rs}} }
	for _, c := range []struct {
		r    Result
		want bool
	}{
		{Result{Tool: "vet", File: "a.go", Line: 14, Rule: "SA4006", Message: "y is never used"}, true},
		{Result{Tool: "vet", File: "a.go", Line: 12, Rule: "SA9999", Message: "x is never used"}, false},
		{Result{Tool: "lint", File: "a.go", Line: 12, Rule: "SA4006", Message: "x is never used"}, false},
		{Result{Tool: "vet", File: "a.go", Line: 20, Rule: "SA4006", Message: "x is never used"}, false},
		{Result{Tool: "vet", File: "b.go", Line: 12, Rule: "SA4006", Message: "x is never used"}, false},
	} {
		if _, got := StillReported(fs[0], "a.go", 12, sets(c.r)); got != c.want {
			t.Errorf("%+v: still reported %v, want %v", c.r, got, c.want)
		}
	}
	noRule := Findings([]Result{{Tool: "vet", File: "a.go", Line: 10, Message: "x is never used"}}, "now")
	if _, got := StillReported(noRule[0], "a.go", 10, sets(Result{Tool: "vet", File: "a.go", Line: 10, Message: "x is never used"})); !got {
		t.Error("a finding without a rule, reported again with the same message, is still there")
	}
}
