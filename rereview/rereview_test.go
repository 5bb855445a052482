package rereview

import (
	"slices"
	"testing"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/state"
)

// The carried copy and the one raised again at its followed line are one
// finding under the older ID, at its highest priority, named by the
// reviewers of both; a finding the reviewers judged resolved is not
// matched by place, and one a pushed fix fixed is named (it is stuck) but
// not carried.
func TestCarryMergesAFindingRaisedAgain(t *testing.T) {
	prev := by(fnd("P2", "quality", "a.go", 12, "Leak of the handle"), "reviewer-1", "m1")
	prev.Agreement = "1/2"
	again := by(fnd("P1", "quality", "a.go", 12, "Leak of the file handle"), "reviewer-2", "m2")
	again.Agreement = "1/2"
	re := &Delta{Previous: []finding.Finding{prev}, Changed: map[string]bool{}}

	got := Carry([]finding.Finding{again}, re, nil, 2)
	if len(got) != 1 || got[0].ID != prev.ID || got[0].Priority != "P1" || got[0].Agreement != "2/2" || !slices.Equal(got[0].Reviewers, []string{"m1", "m2"}) {
		t.Errorf("not judged: %+v, want one P1 %s raised by m1 and m2 (2/2)", got, prev.ID)
	}
	if c := consensus.Count(got); c != (finding.Counts{P1: 1}) {
		t.Errorf("counts %+v: the problem once", c)
	}

	resolved := consensus.Verdicts{prev.ID: {Resolved: 1}}
	if got := Carry([]finding.Finding{again}, re, resolved, 2); len(got) != 1 || got[0].ID != again.ID {
		t.Errorf("judged resolved: %+v, want the new finding alone, under its own ID", got)
	}

	fixed := &Delta{Previous: []finding.Finding{prev}, Fixed: []finding.Finding{prev}, Changed: map[string]bool{}}
	got = Carry([]finding.Finding{again}, fixed, nil, 2)
	if len(got) != 1 || got[0].ID != prev.ID || got[0].Agreement != "1/2" || !slices.Equal(got[0].Reviewers, []string{"m2"}) {
		t.Errorf("fixed: %+v, want the new copy alone under %s", got, prev.ID)
	}
	if stuck := consensus.Stuck(fixed.Fixed, got, nil); !slices.Equal(stuck, []string{prev.ID}) {
		t.Errorf("stuck %v, want %s", stuck, prev.ID)
	}

	// A dismissed finding raised again at its line is under its ID.
	closed := &Delta{Closed: []finding.Finding{prev}, Changed: map[string]bool{}}
	if got := Carry([]finding.Finding{again}, closed, nil, 2); len(got) != 1 || got[0].ID != prev.ID || got[0].Agreement != "1/2" {
		t.Errorf("dismissed before: %+v, want the new copy under %s, not carried", got, prev.ID)
	}
}

// by makes f a copy from the reviewer role, whose model is model, as
// agentFindings does.
func by(f finding.Finding, role, model string) finding.Finding {
	f.Source, f.Reviewers = &finding.Source{Type: "agent", Name: role}, []string{model}
	return f
}

func fnd(prio, cat, file string, line int, title string) finding.Finding {
	f := finding.Finding{Priority: prio, Category: cat, File: file, Title: title}
	if line > 0 {
		f.Line = &line
	}
	f.ID = f.ComputeID()
	return f
}

// the diff of a.go that adds two lines at its top and rewrites line 10.
const twoAddedAndTenRewritten = `diff --git a/a.go b/a.go
--- a/a.go
+++ b/a.go
@@ -1,1 +1,3 @@
+// one
+// two
 package a
@@ -10,1 +12,1 @@
-old line
+new line
`

