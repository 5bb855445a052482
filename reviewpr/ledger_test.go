package reviewpr

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/rereview"
)

// review-pr's inline comments are threads every verb knows as gh-ocdx's
// own: posts.OwnThreads lists them with their findings, ThreadFindings does not
// take them for a person's.
func TestCommentsAreOwnThreads(t *testing.T) {
	posted, fs := Comments([]github.ReviewComment{
		{Path: "cache.go", Line: 5, StartLine: 3, Side: diff.Right, Body: "**Bound the cache**\n\nIt grows."},
		{Path: "cache.go", Line: 2, Side: diff.Left, Body: "```suggestion\nx\n```"},
	}, nil)
	if len(posted) != 2 || len(fs) != 2 {
		t.Fatalf("posted %d comments, %d findings", len(posted), len(fs))
	}
	if f := fs[0]; f.Title != "Bound the cache" || *f.Line != 3 || *f.EndLine != 5 || f.Priority != Priority || !strings.HasPrefix(f.ID, "OTHER-") {
		t.Errorf("first finding %+v", f)
	}
	if f := fs[1]; f.Title != "Suggested change" || f.Side != "LEFT" {
		t.Errorf("second finding %+v", f)
	}
	pr := &github.PullRequest{Viewer: "ocdx-bot"}
	for i, c := range posted {
		n := *fs[i].Line
		pr.Threads = append(pr.Threads, github.ReviewThread{ID: "PRRT_" + fs[i].ID, Comments: []github.ThreadComment{{Body: c.Body, Author: "ocdx-bot", Path: c.Path, Line: &n}}})
	}
	own := posts.OwnThreads(pr)
	if len(own) != 2 || own[0].Finding.ID != fs[0].ID || own[0].Finding.Title != "Bound the cache" || own[0].Priority != Priority {
		t.Errorf("own threads %+v", own)
	}
	if th, _ := consensus.ThreadFindings(pr, posts.NewTrust(fakePerms{}, github.Repo{Owner: "o", Name: "r"}, nil).Resolution(context.Background(), pr)); len(th) != 0 {
		t.Errorf("review-pr's comments became thread findings: %+v", th)
	}
}

// review-pr's ledger makes its head the basis, its comments open findings
// located there, and carries the previous basis's findings to that head,
// their lines followed; a clone that cannot follow them keeps the
// previous basis.
func TestLedgerMovesTheBasis(t *testing.T) {
	line := func(n int) *int { return &n }
	old := finding.Finding{ID: "QUAL-00000001", Priority: "P1", File: "a.go", Line: line(3), Title: "Unbounded"}
	var prev posts.Ledger
	prev.Run, prev.Head, prev.Reviewed, prev.Basis, prev.Converged = "20261124T101112-a1b2c3", "aaaaaaa", "aaaaaaa", "aaaaaaa", true
	prev.Set(old.ID, finding.StatusOpen, "")
	prev.Set("QUAL-00000002", finding.StatusDismissed, "")
	prev.Locate(old)
	_, fs := Comments([]github.ReviewComment{{Path: "a.go", Line: 9, Side: diff.Right, Body: "Name it"}}, nil)
	// Two lines added at the top of a.go since aaaaaaa.
	moved := "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,3 @@\n+x\n+y\n a\n"
	whole := func(from string) (string, bool) { return moved, from == "aaaaaaa" }

	led, basis := Ledger(prev, "20261124T121212-d4e5f6", "bbbbbbb", "", fs, whole)

	if led.Basis != "bbbbbbb" || led.Reviewed != "bbbbbbb" || led.Kind != "review-pr" || led.Converged {
		t.Errorf("ledger %+v", led)
	}
	got, ok := led.BasisFindings()
	if !ok || len(got) != 2 || len(basis) != 2 {
		t.Fatalf("basis findings %+v (recorded %+v)", got, basis)
	}
	if got[0].ID != old.ID || *got[0].Line != 5 || got[1].ID != fs[0].ID || *got[1].Line != 9 {
		t.Errorf("basis findings %+v, want %s at a.go:5 and the comment at a.go:9", got, old.ID)
	}
	if !slices.Equal(led.With(finding.StatusDismissed), []string{"QUAL-00000002"}) {
		t.Errorf("the dismissal was lost: %+v", led.Findings)
	}
	if len(prev.Findings) != 2 {
		t.Error("the previous ledger was changed")
	}

	// Without the commits here, the previous basis stays; the comment is open.
	led, basis = Ledger(prev, "20261124T121212-d4e5f6", "bbbbbbb", "", fs, func(string) (string, bool) { return "", false })
	if led.Basis != "aaaaaaa" || basis != nil || !slices.Contains(led.With(finding.StatusOpen), fs[0].ID) {
		t.Errorf("without the diff: basis %s, recorded %+v, findings %+v", led.Basis, basis, led.Findings)
	}
	if got, _ := led.BasisFindings(); len(got) != 1 || *got[0].Line != 3 {
		t.Errorf("the previous basis changed: %+v", got)
	}
}

