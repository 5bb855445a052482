//go:build unix

package e2e

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

func TestReviewPROrientInATerminal(t *testing.T) {
	for _, tc := range []struct {
		name    string
		keys    []string // at "Context request", then at a text prompt if any
		toModel string   // what the model is told
	}{
		{"confirm", []string{testkit.Enter}, "Confirmed: fetch what you proposed"},
		{"narrow", []string{testkit.Down + testkit.Enter, "only auth.go\r"}, "Narrowed. Fetch only this instead: only auth.go"},
		{"refuse", []string{testkit.Down + testkit.Down + testkit.Enter, "the diff is enough\r"}, "Refused. Do not fetch it. The user's reason: the diff is enough"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gh, fm, env := modelFixture(t, "openai/gpt-rev")
			scriptReview(fm, "gpt-rev", "COMMENT", reviewBody)

			term := env.StartTerminal(t, "review-pr", "24")
			term.Expect("read auth.go to see the redirect")
			term.Expect("Context request")
			term.Send(tc.keys[0])
			if len(tc.keys) > 1 {
				term.Expect("?")
				term.Send(tc.keys[1])
			}
			term.Expect("Post this review?")
			term.Send(testkit.Enter)
			if code := term.Wait(); code != 0 {
				t.Fatalf("exit %d:\n%s", code, term.Screen())
			}
			if reqs := fm.Requests("gpt-rev"); len(reqs) < 2 || !strings.Contains(string(reqs[1].Body), tc.toModel) {
				t.Errorf("the model should be told %q", tc.toModel)
			}
			if got := gh.Reviews(repo, 24); len(got) != 1 || got[0].Event != "COMMENT" {
				t.Errorf("posted: %+v", got)
			}
		})
	}
}

func TestReviewPRDiscussThenPost(t *testing.T) {
	gh, fm, env := modelFixture(t, "openai/gpt-rev")
	fm.Script("gpt-rev",
		testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: `{"event":"APPROVE","body":"first draft"}`}),
		testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: `{"event":"REQUEST_CHANGES","body":"revised: please add a test"}`}))

	term := env.StartTerminal(t, "review-pr", "24")
	term.Expect("first draft")
	term.Expect("Post this review?")
	term.Send(testkit.Down + testkit.Enter)
	term.Expect("feedback")
	term.Send("ask for a test of the redirect\r")
	term.Expect("revised: please add a test")
	term.Expect("Post this review?")
	term.Send(testkit.Enter)
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	reqs := fm.Requests("gpt-rev")
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "ask for a test of the redirect") {
		t.Fatalf("the model must see the feedback before revising (%d requests)", len(reqs))
	}
	if got := gh.Reviews(repo, 24); len(got) != 1 || got[0].Body != "revised: please add a test" || got[0].Event != "REQUEST_CHANGES" {
		t.Errorf("only the revised review is posted: %+v", got)
	}
}

func TestReviewPRAbortAndCtrlCPostNothing(t *testing.T) {
	for name, keys := range map[string]string{
		"abort":  testkit.Down + testkit.Down + testkit.Enter,
		"ctrl-c": testkit.CtrlC,
	} {
		t.Run(name, func(t *testing.T) {
			gh, fm, env := modelFixture(t, "openai/gpt-rev")
			fm.Script("gpt-rev", testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: `{"event":"APPROVE","body":"LGTM"}`}))

			term := env.StartTerminal(t, "review-pr", "24")
			term.Expect("Post this review?")
			term.Send(keys)
			if code := term.Wait(); code != 130 {
				t.Errorf("exit %d, want 130:\n%s", code, term.Screen())
			}
			if n := len(gh.Reviews(repo, 24)) + len(gh.Comments(repo, 24)); n != 0 {
				t.Errorf("%d things posted", n)
			}
			if n := len(fm.Requests("gpt-rev")); n != 1 {
				t.Errorf("no model call after the user stopped: %d calls", n)
			}
		})
	}
}
