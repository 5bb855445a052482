package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/state"
)

// The fault matrix: every GitHub request kind and every
// model role against 500, 502, 429 with Retry-After, a dropped connection
// and a malformed answer. Timeouts are tested in their packages, where they
// can be shortened: github.TestStalledRequestIsCut and
// llm.TestStallCutByTimeout (the binary's are 60 s and 5 min).

// transient faults are ridden out: reads and model calls are retried.
var transient = []struct {
	name  string
	gh    testkit.Fault
	model testkit.Step
}{
	{"500", testkit.Fault{Status: 500}, testkit.Fail(500, "")},
	{"502", testkit.Fault{Status: 502}, testkit.Fail(502, "")},
	// The asked wait is 0: a wait of a second per request kind made this
	// the slowest test; that the wait asked is the wait taken is
	// httpretry.TestDo's and llm.TestRetryAfter429's.
	{"429 Retry-After", testkit.Fault{Status: 429, RetryAfter: "0"}, testkit.Fail(429, "0")},
	{"dropped connection", testkit.Fault{Drop: true}, testkit.Drop()},
}

// TestFaultsAreRetried injects each transient fault once into every GitHub
// read of a full loop (context query, diff, head check after the push) and
// into every model role (reviewers, comments analyzer, pr-fix, review-pr):
// each is retried and the run ends as if nothing happened.
func TestFaultsAreRetried(t *testing.T) {
	t.Parallel()
	for _, f := range transient {
		t.Run(f.name+"/review-loop", func(t *testing.T) {
			t.Parallel()
			lf := newLoop(t, nil)
			lf.repo.MoveBase(t) // the clone has not fetched the base: the diff comes from GitHub
			for _, kind := range []string{"graphql", "diff", "pr"} {
				g := f.gh
				g.Kind = kind
				lf.gh.Fail(g)
			}
			for _, m := range []string{"rev-a", "rev-b", "analyzer"} {
				lf.fm.Script(m, f.model)
			}
			lf.fix.Faults = []testkit.Step{f.model}
			lf.findingRound(cacheBug)
			lf.approveRound()

			res := lf.run("--yes")

			wantCode(t, res, 0)
			if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2]" {
				t.Fatalf("comments %s", k)
			}
			for _, kind := range []string{"graphql", "diff", "pr"} {
				wantRetried(t, lf.gh.Requests(), kind)
			}
			for _, m := range []string{"rev-a", "rev-b", "analyzer"} {
				if n := len(lf.fm.Requests(m)); n != 3 {
					t.Errorf("%s: %d requests, want 3 (the fault, round 1, round 2)", m, n)
				}
			}
			if n := lf.fix.Count(); n != 3 {
				t.Errorf("pr-fix: %d requests, want 3 (the fault, the edit, the answer)", n)
			}
			wantContains(t, "round 1 report", lf.bodies()[0], "2 of 2 succeeded")
			if r := last(recorded(t, lf.env, loopPR)); r.Outcome != state.OutcomeConverged {
				t.Errorf("run outcome %q, want converged", r.Outcome)
			}
		})
		t.Run(f.name+"/review-pr", func(t *testing.T) {
			t.Parallel()
			gh, fm, env := modelFixture(t, "openai/gpt-rev")
			fm.Script("gpt-rev", f.model)
			scriptReview(fm, "gpt-rev", "COMMENT", reviewBody)

			res := env.Run(t, "review-pr", "24", "--yes")

			wantCode(t, res, 0)
			if n := len(gh.Reviews(repo, 24)); n != 1 {
				t.Errorf("%d reviews, want 1", n)
			}
			if n := len(fm.Requests("gpt-rev")); n != 4 {
				t.Errorf("%d model requests, want 4 (the fault and three turns)", n)
			}
		})
	}
}

// wantRetried checks that the first request of kind failed and a later one
// of the same kind succeeded.
func wantRetried(t *testing.T, log []testkit.Request, kind string) {
	t.Helper()
	var statuses []int
	for _, r := range log {
		if r.Kind == kind {
			statuses = append(statuses, r.Status)
		}
	}
	if len(statuses) < 2 || statuses[0] == http.StatusOK || statuses[1] != http.StatusOK {
		t.Errorf("%s: statuses %v, want the fault then a successful retry", kind, statuses)
	}
}

