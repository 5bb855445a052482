package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/posts"
)

// The ledger's third version (docs/architecture.md, The ledger): the PR
// holds what a fresh runner needs to act as the machine before, not only
// to decide.

// twoOfThree is a P2 two of three reviewers raise; offLine one only
// reviewer-1 raises, on no line (written out in the report's body).
var (
	twoOfThree = modelFinding{Priority: "P2", Category: "quality", File: "cache.go", Line: line(3), Title: "Cache size is not bounded",
		Description: "Nothing bounds Size: a caller can grow the cache until the process dies."}
	offLine = modelFinding{Priority: "P2", Category: "performance", File: "cache.go", Title: "Get copies the key on every call",
		Description: "Get returns a copy of k for each lookup; return the cached value instead."}
)

// newThreeReviewerLoop is newLoop with three reviewers and a verifier
// that refutes whatever it is asked about.
func newThreeReviewerLoop(t *testing.T, edit func(*testkit.PR)) *loopFix {
	t.Helper()
	lf := newLoop(t, edit)
	lf.env.WriteConfig(t, `{
  "reviewerModels": ["openai/rev-a", "anthropic/rev-b", "openai/rev-c"],
  "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "ollama/fixer",
  "verifierModel": "openai/checker",
  "verify": ["true"]
}`)
	lf.fm.Default("checker", testkit.VerifierReply(refute(twoOfThree.id())))
	return lf
}

// A finding two of three reviewers raised is no lone one on any machine:
// carried into a re-review of a later push (no reviewer judged it, its
// line unchanged), it is not sent to the verifier, with the state
// directory kept or empty, and both runs decide the same: it is still open.
func TestAFreshMachineSendsTheVerifierWhatTheMachineBeforeWould(t *testing.T) {
	t.Parallel()
	for _, fresh := range []bool{false, true} {
		t.Run(fmt.Sprintf("fresh state %t", fresh), func(t *testing.T) {
			t.Parallel()
			lf := newThreeReviewerLoop(t, func(pr *testkit.PR) { pr.Permission = "READ" }) // review only: the finding stays open
			lf.fm.Script("rev-a", reviewerReply("reviewer-1", "request_changes", twoOfThree))
			lf.fm.Script("rev-b", reviewerReply("reviewer-2", "request_changes", twoOfThree))
			lf.fm.Script("rev-c", reviewerReply("reviewer-3", "approve"))
			lf.fm.Script("analyzer", analyzerReply())
			wantCode(t, lf.run("--yes"), 3)
			if n := len(lf.fm.Requests("checker")); n != 0 {
				t.Fatalf("the first run sent the verifier %d requests", n)
			}
			lf.pushLater("later.go")
			if fresh {
				lf.env.Set("OCDX_STATE_DIR", t.TempDir())
			}
			for _, m := range []string{"rev-a", "rev-b", "rev-c"} {
				lf.fm.Script(m, reviewerReply(m, "approve"))
			}
			lf.fm.Script("analyzer", analyzerReply())

			res := lf.run("--yes", "--json", "outcome,remaining")

			wantCode(t, res, 3)
			wantContains(t, "remaining", res.Stdout, twoOfThree.id())
			for _, r := range lf.fm.Requests("checker") {
				if strings.Contains(string(r.Body), twoOfThree.id()) {
					t.Errorf("the verifier was asked about %s, which two reviewers raised", twoOfThree.id())
				}
			}
			rs := lf.reviews()
			wantContains(t, "the second report", rs[len(rs)-1].Body, "2/3 reviewers (openai/rev-a, anthropic/rev-b)")
		})
	}
}

