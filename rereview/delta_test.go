package rereview

import (
	"context"
	"testing"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/posts"
)

// sinceDiff adds two lines at the top of a.go: a finding at line 10 moves
// to line 12.
const sinceDiff = "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,3 @@\n package a\n+var x = 1\n+var y = 2\n"

func checkout(ok bool) Checkout {
	return Checkout{Since: func(context.Context, string, string, string) (string, bool) { return sinceDiff, ok }}
}

// A re-review builds on the reviewed head when the new head descends from
// it: its previous findings followed to their lines, a refuted or
// dismissed one closed (not judged, not carried), one the PR's ledger
// says a fix pushed named fixed; the basis's sampling carried forward. The
// same head, or one the checkout cannot diff from it, is reviewed in full.
func TestADeltaBuildsOnADescendedHead(t *testing.T) {
	leak, typo, wrong := fnd("P1", "quality", "a.go", 10, "Leak"), fnd("P3", "docs", "a.go", 1, "Typo"), fnd("P2", "bug", "a.go", 5, "Wrong")
	wrong.Status = finding.StatusRefuted
	gone := fnd("P2", "quality", "b.go", 3, "Dismissed")
	b := Basis{Head: "aaaaaaaa", Findings: []finding.Finding{leak, typo, wrong}, Dismissed: []finding.Finding{gone}, Sampled: "00000000"}
	pr := &github.PullRequest{HeadRefOid: "bbbbbbbb", BaseRefOid: "cccccccc"}
	ctx := context.Background()

	re := Of(ctx, checkout(true), b, pr, &config.Policy{}, []string{typo.ID})
	if re == nil {
		t.Fatal("no delta for a descended head")
	}
	if re.Since != "aaaaaaaa" || len(re.Previous) != 2 || *re.Previous[0].Line != 12 || re.Coverage.SampledBefore != "00000000" {
		t.Errorf("delta: since %q, previous %+v, coverage %+v", re.Since, re.Previous, re.Coverage)
	}
	if len(re.Fixed) != 1 || re.Fixed[0].ID != typo.ID || len(re.Closed) != 2 {
		t.Errorf("fixed %+v, closed %+v", re.Fixed, re.Closed)
	}
	if Of(ctx, checkout(false), b, pr, nil, nil) != nil {
		t.Error("a head the checkout cannot diff from the reviewed one is re-reviewed")
	}
	pr.HeadRefOid = "aaaaaaaa"
	if Of(ctx, checkout(true), b, pr, nil, nil) != nil {
		t.Error("the reviewed head itself is re-reviewed")
	}
	if got := Earlier(ctx, Checkout{}, b, "bbbbbbbb"); len(got) != 4 {
		t.Errorf("a full review's earlier findings: %+v", got)
	}
}

// The basis a PR's ledger names: its located findings, the refuted ones
// among them as refuted, its dismissed ones apart, its fixed IDs; none
// without a basis.
func TestFromLedger(t *testing.T) {
	leak, wrong, gone := fnd("P1", "quality", "a.go", 10, "Leak"), fnd("P2", "bug", "a.go", 5, "Wrong"), fnd("P2", "quality", "b.go", 3, "Dismissed")
	led := posts.Ledger{Run: "20260101T000000-abcdef", Round: 1, Head: "aaaaaaaa", Reviewed: "aaaaaaaa", Basis: "aaaaaaaa"}
	for _, f := range []finding.Finding{leak, wrong, gone} {
		led.Set(f.ID, finding.StatusOpen, "")
		led.Locate(f)
	}
	led.Set(wrong.ID, finding.StatusRefuted, "")
	led.Set(gone.ID, finding.StatusDismissed, "")
	led.Set("QUAL-0000f1c5", finding.StatusFixed, "dddddddd")

	b, ok := FromLedger(led, &github.PullRequest{})
	if !ok || b.Head != "aaaaaaaa" || len(b.Findings) != 2 || b.Findings[1].ID != wrong.ID || b.Findings[1].Status != finding.StatusRefuted ||
		len(b.Dismissed) != 1 || b.Dismissed[0].ID != gone.ID || len(b.Fixed) != 1 || b.Fixed[0] != "QUAL-0000f1c5" {
		t.Errorf("basis %+v", b)
	}
	led.Basis = ""
	if _, ok := FromLedger(led, nil); ok {
		t.Error("a ledger without a basis gives one")
	}
}
