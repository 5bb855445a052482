package e2e

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// A dry run's outcome is the one the run would reach after its round, so
// that a script can ask "would it converge?"; every field asked for is in
// the JSON, false or empty as it is, the keys sorted as gh sorts them.
func TestLoopDryRunOutcomeIsTheRuns(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "approve"))
	lf.fm.Script("rev-b", reviewerReply("reviewer-2", "approve"))
	lf.fm.Script("analyzer", analyzerReply())

	res := lf.run("--dry-run", "--json", "outcome,dryRun,partial,resumed")

	wantCode(t, res, 0)
	want := "{\n  \"dryRun\": true,\n  \"outcome\": \"converged\",\n  \"partial\": [],\n  \"resumed\": false\n}\n"
	if res.Stdout != want {
		t.Errorf("stdout %q, want %q\n%s", res.Stdout, want, res.Stderr)
	}
	if len(lf.bodies()) != 0 {
		t.Error("a dry run posted")
	}
}

// An unknown --json field is a usage error that lists the fields, as gh
// says it, before any request; never taken for the pull request.
func TestUnknownJSONFieldListsTheFields(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)

	res := lf.run("31", "--yes", "--json", "outcom")

	wantCode(t, res, 2)
	wantContains(t, "stderr", res.Stderr, "Unknown JSON field: \"outcom\"\nAvailable fields:\n  budget\n  dryRun\n")
	if strings.Contains(res.Stderr, "give one pull request") {
		t.Errorf("the field was taken for a pull request:\n%s", res.Stderr)
	}
	if n := len(lf.gh.Requests()) + len(lf.fm.Requests("rev-a")); n != 0 {
		t.Errorf("a usage error made %d requests", n)
	}
}

// What the terminal shows counts in words: "1 finding", never "1
// finding(s)" or "1 findings".
func TestLoopOutputSaysPlurals(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "request_changes", modelFinding{Priority: "P1", Category: "quality", File: "cache.go", Line: line(3),
		Title: "Cache size is not bounded"}))
	lf.fm.Script("rev-b", reviewerReply("reviewer-2", "approve"))
	lf.fm.Script("analyzer", analyzerReply())

	res := lf.run("--dry-run")

	wantCode(t, res, 0)
	out := res.Stdout + res.Stderr
	wantContains(t, "output", out, "fixing 1 finding (", "the whole diff (1 file)", "request_changes, 1 finding,")
	for _, bad := range []string{"(s)", " 1 findings", " 1 files", " 1 calls"} {
		if strings.Contains(out, bad) {
			t.Errorf("%q in the output:\n%s", bad, out)
		}
	}
}

// A branch with no pull request is answered with the command to name one,
// the verb that was run (not a placeholder).
func TestNoPRForTheBranchNamesTheVerb(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	testkit.Git(t, lf.repo.Clone, "checkout", "--quiet", "-b", "other")

	res := lf.run("--yes")

	wantContains(t, "stderr", res.Stderr, `no open pull request in octo/widgets has the branch "other"`, "or name the pull request (gh ocdx review-loop <number>)")
	if res.Code != 1 || strings.Contains(res.Stderr, "<verb>") {
		t.Errorf("exit %d\n%s", res.Code, res.Stderr)
	}
}