// A review-pr comment on the problem of a finding the PR already has (at
// its line at this head, a similar title) is that finding, under its ID,
// SEC- included: one problem is never two findings, and the comment takes
// only the name.
func TestReviewPRCommentOnAKnownProblemIsThatFinding(t *testing.T) {
	line := 7
	earlier := []finding.Finding{{ID: "SEC-f7c590a4", Priority: "P0", File: "auth.go", Line: &line, Title: "Keys are not validated"}}
	posted, fs := Comments([]github.ReviewComment{
		{Path: "auth.go", Line: 8, Side: diff.Right, Body: "**Keys are not validated**\n\nAnyone's key passes."},
		{Path: "auth.go", Line: 30, Side: diff.Right, Body: "Name it better"},
	}, earlier)
	if len(fs) != 2 || fs[0].ID != "SEC-f7c590a4" || !strings.HasPrefix(fs[1].ID, "OTHER-") {
		t.Fatalf("findings %+v", fs)
	}
	if !strings.Contains(posted[0].Body, "SEC-f7c590a4") {
		t.Errorf("the comment is not tagged with the finding's ID:\n%s", posted[0].Body)
	}
}

// In review-pr's ledger, a finding its comment named keeps what the basis
// said of it: a comment (P3) on a P0 does not make it a P3.
func TestLedgerKeepsTheFindingACommentNamed(t *testing.T) {
	prev := posts.Ledger{V: 3, Run: "20261124T101010-a1b2c3", Round: 1, Head: "aaaaaaa", Reviewed: "aaaaaaa", Basis: "aaaaaaa"}
	prev.Set("SEC-f7c590a4", finding.StatusOpen, "")
	line := 7
	prev.Locate(finding.Finding{ID: "SEC-f7c590a4", Priority: "P0", File: "auth.go", Line: &line, Title: "Keys are not validated"})
	earlier, _ := rereview.Carried(prev, "aaaaaaa", nil)
	_, fs := Comments([]github.ReviewComment{{Path: "auth.go", Line: 7, Side: diff.Right, Body: "Keys are not validated"}}, earlier)
	led, basis := Ledger(prev, "20261124T121212-d4e5f6", "aaaaaaa", "", fs, nil)
	if len(basis) != 1 || basis[0].Priority != "P0" {
		t.Errorf("basis %+v", basis)
	}
	if len(led.Findings) != 1 || led.Findings[0].Priority != "P0" {
		t.Errorf("ledger %+v", led.Findings)
	}
}

// fakePerms is the repository's permissions by login; anyone else has none.
type fakePerms map[string]github.Permission

func (p fakePerms) Permission(_ context.Context, _ github.Repo, login string) (github.Permission, error) {
	if v, ok := p[login]; ok {
		return v, nil
	}
	return github.PermNone, nil
}
