package e2e

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/state"
)

// TestPushAfterTheAuthorResetTheBranch: while the fix runs, the PR's author
// resets the branch on GitHub to the parent of the reviewed head, removing
// its commit. A plain fast-forward push of the fix would put that commit
// back; gh-ocdx pushes only while the branch is still at the head it
// reviewed, so it pushes nothing, says the PR moved and exits 1.
func TestPushAfterTheAuthorResetTheBranch(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug)
	reviewed := lf.start
	parent := testkit.Git(t, lf.repo.Remote, "rev-parse", reviewed+"^")
	lf.fix.OnRequest = func() {
		if lf.fix.Count() == 1 {
			testkit.Git(t, lf.repo.Remote, "update-ref", "refs/heads/"+lf.repo.Head, parent)
		}
	}

	res := lf.run("--yes")
	lf.start = parent // the author's reset is where the branch starts now

	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, "the PR's branch moved on GitHub since gh-ocdx reviewed "+reviewed[:7],
		"nothing was pushed", "your fix commits are still on your local branch", "fetch, look, re-run")
	if got := lf.repo.RemoteOID(t, lf.repo.Head); got != parent {
		t.Fatalf("the remote branch is at %s, want the author's %s: the removed commit came back", got[:7], parent[:7])
	}
	if log := testkit.Git(t, lf.repo.Clone, "log", "--format=%s", reviewed+"..HEAD"); !strings.Contains(log, "fix:") {
		t.Errorf("the fix commit must stay local; log %q", log)
	}
	if strings.Contains(strings.Join(lf.kinds(), " "), "fix:") {
		t.Errorf("a fix report was posted: %v", lf.kinds())
	}
	if r := last(recorded(t, lf.env, loopPR)); r.Outcome != state.OutcomeFailed {
		t.Errorf("run outcome %q, want failed", r.Outcome)
	}
}
