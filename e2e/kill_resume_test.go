package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// killWhen starts review-loop --yes and kills it (SIGKILL: no handler, no
// clean-up) as soon as ready holds.
func (lf *loopFix) killWhen(ready func() bool) string {
	lf.t.Helper()
	c, stderr := lf.startUntil(ready)
	c.Process.Kill()
	c.Wait()
	return stderr.String()
}

// TestKilledAfterThePushResumesAtTheFixReport: the run is killed after its
// push reached GitHub and before it recorded it (GitHub's answer to the head
// check never comes). The re-run sees its own commit as the PR's head,
// continues the same run at the fix report, posts it once, and goes on to
// round 2, without calling the fix model again.
func TestKilledAfterThePushResumesAtTheFixReport(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug)
	lf.gh.Fail(testkit.Fault{Kind: "pr", Delay: time.Minute}) // the head check after the push

	stderr := lf.killWhen(func() bool { return lf.repo.RemoteOID(t, lf.repo.Head) != lf.start })

	if k := fmt.Sprint(lf.kinds()); k != "[review:1]" {
		t.Fatalf("comments %s when killed, want [review:1]\nstderr:\n%s", k, stderr)
	}
	m := regexp.MustCompile(`run (\S+) started`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no run started:\n%s", stderr)
	}
	id := m[1]
	fixCalls := lf.fix.Count()
	lf.approveRound()

	res := lf.run("--yes")

	wantCode(t, res, 0)
	wantContains(t, "stderr", res.Stderr, "resuming run "+id)
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2]" {
		t.Fatalf("comments %s, want [review:1 fix:1 review:2]\nstderr:\n%s", k, res.Stderr)
	}
	if rec := recorded(t, lf.env, loopPR); len(rec.Runs) != 1 || rec.Runs[0].ID != id {
		t.Errorf("runs %d, want the one run %s resumed", len(rec.Runs), id)
	}
	if lf.fix.Count() != fixCalls {
		t.Errorf("the pushed fix was redone (%d more model calls)", lf.fix.Count()-fixCalls)
	}
	if body := lf.bodies()[1]; !strings.Contains(body, "run="+id) {
		t.Errorf("the fix report is not the first run's:\n%s", body)
	}
}

// TestKilledInsideTheFixAgentNamesFixContinue: the run is killed while the
// fix agent has an edit it did not commit yet. The re-run stops at the
// dirty work tree, and its message names the command that resumes the fix.
func TestKilledInsideTheFixAgentNamesFixContinue(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.env.WriteConfig(t, `{"reviewerModels": ["openai/rev-a", "anthropic/rev-b"], "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "openai/fixer", "verify": ["true"]}`)
	lf.findingRound(cacheBug)
	lf.fm.Script("fixer",
		testkit.CallTools(testkit.FakeCall{Name: "edit_file", Args: `{"path":"cache.go","old_string":"var Size = 10","new_string":"var Size = 100"}`}),
		testkit.Stall(time.Minute, "never answered"))

	lf.killWhen(func() bool { return len(lf.fm.Requests("fixer")) >= 2 })

	res := lf.run("--yes")

	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, "uncommitted changes", "cache.go", fmt.Sprintf("'gh ocdx fix --pr %d --continue'", loopPR))
}