// reviewThenFreshRunner is machine A's review of the PR (review only: its
// two findings stay open), then an empty state directory (a new CI
// runner) and push permission.
func reviewThenFreshRunner(t *testing.T) *loopFix {
	t.Helper()
	lf := newThreeReviewerLoop(t, func(pr *testkit.PR) { pr.Permission = "READ" })
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "request_changes", twoOfThree, offLine))
	lf.fm.Script("rev-b", reviewerReply("reviewer-2", "request_changes", twoOfThree))
	lf.fm.Script("rev-c", reviewerReply("reviewer-3", "approve"))
	lf.fm.Script("analyzer", analyzerReply())
	lf.fm.Default("checker", testkit.VerifierReply(testkit.VerifierVerdict{ID: offLine.id(), Verdict: "confirmed", Evidence: "cache.go:5 `func Get`"}))
	wantCode(t, lf.run("--yes"), 3)
	lf.env.Set("OCDX_STATE_DIR", t.TempDir())
	lf.gh.SetViewerPermission(repo, loopPR, "WRITE")
	return lf
}

// wantFixedFromTheLedger checks that the fix agent was given both open
// findings with the descriptions the reviewers wrote, read back from the
// PR, and that the fix was pushed and reported with them fixed.
func (lf *loopFix) wantFixedFromTheLedger() {
	t := lf.t
	t.Helper()
	ps := lf.fix.Prompts()
	if len(ps) == 0 {
		t.Fatal("the fix agent was not called")
	}
	wantContains(t, "the fix prompt", ps[0], twoOfThree.id(), twoOfThree.Title, twoOfThree.Description, offLine.id(), offLine.Title, offLine.Description,
		`"file": "cache.go"`, `"line": 3`)
	if lf.repo.RemoteOID(t, lf.repo.Head) == lf.start {
		t.Error("the fix was not pushed")
	}
	bodies := lf.bodies()
	report := bodies[len(bodies)-1]
	wantContains(t, "the fix report", report, "kind=fix", twoOfThree.id(), offLine.id())
	led, err := posts.ParseLedger(report)
	if err != nil {
		t.Fatalf("the fix report's ledger: %v", err)
	}
	if got := led.With(finding.StatusFixed); len(got) != 2 {
		t.Errorf("the fix report's ledger says fixed: %v", got)
	}
	if len(led.Tokens) != 1 || led.Tokens[0].Model != "ollama/fixer" {
		t.Errorf("the fix report's ledger counts the tokens of %+v, want the fix model's alone", led.Tokens)
	}
}

// Machine A reviews; a runner with an empty state directory runs
// gh ocdx fix and fixes the open findings of A's latest report, each with
// its description read back from the PR (the inline comment's, the
// report's for the finding on no line).
func TestFixOnAFreshRunnerFixesTheOpenFindingsOfTheLatestReport(t *testing.T) {
	t.Parallel()
	lf := reviewThenFreshRunner(t)

	res := lf.env.Run(t, "fix", "31", "--yes")

	wantCode(t, res, 0)
	wantContains(t, "stderr", res.Stderr, "this machine has no review of PR #31")
	lf.wantFixedFromTheLedger()
}

// /ocdx fix in the Action (gh ocdx command, a fresh runner), where the
// base branch's .ocdx.json lets commands fix: the same fix.
func TestCommandFixOnAFreshRunnerFixesTheOpenFindings(t *testing.T) {
	t.Parallel()
	lf := reviewThenFreshRunner(t)
	base := t.TempDir()
	testkit.Git(t, base, "clone", "--quiet", "--branch", lf.repo.Base, lf.repo.Remote, ".")
	testkit.WriteFiles(t, base, map[string]string{".ocdx.json": `{"commands": {"fix": true}}`})
	testkit.Git(t, base, "add", ".ocdx.json")
	testkit.Git(t, base, "commit", "--quiet", "-m", "commands may fix")
	testkit.Git(t, base, "push", "--quiet", "origin", lf.repo.Base)
	lf.gh.SetPermission(repo, "octo", "write")
	id := lf.comment("octo", "/ocdx fix")

	res := lf.env.Run(t, "command", "31", "--comment-id", id)

	wantCode(t, res, 0)
	wantContains(t, "the answer", fmt.Sprint(lf.botComments()), "fixing the open findings now")
	lf.wantFixedFromTheLedger()
}

