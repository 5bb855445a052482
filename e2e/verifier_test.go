package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/report"
)

// The verifier (docs/architecture.md, The verifier): the findings a single
// reviewer raised are checked against the code by another model; what it
// refutes, with evidence, is shown but neither posted inline, counted,
// fixed nor blocking, until someone with write permission restores it.

// newVerifierLoop is newLoop with openai/checker as the verifierModel.
func newVerifierLoop(t *testing.T) *loopFix {
	t.Helper()
	lf := newLoop(t, nil)
	lf.env.WriteConfig(t, `{
  "reviewerModels": ["openai/rev-a", "anthropic/rev-b"],
  "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "ollama/fixer",
  "verifierModel": "openai/checker",
  "prices": {"openai/checker": {"input": 1, "output": 4}},
  "verify": ["true"]
}`)
	return lf
}

const sizeEvidence = "cache.go:3 `var Size = 10`: the size is a fixed bound"

func refute(id string) testkit.VerifierVerdict {
	return testkit.VerifierVerdict{ID: id, Verdict: "refuted", Evidence: sizeEvidence}
}

// reviews are the reviews gh-ocdx posted (a round's report with its inline
// comments).
func (lf *loopFix) reviews() []testkit.PostedReview { return lf.gh.Reviews(repo, lf.number) }

