package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

var cacheBug = modelFinding{Priority: "P1", Category: "quality", File: "cache.go", Line: line(3), Title: "Cache size is not bounded"}

func TestLoopConvergesInRoundOne(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.approveRound()

	res := lf.run("--yes")

	wantCode(t, res, 0)
	wantContains(t, "stderr", res.Stderr, "run ended, converged: consensus approve")
	if strings.Contains(res.Stderr, "converged — converged") {
		t.Errorf("the outcome is said twice:\n%s", res.Stderr)
	}
	if k := lf.kinds(); fmt.Sprint(k) != "[review:1]" {
		t.Fatalf("comments %v, want one review report", k)
	}
	body := lf.bodies()[0]
	wantContains(t, "review report", body, "round 1 of 3", "**Consensus:** `approve`", "2 of 2 succeeded", "reviewer-1", "comments-analyzer", "Token usage")
	wantContains(t, "stdout", res.Stdout, "converged", fmt.Sprintf("/%s/pull/%d", repo, loopPR), "## Round 1")
	if lf.fix.Count() != 0 {
		t.Error("nothing to fix, yet the fix model was called")
	}
	// The branch's PRs, the PR (preflight, reused by round 1, whose reviews
	// are the tag check), the head's code-scanning alerts and check runs
	// (evidence) and the review; the diff is read in the checkout.
	if got := fmt.Sprint(kindsOf(lf.gh.Requests())); got != "[graphql graphql code-scanning check-runs review]" {
		t.Errorf("GitHub requests %s", got)
	}
}

func kindsOf(rs []testkit.Request) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Kind)
	}
	return out
}

func TestLoopConvergesAfterOneFix(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	leaky := cacheBug
	leaky.Description = "Seen with key AKIAABCDEFGHIJKLMNOP in the logs:\n```\ndiff --git a/cache.go b/cache.go\n+var Size = 10\n```"
	lf.findingRound(leaky)
	lf.approveRound()

	res := lf.run("--yes")

	wantCode(t, res, 0)
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2]" {
		t.Fatalf("comments %s, want review, fix, review", k)
	}
	wantContains(t, "round 1 report", lf.bodies()[0], "P1 — critical (1)", cacheBug.id(), "Cache size is not bounded", "fixing 1 finding")
	// The finding is written out on its line, sanitised there.
	if rv := lf.gh.Reviews(repo, lf.number); len(rv[0].Comments) != 1 {
		t.Errorf("round 1's inline comments: %+v", rv[0].Comments)
	} else {
		wantContains(t, "round 1's inline comment", rv[0].Comments[0].Body, "[REDACTED]", "[DIFF REDACTED]")
	}
	head := lf.repo.RemoteOID(t, lf.repo.Head)
	if head == lf.start {
		t.Fatal("the fix was not pushed")
	}
	wantContains(t, "round 2 report", lf.bodies()[2], "round 2 of 3", "`approve`", head[:7])
	wantContains(t, "stdout", res.Stdout, "converged", "## Round 2", "1 fixed ("+cacheBug.id())
	// Round 1 adds the head check after the push and the fix report (a run
	// this process began needs no tag check); round 2 reads the PR again,
	// posts its review and resolves the fixed finding's thread (the head
	// gh-ocdx pushed has no CI results yet: its evidence on GitHub is not
	// read). The diffs are read in the checkout.
	if got := fmt.Sprint(kindsOf(lf.gh.Requests())); got != "[graphql graphql code-scanning check-runs review pr comment graphql review graphql]" {
		t.Errorf("GitHub requests %s", got)
	}
}