// TestFaultsThatStopTheLoop covers what is not retried: a malformed answer,
// and any failure of a comment POST (never sent twice: it may have been
// applied). The run stops with a message and exit 1, or goes on when the
// failure is harmless; the state stays consistent, nothing is posted twice,
// and a re-run once the fault is gone finishes with each report once.
func TestFaultsThatStopTheLoop(t *testing.T) {
	t.Parallel()
	gh := func(f testkit.Fault) func(*loopFix) { return func(lf *loopFix) { lf.gh.Fail(f) } }
	cases := []struct {
		name     string
		fix      bool // round 1 has a finding to fix
		inject   func(*loopFix)
		code     int
		stderr   string
		comments string // after the faulty run
		outcome  state.RunOutcome
	}{
		{"context query malformed", false, gh(testkit.Fault{Kind: "graphql", Garbage: true}), 1, "not valid JSON", "[]", ""},
		{"diff malformed", false, func(lf *loopFix) { lf.repo.MoveBase(lf.t); lf.gh.Fail(testkit.Fault{Kind: "diff", Garbage: true}) }, 1, "not a diff", "[]", state.OutcomeFailed},
		{"head check malformed", true, gh(testkit.Fault{Kind: "pr", Garbage: true}), 0, "", "[review:1 fix:1 review:2]", state.OutcomeConverged},
		{"review post 500", false, gh(testkit.Fault{Kind: "review", Status: 500}), 1, "may or may not have been applied", "[]", state.OutcomeFailed},
		{"review post 500 applied", false, gh(testkit.Fault{Kind: "review", Status: 500, Apply: true}), 0, "but it is on the PR", "[review:1]", state.OutcomeConverged},
		{"review post 502", false, gh(testkit.Fault{Kind: "review", Status: 502}), 1, "may or may not have been applied", "[]", state.OutcomeFailed},
		{"review post 429", false, gh(testkit.Fault{Kind: "review", Status: 429, RetryAfter: "1"}), 1, "HTTP 429", "[]", state.OutcomeFailed},
		{"review post dropped", false, gh(testkit.Fault{Kind: "review", Drop: true}), 1, "may or may not have been applied", "[]", state.OutcomeFailed},
		{"review post malformed", false, gh(testkit.Fault{Kind: "review", Garbage: true}), 1, "may or may not have been applied", "[]", state.OutcomeFailed},
		{"reviewer malformed", false, func(lf *loopFix) { lf.fm.Script("rev-a", testkit.Garbage("<html>not json")) }, 0, "", "[review:1]", state.OutcomeConverged},
		{"comments analyzer malformed", false, func(lf *loopFix) { lf.fm.Script("analyzer", testkit.Garbage("<html>not json")) }, 1, "comments analyzer failed", "[]", state.OutcomeFailed},
		{"pr-fix malformed", true, func(lf *loopFix) { lf.fix.Faults = []testkit.Step{testkit.Garbage("<html>not json")} }, 1, "malformed model response", "[review:1 final:1]", state.OutcomeFailed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lf := newLoop(t, nil)
			tc.inject(lf)
			if tc.fix {
				lf.findingRound(cacheBug)
			}
			lf.approveRound()

			res := lf.run("--yes")

			wantCode(t, res, tc.code)
			wantContains(t, "stderr", res.Stderr, tc.stderr)
			if k := fmt.Sprint(lf.kinds()); k != tc.comments {
				t.Fatalf("comments %s, want %s", k, tc.comments)
			}
			if r := last(recorded(t, lf.env, loopPR)); r.Outcome != tc.outcome {
				t.Errorf("run outcome %q, want %q", r.Outcome, tc.outcome)
			}
			if tc.code == 0 {
				return
			}
			// The fault is gone: a re-run finishes, and no report is posted
			// twice (checkInvariants).
			if tc.fix && lf.repo.RemoteOID(t, lf.repo.Head) == lf.start {
				lf.findingRound(cacheBug)
			}
			lf.approveRound()
			wantCode(t, lf.run("--yes"), 0)
			if strings.Contains(tc.comments, "review:1") && len(lf.bodies()) < 2 {
				t.Errorf("the re-run posted nothing: %v", lf.kinds())
			}
		})
	}
}

// TestFaultsOnTheReviewPOST: review-pr's one write, like a comment, is sent
// once; a malformed model answer stops it before anything is posted.
func TestFaultsOnTheReviewPOST(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		fault  testkit.Fault
		step   *testkit.Step
		stderr string
	}{
		{"review 500", testkit.Fault{Kind: "review", Status: 500}, nil, "may or may not have been applied"},
		{"review 502", testkit.Fault{Kind: "review", Status: 502}, nil, "may or may not have been applied"},
		{"review 429", testkit.Fault{Kind: "review", Status: 429, RetryAfter: "1"}, nil, "HTTP 429"},
		{"review dropped", testkit.Fault{Kind: "review", Drop: true}, nil, "may or may not have been applied"},
		{"review malformed", testkit.Fault{Kind: "review", Garbage: true}, nil, "may or may not have been applied"},
		{"review-pr model malformed", testkit.Fault{}, &testkit.Step{Raw: "<html>not json"}, "malformed model response"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gh, fm, env := modelFixture(t, "openai/gpt-rev")
			if tc.step != nil {
				fm.Script("gpt-rev", *tc.step)
			} else {
				gh.Fail(tc.fault)
			}
			scriptReview(fm, "gpt-rev", "COMMENT", reviewBody)

			res := env.Run(t, "review-pr", "24", "--yes")

			wantCode(t, res, 1)
			wantContains(t, "stderr", res.Stderr, tc.stderr)
			if n := gh.Count("review"); n > 1 {
				t.Errorf("the review was sent %d times", n)
			}
			if n := len(gh.Reviews(repo, 24)); n != 0 {
				t.Errorf("%d reviews posted", n)
			}
		})
	}
}
