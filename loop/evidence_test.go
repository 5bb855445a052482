package loop

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/evidence"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/report"
)

// A round fuses what its evidence source gives for the head it reviews,
// at its tier: the results on changed lines become findings and go to the
// reviewers, the rest (and those in a file the ignore globs leave out) are
// counted; a source with nothing for the head adds nothing.
func TestEvidenceGatheredForTheRoundsHead(t *testing.T) {
	pr := &github.PullRequest{Number: 3, HeadRefOid: "aaaa"}
	set := evidence.Set{Results: []evidence.Result{
		{Tool: "vet", File: "a.go", Line: 2, Level: evidence.LevelWarning, Message: "x is unused"},
		{Tool: "vet", File: "a.go", Line: 1, Level: evidence.LevelWarning, Message: "package comment"},
		{Tool: "vet", File: "gen/z.go", Line: 1, Level: evidence.LevelError, Message: "generated"},
	}}
	var asked []string
	source := func(_ context.Context, head string, tier effort.Tier) []evidence.Set {
		asked = append(asked, head+" "+string(tier))
		if head != "aaaa" {
			return nil
		}
		return []evidence.Set{set}
	}
	l := &loop{o: Options{PR: pr, Evidence: source, Policy: &config.Policy{Ignore: []string{"gen/**"}}}}
	rc := change.NewContext(pr, []byte(evidenceDiff), true, &config.Policy{})
	var rr report.RoundResult
	fs := l.evidence(t.Context(), "aaaa", effort.Quick, rc, &rr, []byte(evidenceDiff), "now")
	if len(fs) != 1 || *fs[0].Line != 2 || rr.Coverage.Evidence == nil || rr.Coverage.Evidence.LeftOut != 2 || !strings.Contains(rc.Evidence, "a.go:2` vet") {
		t.Fatalf("at its head: %+v, %+v, %q", fs, rr.Coverage.Evidence, rc.Evidence)
	}
	rc2, rr2 := change.NewContext(pr, []byte(evidenceDiff), true, &config.Policy{}), report.RoundResult{}
	if fs := l.evidence(t.Context(), "bbbb", effort.Deep, rc2, &rr2, []byte(evidenceDiff), "now"); fs != nil || rr2.Coverage.Evidence != nil || rc2.Evidence != "" {
		t.Errorf("nothing for another head: %+v, %+v, %q", fs, rr2.Coverage.Evidence, rc2.Evidence)
	}
	if fmt.Sprint(asked) != "[aaaa quick bbbb deep]" {
		t.Errorf("the source was asked %v", asked)
	}
}

const evidenceDiff = "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,3 @@\n package a\n+var x = 1\n+var y = 2\n" +
	"diff --git a/gen/z.go b/gen/z.go\nnew file mode 100644\n--- /dev/null\n+++ b/gen/z.go\n@@ -0,0 +1 @@\n+package z\n"