func TestLoopStuckFindingStopsEarly(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug)
	moved := cacheBug
	moved.Line, moved.Title = line(5), "Cache size not bounded" // same problem, reworded and moved by the fix
	lf.findingRound(moved)

	res := lf.run("--yes")

	wantCode(t, res, 3)
	// The outcome is said once, and it is not an error.
	if n := strings.Count(res.Stderr, "manual intervention required"); n != 1 || strings.Contains(res.Stderr, "error:") {
		t.Errorf("stderr should say the outcome once, without error: (%d times):\n%s", n, res.Stderr)
	}
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2]" {
		t.Fatalf("comments %s", k)
	}
	// One problem keeps its first ID (docs/architecture.md, Findings and
	// agreement): it is stuck as cacheBug, never under a second ID.
	wantContains(t, "round 2 report", lf.bodies()[2], "### Stuck findings", cacheBug.id())
	if rec := recorded(t, lf.env, loopPR); len(rec.Stuck) != 1 || rec.Stuck[0].ID != cacheBug.id() {
		t.Errorf("stuck in the state file: %+v, want %s", rec.Stuck, cacheBug.id())
	}
	show := lf.env.Run(t, "state", "show", "--pr", fmt.Sprint(loopPR), "--json")
	wantCode(t, show, 0)
	for what, s := range map[string]string{"round 2 report": lf.bodies()[2], "state": show.Stdout} {
		if strings.Contains(s, moved.id()) {
			t.Errorf("the %s names the problem under a second ID, %s", what, moved.id())
		}
	}
}

func TestLoopMaxRounds(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	for i := 1; i <= 3; i++ {
		lf.findingRound(modelFinding{Priority: "P2", Category: "testing", File: fmt.Sprintf("t%d.go", i), Title: fmt.Sprintf("Missing test %d", i)})
	}

	res := lf.run("--yes")

	wantCode(t, res, 3)
	wantContains(t, "stderr", res.Stderr, "max rounds reached")
	last := modelFinding{Priority: "P2", Category: "testing", File: "t3.go", Title: "Missing test 3"}
	wantContains(t, "stdout", res.Stdout, "## Remaining P0/P1/P2", last.id())
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2 fix:2 review:3]" {
		t.Fatalf("comments %s", k)
	}
}

func TestLoopPartialReviewers(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "approve"))
	lf.fm.Script("rev-b", testkit.Reply("I think it is fine."), testkit.Reply("Still fine, really."))
	lf.fm.Script("analyzer", analyzerReply())

	res := lf.run("--yes", "--json")

	wantCode(t, res, 0)
	wantContains(t, "review report", lf.bodies()[0], "partial", "1 of 2 succeeded; failed: reviewer-2", "converged (partial: reviewer-2 failed)")
	var out struct {
		Outcome, Label, Reason string
		Partial                []string
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil {
		t.Fatalf("--json: %v\n%s", err, res.Stdout)
	}
	if out.Outcome != "converged" || out.Label != "converged (partial: reviewer-2 failed)" || fmt.Sprint(out.Partial) != "[reviewer-2]" || !strings.HasPrefix(out.Reason, out.Label) {
		t.Errorf("--json says %+v; want the partial convergence said", out)
	}
}

func TestLoopAllReviewersFailed(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.fm.Script("rev-a", testkit.Reply("no envelope"), testkit.Reply("none again"))
	lf.fm.Script("rev-b", testkit.Garbage("{not json"), testkit.Garbage("{not json"), testkit.Garbage("{not json"), testkit.Garbage("{not json"))
	lf.fm.Script("analyzer", analyzerReply())

	res := lf.run("--yes")

	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, "all 2 reviewers failed")
	if k := fmt.Sprint(lf.kinds()); k != "[review:1]" {
		t.Fatalf("comments %s, want the failure report only", k)
	}
	wantContains(t, "failure report", lf.bodies()[0], "all 2 failed")
	if lf.fix.Count() != 0 {
		t.Error("no fix may follow a failed review")
	}
}

func TestLoopAnalyzerFailed(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "request_changes", cacheBug))
	lf.fm.Script("rev-b", reviewerReply("reviewer-2", "approve"))
	lf.fm.Script("analyzer", testkit.Fail(400, ""))

	res := lf.run("--yes")

	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, "comments analyzer failed")
	if n := len(lf.bodies()); n != 0 {
		t.Fatalf("%d comments posted; before the first comment a failure is only reported to the user", n)
	}
}

func threadPR(association, body string) func(*testkit.PR) {
	return func(pr *testkit.PR) {
		pr.Threads = []testkit.Thread{
			{Comments: []testkit.ThreadComment{{ID: "PRRC_h1", DatabaseID: "4242", Body: body, Login: "hubot", Association: association, Path: "cache.go", Line: 3}}},
			{Resolved: true, Comments: []testkit.ThreadComment{{Body: "nit", Login: "hubot", Association: "MEMBER", Path: "cache.go", Line: 1}}},
			{Comments: []testkit.ThreadComment{{Body: "<!-- pr-review-loop-marker --> ours", Login: testkit.Login, Association: "NONE", Path: "cache.go"}}},
		}
	}
}

