package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// review-loop reads what GitHub holds for the PR's head: the annotations
// of its check runs (not gh-ocdx's own) and its open code-scanning alerts.
// The alert on a changed line that a reviewer confirms is one finding
// naming both, the annotation no reviewer raised is the check's own
// finding on its line, and what is on an unchanged line or another ref is
// left out.
func TestLoopFusesCheckAnnotationsAndCodeScanningAlerts(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, func(pr *testkit.PR) { pr.Permission = "READ" }) // review only: one round
	lf.gh.AddCheckRun(repo, testkit.CheckRun{Name: "lint", HeadSHA: lf.start, Status: "completed", Conclusion: "failure", App: "github-actions",
		Annotations: []testkit.CheckAnnotation{
			{Path: "cache.go", StartLine: 5, EndLine: 5, Level: "warning", Title: "revive", Message: "exported function Get should have a comment"},
			{Path: "cache.go", StartLine: 1, EndLine: 1, Level: "notice", Title: "revive", Message: "package comment missing"},
		}})
	lf.gh.AddCheckRun(repo, testkit.CheckRun{Name: "gh-ocdx", HeadSHA: lf.start, Status: "completed", Conclusion: "failure", App: "ocdx-bot",
		Annotations: []testkit.CheckAnnotation{{Path: "cache.go", StartLine: 4, EndLine: 4, Level: "failure", Title: "P1 QUAL-1: an old finding", Message: "gh-ocdx's own"}}})
	// Code scanning's own check run shows the alert again: read once.
	lf.gh.AddCheckRun(repo, testkit.CheckRun{Name: "CodeQL", HeadSHA: lf.start, Status: "completed", Conclusion: "failure", App: "github-advanced-security",
		Annotations: []testkit.CheckAnnotation{{Path: "cache.go", StartLine: 3, EndLine: 3, Level: "warning", Title: "Unbounded cache", Message: "The cache grows without bound. (annotation)"}}})
	lf.gh.AddCodeScanningAlert(repo, testkit.CodeScanningAlert{Ref: "refs/pull/31/head", Tool: "CodeQL", RuleID: "go/unbounded-cache",
		Severity: "warning", SecurityLevel: "high", Message: "The cache grows without bound.", Path: "cache.go", StartLine: 3, EndLine: 3, StartColumn: 5})
	lf.gh.AddCodeScanningAlert(repo, testkit.CodeScanningAlert{Ref: "refs/heads/main", Tool: "CodeQL", RuleID: "go/other",
		Severity: "error", Message: "on the base branch", Path: "cache.go", StartLine: 2, EndLine: 2})
	confirmed := cacheBug
	confirmed.Description = "CodeQL's go/unbounded-cache is right: nothing bounds Size."
	lf.findingRound(confirmed)

	res := lf.run("--yes")

	wantCode(t, res, 3)
	reviews := lf.gh.Reviews(repo, lf.number)
	if len(reviews) != 1 {
		t.Fatalf("%d reviews, want 1", len(reviews))
	}
	lines := map[int]string{}
	for _, c := range reviews[0].Comments {
		lines[c.Line] += c.Body
	}
	wantContains(t, "the check's comment on line 5", lines[5], "revive: exported function Get should have a comment")
	wantContains(t, "the merged comment on line 3", lines[3], "go/unbounded-cache")
	body := reviews[0].Body
	wantContains(t, "the report", body, "1/2 reviewers (openai/rev-a) + CodeQL", "`cache.go:5` · lint",
		"evidence: 3 results of CodeQL, lint, 2 on the lines this PR changes, 1 left out (on lines it does not change)")
	for _, gone := range []string{"package comment missing", "gh-ocdx's own", "an old finding", "on the base branch", "go/other", "(annotation)"} {
		if strings.Contains(body, gone) {
			t.Errorf("the report holds %q:\n%s", gone, body)
		}
	}
	task := string(lf.fm.Requests("rev-a")[0].Body)
	wantContains(t, "the reviewer's task", task, "cache.go:3` CodeQL go/unbounded-cache (warning)", "cache.go:5` lint revive (warning)")
}

