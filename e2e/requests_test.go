package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// A round reads the PR's diff in the checkout, which holds the PR's
// commits, without a request; what the reviewers are given is what
// GitHub's diff gives them, byte for byte, whatever the user's git
// configuration says of diffs. A checkout that lacks the base (it has not
// fetched) gives way to GitHub.
func TestLoopReadsTheDiffInTheCheckoutAsGitHubSendsIt(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	for _, kv := range [][2]string{{"diff.noprefix", "true"}, {"diff.context", "1"}, {"diff.renames", "false"}, {"color.ui", "always"}, {"core.quotePath", "false"}} {
		testkit.Git(t, lf.repo.Clone, "config", kv[0], kv[1])
	}
	lf.approveRound()
	wantCode(t, lf.run("--dry-run"), 0)
	if n := lf.gh.Count("diff") + lf.gh.Count("files"); n != 0 {
		t.Fatalf("%d requests for the diff, want none: the checkout holds the PR's commits", n)
	}

	lf.repo.MoveBase(t)
	lf.approveRound()
	wantCode(t, lf.run("--dry-run"), 0)
	if n := lf.gh.Count("diff"); n != 1 {
		t.Fatalf("%d requests for the diff, want 1: the checkout lacks the PR's base", n)
	}
	for _, m := range []string{"rev-a", "rev-b"} {
		reqs := lf.fm.Requests(m)
		if len(reqs) != 2 {
			t.Fatalf("%s: %d requests, want one per run", m, len(reqs))
		}
		local, remote := string(reqs[0].Body), string(reqs[1].Body)
		if !strings.Contains(local, "+var Size = 10") {
			t.Errorf("%s was not given the diff:\n%s", m, local)
		}
		if local != remote {
			t.Errorf("%s: the prompt with the checkout's diff differs from the one with GitHub's:\n%s\n---\n%s", m, local, remote)
		}
	}
}

// TestKilledAfterTheFixReportWasPostedDoesNotPostItAgain: the run is
// killed after GitHub took its fix report and before the answer came, so
// the state file never recorded it. The re-run resumes the run and finds
// the report on the PR: it is on the PR once.
func TestKilledAfterTheFixReportWasPostedDoesNotPostItAgain(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug)
	lf.gh.Fail(testkit.Fault{Kind: "comment", Apply: true, Delay: time.Minute})

	stderr := lf.killWhen(func() bool { return fmt.Sprint(lf.kinds()) == "[review:1 fix:1]" })

	m := regexp.MustCompile(`run (\S+) started`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no run started:\n%s", stderr)
	}
	lf.approveRound()

	res := lf.run("--yes")

	wantCode(t, res, 0)
	wantContains(t, "stderr", res.Stderr, "resuming run "+m[1])
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2]" {
		t.Fatalf("comments %s, want [review:1 fix:1 review:2]\nstderr:\n%s", k, res.Stderr)
	}
}
