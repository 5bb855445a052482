package loop

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/evidence"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/review"
)

// The evidence describes the head it was read for: the round that reviews
// it gets the findings, the counts and the reviewers' list (a result in a
// file the ignore globs leave out is counted, not raised); a round after a
// push moved the head gets none of them.
func TestEvidenceOnlyForItsHead(t *testing.T) {
	pr := &github.PullRequest{Number: 3, HeadRefOid: "aaaa"}
	set := evidence.Set{Results: []evidence.Result{
		{Tool: "vet", File: "a.go", Line: 2, Level: evidence.LevelWarning, Message: "x is unused"},
		{Tool: "vet", File: "a.go", Line: 1, Level: evidence.LevelWarning, Message: "package comment"},
	}}
	l := &loop{o: Options{PR: pr, Evidence: []evidence.Set{set}, Policy: &config.Policy{Ignore: []string{"gen/**"}}}}
	set.Results = append(set.Results, evidence.Result{Tool: "vet", File: "gen/z.go", Line: 1, Level: evidence.LevelError, Message: "generated"})
	l.o.Evidence = []evidence.Set{set}
	rc := review.NewContext(pr, []byte(evidenceDiff), true, &config.Policy{})
	var rr report.RoundResult
	fs := l.evidence(pr, rc, &rr, []byte(evidenceDiff), "now")
	if len(fs) != 1 || *fs[0].Line != 2 || rr.Coverage.Evidence == nil || rr.Coverage.Evidence.LeftOut != 2 || !strings.Contains(rc.Evidence, "a.go:2` vet") {
		t.Fatalf("at its head: %+v, %+v, %q", fs, rr.Coverage.Evidence, rc.Evidence)
	}
	pushed := &github.PullRequest{Number: 3, HeadRefOid: "bbbb"}
	rc2, rr2 := review.NewContext(pushed, []byte(evidenceDiff), true, &config.Policy{}), report.RoundResult{}
	if fs := l.evidence(pushed, rc2, &rr2, []byte(evidenceDiff), "now"); fs != nil || rr2.Coverage.Evidence != nil || rc2.Evidence != "" {
		t.Errorf("after a push: %+v, %+v, %q", fs, rr2.Coverage.Evidence, rc2.Evidence)
	}
}

const evidenceDiff = "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,3 @@\n package a\n+var x = 1\n+var y = 2\n" +
	"diff --git a/gen/z.go b/gen/z.go\nnew file mode 100644\n--- /dev/null\n+++ b/gen/z.go\n@@ -0,0 +1 @@\n+package z\n"