func TestLoopUnresolvedThreadWithoutCodeFindings(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, threadPR("MEMBER", "This must be bounded.\nxoxb-1234-secret-token"))
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "approve"))
	lf.fm.Script("rev-b", reviewerReply("reviewer-2", "approve"))
	lf.fm.Script("analyzer", analyzerReply("THREAD-4242"))

	res := lf.run("--yes")

	wantCode(t, res, 3)
	wantContains(t, "stderr", res.Stderr, "manual resolution required")
	body := lf.bodies()[0]
	wantContains(t, "review report", body, "Unresolved review threads (1 of 2)", "THREAD-4242", "**P0**", "@hubot", "bound on the cache")
	if lf.fix.Count() != 0 {
		t.Error("thread findings are never sent to the fix agent")
	}
}

func TestLoopUnresolvedThreadWithCodeFindings(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, threadPR("CONTRIBUTOR", "Maybe bound this?"))
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "request_changes", cacheBug))
	lf.fm.Script("rev-b", reviewerReply("reviewer-2", "approve"))
	lf.fm.Script("analyzer", analyzerReply("THREAD-4242"))

	res := lf.run("--yes", "--json", "remaining")

	wantCode(t, res, 3)
	wantContains(t, "stderr", res.Stderr, "manual resolution required")
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1]" {
		t.Fatalf("comments %s, want the review and the fix report, then a stop", k)
	}
	// What the fix pushed is not left: only the thread is.
	var out struct{ Remaining []struct{ ID string } }
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil {
		t.Fatalf("--json: %v\n%s", err, res.Stdout)
	}
	for _, f := range out.Remaining {
		if f.ID == cacheBug.id() {
			t.Errorf("remaining lists %s, which the fix pushed: %+v", f.ID, out.Remaining)
		}
	}
	if lf.repo.RemoteOID(t, lf.repo.Head) == lf.start {
		t.Error("the code finding should have been fixed and pushed")
	}
	fix := lf.bodies()[1]
	if strings.Contains(shown(fix), "THREAD-") { // its ledger remembers the thread, hidden
		t.Errorf("the fix report mentions a thread finding:\n%s", fix)
	}
}

func TestLoopReviewOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(*testkit.PR)
	}{
		{"fork", func(pr *testkit.PR) { pr.IsCrossRepository, pr.HeadRepo, pr.Permission = true, "mona/widgets", "READ" }},
		{"read permission", func(pr *testkit.PR) { pr.Permission = "READ" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lf := newLoop(t, tc.edit)
			lf.findingRound(cacheBug)

			res := lf.run("--yes")

			wantCode(t, res, 3)
			wantContains(t, "stderr", res.Stderr, "review only")
			if k := fmt.Sprint(lf.kinds()); k != "[review:1]" {
				t.Fatalf("comments %s", k)
			}
			if lf.fix.Count() != 0 || lf.repo.RemoteOID(t, lf.repo.Head) != lf.start {
				t.Error("a review-only PR must not be fixed or pushed")
			}
		})
	}
}

func TestLoopRuleZero(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, func(pr *testkit.PR) {
		pr.Reviews = []testkit.Review{{State: "CHANGES_REQUESTED", Login: "boss", Association: "MEMBER"}, {State: "APPROVED", Login: "pal", Association: "CONTRIBUTOR"}}
	})
	lf.approveRound()

	res := lf.run("--yes")

	wantCode(t, res, 3)
	body := lf.bodies()[0]
	wantContains(t, "review report", body, "`request_changes`", "changes requested by @boss (MEMBER)")
	wantContains(t, "stderr", res.Stderr, "changes requested by @boss")
}