// A P1 only reviewer-1 raised goes to the verifier, which refutes it: the
// run converges without a fix, the finding has no inline comment, and the
// review lists it under "Refuted by the verifier" with the evidence. The
// verifier's tokens are reported like any role's: the report, --json and
// the state file.
func TestVerifierRefutedFindingIsNotPostedOrBlocking(t *testing.T) {
	t.Parallel()
	lf := newVerifierLoop(t)
	lf.findingRound(cacheBug)
	lf.fm.Script("checker", testkit.VerifierReply(refute(cacheBug.id())))

	res := lf.run("--yes", "--json", "outcome,rounds")

	wantCode(t, res, 0)
	if lf.fix.Count() != 0 {
		t.Errorf("the refuted finding was sent to the fix agent")
	}
	reqs := lf.fm.Requests("checker")
	if len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), cacheBug.id()) {
		t.Fatalf("the verifier was not asked about %s", cacheBug.id())
	}
	rs := lf.reviews()
	if len(rs) != 1 {
		t.Fatalf("want one review, got %d", len(rs))
	}
	for _, c := range rs[0].Comments {
		if strings.Contains(c.Body, cacheBug.id()) {
			t.Errorf("the refuted finding was posted inline: %+v", c)
		}
	}
	wantContains(t, "the review", rs[0].Body, "**Consensus:** `approve` · P0 0 · P1 0", "### Refuted by the verifier (1)",
		"`"+cacheBug.id()+"` Cache size is not bounded", "_Evidence:_ cache.go:3 `var Size = 10`", "/ocdx restore <ID>",
		"| verifier | `openai/checker` | 1 of 1 refuted |", "verifier ")
	var out struct {
		Outcome string               `json:"outcome"`
		Rounds  []report.RoundResult `json:"rounds"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil {
		t.Fatalf("--json: %v\n%s", err, res.Stdout)
	}
	rr := out.Rounds[0]
	if len(rr.Findings) != 0 || len(rr.Refuted) != 1 || rr.Refuted[0].Status != "refuted" || rr.Refuted[0].Evidence != sizeEvidence {
		t.Errorf("--json: findings %+v, refuted %+v", rr.Findings, rr.Refuted)
	}
	if rr.Verifier == nil || rr.Verifier.Usage.Output == 0 || rr.Usage["verifier"] != rr.Verifier.Usage || rr.Costs["verifier"] <= 0 {
		t.Errorf("--json: the verifier's tokens and cost are not reported: %+v, usage %v, costs %v", rr.Verifier, rr.Usage, rr.Costs)
	}
	rec := recorded(t, lf.env, loopPR)
	found := false
	for _, u := range last(rec).Rounds[0].Usage {
		found = found || u.Role == "verifier" && u.Model == "openai/checker" && u.Output > 0
	}
	if !found {
		t.Errorf("the state file has no verifier usage: %+v", last(rec).Rounds[0].Usage)
	}
	show := lf.env.Run(t, "state", "show", "--pr", "31")
	wantContains(t, "state show", show.Stdout, "Tokens of verifier: ", ", estimated ~$")
}

// A P0, a SEC- finding and a thread are never sent to the verifier, and an
// answer about them, or about an ID it was not sent, changes nothing: a
// hostile file it reads cannot clear a blocker. --verifier names the
// verifier for one run.
func TestVerifierNeverJudgesP0SecOrThreads(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	p0 := modelFinding{Priority: "P0", Category: "quality", File: "cache.go", Line: line(5), Title: "Get never reads the cache"}
	sec := modelFinding{Priority: "P2", Category: "security", File: "README.md", Line: line(1), Title: "Keys are logged"}
	p3 := modelFinding{Priority: "P3", Category: "docs", File: "cache.go", Line: line(3), Title: "Document the size"}
	lf.gh.AddThread(repo, loopPR, testkit.Thread{Comments: []testkit.ThreadComment{{DatabaseID: "7001", Body: "Why 10?", Login: "hubot", Association: "MEMBER", Path: "cache.go", Line: 3}}})
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "needs_major_work", p0, sec, p3))
	lf.fm.Script("rev-b", reviewerReply("reviewer-2", "approve"))
	lf.fm.Script("analyzer", analyzerReply("THREAD-7001"))
	lf.fm.Script("checker", testkit.VerifierReply(refute(p0.id()), refute(sec.id()), refute("THREAD-7001"), refute("QUAL-0badf00d"),
		testkit.VerifierVerdict{ID: p3.id(), Verdict: "confirmed", Evidence: "cache.go:3 `var Size = 10` has no comment"}))

	res := lf.run("--dry-run", "--verifier", "openai/checker", "--json", "rounds,wouldPost")

	wantCode(t, res, 0)
	reqs := lf.fm.Requests("checker")
	if len(reqs) != 1 {
		t.Fatalf("want one verifier call, got %d", len(reqs))
	}
	body := string(reqs[0].Body)
	if !strings.Contains(body, p3.id()) {
		t.Errorf("the P3 finding only reviewer-1 raised was not sent")
	}
	for _, id := range []string{p0.id(), sec.id(), "THREAD-7001"} {
		if strings.Contains(body, id) {
			t.Errorf("%s was sent to the verifier", id)
		}
	}
	var out struct {
		Rounds    []report.RoundResult `json:"rounds"`
		WouldPost string               `json:"wouldPost"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil {
		t.Fatalf("--json: %v\n%s", err, res.Stdout)
	}
	rr := out.Rounds[0]
	if c := rr.Counts; c.P0 != 1 || c.P2 != 1 || c.P3 != 1 || len(rr.Refuted) != 0 {
		t.Errorf("counts %+v, refuted %v: a verdict on what was not sent changed them", c, rr.Refuted)
	}
	if strings.Contains(out.WouldPost, "Refuted by the verifier") {
		t.Errorf("the report lists refuted findings:\n%s", out.WouldPost)
	}
}