// A fix on a fresh runner when the PR moved since its latest review fixes
// nothing, and says why.
func TestFixOnAFreshRunnerFixesNothingOfAnOlderHead(t *testing.T) {
	t.Parallel()
	lf := reviewThenFreshRunner(t)
	lf.pushLater("later.go")
	testkit.Git(t, lf.repo.Clone, "pull", "-q")

	res := lf.env.Run(t, "fix", "31", "--yes")

	wantCode(t, res, 0)
	wantContains(t, "stdout", res.Stdout, "Nothing to fix on PR #31", "reviewed an older head")
	if len(lf.fix.Prompts()) != 0 {
		t.Error("the fix agent was called")
	}
}

// gh ocdx dismiss --reason says why after the IDs; the next report's
// ledger keeps who dismissed the finding and why, and what each model
// spent. A reason naming a finding is refused: every ID on the command's
// line is dismissed.
func TestDismissReasonIsKeptInTheLedger(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.gh.SetPermission(repo, testkit.Login, "write")
	lf.raised(cacheBug.id())
	bad := lf.env.Run(t, "dismiss", "31", cacheBug.id(), "--reason", "same as QUAL-0badf00d")
	wantCode(t, bad, 2)
	res := lf.env.Run(t, "dismiss", "31", cacheBug.id(), "--reason", "the caller bounds the size\nrm -rf /")
	wantCode(t, res, 0)
	cs := lf.dismissals()
	if len(cs) != 1 || !strings.HasPrefix(cs[0].Body, "/ocdx dismiss "+cacheBug.id()+" the caller bounds the size rm -rf /\n") {
		t.Fatalf("the dismissal: %+v", cs)
	}
	lf.findingRound(cacheBug)

	wantCode(t, lf.run("--yes"), 0)

	rs := lf.reviews()
	wantContains(t, "the report", rs[len(rs)-1].Body, "dismissed by `"+testkit.Login+"`: the caller bounds the size rm -rf /")
	led, err := posts.ParseLedger(rs[len(rs)-1].Body)
	if err != nil {
		t.Fatal(err)
	}
	var e posts.LedgerEntry
	for _, x := range led.Findings {
		if x.ID == cacheBug.id() {
			e = x
		}
	}
	if e.Status != finding.StatusDismissed || e.DismissedBy != testkit.Login || e.Reason != "the caller bounds the size rm -rf /" ||
		fmt.Sprint(e.Reviewers) != "[openai/rev-a]" {
		t.Errorf("the ledger's entry: %+v", e)
	}
	if led.V != 3 || len(led.Tokens) == 0 || led.Tokens[0].Model != "openai/rev-a" || led.Tokens[0].Output == 0 {
		t.Errorf("the ledger's tokens: v%d %+v", led.V, led.Tokens)
	}
}

// A fresh runner's review-loop on a later push sends the fix agent the
// findings it carries from the PR's ledger with their descriptions, read
// back from the PR, as the machine that reviewed them would.
func TestALoopOnAFreshRunnerFixesCarriedFindingsWithTheirDescriptions(t *testing.T) {
	t.Parallel()
	lf := reviewThenFreshRunner(t)
	lf.pushLater("later.go")
	testkit.Git(t, lf.repo.Clone, "pull", "-q")
	for range 2 {
		for _, m := range []string{"rev-a", "rev-b", "rev-c"} {
			lf.fm.Script(m, reviewerReply(m, "approve"))
		}
		lf.fm.Script("analyzer", analyzerReply())
	}

	res := lf.run("--yes")

	wantCode(t, res, 0)
	ps := lf.fix.Prompts()
	if len(ps) == 0 {
		t.Fatalf("the carried findings were not fixed\n%s", res.Stderr)
	}
	wantContains(t, "the fix prompt", ps[0], twoOfThree.id(), twoOfThree.Description, offLine.id(), offLine.Description)
}
