package e2e

import (
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// Threads as findings (docs/architecture.md, The ledger, Who may dismiss;
// Posting): a person's review thread blocks until it is resolved by
// someone whose word counts, or dismissed by someone who may dismiss.

// maintainerThread is a maintainer's blocking thread on PR #31 (THREAD-4242).
func maintainerThread(pr *testkit.PR) {
	threadPR("MEMBER", "This must not ship: the cache must be bounded.")(pr)
}

// threadOf is the node id of the thread whose first comment has the id.
func (lf *loopFix) threadOf(commentID string) string {
	for _, th := range lf.gh.Threads(repo, lf.number) {
		if len(th.Comments) > 0 && th.Comments[0].ID == commentID {
			return th.ID
		}
	}
	lf.t.Fatalf("no thread starts with comment %s", commentID)
	return ""
}

// gh ocdx dismiss of a thread's finding, by someone who may dismiss, stops
// it blocking: the run converges and the report lists it as dismissed, by
// whom.
func TestLoopHonoursADismissedThread(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, maintainerThread)
	lf.gh.SetPermission(repo, testkit.Login, "write")
	wantCode(t, lf.env.Run(t, "dismiss", "31", "THREAD-4242"), 0)
	lf.approveRound()
	lf.fm.Script("analyzer", analyzerReply("THREAD-4242"))

	res := lf.run("--yes", "--json", "outcome,remaining")

	wantCode(t, res, 0)
	wantContains(t, "stdout", res.Stdout, `"outcome": "converged"`, `"remaining": []`)
	wantContains(t, "the report", lf.bodies()[1], "### Dismissed findings", "`THREAD-4242` P0 Unresolved review thread · dismissed by `"+testkit.Login+"`",
		"### Unresolved review threads (0 of 2)")
}

// A thread resolved by someone the dismissal rule does not allow (the PR's
// author, who may only read) still blocks, and the report says who
// resolved it; resolved by its author, or by someone with write
// permission, it no longer does.
func TestLoopCountsAThreadResolvedOnlyByWhomMayDismiss(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, by, perm string
		code           int
	}{
		{"the PR's author, read", "mona", "read", 3},
		{"the PR's author, write", "mona", "write", 3},
		{"a reader", "pat", "read", 3},
		{"the thread's author", "hubot", "", 0},
		{"a writer", "carol", "write", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lf := newLoop(t, maintainerThread)
			if tc.perm != "" {
				lf.gh.SetPermission(repo, tc.by, tc.perm)
			}
			lf.gh.ResolveThread(lf.threadOf("PRRC_h1"), tc.by)
			lf.approveRound()

			res := lf.run("--yes")

			wantCode(t, res, tc.code)
			if tc.code == 0 {
				return
			}
			wantContains(t, "stderr", res.Stderr, "1 unresolved review thread")
			wantContains(t, "the report", lf.bodies()[0], "THREAD-4242", "**P0**", "resolved by @"+tc.by+", which does not count")
		})
	}
}