// A long-lived PR's review threads are all read, page after page, up to
// 5,000: resolved ones never block, an unresolved one deep in the list
// does; past 5,000 the report says what was not read, and the run does
// not converge on threads it never read.
func TestLoopReadsEveryReviewThread(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		unresolved int // the index of the one unresolved thread, or -1
		code       int
	}{{"all resolved", -1, 3}, {"one unresolved", 4500, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lf := newLoop(t, func(pr *testkit.PR) {
				for i := range 5001 {
					pr.Threads = append(pr.Threads, testkit.Thread{Resolved: i != tc.unresolved,
						Comments: []testkit.ThreadComment{{Body: fmt.Sprintf("thread %d", i), Login: "hubot", Association: "NONE", Path: "cache.go", Line: 3}}})
				}
			})
			lf.fm.Script("rev-a", reviewerReply("reviewer-1", "approve"))
			lf.fm.Script("rev-b", reviewerReply("reviewer-2", "approve"))
			lf.fm.Script("analyzer", analyzerReply())

			res := lf.run("--yes")

			wantCode(t, res, tc.code)
			wantContains(t, "review report", lf.bodies()[0], "More than 5,000 review threads")
			if tc.unresolved < 0 {
				wantContains(t, "stderr", res.Stderr, "only the first 5,000 were read")
			}
			if tc.unresolved >= 0 {
				wantContains(t, "review report", lf.bodies()[0], "Unresolved review threads (1 of 5000)")
			}
			if lf.fix.Count() != 0 {
				t.Error("nothing was to be fixed")
			}
		})
	}
}

func TestLoopPreflightStops(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		edit  func(*testkit.PR)
		setup func(*loopFix)
		args  []string
		code  int
		want  string
	}{
		{name: "closed", edit: func(pr *testkit.PR) { pr.State = "CLOSED" }, args: []string{"--pr", "31"}, code: 1, want: "is closed"},
		{name: "merged", edit: func(pr *testkit.PR) { pr.State = "MERGED" }, args: []string{"--pr", "31"}, code: 1, want: "is merged"},
		{name: "wrong branch", setup: func(lf *loopFix) { testkit.Git(lf.t, lf.repo.Clone, "checkout", "--quiet", "main") }, args: []string{"--pr", "31"}, code: 1, want: "gh pr checkout 31"},
		{name: "dirty tree", setup: func(lf *loopFix) { testkit.WriteFiles(lf.t, lf.repo.Clone, map[string]string{"cache.go": "changed\n"}) }, code: 1, want: "uncommitted changes"},
		{name: "no PR for the branch", setup: func(lf *loopFix) { testkit.Git(lf.t, lf.repo.Clone, "checkout", "--quiet", "-b", "other") }, code: 1, want: "no open pull request"},
		{name: "two PRs for the branch", setup: func(lf *loopFix) {
			lf.gh.AddPR(repo, testkit.PR{Number: 32, Title: "Same branch again", HeadRef: lf.repo.Head, Remote: lf.repo.Remote})
		}, code: 1, want: "#32"},
		{name: "unknown flag", args: []string{"--force"}, code: 2, want: "unknown flag"},
		{name: "bad --pr", args: []string{"--pr", "#abc"}, code: 2, want: "invalid pull request"},
		{name: "extra argument", args: []string{"31", "32"}, code: 2, want: "unexpected argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lf := newLoop(t, tc.edit)
			if tc.setup != nil {
				tc.setup(lf)
			}
			args := tc.args
			if tc.code != 2 || tc.name == "no PR for the branch" || tc.name == "two PRs for the branch" {
				args = append(args, "--yes")
			}
			res := lf.run(args...)
			wantCode(t, res, tc.code)
			wantContains(t, "stderr", res.Stderr, tc.want)
			if n := len(lf.bodies()); n != 0 {
				t.Errorf("%d comments posted", n)
			}
			if tc.code == 2 && tc.name != "no PR for the branch" && tc.name != "two PRs for the branch" && lf.gh.Count("") != 0 {
				t.Errorf("a usage error must send no request, sent %v", kindsOf(lf.gh.Requests()))
			}
		})
	}
}

func TestLoopNeedsYesWithoutTerminal(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	res := lf.run()
	wantCode(t, res, 2)
	wantContains(t, "stderr", res.Stderr, "--yes")
	if lf.gh.Count("") != 0 {
		t.Error("no request before the usage check")
	}
}

