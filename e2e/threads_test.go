package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/posts"
)

// Threads as findings (docs/architecture.md, Who may dismiss; Posting): a
// person's review thread blocks until it is resolved by someone whose word
// counts, or dismissed by someone who may dismiss.

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
// it blocking: the next run converges and its report lists the thread as
// dismissed, by whom.
func TestLoopHonoursADismissedThread(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, maintainerThread)
	lf.gh.SetPermission(repo, testkit.Login, "write")
	lf.approveRound()
	lf.fm.Script("analyzer", analyzerReply("THREAD-4242"))
	res := lf.run("--yes")
	wantCode(t, res, 3)
	wantContains(t, "stderr", res.Stderr, "1 unresolved review thread")

	wantCode(t, lf.env.Run(t, "dismiss", "31", "THREAD-4242"), 0)
	lf.approveRound()
	lf.fm.Script("analyzer", analyzerReply("THREAD-4242"))
	res = lf.run("--yes", "--json", "outcome,remaining")

	wantCode(t, res, 0)
	wantContains(t, "stdout", res.Stdout, `"outcome": "converged"`, `"remaining": []`)
	rs := lf.gh.Reviews(repo, lf.number)
	wantContains(t, "the report", rs[len(rs)-1].Body, "### Dismissed findings", "`THREAD-4242` P0 Unresolved review thread · dismissed by `"+testkit.Login+"`",
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
			wantContains(t, "the report", lf.bodies()[0], "THREAD-4242", "**P0**", "resolved by "+tc.by+", which does not count (")
			if reqs := lf.fm.Requests("analyzer"); len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), "must not ship") {
				t.Error("the comments analyzer was not shown the thread that still blocks")
			}
		})
	}
}

// ownThreadOf is gh-ocdx's thread of the finding id.
func (lf *loopFix) ownThreadOf(id string) testkit.Thread {
	for _, th := range lf.gh.Threads(repo, lf.number) {
		if len(th.Comments) > 0 && th.Comments[0].Login == lf.gh.Login && strings.Contains(th.Comments[0].Body, "ocdx:finding="+id+" ") {
			return th
		}
	}
	lf.t.Fatalf("gh-ocdx opened no thread for %s", id)
	return testkit.Thread{}
}

// A fix whose round after it had a reviewer fail leaves the finding's
// thread open (silence is no proof); a later run whose review approves
// resolves it, on the same machine or a fresh one. A person replying in it
// then gets no concession: the finding is fixed, and nothing blocks again.
func TestLoopResolvesAFixedFindingsThreadInALaterRun(t *testing.T) {
	t.Parallel()
	for _, fresh := range []bool{false, true} {
		t.Run(fmt.Sprintf("fresh=%v", fresh), func(t *testing.T) {
			t.Parallel()
			lf := newLoop(t, nil)
			lf.env.WriteConfig(t, replyConfig)
			lf.findingRound(cacheBug)
			lf.fm.Script("rev-a", reviewerReply("reviewer-1", "approve"))
			lf.fm.Script("rev-b", testkit.Reply("I think it is fine."), testkit.Reply("Still fine, really."))
			lf.fm.Script("analyzer", analyzerReply())
			wantCode(t, lf.run("--yes"), 0)
			if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2]" {
				t.Fatalf("comments %s", k)
			}
			fixed := lf.repo.RemoteOID(t, lf.repo.Head)
			if th := lf.ownThreadOf(cacheBug.id()); th.Resolved {
				t.Fatal("a round with a failed reviewer resolved the thread")
			}

			lf.pushLater("later.go")
			if fresh {
				lf.env.Set("OCDX_STATE_DIR", t.TempDir())
			}
			lf.approveRound()
			wantCode(t, lf.run("--yes"), 0)

			th := lf.ownThreadOf(cacheBug.id())
			if !th.Resolved || th.ResolvedBy != lf.gh.Login {
				t.Fatalf("the later run's approving review left the fixed finding's thread open: %+v", th)
			}
			wantContains(t, "the thread's last comment", th.Comments[len(th.Comments)-1].Body, "Fixed in "+fixed[:7])

			// A reply in the fixed finding's thread: the model concedes,
			// gh-ocdx does not.
			lf.gh.AddThreadReply(th.ID, "mona", "OWNER", "Was this ever a problem? 10 is what we size for.")
			lf.fm.Script("talker", replyEnvelope("concede", "You're right, it is intended."))
			res := lf.env.Run(t, "reply", "31", "--yes")
			wantCode(t, res, 0)
			ans := lf.ownThreadOf(cacheBug.id()).Comments
			last := ans[len(ans)-1].Body
			if strings.Contains(last, posts.ConcededTag(cacheBug.id())) || strings.Contains(res.Stderr, "disputed") {
				t.Fatalf("reply conceded a fixed finding:\n%s\n%s", last, res.Stderr)
			}
			wantContains(t, "the answer", last, "already fixed")

			lf.pushLater("later2.go")
			lf.approveRound()
			res = lf.run("--yes")
			wantCode(t, res, 0)
			rs := lf.gh.Reviews(repo, lf.number)
			led, err := posts.ParseLedger(rs[len(rs)-1].Body)
			if err != nil {
				t.Fatal(err)
			}
			if d := led.With(finding.StatusDisputed); len(d) != 0 {
				t.Errorf("the ledger says %v disputed", d)
			}
		})
	}
}

