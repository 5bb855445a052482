package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// resultsSARIF is a linter's SARIF log about the PR's cache.go, whose
// lines 2–5 the PR adds: a warning on line 5 (no reviewer raises it), an
// error on line 3 (reviewer-1 raises it too, naming the rule), and a note
// on line 1, which the PR does not change.
const resultsSARIF = `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"cachelint","rules":[{"id":"CL100"},{"id":"CL200"},{"id":"CL300"}]}},
"results":[
 {"ruleId":"CL200","level":"warning","message":{"text":"exported function Get has no doc comment"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"cache.go"},"region":{"startLine":5,"startColumn":1}}}]},
 {"ruleId":"CL100","level":"error","message":{"text":"package-level Size is mutable and unbounded"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"cache.go"},"region":{"startLine":3,"startColumn":5}}}]},
 {"ruleId":"CL300","level":"note","message":{"text":"package name cache is generic"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"cache.go"},"region":{"startLine":1}}}]}
]}]}`

// review-loop --evidence reads a tool's results before round 1: the one
// on a changed line no reviewer raised is posted on its line as the
// tool's finding, the one a reviewer confirms is one finding naming both,
// the one on an unchanged line is only counted, and the reviewers were
// given the results on their changed lines.
func TestLoopPostsToolResultsOnChangedLines(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, func(pr *testkit.PR) { pr.Permission = "READ" }) // review only: one round
	results := filepath.Join(t.TempDir(), "results.sarif")
	if err := os.WriteFile(results, []byte(resultsSARIF), 0o644); err != nil {
		t.Fatal(err)
	}
	confirmed := cacheBug
	confirmed.Description = "cachelint's CL100 is right: nothing bounds Size."
	lf.findingRound(confirmed)

	res := lf.run("--yes", "--evidence", results)

	wantCode(t, res, 3)
	reviews := lf.gh.Reviews(repo, lf.number)
	if len(reviews) != 1 {
		t.Fatalf("%d reviews, want 1", len(reviews))
	}
	var onLine5, onLine3 string
	for _, c := range reviews[0].Comments {
		switch {
		case c.Path == "cache.go" && c.Line == 5:
			onLine5 = c.Body
		case c.Path == "cache.go" && c.Line == 3:
			onLine3 = c.Body
		default:
			t.Errorf("a comment on %s:%d: %s", c.Path, c.Line, c.Body)
		}
	}
	wantContains(t, "the tool's comment on line 5", onLine5, "CL200: exported function Get has no doc comment")
	wantContains(t, "the merged comment on line 3", onLine3, "CL100")
	body := reviews[0].Body
	wantContains(t, "the report", body, "`cache.go:5` · cachelint", "1/2 reviewers (openai/rev-a) + cachelint",
		"evidence: 3 results of cachelint, 2 on the lines this PR changes, 1 left out (on lines it does not change)")
	wantContains(t, "the ledger", body, `"tools":["cachelint"]`)
	if strings.Contains(body, "package name cache is generic") {
		t.Errorf("the result on an unchanged line became a finding:\n%s", body)
	}
	task := string(lf.fm.Requests("rev-a")[0].Body)
	wantContains(t, "the reviewer's task", task, "What the repository's tools report on the changed lines", "cache.go:3` cachelint CL100 (error)", "cache.go:5` cachelint CL200 (warning)")
	if strings.Contains(task, "CL300") {
		t.Error("the reviewer was given the result on an unchanged line")
	}
}
