package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/finding"
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

// TestKilledInsideTheFixAgentResumesWithTheSameCommand: the run is killed
// while the fix agent has an edit it did not commit yet. Running the same
// command again resumes that run's fix with its work in progress: the edit
// is committed, verified and pushed, and round 2 reviews it. A change in
// the tree that the fix did not make is still refused.
func TestKilledInsideTheFixAgentResumesWithTheSameCommand(t *testing.T) {
	t.Parallel()
	lf := killedInsideTheFix(t)

	// Someone else's change in the tree: not the fix's, so no resumption.
	testkit.WriteFiles(t, lf.repo.Clone, map[string]string{"notes.txt": "mine\n"})
	res := lf.run("--yes")
	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, "notes.txt", "the interrupted fix did not make")
	if err := os.Remove(filepath.Join(lf.repo.Clone, "notes.txt")); err != nil {
		t.Fatal(err)
	}

	sha := lf.scriptResumedFix()
	lf.approveRound()

	res = lf.run("--yes")

	wantCode(t, res, 0)
	wantContains(t, "stderr", res.Stderr, "resuming run", "interrupted inside its fix")
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2]" {
		t.Fatalf("comments %s, want the review, the resumed fix's report, round 2", k)
	}
	if got := lf.repo.RemoteOID(t, lf.repo.Head); got != sha {
		t.Errorf("the remote is at %s, want the resumed fix's commit %s", got, sha)
	}
}

// The PR's ledger holds what a machine needs to decide as the one that ran
// before: a finding an earlier run fixed and pushed that comes back is
// stuck, on the machine that fixed it and on a fresh one (an empty state
// directory: a new CI runner) alike.
func TestAFixedFindingThatComesBackIsStuckOnAnyMachine(t *testing.T) {
	t.Parallel()
	for _, fresh := range []bool{false, true} {
		t.Run(fmt.Sprintf("fresh state %t", fresh), func(t *testing.T) {
			t.Parallel()
			lf := newLoop(t, nil)
			lf.findingRound(cacheBug)
			lf.approveRound()
			wantCode(t, lf.run("--yes"), 0)
			if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2]" {
				t.Fatalf("first run: comments %s", k)
			}
			// The author pushes on top; the next run is on another head.
			testkit.WriteFiles(t, lf.repo.Clone, map[string]string{"README.md": "# widgets, cached\n"})
			testkit.Git(t, lf.repo.Clone, "commit", "--quiet", "-am", "docs")
			testkit.Git(t, lf.repo.Clone, "push", "--quiet", "origin", "HEAD")
			if fresh {
				lf.env.Set("OCDX_STATE_DIR", t.TempDir())
			}
			fixes := lf.fix.Count()
			lf.findingRound(cacheBug)

			res := lf.run("--yes")

			wantCode(t, res, 3)
			wantContains(t, "stderr", res.Stderr, "stuck", cacheBug.id())
			if lf.fix.Count() != fixes {
				t.Error("the finding that came back was sent to the fix agent again")
			}
		})
	}
}

// A fresh machine (an empty state directory: a new CI runner) reviews a
// push as the machine that ran before would: what changed since the head
// the last review read, with that review's open finding to judge, taken
// from the PR's ledger. Nobody's review is lost and nothing is reviewed
// twice.
func TestAFreshMachineReviewsIncrementallyFromTheLedger(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, func(pr *testkit.PR) { pr.Permission = "READ" }) // review only: the finding stays open
	lf.findingRound(cacheBug)
	wantCode(t, lf.run("--yes"), 3)
	testkit.WriteFiles(t, lf.repo.Clone, map[string]string{"later.go": "package cache // pushed after the review\n"})
	testkit.Git(t, lf.repo.Clone, "add", "later.go")
	testkit.Git(t, lf.repo.Clone, "commit", "-qm", "later")
	testkit.Git(t, lf.repo.Clone, "push", "-q", "origin", lf.repo.Head)
	lf.env.Set("OCDX_STATE_DIR", t.TempDir())
	calls := len(lf.fm.Requests("rev-a"))
	lf.approveRound()

	res := lf.run("--yes", "--json", "remaining")

	wantCode(t, res, 3) // nobody judged the open finding: it is still open
	reqs := lf.fm.Requests("rev-a")
	if len(reqs) <= calls {
		t.Fatal("no review")
	}
	task := string(reqs[calls].Body)
	wantContains(t, "the reviewer's task", task, "**Previous findings**", "Diff since "+lf.start[:7], "pushed after the review", cacheBug.id(), "cache.go:3", cacheBug.Title)
	if strings.Contains(task, "**Diff:**") {
		t.Error("the fresh machine sent the whole diff")
	}
	wantContains(t, "remaining", res.Stdout, cacheBug.id())
}

