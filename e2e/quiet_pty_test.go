//go:build unix

package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// logLine is a charmbracelet/log line: a level, or key=value pairs.
var logLine = regexp.MustCompile(`(?m)\b(INFO|WARN|DEBU|ERRO)\b|\b(model|call|tokens|elapsed)=`)

// An interactive review-pr says each fact once, as gh would: no log levels
// or key=value pairs beside the human lines, the tokens once, and it ends
// with a "✓ Posted review" line carrying the URL (the mark green on a
// terminal with colour on), not a bare URL.
func TestReviewPRInATerminalSaysEachFactOnce(t *testing.T) {
	t.Parallel()
	_, fm, env := modelFixture(t, "openai/gpt-rev")
	fm.Script("gpt-rev", testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: `{"event":"COMMENT","body":"LGTM"}`}))
	env.Set("NO_COLOR", "") // colour on, as on most terminals

	term := env.StartTerminal(t, "review-pr", "24")
	term.Expect("Post this review?")
	term.Send(testkit.Enter)
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	s := term.Screen()
	if m := logLine.FindString(s); m != "" {
		t.Errorf("a log line (%q) on the screen without --debug:\n%s", m, s)
	}
	if !strings.Contains(s, "\x1b[32m✓\x1b[0m Posted review on octo/widgets#24: https://") {
		t.Errorf("no green ✓ Posted review line:\n%q", s)
	}
	if n := strings.Count(s, "#pullrequestreview-"); n != 1 {
		t.Errorf("the review's URL is shown %d times, want once:\n%s", n, s)
	}
	if n := strings.Count(s, " out tokens"); n != 1 {
		t.Errorf("the tokens are said %d times, want once:\n%s", n, s)
	}
	// The proposed review is shown at Decide, not also as a tool call.
	if strings.Contains(s, "tool submit_review") {
		t.Errorf("the review is shown twice:\n%s", s)
	}
}

// Without colour (NO_COLOR), the marks are plain.
func TestReviewPRInATerminalWithoutColour(t *testing.T) {
	t.Parallel()
	_, fm, env := modelFixture(t, "openai/gpt-rev")
	fm.Script("gpt-rev", testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: `{"event":"APPROVE","body":"LGTM"}`}))

	term := env.StartTerminal(t, "review-pr", "24")
	term.Expect("! the model approved")
	term.Expect("Post this review?")
	term.Send(testkit.Enter)
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	if s := term.Screen(); !strings.Contains(s, "\n✓ Posted review on octo/widgets#24: https://") || strings.Contains(s, "\x1b[32m") || strings.Contains(s, "\x1b[33m") {
		t.Errorf("with NO_COLOR the marks are plain:\n%q", s)
	}
}

// Without colour (NO_COLOR), the spinner of a slow model call is plain too:
// no escape sequence but those that move the cursor.
func TestTheSpinnerHasNoColourWithoutColour(t *testing.T) {
	t.Parallel()
	_, fm, env := modelFixture(t, "openai/gpt-rev")
	step := testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: `{"event":"COMMENT","body":"LGTM"}`})
	step.Stall = 700 * time.Millisecond // long enough for the spinner to draw
	fm.Script("gpt-rev", step)

	term := env.StartBinaryTerminal(t, "review-pr", "24") // its own process: stdout a terminal too
	term.Expect("Post this review?")
	term.Send(testkit.Enter)
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	s := term.Screen()
	if !strings.ContainsAny(s, "⣾⣽⣻⢿⡿⣟⣯⣷") {
		t.Fatalf("no spinner:\n%q", s)
	}
	if regexp.MustCompile(`\x1b\[[0-9;]*m`).MatchString(s) {
		t.Errorf("with NO_COLOR the screen has a colour sequence:\n%q", s)
	}
}

// Ctrl-C at review-pr's question posts nothing and says so; it does not
// offer a resume, since review-pr keeps nothing to resume.
func TestReviewPRCtrlCOffersNoResume(t *testing.T) {
	t.Parallel()
	gh, fm, env := modelFixture(t, "openai/gpt-rev")
	fm.Script("gpt-rev", testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: `{"event":"COMMENT","body":"LGTM"}`}))

	term := env.StartTerminal(t, "review-pr", "24")
	term.Expect("Post this review?")
	term.Send(testkit.CtrlC)
	if code := term.Wait(); code != 130 {
		t.Fatalf("exit %d, want 130:\n%s", code, term.Screen())
	}
	s := term.Screen()
	if !strings.HasSuffix(strings.TrimRight(s, "\r\n"), "cancelled: nothing was posted") || strings.Contains(s, "resume") {
		t.Errorf("want one line saying nothing was posted, and no resume:\n%s", s)
	}
	if n := len(gh.Reviews(repo, 24)); n != 0 {
		t.Errorf("%d reviews posted", n)
	}
}