func TestLoopCommentPost502DoesNotDuplicate(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.approveRound()
	lf.gh.Fail(testkit.Fault{Kind: "review", Status: 502, Apply: true})

	res := lf.run("--yes")

	wantCode(t, res, 0)
	if n := len(lf.bodies()); n != 1 {
		t.Fatalf("%d comments, want exactly one despite the 502", n)
	}
	wantContains(t, "stderr", res.Stderr, "but it is on the PR")
}

func TestLoopDryRun(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	script := func() {
		lf.fm.Script("rev-a", reviewerReply("reviewer-1", "request_changes", modelFinding{Priority: "P0", Category: "security", File: "cache.go", Line: line(3),
			Title: "Token in code", Description: "The key ghp_abcdefghijklmnopqrstuvwxyz0123456789 is committed."}))
		lf.fm.Script("rev-b", reviewerReply("reviewer-2", "approve"))
		lf.fm.Script("analyzer", analyzerReply())
	}
	script()

	res := lf.run("--dry-run", "--json")

	wantCode(t, res, 0)
	wantContains(t, "stdout", res.Stdout, `"dryRun": true`, `"outcome": "would-fix"`, "[REDACTED]", `"wouldFix"`,
		`"wouldPost": "<!-- pr-review-loop-marker -->`, // HTML as it is, not \u003c
		fmt.Sprintf(`"pr": {
    "number": %d,
    "repository": "octo/widgets",`, loopPR))
	if secretPattern.MatchString(res.Stdout) {
		t.Errorf("the dry run shows a secret:\n%s", res.Stdout)
	}
	// gh's output flags: fields, a jq filter, a template.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--json", "outcome"}, "{\n  \"outcome\": \"would-fix\"\n}\n"},
		{[]string{"--jq", ".rounds[0].counts.p0"}, "1\n"},
		{[]string{"--template", `{{.pr.number}} {{.outcome}}{{"\n"}}`}, fmt.Sprintf("%d would-fix\n", loopPR)},
	} {
		script()
		res := lf.run(append([]string{"--dry-run"}, tc.args...)...)
		if res.Code != 0 || res.Stdout != tc.want {
			t.Errorf("%s: exit %d, stdout %q, want %q\n%s", tc.args, res.Code, res.Stdout, tc.want, res.Stderr)
		}
	}
	if len(lf.bodies()) != 0 || lf.fix.Count() != 0 || lf.gh.Count("comments") != 0 {
		t.Error("a dry run must not post, fix or look for comments")
	}
}

func TestLoopKilledAfterFirstCommentResumes(t *testing.T) {
	t.Parallel()
	for name, sig := range map[string]os.Signal{"killed": os.Kill, "ctrl-c": os.Interrupt} {
		t.Run(name, func(t *testing.T) { testInterruptedRunResumes(t, sig) })
	}
}

// testInterruptedRunResumes stops a run with sig while it fixes round 1,
// after its review report was posted, then runs it again.
func testInterruptedRunResumes(t *testing.T, sig os.Signal) {
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug)
	lf.fix.Mu.Lock()
	lf.fix.Block = make(chan struct{})
	lf.fix.Mu.Unlock()

	c := exec.Command(testkit.Binary(t), "review-loop", "--yes")
	c.Dir, c.Env = lf.env.Dir, lf.env.List()
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(lf.bodies()) == 0 || lf.fix.Count() == 0 {
		if time.Now().After(deadline) {
			c.Process.Kill()
			c.Wait()
			t.Fatalf("the run never reached its fix phase; stderr:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := c.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err := c.Wait()
	if sig == os.Interrupt {
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 130 {
			t.Fatalf("Ctrl-C: %v, want exit 130; stderr:\n%s", err, stderr.String())
		}
	}
	first := lf.bodies()[0]
	lf.fix.Mu.Lock()
	close(lf.fix.Block)
	lf.fix.Block = nil
	lf.fix.Mu.Unlock()
	lf.approveRound()

	res := lf.run("--yes")

	wantCode(t, res, 0)
	wantContains(t, "stderr", res.Stderr, "resuming run")
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2]" {
		t.Fatalf("comments %s: the resumed run must not post round 1's review again", k)
	}
	runTag := regexp.MustCompile(`ocdx:run=(\S+)`)
	for _, b := range lf.bodies() {
		if runTag.FindStringSubmatch(b)[1] != runTag.FindStringSubmatch(first)[1] {
			t.Errorf("a comment of another run: the resumed run must keep its ID\n%s", b)
		}
	}
	if got := lf.fm.Requests("rev-a"); len(got) != 2 {
		t.Errorf("reviewer-1 was asked %d times, want 2 (round 1 once, round 2 once): a resumed round is not reviewed again", len(got))
	}
}

