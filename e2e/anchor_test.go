package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// A finding anchors on the line it names in the PR's version when the diff
// shows that line, on the base's removed line only when it says side LEFT,
// and otherwise goes to the review's body: never on a removed line that
// merely has its number (before, a finding on an unchanged line was posted
// on an unrelated removed line).
func TestLoopAnchorsFindingsOnTheirSide(t *testing.T) {
	t.Parallel()
	var base, head strings.Builder
	for n := 1; n <= 40; n++ {
		fmt.Fprintf(&base, "line %d\n", n)
		if n < 20 || n > 25 {
			fmt.Fprintf(&head, "line %d\n", n)
		}
	}
	// The PR removes lines 20–25: its hunk shows lines 17–22 of the PR's
	// version and 17–28 of the base.
	r := testkit.NewRepo(t, "main", "trim", map[string]string{"list.txt": base.String()}, map[string]string{"list.txt": head.String()})
	lf := newLoop(t, func(pr *testkit.PR) { pr.Diff = r.Diff(t) })
	wantContains(t, "the PR's diff", lf.pr.Diff, "@@ -17,12 +17,6 @@")
	type f = map[string]any
	findings := []f{
		{"priority": "P2", "category": "quality", "file": "list.txt", "line": 24, "title": "Unchanged line 24", "description": "d"},
		{"priority": "P2", "category": "quality", "file": "list.txt", "line": 18, "title": "Context line 18", "description": "d"},
		{"priority": "P2", "category": "quality", "file": "list.txt", "line": 21, "side": "LEFT", "title": "Removed line 21", "description": "d"},
	}
	b, _ := json.Marshal(f{"agent": "reviewer-1", "prNumber": loopPR, "conclusion": "request_changes",
		"issues": f{"p0_blocking": 0, "p1_critical": 0, "p2_important": 3, "p3_suggestion": 0}, "findings": findings, "fullReport": "Reviewed."})
	lf.fm.Script("rev-a", testkit.Reply("BEGIN_JSON\n"+string(b)+"\nEND_JSON"))
	lf.fm.Script("rev-b", reviewerReply("reviewer-2", "approve"))
	lf.fm.Script("analyzer", analyzerReply())

	res := lf.run("--dry-run")

	wantCode(t, res, 0)
	wantContains(t, "stdout", res.Stdout, "### list.txt:18 (RIGHT)", "### list.txt:21 (LEFT)", "1 finding is on no changed line", "`list.txt:24`")
	for _, wrong := range []string{"### list.txt:24", "### list.txt:21 (RIGHT)"} {
		if strings.Contains(res.Stdout, wrong) {
			t.Errorf("anchored %q:\n%s", wrong, res.Stdout)
		}
	}
}