// A token that may not read code scanning (or a repository without it)
// costs one line saying what was skipped and why; the review goes on, with
// what code scanning's check run shows on the head.
func TestLoopGoesOnWhenCodeScanningIsRefused(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, func(pr *testkit.PR) { pr.Permission = "READ" })
	lf.gh.RefuseCodeScanning(http.StatusForbidden)
	lf.gh.AddCheckRun(repo, testkit.CheckRun{Name: "CodeQL", HeadSHA: lf.start, Status: "completed", Conclusion: "failure", App: "github-advanced-security",
		Annotations: []testkit.CheckAnnotation{{Path: "cache.go", StartLine: 3, EndLine: 3, Level: "warning", Title: "Unbounded cache", Message: "The cache grows without bound."}}})
	lf.approveRound()

	res := lf.run("--yes")

	wantCode(t, res, 3)
	wantContains(t, "the report", lf.gh.Reviews(repo, lf.number)[0].Body, "Unbounded cache: The cache grows without bound.")
	line := "! the code-scanning alerts of refs/pull/31/head were not read: GitHub answered 403 (Code scanning is not enabled for this repository. Please enable code scanning in the repository settings.) (code scanning must be enabled, and a workflow's token needs \"security-events: read\"); the review goes on without them"
	if n := strings.Count(res.Stderr, "code-scanning alerts"); n != 1 || !strings.Contains(res.Stderr, line) {
		t.Errorf("want the one line %q, stderr:\n%s", line, res.Stderr)
	}
}

// withAnalyzer configures one analyzer, cachelint, that leaves a mark
// where it ran and prints errorformat lines; it returns the mark's path.
func (lf *loopFix) withAnalyzer(t *testing.T, output string) string {
	t.Helper()
	mark := filepath.Join(t.TempDir(), "analyzer-ran")
	script := "echo ran >> '" + mark + "'; printf '" + output + "'; exit 1"
	a, _ := json.Marshal([]map[string]any{{"name": "cachelint", "argv": []string{"sh", "-c", script}, "format": "errorformat", "timeout": 60}})
	lf.env.WriteConfig(t, `{
  "reviewerModels": ["openai/rev-a", "anthropic/rev-b"],
  "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "ollama/fixer",
  "verify": ["true"],
  "analyzers": `+string(a)+`
}`)
	return mark
}

func ran(mark string) bool {
	_, err := os.Stat(mark)
	return err == nil
}

// A fork's code is never run: the analyzer does not start, and one line
// says why; the review goes on.
func TestForkPRNeverRunsAnAnalyzer(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, func(pr *testkit.PR) { pr.IsCrossRepository, pr.HeadRepo, pr.Permission = true, "mona/widgets", "READ" })
	mark := lf.withAnalyzer(t, `cache.go:3:5: error: Size is unbounded [CL100]\n`)
	lf.findingRound(cacheBug)

	res := lf.env.RunBinary(t, "review-loop", "--yes", "--effort", "deep")

	wantCode(t, res, 3)
	if ran(mark) {
		t.Fatal("the analyzer ran on a fork's head")
	}
	wantContains(t, "stderr", res.Stderr, "analyzers were not run: PR #31 comes from a fork (mona/widgets), and gh-ocdx never runs a fork's code")
	if body := lf.gh.Reviews(repo, lf.number)[0].Body; strings.Contains(body, "CL100") {
		t.Errorf("an analyzer's result in the report:\n%s", body)
	}
}