// A verifier that fails leaves the findings as the reviewers raised them,
// and the report says so.
func TestVerifierFailureChangesNothing(t *testing.T) {
	t.Parallel()
	lf := newVerifierLoop(t)
	lf.findingRound(cacheBug)
	lf.fm.Default("checker", testkit.Reply("I looked, it is fine."))

	res := lf.run("--dry-run", "--json", "rounds,wouldPost,wouldComment")

	wantCode(t, res, 0)
	if len(lf.fm.Requests("checker")) == 0 {
		t.Fatal("the verifier was not called")
	}
	var out struct {
		Rounds       []report.RoundResult    `json:"rounds"`
		WouldPost    string                  `json:"wouldPost"`
		WouldComment []struct{ Body string } `json:"wouldComment"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil {
		t.Fatalf("--json: %v\n%s", err, res.Stdout)
	}
	rr := out.Rounds[0]
	if rr.Counts.P1 != 1 || len(rr.Refuted) != 0 || rr.Verifier == nil || rr.Verifier.OK {
		t.Errorf("counts %+v, refuted %v, verifier %+v", rr.Counts, rr.Refuted, rr.Verifier)
	}
	wantContains(t, "the report", out.WouldPost, "**Verifier:** `openai/checker` failed", "stand as the reviewers raised them", "| verifier | `openai/checker` | failed: ")
	if len(out.WouldComment) != 1 || !strings.Contains(out.WouldComment[0].Body, cacheBug.id()) {
		t.Errorf("the finding is not posted inline: %+v", out.WouldComment)
	}
}

// gh ocdx restore, by someone with write permission, overrules the
// verifier: the next run on the same head reviews it again, and the
// restored finding counts and is fixed though no reviewer raised it again
// (the verifier is not asked again). It checks the permission and that the
// ID was refuted before it posts.
func TestVerifierRestoreByAWriterCountsAgain(t *testing.T) {
	t.Parallel()
	lf := newVerifierLoop(t)
	lf.findingRound(cacheBug)
	lf.fm.Script("checker", testkit.VerifierReply(refute(cacheBug.id())))
	wantCode(t, lf.run("--yes"), 0)
	calls := len(lf.fm.Requests("checker"))

	lf.gh.SetPermission(repo, testkit.Login, "triage")
	res := lf.env.Run(t, "restore", "31", cacheBug.id())
	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, "nothing was posted", "only people with write permission on "+repo+" can restore findings")
	lf.gh.SetPermission(repo, testkit.Login, "write")
	res = lf.env.Run(t, "restore", "31", "QUAL-0badf00d")
	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, "QUAL-0badf00d: not refuted by the verifier")
	res = lf.env.Run(t, "restore", "31", cacheBug.id())
	wantCode(t, res, 0)
	again := lf.env.Run(t, "restore", "31", cacheBug.id())
	wantContains(t, "stderr", again.Stderr, "! Already restored")
	cs := lf.gh.Comments(repo, loopPR)
	if n := strings.Count(fmt.Sprint(cs), "/ocdx restore "+cacheBug.id()); n != 1 {
		t.Fatalf("want one restore comment, got %d: %+v", n, cs)
	}

	lf.approveRound()
	lf.approveRound()
	res = lf.run("--yes")

	wantCode(t, res, 0)
	if strings.Contains(res.Stderr, "already reviewed") {
		t.Fatalf("the restore did not bring a review:\n%s", res.Stderr)
	}
	if lf.fix.Count() == 0 {
		t.Errorf("the restored finding was not fixed")
	}
	if n := len(lf.fm.Requests("checker")); n != calls {
		t.Errorf("the verifier was asked %d more time(s) about a restored finding", n-calls)
	}
	rs := lf.reviews()
	wantContains(t, "the review after the restore", rs[1].Body, "P1 1", "`"+cacheBug.id()+"` Cache size is not bounded")
	if strings.Contains(rs[1].Body, "Refuted by the verifier") {
		t.Errorf("the restored finding is still listed as refuted:\n%s", rs[1].Body)
	}
}

// A /ocdx restore comment counts on a machine that has no record of the
// refutation: raised again, the finding is not sent to the verifier and
// counts. One by someone without write permission is refused with one
// answer, however many runs see it, and the finding stays refuted.
func TestVerifierRestoreCommandOnAnyMachine(t *testing.T) {
	t.Parallel()
	lf := newVerifierLoop(t)
	lf.gh.SetPermission(repo, "pat", "read")
	lf.gh.AddCommentBy(repo, loopPR, "pat", "MEMBER", "/ocdx restore "+cacheBug.id())
	lf.findingRound(cacheBug)
	lf.fm.Script("checker", testkit.VerifierReply(refute(cacheBug.id())))
	wantCode(t, lf.run("--yes"), 0)
	answers := lf.answers()
	if len(answers) != 1 {
		t.Fatalf("want one answer to the refused restore, got %q", answers)
	}
	wantContains(t, "the answer", answers[0], "@pat", "`/ocdx restore`", cacheBug.id(), "only people with write permission on "+repo+" can restore findings (pat has read)")

	// Another machine, --full: still refused, not answered twice.
	lf.env.Set("OCDX_STATE_DIR", t.TempDir())
	lf.findingRound(cacheBug)
	lf.fm.Script("checker", testkit.VerifierReply(refute(cacheBug.id())))
	wantCode(t, lf.run("--yes", "--full"), 0)
	if a := lf.answers(); len(a) != 1 {
		t.Fatalf("want one answer over two runs, got %q", a)
	}
	calls := len(lf.fm.Requests("checker"))

	// A writer restores it; a third machine counts it.
	lf.gh.SetPermission(repo, "carol", "write")
	lf.gh.AddCommentBy(repo, loopPR, "carol", "CONTRIBUTOR", "/ocdx restore "+cacheBug.id())
	lf.env.Set("OCDX_STATE_DIR", t.TempDir())
	lf.findingRound(cacheBug)
	lf.approveRound()
	res := lf.run("--yes")

	wantCode(t, res, 0)
	if n := len(lf.fm.Requests("checker")); n != calls {
		t.Errorf("the verifier was asked about a restored finding")
	}
	if lf.fix.Count() == 0 {
		t.Errorf("the restored finding was not fixed")
	}
	if a := lf.answers(); len(a) != 1 {
		t.Errorf("an honoured restore was answered: %q", a)
	}
}

// A --verifier that is not provider/model is a usage error: exit 2 before
// any request; one whose key is not set is an error before any request.
func TestVerifierFlagBadValueExits2(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)

	res := lf.run("--yes", "--verifier", "gpt-4.1")

	wantCode(t, res, 2)
	wantContains(t, "stderr", res.Stderr, "invalid --verifier", "provider/model")
	if n := len(lf.gh.Requests()); n != 0 {
		t.Errorf("%d GitHub request(s) before the usage error", n)
	}

	// A verifier whose provider has no key fails before any request.
	lf.env.Set("OPENAI_API_KEY", "")
	res = lf.run("--yes", "--verifier", "openai/checker")
	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, "--verifier openai/checker needs $OPENAI_API_KEY")
	if n := len(lf.gh.Requests()); n != 0 {
		t.Errorf("%d GitHub request(s) before the missing key was said", n)
	}
}

// gh ocdx review uses the verifier as review-loop does: with one reviewer
// every P1–P3 finding is checked, and the refuted one is listed apart,
// not counted: the branch passes.
func TestVerifierInLocalReview(t *testing.T) {
	t.Parallel()
	r := testkit.NewRepo(t, "main", "feature",
		map[string]string{"cache.go": "package cache\n\nvar size = 10\n"},
		map[string]string{"cache.go": "package cache\n\nvar size = -1\n"})
	testkit.Git(t, r.Clone, "remote", "set-head", "origin", "main")
	fm := testkit.NewFakeModel(t)
	env := testkit.NewEnv(t)
	fm.Configure(env)
	env.Dir = r.Clone
	env.WriteConfig(t, `{"reviewerModels": ["ollama/qwen-a"], "commentsAnalyzerModel": "ollama/qwen-a", "prFixModel": "ollama/qwen-a", "verifierModel": "ollama/checker"}`)
	p1 := modelFinding{Priority: "P1", Category: "quality", File: "cache.go", Line: line(3), Title: "negative cache size"}
	fm.Script("qwen-a", reviewerReply("reviewer-1", "request_changes", p1))
	fm.Script("checker", testkit.VerifierReply(testkit.VerifierVerdict{ID: p1.id(), Verdict: "refuted", Evidence: "cache.go:3 `var size = -1`: -1 means unbounded, as documented"}))

	res := env.Run(t, "review")

	wantCode(t, res, 0)
	wantContains(t, "stdout", res.Stdout, "P1 0", "## Refuted by the verifier (1)", p1.id(), "Evidence: cache.go:3")
	if reqs := fm.Requests("checker"); len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), p1.id()) {
		t.Errorf("the verifier was not asked about %s", p1.id())
	}
}
