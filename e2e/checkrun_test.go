package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// review-loop --check-run publishes the run's verdict as the gh-ocdx check
// run on the head it reviewed (docs/architecture.md, The check run): a
// ruleset can require it, so its conclusion is the run's, its annotations
// the open findings on their lines, and a rerun never makes a second one.

// ownCheckRuns are the check runs named gh-ocdx the token's app made.
func ownCheckRuns(lf *loopFix) []testkit.CheckRun {
	var out []testkit.CheckRun
	for _, cr := range lf.gh.CheckRuns(repo) {
		if cr.Name == "gh-ocdx" && cr.App == lf.gh.Login {
			out = append(out, cr)
		}
	}
	return out
}

// oneCheckRun is the only gh-ocdx check run of the token's app.
func oneCheckRun(t *testing.T, lf *loopFix) testkit.CheckRun {
	t.Helper()
	crs := ownCheckRuns(lf)
	if len(crs) != 1 {
		t.Fatalf("%d gh-ocdx check runs, want 1: %+v", len(crs), crs)
	}
	return crs[0]
}

func TestCheckRunOfAConvergedRunIsASuccessWithoutAnnotations(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.approveRound()

	res := lf.run("--yes", "--check-run")

	wantCode(t, res, 0)
	cr := oneCheckRun(t, lf)
	if cr.HeadSHA != lf.start || cr.Status != "completed" || cr.Conclusion != "success" || len(cr.Annotations) != 0 {
		t.Errorf("check run on %s: %s %s with %d annotations, want success on %s and none", cr.HeadSHA, cr.Status, cr.Conclusion, len(cr.Annotations), lf.start)
	}
	wantContains(t, "the check run's title", cr.Title, "converged", "P0 0 · P1 0 · P2 0 · P3 0")
	wantContains(t, "the check run's summary", cr.Summary, "**converged**", "### Findings\n\nNone.", "[The report on the pull request](https://")
	wantContains(t, "stderr", res.Stderr, "✓ Check run gh-ocdx on "+lf.start[:7]+": success https://")
}

// A blocked run fails the check, with its open findings annotated on their
// lines of the head it reviewed last; a review-only run's check is neutral.
func TestCheckRunOfABlockedRunAnnotatesTheFindings(t *testing.T) {
	t.Parallel()
	t.Run("blocked", func(t *testing.T) {
		t.Parallel()
		lf := newLoop(t, nil)
		lf.findingRound(cacheBug)
		lf.findingRound(cacheBug) // found again after its fix: stuck

		res := lf.run("--yes", "--check-run")

		wantCode(t, res, 3)
		cr := oneCheckRun(t, lf)
		head := lf.repo.RemoteOID(t, lf.repo.Head)
		if head == lf.start || cr.HeadSHA != head || cr.Conclusion != "failure" {
			t.Fatalf("check run %s on %s, want failure on the fixed head %s (the PR began at %s)", cr.Conclusion, cr.HeadSHA, head, lf.start)
		}
		want := testkit.CheckAnnotation{Path: "cache.go", StartLine: 3, EndLine: 3, Level: "failure",
			Title: "P1 " + cacheBug.id() + ": Cache size is not bounded", Message: "details of Cache size is not bounded\n\nSuggestion: do better\n\nRaised by 1/2 reviewers (openai/rev-a)."}
		if len(cr.Annotations) != 1 || cr.Annotations[0] != want {
			t.Errorf("annotations %+v, want %+v", cr.Annotations, want)
		}
		wantContains(t, "the check run's summary", cr.Summary, "**blocked", "### P1 (1)", "`"+cacheBug.id()+"` Cache size is not bounded · `cache.go:3`", "**(stuck)**",
			"**Annotations:** 1 finding annotated on the lines.")
	})
	t.Run("every reviewer failed", func(t *testing.T) {
		t.Parallel()
		lf := newLoop(t, nil)
		lf.fm.Script("rev-a", testkit.Reply("no envelope"), testkit.Reply("none again"))
		lf.fm.Script("rev-b", testkit.Garbage("{not json"), testkit.Garbage("{not json"), testkit.Garbage("{not json"), testkit.Garbage("{not json"))
		lf.fm.Script("analyzer", analyzerReply())

		res := lf.run("--yes", "--check-run")

		wantCode(t, res, 1)
		cr := oneCheckRun(t, lf)
		if cr.HeadSHA != lf.start || cr.Conclusion != "failure" {
			t.Errorf("check run %s on %s, want failure on %s", cr.Conclusion, cr.HeadSHA, lf.start)
		}
		wantContains(t, "the check run's summary", cr.Summary, "**failed", "all 2 reviewers failed", "No review: every reviewer failed")
	})
	t.Run("review only", func(t *testing.T) {
		t.Parallel()
		lf := newLoop(t, func(pr *testkit.PR) { pr.Permission = "READ" })
		lf.findingRound(cacheBug)

		res := lf.run("--yes", "--check-run")

		wantCode(t, res, 3)
		cr := oneCheckRun(t, lf)
		// Review only, but a P1 is open: a required check must not pass it
		// (GitHub counts neutral as passed).
		if cr.HeadSHA != lf.start || cr.Conclusion != "failure" || len(cr.Annotations) != 1 || cr.Annotations[0].Level != "failure" {
			t.Errorf("check run %s on %s with %+v, want failure on %s with the P1 annotated", cr.Conclusion, cr.HeadSHA, cr.Annotations, lf.start)
		}
	})
}