// An analyzer's result on a changed line is a finding, merged with the
// reviewer's finding at that line that names its rule; its result on an
// unchanged line is counted, not raised.
func TestAnalyzerResultMergesWithAReviewersFinding(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, func(pr *testkit.PR) { pr.Permission = "READ" })
	mark := lf.withAnalyzer(t, `cache.go:3:5: error: Size is unbounded [CL100]\ncache.go:1:1: note: package name is generic [CL300]\n`)
	confirmed := cacheBug
	confirmed.Description = "cachelint's CL100 is right: nothing bounds Size."
	lf.findingRound(confirmed)

	res := lf.env.RunBinary(t, "review-loop", "--yes", "--effort", "standard")

	wantCode(t, res, 3)
	if !ran(mark) {
		t.Fatalf("the analyzer did not run:\n%s", res.Stderr)
	}
	reviews := lf.gh.Reviews(repo, lf.number)
	if n := len(reviews[0].Comments); n != 1 || reviews[0].Comments[0].Line != 3 {
		t.Fatalf("want one comment, on line 3: %+v", reviews[0].Comments)
	}
	wantContains(t, "the report", reviews[0].Body, "1/2 reviewers (openai/rev-a) + cachelint",
		"evidence: 2 results of cachelint, 1 on the lines this PR changes, 1 left out (on lines it does not change)", `"tools":["cachelint"]`)
	if strings.Contains(reviews[0].Body, "package name is generic") {
		t.Errorf("the result on an unchanged line became a finding")
	}
}

// At the quick tier no analyzer runs, and one line says so; GitHub's
// evidence is read at every tier.
func TestAnalyzerDoesNotRunAtQuick(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, func(pr *testkit.PR) { pr.Permission = "READ" })
	mark := lf.withAnalyzer(t, `cache.go:3:5: error: Size is unbounded [CL100]\n`)
	lf.gh.AddCheckRun(repo, testkit.CheckRun{Name: "lint", HeadSHA: lf.start, Status: "completed", Conclusion: "failure", App: "github-actions",
		Annotations: []testkit.CheckAnnotation{{Path: "cache.go", StartLine: 5, EndLine: 5, Level: "warning", Title: "revive", Message: "exported function Get should have a comment"}}})
	lf.approveRound()

	res := lf.run("--yes", "--effort", "quick")

	if ran(mark) {
		t.Fatal("the analyzer ran at the quick tier")
	}
	wantContains(t, "stderr", res.Stderr, "analyzers were not run on "+lf.start[:7]+": the review is at the quick tier (they run at standard and deep)")
	body := lf.gh.Reviews(repo, lf.number)[0].Body
	if strings.Contains(body, "CL100") {
		t.Errorf("an analyzer's result in the report:\n%s", body)
	}
	wantContains(t, "the quick round's report", body, "revive: exported function Get should have a comment")
}