// gh-ocdx concedes a stuck finding in a conversation: from then on it is
// disputed, not stuck, in the state file and in the ledger alike, and it
// still blocks and is never sent to the fix agent.
func TestAConcededStuckFindingIsDisputedOnce(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.env.WriteConfig(t, replyConfig)
	lf.findingRound(cacheBug)
	lf.findingRound(cacheBug)
	res := lf.run("--yes")
	wantCode(t, res, 3)
	wantContains(t, "stderr", res.Stderr, "stuck findings came back")

	th := lf.ownThreadOf(cacheBug.id())
	lf.gh.AddThreadReply(th.ID, "mona", "OWNER", "10 is the size we want; this is intended.")
	lf.fm.Script("talker", replyEnvelope("concede", "You're right, it is intended."))
	res = lf.env.Run(t, "reply", "31", "--yes")
	wantCode(t, res, 0)
	wantContains(t, "reply's stderr", res.Stderr, cacheBug.id()+" is disputed until someone dismisses it")
	show := lf.env.Run(t, "state", "show", fmt.Sprint(loopPR))
	wantCode(t, show, 0)
	wantContains(t, "state show after the concession", show.Stdout, "## Stuck findings (0)", "## Disputed findings (1)", "- "+cacheBug.id()+" (conceded in a conversation")

	fixes := lf.fix.Count()
	lf.findingRound(cacheBug)
	res = lf.run("--yes")
	wantCode(t, res, 3)
	wantContains(t, "stderr", res.Stderr, "conceded "+cacheBug.id())
	if lf.fix.Count() != fixes {
		t.Error("the disputed finding was sent to the fix agent")
	}
	rs := lf.gh.Reviews(repo, lf.number)
	led, err := posts.ParseLedger(rs[len(rs)-1].Body)
	if err != nil {
		t.Fatal(err)
	}
	if d, s := led.With(finding.StatusDisputed), led.With(finding.StatusStuck); fmt.Sprint(d) != "["+cacheBug.id()+"]" || len(s) != 0 {
		t.Errorf("the ledger says disputed %v, stuck %v; want %s disputed only", d, s, cacheBug.id())
	}
	rec := recorded(t, lf.env, loopPR)
	if len(rec.Stuck) != 0 {
		t.Errorf("the state file still has %s stuck: %+v", cacheBug.id(), rec.Stuck)
	}
	rd := last(rec).Rounds[len(last(rec).Rounds)-1]
	if fmt.Sprint(rd.DisputedIDs) != "["+cacheBug.id()+"]" || len(rd.StuckIDs) != 0 {
		t.Errorf("the round records stuck %v, disputed %v", rd.StuckIDs, rd.DisputedIDs)
	}
	show = lf.env.Run(t, "state", "show", fmt.Sprint(loopPR))
	wantCode(t, show, 0)
	wantContains(t, "state show", show.Stdout, "## Stuck findings (0)", "## Disputed findings (1)", "Disputed: "+cacheBug.id())
}
