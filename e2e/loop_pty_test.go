//go:build unix

package e2e

import (
	"fmt"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// TestLoopAsksBeforePushing: in a terminal the push is confirmed first; a
// "no" leaves the commits local (exit 130) and the next run resumes the
// round without reviewing or fixing it again.
func TestLoopAsksBeforePushing(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug)

	term := lf.env.StartTerminal(t, "review-loop")
	term.Expect("Push 1 commit to origin/feature/cache?")
	term.Send("n" + testkit.Enter)
	if code := term.Wait(); code != 130 {
		t.Fatalf("exit %d, want 130:\n%s", code, term.Screen())
	}
	if lf.repo.RemoteOID(t, lf.repo.Head) != lf.start {
		t.Fatal("a declined push must not reach the remote")
	}
	if k := fmt.Sprint(lf.kinds()); k != "[review:1]" {
		t.Fatalf("comments %s", k)
	}
	lf.pushWithoutRedoingTheFix()
	if len(lf.fm.Requests("rev-a")) != 2 {
		t.Errorf("round 1 was reviewed again")
	}
}