// gh ocdx review reads --evidence and runs the analyzers on the working
// tree, uncommitted changes included, so a pre-push hook sees the
// findings CI would: a result on a changed line is a finding, with no
// GitHub request.
func TestReviewLocalWithEvidenceAndAnalyzers(t *testing.T) {
	t.Parallel()
	r, env, fm, gh := localBranch(t)
	testkit.WriteFiles(t, r.Clone, map[string]string{"cache.go": "package cache\n\nvar size = 99\n\nvar ttl = 60\n"}) // not committed
	a, _ := json.Marshal([]map[string]any{{"name": "sizelint", "format": "errorformat",
		"argv": []string{"sh", "-c", `grep -q 'size = 99' cache.go && printf 'cache.go:3:5: warning: size 99 is not a power of two [SZ1]\n'; exit 1`}}})
	env.WriteConfig(t, `{"reviewerModels": ["ollama/qwen-a"], "commentsAnalyzerModel": "ollama/qwen-a", "prFixModel": "ollama/qwen-a", "analyzers": `+string(a)+`}`)
	results := filepath.Join(t.TempDir(), "vet.txt")
	if err := os.WriteFile(results, []byte("cache.go:3:1: size is never read\ncache.go:1:1: package cache has no doc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fm.Script("qwen-a", testkit.Reply("BEGIN_JSON\n"+`{"agent":"reviewer","prNumber":0,"conclusion":"approve","issues":{"p0_blocking":0,"p1_critical":0,"p2_important":0,"p3_suggestion":0},"findings":[],"fullReport":"done"}`+"\nEND_JSON"))

	res := env.RunBinary(t, "review", "--effort", "standard", "--evidence", results)

	wantCode(t, res, 3)
	wantContains(t, "stdout", res.Stdout, "SZ1: size 99 is not a power of two", "size is never read")
	if strings.Contains(res.Stdout, "has no doc") {
		t.Errorf("a result on an unchanged line is a finding:\n%s", res.Stdout)
	}

	// Other evidence is a new review, not the last one repeated; the same
	// evidence again repeats it without asking the model.
	fm.Script("qwen-a", testkit.Reply("BEGIN_JSON\n"+`{"agent":"reviewer","prNumber":0,"conclusion":"approve","issues":{"p0_blocking":0,"p1_critical":0,"p2_important":0,"p3_suggestion":0},"findings":[],"fullReport":"done"}`+"\nEND_JSON"))
	res = env.RunBinary(t, "review", "--effort", "standard")
	wantCode(t, res, 3)
	if strings.Contains(res.Stdout, "size is never read") || strings.Contains(res.Stderr, "already reviewed") {
		t.Errorf("without --evidence, the last review was repeated:\n%s\n%s", res.Stdout, res.Stderr)
	}
	asked := len(fm.Requests("qwen-a"))
	res = env.RunBinary(t, "review", "--effort", "standard")
	wantContains(t, "stderr", res.Stderr, "already reviewed")
	if len(fm.Requests("qwen-a")) != asked {
		t.Error("the same review with the same evidence asked the model again")
	}
	if reqs := gh.Requests(); len(reqs) != 0 {
		t.Errorf("gh ocdx review made %d GitHub request(s): %v", len(reqs), reqs)
	}
}

// After a fix, the analyzers run again as part of its verification: a
// tool's finding the fix says it fixed that its tool still reports at its
// place fails the verification, the agent is told so, and nothing is
// pushed.
func TestFixNotVerifiedWhileItsAnalyzerStillReports(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	mark := lf.withAnalyzer(t, `cache.go:3:5: error: Size is unbounded [CL100]\n`)
	lf.findingRound()

	res := lf.run("--yes", "--effort", "standard")

	wantCode(t, res, 3)
	wantContains(t, "stderr", res.Stderr, "verification failed")
	if head := lf.repo.RemoteOID(t, lf.repo.Head); head != lf.start {
		t.Error("a fix its analyzer still objects to was pushed")
	}
	prompts := strings.Join(lf.fix.Prompts(), "\n")
	wantContains(t, "the agent's retry", prompts, "cachelint still reports CL100 at cache.go:3 after the fix")
	if runs, _ := os.ReadFile(mark); strings.Count(string(runs), "ran") < 2 {
		t.Errorf("the analyzer ran %d times: not again after the fix", strings.Count(string(runs), "ran"))
	}
}

// A fix its analyzer no longer objects to is pushed, and what the
// analyzer found on the fixed tree is the next round's evidence: it is not
// run again for the head gh-ocdx pushed.
func TestAnalyzerResultsAfterAFixAreTheNextRoundsEvidence(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	mark := lf.withAnalyzer(t, `cache.go:3:5: error: Size is unbounded [CL100]\n`)
	lf.env.WriteConfig(t, strings.Replace(readConfig(t, lf.env), `printf '`, `test -e fix-round-1.go || printf '`, 1))
	lf.findingRound()
	lf.approveRound()

	res := lf.run("--yes", "--effort", "standard")

	wantCode(t, res, 0)
	if runs, _ := os.ReadFile(mark); strings.Count(string(runs), "ran") != 2 {
		t.Errorf("the analyzer ran %d times, want 2 (round 1, the fix's verification)", strings.Count(string(runs), "ran"))
	}
	if k := lf.kinds(); len(k) < 3 {
		t.Errorf("comments %v, want review, fix, review", k)
	}
}

func readConfig(t *testing.T, env *testkit.Env) string {
	t.Helper()
	b, err := os.ReadFile(env.Vars["OCDX_CONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