// killedInsideTheFix is a loop killed while its fix agent has an edit of
// cache.go it did not commit yet.
func killedInsideTheFix(t *testing.T) *loopFix {
	lf := newLoop(t, nil)
	lf.env.WriteConfig(t, `{"reviewerModels": ["openai/rev-a", "anthropic/rev-b"], "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "openai/fixer", "verify": ["true"]}`)
	lf.findingRound(cacheBug)
	lf.fm.Script("fixer",
		testkit.CallTools(testkit.FakeCall{Name: "edit_file", Args: `{"path":"cache.go","old_string":"var Size = 10","new_string":"var Size = 100"}`}),
		testkit.Stall(time.Minute, "never answered"))
	lf.killWhen(func() bool { return len(lf.fm.Requests("fixer")) >= 2 })
	return lf
}

// scriptResumedFix scripts the fix agent resumed after a kill inside its
// fix (its edit of cache.go uncommitted) to commit the edit and report it
// fixed, and returns the commit it will make: the same commit made in a
// clone with the run's identity and dates.
func (lf *loopFix) scriptResumedFix() string {
	t := lf.t
	t.Helper()
	// The commit the resumed fix makes, as the in-process run makes it.
	edited, err := os.ReadFile(filepath.Join(lf.repo.Clone, "cache.go"))
	if err != nil {
		t.Fatal(err)
	}
	twin := filepath.Join(t.TempDir(), "twin")
	testkit.Git(t, filepath.Dir(twin), "clone", "--quiet", "--branch", lf.repo.Head, lf.repo.Remote, twin)
	testkit.WriteFiles(t, twin, map[string]string{"cache.go": string(edited)})
	predict := exec.Command("git", "commit", "--quiet", "--no-verify", "-am", "fix: bound the cache")
	predict.Dir, predict.Env = twin, os.Environ() // the identity and dates of the in-process run
	if out, err := predict.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	sha := testkit.Git(t, twin, "rev-parse", "HEAD")
	result, _ := json.Marshal(finding.FixAnswer{Agent: "pr-fix", PRNumber: loopPR,
		FixedIssues:    []finding.FixedIssue{{FindingID: cacheBug.id(), CommitSha: sha, Description: "bounded"}},
		RejectedIssues: []finding.RejectedIssue{}, Commits: []finding.Commit{{Sha: sha, Message: "fix: bound the cache"}}})
	lf.fm.Script("fixer", testkit.CallTools(testkit.FakeCall{Name: "git_commit", Args: `{"message":"fix: bound the cache","paths":["cache.go"]}`}),
		testkit.Reply("BEGIN_JSON\n"+string(result)+"\nEND_JSON"))
	return sha
}

// A loop killed inside its fix, whose fix is then finished with
// `gh ocdx fix --continue`: the next loop counts the finding fixed by that
// push, reviews what changed since, and converges without sending the
// finding to the fix agent again.
func TestAFixFinishedByFixContinueCountsInTheNextLoop(t *testing.T) {
	t.Parallel()
	lf := killedInsideTheFix(t)

	sha := lf.scriptResumedFix()
	res := lf.env.Run(t, "fix", "--pr", fmt.Sprint(loopPR), "--continue", "--yes")
	wantCode(t, res, 0)
	if lf.repo.RemoteOID(t, lf.repo.Head) != sha {
		t.Fatalf("fix --continue did not push its commit\n%s", res.Stderr)
	}
	fixes := len(lf.fm.Requests("fixer"))
	lf.approveRound()

	res = lf.run("--yes", "--json", "outcome,remaining,rounds")

	wantCode(t, res, 0)
	if n := len(lf.fm.Requests("fixer")); n != fixes {
		t.Errorf("the finding fix --continue fixed was sent to the fix agent again (%d calls)", n-fixes)
	}
	wantContains(t, "stdout", res.Stdout, `"remaining": []`)
}
