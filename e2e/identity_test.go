package e2e

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// A finding dismissed on the PR, raised again after a push moved its line
// (another line, a reworded title: another ID), is the same finding: still
// dismissed, so the run converges, on the machine that ran before and on a
// fresh one, reviewing incrementally or in full (docs/architecture.md,
// Findings and agreement).
func TestADismissedFindingRaisedAgainAtItsMovedLineDoesNotBlock(t *testing.T) {
	t.Parallel()
	for _, sc := range []struct {
		name        string
		fresh, full bool
	}{{"kept", false, false}, {"fresh", true, false}, {"kept, --full", false, true}, {"fresh, --full", true, true}} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			lf := newLoop(t, func(pr *testkit.PR) { pr.Permission = "READ" }) // review only: nothing is fixed
			lf.findingRound(cacheBug)
			wantCode(t, lf.run("--yes"), 3)
			lf.gh.SetPermission(repo, "carol", "write")
			lf.gh.AddCommentBy(repo, loopPR, "carol", "CONTRIBUTOR", "/ocdx dismiss "+cacheBug.id())
			lf.findingRound(cacheBug)
			wantCode(t, lf.run("--yes"), 0)
			// Two lines on top of the cache move its size to line 5.
			testkit.WriteFiles(t, lf.repo.Clone, map[string]string{"cache.go": "package cache\n\n// Size bounds nothing yet.\n// Get echoes.\nvar Size = 10\n\nfunc Get(k string) string { return k }\n"})
			testkit.Git(t, lf.repo.Clone, "commit", "-qam", "document the cache")
			testkit.Git(t, lf.repo.Clone, "push", "-q", "origin", lf.repo.Head)
			if sc.fresh {
				lf.env.Set("OCDX_STATE_DIR", t.TempDir())
			}
			again := modelFinding{Priority: "P1", Category: "quality", File: "cache.go", Line: line(5), Title: "The cache size is not bounded"}
			lf.findingRound(again)

			args := []string{"--yes", "--json", "outcome,remaining,rounds"}
			if sc.full {
				args = append(args, "--full")
			}
			res := lf.run(args...)

			wantCode(t, res, 0)
			wantContains(t, "stdout", res.Stdout, `"remaining": []`)
			if full := !strings.Contains(res.Stdout, `"since"`); full != sc.full {
				t.Errorf("reviewed in full: %t, want %t", full, sc.full)
			}
			if strings.Contains(res.Stdout, again.id()) {
				t.Errorf("the finding raised again has an ID of its own, %s:\n%s", again.id(), res.Stdout)
			}
			bodies := lf.bodies()
			wantContains(t, "the last report", bodies[len(bodies)-1], "### Dismissed findings", "`"+cacheBug.id()+"` P1 The cache size is not bounded · dismissed by `carol`")
		})
	}
}