// A finding moves with its line and keeps its ID; one whose line was
// rewritten is changed and loses the replacement it would make; one on the
// base's side, or without a line, stays.
func TestFollow(t *testing.T) {
	files, err := diff.Parse([]byte(twoAddedAndTenRewritten))
	if err != nil {
		t.Fatal(err)
	}
	moved := fnd("P2", "quality", "a.go", 5, "Unchecked error")
	moved.EndLine = new(6)
	got, changed := Follow(files, moved)
	if changed || *got.Line != 7 || *got.EndLine != 8 || got.ID != moved.ID {
		t.Errorf("moved: line %d-%d changed %v, want 7-8 unchanged under its ID", *got.Line, *got.EndLine, changed)
	}
	rewritten := fnd("P2", "quality", "a.go", 10, "Magic number")
	rewritten.Replacement = new("x := 1")
	if got, changed := Follow(files, rewritten); !changed || got.Replacement != nil {
		t.Errorf("rewritten: changed %v, replacement %v", changed, got.Replacement)
	}
	left := fnd("P2", "quality", "a.go", 5, "Removed check")
	left.Side = "LEFT"
	if got, changed := Follow(files, left); changed || *got.Line != 5 {
		t.Errorf("a finding on the base's side moved: %d %v", *got.Line, changed)
	}
	if got, changed := Follow(files, fnd("P3", "docs", "README.md", 0, "Typo")); changed || got.Line != nil {
		t.Errorf("a finding without a line moved: %+v", got)
	}
}

// A fix counts only once pushed: a verified, declined or failed fix fixed
// nothing a re-review may take as fixed. A sampled review says so.
func TestBasisOf(t *testing.T) {
	rd := state.Round{HeadOID: "bbbbbbb", Findings: []finding.Finding{fnd("P1", "quality", "a.go", 3, "Leak")},
		Fix: &state.FixResult{Fixed: []finding.FixedIssue{{FindingID: "QUAL-1"}}}}
	if b := BasisOf(rd); b.Head != "bbbbbbb" || len(b.Findings) != 1 || len(b.Fixed) != 0 || b.Sampled != "" {
		t.Errorf("a fix not pushed: %+v", b)
	}
	rd.Fix.Pushed = true
	rd.Coverage = &diff.Coverage{Files: 3, Whole: 2, LeftOut: 1}
	if b := BasisOf(rd); !slices.Equal(b.Fixed, []string{"QUAL-1"}) || b.Sampled != "bbbbbbb" {
		t.Errorf("a pushed fix over a sampled review: %+v", b)
	}
	rd.Coverage.SampledBefore = "aaaaaaa"
	if b := BasisOf(rd); b.Sampled != "aaaaaaa" {
		t.Errorf("sampled before %q, want the earlier head", b.Sampled)
	}
}

// The ledger's basis findings are carried to head through the diff from
// the basis; a clone that cannot give that diff carries nothing (ok
// false), and the same head needs no diff.
func TestCarried(t *testing.T) {
	old := fnd("P1", "quality", "a.go", 5, "Unbounded")
	var prev posts.Ledger
	prev.Run, prev.Head, prev.Reviewed, prev.Basis = "20261124T101112-a1b2c3", "aaaaaaa", "aaaaaaa", "aaaaaaa"
	prev.Set(old.ID, finding.StatusOpen, "")
	prev.Locate(old)
	whole := func(from string) (string, bool) { return twoAddedAndTenRewritten, from == "aaaaaaa" }
	got, ok := Carried(prev, "ccccccc", whole)
	if !ok || len(got) != 1 || got[0].ID != old.ID || *got[0].Line != 7 {
		t.Errorf("carried %+v, %v: want %s at a.go:7", got, ok, old.ID)
	}
	if got, ok := Carried(prev, "ccccccc", func(string) (string, bool) { return "", false }); ok || got != nil {
		t.Errorf("without the diff: %+v, %v", got, ok)
	}
	if got, ok := Carried(prev, "aaaaaaa", nil); !ok || len(got) != 1 || *got[0].Line != 5 {
		t.Errorf("the same head: %+v, %v", got, ok)
	}
}

// The previous findings as a re-review's task lists them: where each is
// now, and its title on one line, as the ledger records it.
func TestList(t *testing.T) {
	a := fnd("P1", "quality", "a.go", 7, "Leak\nof the handle")
	b := fnd("P3", "docs", "README.md", 0, "Typo")
	got := (&Delta{Previous: []finding.Finding{a, b}}).List()
	want := []Previous{{ID: a.ID, Priority: "P1", Where: "a.go:7", Title: "Leak of the handle"}, {ID: b.ID, Priority: "P3", Where: "README.md", Title: "Typo"}}
	if !slices.Equal(got, want) {
		t.Errorf("list %+v, want %+v", got, want)
	}
}
