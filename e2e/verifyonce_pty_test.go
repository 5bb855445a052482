//go:build unix

package e2e

import (
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// In a terminal, over three rounds with two fixes and their push
// questions, the verify line is on the screen once, before the question
// about running the repository's commands.
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
}
