//go:build unix

package e2e

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// In a terminal, over three rounds with two fixes and their push
// questions, the verify line is on the screen once, and the question about
// running the repository's commands, which follows it, does not list them
// again.
func TestLoopShowsTheVerifyLineOnceInATerminal(t *testing.T) {
	t.Parallel()
	lf, line := threeFixedRounds(t)

	term := lf.env.StartTerminal(t, "review-loop")
	term.Expect("Run these commands for octo/widgets")
	term.Send("y" + testkit.Enter)
	for range 2 {
		term.Expect("Push 1 commit to origin/feature/cache?")
		term.Send("y" + testkit.Enter)
	}
	if code := term.Wait(); code != 3 {
		t.Fatalf("exit %d, want 3:\n%s", code, term.Screen())
	}
	wantVerifyLineOnce(t, lf, term.Screen(), line)
	// The question about the repository's commands does not list them again.
	asked, _, _ := strings.Cut(term.Screen(), "Run these commands")
	if n := strings.Count(asked, "git status --short"); n != 1 {
		t.Errorf("the commands are listed %d times before the question, want once:\n%s", n, asked)
	}
	wantContains(t, "the question", asked, "The verify commands above are octo/widgets's (.ocdx.json on main at ")
}