// An interactive review-loop says how it ended once: the summary on the
// screen says it, so no "run ended" line repeats it, and no log line
// stands beside the human ones.
func TestReviewLoopInATerminalSaysEachFactOnce(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug)
	lf.approveRound()

	term := lf.env.StartTerminal(t, "review-loop")
	term.Expect("Push 1 commit to origin/feature/cache?")
	term.Send("y" + testkit.Enter)
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	s := term.Screen()
	if m := logLine.FindString(s); m != "" {
		t.Errorf("a log line (%q) on the screen without --debug:\n%s", m, s)
	}
	if n := strings.Count(s, "consensus approve, no P0/P1/P2 findings"); n != 1 {
		t.Errorf("the outcome is said %d times, want once:\n%s", n, s)
	}
}

// Ctrl-C while review-loop works stops it with one line saying how to
// resume; the summary of a run that did not end ("Outcome: context
// canceled") is not shown.
func TestReviewLoopCtrlCShowsNoOutcome(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug)
	lf.fix.Mu.Lock()
	lf.fix.Block = make(chan struct{})
	lf.fix.Mu.Unlock()
	t.Cleanup(lf.unblock)

	term := lf.env.StartBinaryTerminal(t, "review-loop", "--yes")
	term.Expect("pr-fix ollama/fixer")
	term.Interrupt() // the terminal sends SIGINT: no prompt is open
	if code := term.Wait(); code != 130 {
		t.Fatalf("exit %d, want 130:\n%s", code, term.Screen())
	}
	s := term.Screen()
	if strings.Contains(s, "Outcome") || strings.Contains(s, "context canceled") || strings.Contains(s, "error:") {
		t.Errorf("a cancelled run shows no outcome and no error:\n%s", s)
	}
	if !strings.HasSuffix(strings.TrimRight(s, "\r\n"), "cancelled; run the same command to resume") {
		t.Errorf("the run should end with one line saying it can be resumed:\n%s", s)
	}
}

// When every reviewer fails the same way, the screen says the error once,
// says once that all of them failed and what to do, and calls the round
// neither partial nor clean.
func TestReviewLoopAllReviewersFailInATerminal(t *testing.T) {
	t.Parallel()
	lf := newUnreachableReviewersLoop(t)
	lf.fm.Script("analyzer", analyzerReply())

	term := lf.env.StartTerminal(t, "review-loop", "--yes")
	if code := term.Wait(); code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, term.Screen())
	}
	s := term.Screen()
	for what, n := range map[string]int{
		"connection refused":       1, // the error, once
		"retrying in":              1, // the retries, once
		"all 3 reviewers failed":   1,
		"config validate --online": 1, // what to do
		"partial":                  0,
		"No findings":              0,
	} {
		if got := strings.Count(s, what); got != n {
			t.Errorf("%q is on the screen %d times, want %d:\n%s", what, got, n, s)
		}
	}
	if m := logLine.FindString(s); m != "" {
		t.Errorf("a log line (%q) on the screen without --debug:\n%s", m, s)
	}
}

// Ctrl-C at review-loop's push question is a "no": the commits stay local,
// nothing more is posted, no failure is reported, and the run resumes.
func TestReviewLoopCtrlCAtThePushQuestion(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug)

	term := lf.env.StartTerminal(t, "review-loop")
	term.Expect("Push 1 commit to origin/feature/cache?")
	term.Send(testkit.CtrlC)
	if code := term.Wait(); code != 130 {
		t.Fatalf("exit %d, want 130:\n%s", code, term.Screen())
	}
	if s := term.Screen(); strings.Contains(s, "error:") || strings.Contains(s, "context canceled") || !strings.Contains(s, "the commits stay local, and a re-run resumes") {
		t.Errorf("stopping at the question is no failure:\n%s", s)
	}
	if k := fmt.Sprint(lf.kinds()); k != "[review:1]" {
		t.Fatalf("comments %s, want the review report only", k)
	}
	lf.pushWithoutRedoingTheFix()
}
