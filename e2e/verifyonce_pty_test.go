//go:build unix

package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// In a terminal, over three rounds with two fixes and their push
// questions, the verify line is on the screen once, before the question
// about running the repository's commands.
func TestLoopShowsTheVerifyLineOnceInATerminal(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	oid := commitOn(t, lf.repo, lf.repo.Base, map[string]string{".ocdx.json": `{"verify": ["true", "git status --short"]}`})
	for i := 1; i <= 3; i++ {
		lf.findingRound(modelFinding{Priority: "P2", Category: "testing", File: fmt.Sprintf("t%d.go", i), Title: fmt.Sprintf("Missing test %d", i)})
	}

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
	screen := term.Screen()
	if n := strings.Count(screen, fmt.Sprintf("verify (from .ocdx.json on main at %s): true; git status --short", oid[:7])); n != 1 {
		t.Errorf("the verify line is on the screen %d times, want once:\n%s", n, screen)
	}
	if n := strings.Count(screen, "verify ("); n != 1 {
		t.Errorf("%d verify lines, want 1:\n%s", n, screen)
	}
}
