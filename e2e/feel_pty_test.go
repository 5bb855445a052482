//go:build unix

package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// On a terminal a model call is never silent: a live line says which role
// waits on which model, for how long, and each retry is written above it.
func TestReviewPRShowsLiveProgressInATerminal(t *testing.T) {
	t.Parallel()
	_, fm, env := modelFixture(t, "openai/gpt-rev")
	fm.Script("gpt-rev", testkit.Fail(429, "2"))
	scriptReview(fm, "gpt-rev", "COMMENT", reviewBody)

	term := env.StartTerminal(t, "review-pr", "24", "--print")
	term.Expect("review-pr openai/gpt-rev: 429, retrying in 2s (2 of 4)")
	term.Expect("review-pr openai/gpt-rev · 1s · call 1 · 0 tokens")
	term.Expect(`tool read_file {"path":"auth.go"}`)
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	if s := term.Screen(); strings.Contains(s, `\"path\"`) {
		t.Errorf("tool calls must be shown as they are, not as escaped JSON:\n%s", s)
	}
}

// Without a terminal, each retry is a line of its own.
func TestReviewPRLogsRetriesWithoutATerminal(t *testing.T) {
	t.Parallel()
	_, fm, env := modelFixture(t, "openai/gpt-rev")
	fm.Script("gpt-rev", testkit.Fail(503, "0"))
	scriptReview(fm, "gpt-rev", "COMMENT", reviewBody)

	res := env.Run(t, "review-pr", "24", "--print")

	if res.Code != 0 {
		t.Fatalf("exit %d\n%s", res.Code, res.Stderr)
	}
	if !strings.Contains(res.Stderr, "review-pr openai/gpt-rev: 503, retrying in ") {
		t.Errorf("no retry line:\n%s", res.Stderr)
	} else if !strings.Contains(res.Stderr, "(2 of 4)\n") {
		t.Errorf("a retry line says which attempt comes:\n%s", res.Stderr)
	}
	if strings.Contains(res.Stderr, "\x1b[?25l") {
		t.Errorf("no spinner without a terminal:\n%q", res.Stderr)
	}
}

// A push is never the default: Enter alone at review-loop's push question
// declines it, as at fix's.
func TestLoopPushQuestionDefaultsToNo(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug)

	term := lf.env.StartTerminal(t, "review-loop")
	term.Expect("Push 1 commit to origin/feature/cache?")
	term.Expect("(y/N)")
	term.Send(testkit.Enter)
	if code := term.Wait(); code != 130 {
		t.Fatalf("exit %d, want 130:\n%s", code, term.Screen())
	}
	if lf.repo.RemoteOID(t, lf.repo.Head) != lf.start {
		t.Fatal("Enter alone must not push")
	}

	// The re-run knows the checkout is ahead of the PR (not behind it),
	// and asks again.
	lf.approveRound()
	term = lf.env.StartTerminal(t, "review-loop")
	term.Expect("your checkout is 1 commit ahead of PR #31's head")
	term.Expect("Push 1 commit to origin/feature/cache?")
	term.Send("y\r")
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	if s := term.Screen(); strings.Contains(s, "pull first") {
		t.Errorf("the checkout is ahead, not behind:\n%s", s)
	}
	if lf.repo.RemoteOID(t, lf.repo.Head) == lf.start {
		t.Fatal("the commit was not pushed on the re-run")
	}
}

// Markdown is rendered on a terminal, as gh pr view renders it, and left as
// it is when piped: the review review-pr would post, and config show.
func TestMarkdownIsRenderedOnATerminalOnly(t *testing.T) {
	t.Parallel()
	const body = "## Summary\n\n- **first** point\n- second point\n"
	for _, colour := range []bool{true, false} {
		_, fm, env := modelFixture(t, "openai/gpt-rev")
		if colour {
			env.Set("NO_COLOR", "")
		}
		scriptReview(fm, "gpt-rev", "COMMENT", body)
		scriptReview(fm, "gpt-rev", "COMMENT", body)

		term := env.StartTerminal(t, "review-pr", "24", "--print")
		if code := term.Wait(); code != 0 {
			t.Fatalf("exit %d:\n%s", code, term.Screen())
		}
		screen := term.Screen()
		plain := reSGR.ReplaceAllString(screen, "")
		if !strings.Contains(plain, "• second point") || strings.Contains(plain, "\n- second point") {
			t.Errorf("colour %v: the review is not rendered on the terminal:\n%s", colour, plain)
		}
		if styled := strings.Contains(screen, "\x1b[38;5;"); styled != colour {
			t.Errorf("colour %v: styled %v:\n%s", colour, styled, plain)
		}

		res := env.Run(t, "review-pr", "24", "--print")
		wantCode(t, res, 0)
		if !strings.Contains(res.Stdout, "\n"+body) {
			t.Errorf("colour %v: piped, the review must be the Markdown itself:\n%s", colour, res.Stdout)
		}
	}

	_, _, env := modelFixture(t, "openai/gpt-rev")
	env.Set("NO_COLOR", "")
	term := env.StartTerminal(t, "config", "show")
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	if s := term.Screen(); !strings.Contains(s, "│") || strings.Contains(s, "|---|") {
		t.Errorf("config show's table is not rendered:\n%s", s)
	}
}

// reSGR matches a colour or style sequence.
var reSGR = regexp.MustCompile("\x1b\\[[0-9;]*m")

// JSON on a terminal is coloured as gh colours it, unless colour is off;
// text from outside stays inert either way.
func TestJSONIsColouredOnATerminal(t *testing.T) {
	t.Parallel()
	for _, colour := range []bool{true, false} {
		_, _, env := modelFixture(t, "openai/gpt-rev")
		if colour {
			env.Set("NO_COLOR", "")
		}
		term := env.StartTerminal(t, "config", "show", "--json", "path,reviewerModels")
		if code := term.Wait(); code != 0 {
			t.Fatalf("exit %d:\n%s", code, term.Screen())
		}
		screen := term.Screen()
		if styled := strings.Contains(screen, "\x1b[1;34m\"path\""); styled != colour {
			t.Errorf("colour %v: keys styled %v:\n%q", colour, styled, screen)
		}
		if !strings.Contains(reSGR.ReplaceAllString(screen, ""), `"reviewerModels": [`) {
			t.Errorf("colour %v: not the JSON:\n%q", colour, screen)
		}
	}
}