func TestLoopGitHubFailureAfterFirstCommentPostsFinal(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug)
	lf.fix.OnRequest = func() { lf.gh.Fail(testkit.Fault{Kind: "graphql", Status: 403}) } // round 2 cannot read the PR

	res := lf.run("--pr", "31", "--yes")

	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, "HTTP 403")
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 final:2]" {
		t.Fatalf("comments %s, want one final comment after the failure", k)
	}
	wantContains(t, "final comment", lf.bodies()[2], "review-loop stopped in round 2", "HTTP 403")
}

func TestLoopVerificationFailsAfterRetries(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.env.WriteConfig(t, `{
  "reviewerModels": ["openai/rev-a"],
  "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "ollama/fixer",
  "verify": ["true", "false"]
}`)
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "request_changes", cacheBug))
	lf.fm.Script("analyzer", analyzerReply())

	res := lf.run("--yes")

	wantCode(t, res, 3)
	wantContains(t, "stderr", res.Stderr, "verification failed")
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 final:1]" {
		t.Fatalf("comments %s, want the review report, a fix report, the final comment", k)
	}
	wantContains(t, "fix report", lf.bodies()[1], "Verification failed after 3 attempts: nothing was pushed", "### Fixed (1)", cacheBug.id(),
		"| `true` | ✓ passed | 0 |", "| `false` | ✗ failed | 1 |")
	wantContains(t, "final comment", lf.bodies()[2], `"false" exited 1`)
	if lf.repo.RemoteOID(t, lf.repo.Head) != lf.start {
		t.Error("an unverified fix must not be pushed")
	}
}

// A loop run with state directory A, then one of the same PR with an empty
// state directory B (a fresh CI runner): B knows the stuck finding from the
// ledger of A's reports, never sends it to the fix agent, and says where
// its record came from.
func TestLoopRemembersStuckFindingsOnAnotherMachine(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug)
	lf.findingRound(cacheBug)
	wantCode(t, lf.run("--yes"), 3)
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2]" {
		t.Fatalf("first machine's comments %s", k)
	}

	lf.env.Set("OCDX_STATE_DIR", t.TempDir())
	lf.findingRound(cacheBug)
	res := lf.run("--yes")

	wantCode(t, res, 3)
	wantContains(t, "stderr", res.Stderr, "this machine had no record of run", "manual intervention required: stuck")
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2 review:1]" {
		t.Fatalf("comments %s: the stuck finding must not be fixed again", k)
	}
	show := lf.env.Run(t, "state", "show", fmt.Sprint(loopPR))
	wantCode(t, show, 0)
	wantContains(t, "state show", show.Stdout, "Recorded on another machine; rebuilt from PR comment https://", cacheBug.id())
}

// gh ocdx dismiss posts one /ocdx dismiss comment; the same IDs again post
// nothing; a malformed ID is a usage error before any request.
func TestDismissPostsOnce(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.gh.SetPermission(repo, testkit.Login, "admin")
	lf.raised("SEC-b0bf205b", "QUAL-0badf00d")

	res := lf.env.Run(t, "dismiss", "31", "SEC-b0bf205b", "QUAL-0badf00d")
	wantCode(t, res, 0)
	wantContains(t, "stderr", res.Stderr, "✓ Dismissed on octo/widgets#31: SEC-b0bf205b, QUAL-0badf00d")
	again := lf.env.Run(t, "dismiss", "31", "SEC-b0bf205b")
	wantCode(t, again, 0)
	wantContains(t, "stderr", again.Stderr, "! Already dismissed")
	bad := lf.env.Run(t, "dismiss", "31", "SEC-b0bf205b", "rm")
	wantCode(t, bad, 2)

	cs := lf.dismissals()
	if len(cs) != 1 || !strings.HasPrefix(cs[0].Body, "/ocdx dismiss SEC-b0bf205b QUAL-0badf00d\n") {
		t.Fatalf("want one dismissal comment, got %+v", cs)
	}
}

