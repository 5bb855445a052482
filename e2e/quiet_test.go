package e2e

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// charmbracelet/log's lines (levels, key=value) are for --debug and
// GH_DEBUG, as gh's debug output; a run without them shows none.
func TestLogLinesOnlyWithDebug(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  string // GH_DEBUG
		args []string
		logs bool
	}{
		{name: "plain"},
		{name: "GH_DEBUG=0", env: "0"},
		{name: "GH_DEBUG=false", env: "false"},
		{name: "GH_DEBUG=1", env: "1", logs: true},
		{name: "GH_DEBUG=api", env: "api", logs: true},
		{name: "--debug", args: []string{"--debug"}, logs: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, fm, env := modelFixture(t, "openai/gpt-rev")
			fm.Script("gpt-rev", testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: `{"event":"COMMENT","body":"LGTM"}`}))
			env.Set("GH_DEBUG", tc.env)

			res := env.Run(t, append([]string{"review-pr", "24", "--print"}, tc.args...)...)

			wantCode(t, res, 0)
			if got := logLine.MatchString(res.Stderr); got != tc.logs {
				t.Errorf("log lines shown: %t, want %t:\n%s", got, tc.logs, res.Stderr)
			}
			if tc.logs && !strings.Contains(res.Stderr, "model=openai/gpt-rev") {
				t.Errorf("the debug log should name each model call:\n%s", res.Stderr)
			}
		})
	}
}

// review-pr posts with a line in gh's style on stderr; without a
// terminal, stdout still carries the URL alone, for scripts.
func TestReviewPRPostedLine(t *testing.T) {
	t.Parallel()
	_, fm, env := modelFixture(t, "openai/gpt-rev")
	fm.Script("gpt-rev", testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: `{"event":"REQUEST_CHANGES","body":"Add a test."}`}))

	res := env.Run(t, "review-pr", "24", "--yes")

	wantCode(t, res, 0)
	if !strings.HasPrefix(res.Stdout, "https://") || strings.Count(res.Stdout, "\n") != 1 || !strings.Contains(res.Stdout, "#pullrequestreview-") {
		t.Errorf("stdout should be the review's URL alone:\n%s", res.Stdout)
	}
	wantContains(t, "stderr", res.Stderr, "✓ Posted a review requesting changes on octo/widgets#24: "+strings.TrimSpace(res.Stdout)+"\n")
}

// With --yes a context request is said once: the line saying it is
// fetched, not also the tool call that asked.
func TestReviewPRYesSaysAContextRequestOnce(t *testing.T) {
	t.Parallel()
	_, fm, env := modelFixture(t, "openai/gpt-rev")
	scriptReview(fm, "gpt-rev", "COMMENT", reviewBody)

	res := env.Run(t, "review-pr", "24", "--yes")

	wantCode(t, res, 0)
	if n := strings.Count(res.Stderr, "read auth.go to see the redirect"); n != 1 {
		t.Errorf("the request is said %d times, want once:\n%s", n, res.Stderr)
	}
	wantContains(t, "stderr", res.Stderr, "fetching as the reviewer asked (--yes): read auth.go to see the redirect", "tool read_file")
}

// Every verb that would ask the person refuses the same way without a
// terminal: before any request, exit 2, the flag that answers instead, and
// the verb's usage, as gh's "… required when not running interactively".
func TestNeedsATerminalIsTheSameEverywhere(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	for _, args := range [][]string{
		{"review-pr", "31"},
		{"review-loop", "31"},
		{"fix", "31"},
		{"review", "--fix"},
		{"state", "clear", "31", "-R", "octo/widgets"},
	} {
		res := lf.env.Run(t, args...)
		verb := strings.Join(args[:len(args)-1], " ")
		if args[0] == "state" {
			verb = "state clear"
		}
		if res.Code != 2 || !strings.Contains(res.Stderr, ", and this is not a terminal: pass --yes") || !strings.Contains(res.Stderr, "Usage: gh ocdx "+verb) {
			t.Errorf("%q: exit %d, want 2 with the flag to pass and the usage:\n%s", args, res.Code, res.Stderr)
		}
	}
	if n := lf.gh.Count(""); n != 0 {
		t.Errorf("%d GitHub requests before refusing", n)
	}
}

// newUnreachableReviewersLoop is newLoop whose three reviewers are all
// anthropic/ models with nothing listening at ANTHROPIC_BASE_URL.
func newUnreachableReviewersLoop(t *testing.T) *loopFix {
	t.Helper()
	lf := newLoop(t, nil)
	lf.env.WriteConfig(t, `{
  "reviewerModels": ["anthropic/rev-a", "anthropic/rev-b", "anthropic/rev-c"],
  "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "ollama/fixer",
  "verify": ["true"]
}`)
	lf.env.Set("ANTHROPIC_BASE_URL", "http://127.0.0.1:1") // nothing listens there
	return lf
}

// A local review whose reviewers all fail says the error once, and its
// result is neither "partial" nor "No findings."
func TestLocalReviewAllReviewersFail(t *testing.T) {
	t.Parallel()
	lf := newUnreachableReviewersLoop(t)
	lf.env.Dir = lf.repo.Clone

	res := lf.env.Run(t, "review", "--base", "main")

	wantCode(t, res, 1)
	all := res.Stdout + res.Stderr
	for what, n := range map[string]int{
		"connection refused": 1,
		"retrying in":        1,
		"partial":            0,
		"No findings":        0,
	} {
		if got := strings.Count(all, what); got != n {
			t.Errorf("%q is said %d times, want %d:\nstdout:\n%s\nstderr:\n%s", what, got, n, res.Stdout, res.Stderr)
		}
	}
	wantContains(t, "stderr", res.Stderr, "error: all 3 reviewers failed", "config validate --online")
}

// When no model answers at all, no one role is blamed: the run says every
// model failed, with the endpoint's error, and how to check them.
func TestReviewLoopEveryModelUnreachable(t *testing.T) {
	t.Parallel()
	lf := newUnreachableReviewersLoop(t)
	lf.env.WriteConfig(t, `{
  "reviewerModels": ["anthropic/rev-a", "anthropic/rev-b"],
  "commentsAnalyzerModel": "anthropic/analyzer",
  "prFixModel": "ollama/fixer",
  "verify": ["true"]
}`)

	res := lf.run("--yes")

	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, "error: every model failed (all 2 reviewers and the comments analyzer), nothing was reviewed:",
		"connection refused", "gh ocdx config validate --online")
	if strings.Contains(res.Stderr, "the comments analyzer failed, so") {
		t.Errorf("the analyzer alone is blamed:\n%s", res.Stderr)
	}
}
