package loop

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/roles"
	"github.com/ocdx/gh-ocdx/secretscan"
	"github.com/ocdx/gh-ocdx/state"
)

// A secret only the history holds is not sent to the fix agent (no commit
// on top can remove it) and blocks the round with what to do; the other
// findings are still fixed.
func TestAHistorySecretBlocksAndIsNotFixed(t *testing.T) {
	hist := finding.Finding{Priority: "P0", Category: "security", File: "a.go", Title: "Hard-coded github-token in commit aaaaaaa (history only)",
		Source: &finding.Source{Type: "agent", Name: secretscan.Scanner}}
	hist.ID = hist.ComputeID()
	bug := finding.Finding{Priority: "P1", Category: "quality", File: "a.go", Line: new(2), Title: "bug", Source: &finding.Source{Name: "reviewer-1"}}
	bug.ID = bug.ComputeID()
	toFix, _ := consensus.IssuesToFix([]finding.Finding{hist, bug}, nil)
	if len(toFix) != 1 || toFix[0].ID != bug.ID {
		t.Errorf("to fix: %+v", toFix)
	}
	l := &loop{o: Options{CanPush: true, MaxRounds: 5, Reviewers: []roles.Role{{Name: "reviewer-1"}}}}
	rr := &report.RoundResult{N: 1, Findings: []finding.Finding{hist}, ReviewersOK: 1, Consensus: consensus.Approve}
	rr.Counts = consensus.Count(rr.Findings)
	outcome, reason, fix, _ := prSink{l: l}.decide(rr)
	if outcome != state.OutcomeBlocked || len(fix) != 0 || !strings.Contains(reason, hist.ID) || !strings.Contains(reason, "rewrite the branch or squash-merge") {
		t.Errorf("%s %q, fix %v", outcome, reason, fix)
	}
}