// review-pr on a PR a loop reviewed at an ancestor of its head gives the
// model only what changed since; --full the whole diff.
func TestReviewPRReReviewsWhatChangedSinceTheLoop(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.approveRound()
	wantCode(t, lf.run("--yes"), 0)
	testkit.WriteFiles(t, lf.repo.Clone, map[string]string{"later.go": "package cache // pushed after the review\n"})
	testkit.Git(t, lf.repo.Clone, "add", "later.go")
	testkit.Git(t, lf.repo.Clone, "commit", "-qm", "later")
	testkit.Git(t, lf.repo.Clone, "push", "-q", "origin", lf.repo.Head)

	res := lf.env.Run(t, "review-pr", "31", "--context-only")
	wantCode(t, res, 0)
	wantContains(t, "task", res.Stdout, "**Diff since "+lf.start[:7]+"**", "+package cache // pushed after the review")
	full := lf.env.Run(t, "review-pr", "31", "--context-only", "--full")
	wantCode(t, full, 0)
	if strings.Contains(full.Stdout, "**Diff since") || !strings.Contains(full.Stdout, "**Diff:**") {
		t.Errorf("--full must give the whole diff:\n%s", full.Stdout)
	}
}

// A run on a head already reviewed to convergence makes no model call and
// posts nothing, on the machine that reviewed it and on a fresh one: it says
// so and decides again from what the PR shows now (a new human thread
// blocks it); --full reviews it again.
func TestLoopOnAnAlreadyConvergedHeadPostsNothing(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.approveRound()
	wantCode(t, lf.run("--yes"), 0)
	posts, calls := len(lf.bodies()), len(lf.fm.Requests("rev-a"))

	res := lf.run("--yes", "--json", "outcome,reason")

	wantCode(t, res, 0)
	wantContains(t, "stdout", res.Stdout, `"outcome": "converged"`, "already reviewed at "+lf.start[:7])
	if len(lf.bodies()) != posts || len(lf.fm.Requests("rev-a")) != calls {
		t.Fatalf("a second run on the same head posted %d comment(s) and made %d model call(s)", len(lf.bodies())-posts, len(lf.fm.Requests("rev-a"))-calls)
	}

	// A fresh machine (a new CI runner) knows it from the PR's ledger.
	lf.env.Set("OCDX_STATE_DIR", t.TempDir())
	res = lf.run("--yes")
	wantCode(t, res, 0)
	wantContains(t, "stderr", res.Stderr, "already reviewed at "+lf.start[:7])
	if len(lf.bodies()) != posts || len(lf.fm.Requests("rev-a")) != calls {
		t.Fatal("a fresh machine reviewed the converged head again")
	}

	lf.gh.AddThread(repo, loopPR, testkit.Thread{Comments: []testkit.ThreadComment{{DatabaseID: "7001", Body: "Why 10?", Login: "hubot", Association: "MEMBER", Path: "cache.go", Line: 3}}})
	res = lf.run("--yes")
	wantCode(t, res, 3)
	wantContains(t, "stderr", res.Stderr, "already reviewed at", "unresolved review thread")
	if len(lf.bodies()) != posts || len(lf.fm.Requests("rev-a")) != calls {
		t.Fatal("the new thread was judged with a model call or a post")
	}

	lf.approveRound()
	lf.fm.Script("analyzer", analyzerReply("THREAD-7001"))
	res = lf.run("--yes", "--full")
	if len(lf.fm.Requests("rev-a")) == calls {
		t.Fatalf("--full did not review again\n%s", res.Stderr)
	}
}

// dismiss on a PR no review has raised anything on yet exits 1 and posts
// nothing, as restore does: a mistyped ID is not a public "Dismissed".
func TestDismissBeforeAnyReviewPostsNothing(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.gh.SetPermission(repo, testkit.Login, "admin")

	res := lf.env.Run(t, "dismiss", "31", "QUAL-deadbeef")

	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, "QUAL-deadbeef: no review on PR #31 raised it", "nothing was posted")
	if cs := lf.gh.Comments(repo, loopPR); len(cs) != 0 {
		t.Fatalf("posted %+v", cs)
	}
}
