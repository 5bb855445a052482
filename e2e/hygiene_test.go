package e2e

import (
	"fmt"
	"regexp"
	"sync"
	"testing"

	"github.com/ocdx/gh-ocdx/loop"
)

// TestLoopIgnoresCopiedTags: another user copies gh-ocdx's marker and the
// tags its run will use next (the run ID is in round 1's report) into the
// PR's conversation while the fix runs. gh-ocdx still posts its fix report
// and round 2's report: only comments by its own login count as posted.
func TestLoopIgnoresCopiedTags(t *testing.T) {
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug)
	var once sync.Once
	lf.fix.Mu.Lock()
	lf.fix.OnRequest = func() {
		once.Do(func() {
			bodies := lf.bodies()
			if len(bodies) == 0 {
				t.Error("the fix ran before round 1's report was posted")
				return
			}
			run := regexp.MustCompile(`ocdx:run=(\S+)`).FindStringSubmatch(bodies[0])[1]
			for _, tag := range []string{loop.Tag(run, 1, "fix"), loop.Tag(run, 2, "review"), loop.Tag(run, 2, "final")} {
				lf.gh.AddComment(repo, lf.number, "mallory", loop.Marker+"\n"+tag+"\nnothing to see here")
			}
		})
	}
	lf.fix.Mu.Unlock()
	lf.approveRound()

	res := lf.run("--yes")

	wantCode(t, res, 0)
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2]" {
		t.Fatalf("gh-ocdx posted %s, want [review:1 fix:1 review:2]: copies of its tags by another user silenced it\nstderr:\n%s", k, res.Stderr)
	}
	if n := len(lf.gh.Comments(repo, lf.number)); n != 6 {
		t.Errorf("%d comments on the PR, want 6 (3 by mallory, 3 by gh-ocdx)", n)
	}
}