// GitHub takes 50 annotations a request: 120 findings go as 50 + 50 + 20,
// the first with the check run's creation, the rest in two updates.
func TestCheckRunSendsAnnotationsFiftyARequest(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	var fs []modelFinding
	for i := range 120 {
		fs = append(fs, modelFinding{Priority: "P3", Category: "style", File: fmt.Sprintf("pkg/f%03d.go", i), Line: line(1), Title: fmt.Sprintf("Name the exported helper of file %d", i)})
	}
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "approve", fs...))
	lf.fm.Script("rev-b", reviewerReply("reviewer-2", "approve"))
	lf.fm.Script("analyzer", analyzerReply())

	res := lf.run("--yes", "--check-run")

	wantCode(t, res, 0)
	cr := oneCheckRun(t, lf)
	if !slices.Equal(cr.Batches, []int{50, 50, 20}) || len(cr.Annotations) != 120 {
		t.Errorf("annotations sent in batches %v (%d in all), want [50 50 20]", cr.Batches, len(cr.Annotations))
	}
	if n, m := lf.gh.Count("check-run"), lf.gh.Count("check-run-edit"); n != 1 || m != 2 {
		t.Errorf("%d creations and %d updates, want 1 and 2", n, m)
	}
	paths := map[string]bool{}
	for _, a := range cr.Annotations {
		if a.Level != "notice" {
			t.Errorf("a P3's annotation is %s, want notice", a.Level)
		}
		paths[a.Path] = true
	}
	if len(paths) != 120 {
		t.Errorf("%d distinct files annotated, want each of the 120 findings once", len(paths))
	}
	wantContains(t, "the check run's summary", cr.Summary, "### P3 (120)", "**Annotations:** 120 findings annotated on the lines.")
}

// A rerun on the same head updates the check run it made there, adding no
// annotation it already has; another app's gh-ocdx check run is never
// touched.
func TestCheckRunRerunUpdatesTheSameCheckRun(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.gh.AddCheckRun(repo, testkit.CheckRun{Name: "gh-ocdx", HeadSHA: lf.start, Status: "completed", Conclusion: "failure", Title: "theirs", Summary: "theirs", App: "another-app"})
	nit := modelFinding{Priority: "P3", Category: "style", File: "cache.go", Line: line(5), Title: "Get could say what it returns"}
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "approve", nit))
	lf.fm.Script("rev-b", reviewerReply("reviewer-2", "approve"))
	lf.fm.Script("analyzer", analyzerReply())

	first := lf.run("--yes", "--check-run")
	again := lf.run("--yes", "--check-run") // already reviewed at this head

	wantCode(t, first, 0)
	wantCode(t, again, 0)
	wantContains(t, "the rerun's stderr", again.Stderr, "already reviewed at "+lf.start[:7], "✓ Check run gh-ocdx on "+lf.start[:7]+": success")
	cr := oneCheckRun(t, lf)
	if cr.Conclusion != "success" || len(cr.Annotations) != 1 || !slices.Equal(cr.Batches, []int{1, 0}) {
		t.Errorf("check run %s with %d annotations sent as %v, want success with the one P3, sent once", cr.Conclusion, len(cr.Annotations), cr.Batches)
	}
	if n := lf.gh.Count("check-run"); n != 1 {
		t.Errorf("%d check runs created, want 1", n)
	}
	for _, other := range lf.gh.CheckRuns(repo) {
		if other.App == "another-app" && (other.Title != "theirs" || other.Conclusion != "failure" || len(other.Batches) != 0) {
			t.Errorf("another app's check run was edited: %+v", other)
		}
	}
}

// A token GitHub refuses the checks API (a user's token; a workflow's
// without checks: write) is one "!" line: the run ends as it would have.
func TestCheckRunRefusedIsOneWarningAndTheExitCodeStays(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
		edit   func(*testkit.PR)
		code   int
	}{
		{"403, converged", 403, nil, 0},
		{"404, review only", 404, func(pr *testkit.PR) { pr.Permission = "READ" }, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lf := newLoop(t, tc.edit)
			lf.gh.RefuseChecks(tc.status)
			if tc.code == 0 {
				lf.approveRound()
			} else {
				lf.findingRound(cacheBug)
			}

			res := lf.run("--yes", "--check-run")

			wantCode(t, res, tc.code)
			var warned []string
			for _, l := range strings.Split(res.Stderr, "\n") {
				if strings.Contains(l, "check run") {
					warned = append(warned, l)
				}
			}
			want := fmt.Sprintf("! no gh-ocdx check run on %s: GitHub refused this token the checks API (HTTP %d: Resource not accessible by integration)", lf.start[:7], tc.status)
			if len(warned) != 1 || !strings.HasPrefix(warned[0], want) {
				t.Errorf("stderr's lines about the check run: %q, want one starting %q\n%s", warned, want, res.Stderr)
			}
			if len(lf.gh.CheckRuns(repo)) != 0 {
				t.Error("a check run was made")
			}
		})
	}
}

// --dry-run posts nothing: no check run either, not even a look for its
// own (the head's check runs are read only as evidence).
func TestCheckRunDryRunMakesNone(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug)

	res := lf.run("--dry-run", "--check-run")

	wantCode(t, res, 0)
	for _, k := range []string{"check-run", "check-run-edit", "check-annotations"} {
		if n := lf.gh.Count(k); n != 0 {
			t.Errorf("%d %s requests in a dry run", n, k)
		}
	}
	for _, r := range lf.gh.Requests() {
		if r.Kind == "check-runs" && strings.Contains(r.Path, "check_name") {
			t.Errorf("a dry run looked for its check run: %s", r.Path)
		}
	}
}
