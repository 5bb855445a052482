package loop

import (
	"slices"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/secretscan"
)

// by makes f a copy from the reviewer role, whose model is model, as
// agentFindings does.
func by(f finding.Finding, role, model string) finding.Finding {
	f.Source, f.Reviewers = &finding.Source{Type: "agent", Name: role}, []string{model}
	return f
}

// One problem raised by several reviewers is one finding, whatever ID,
// category or nearby line each gave it: counted once, at its highest
// priority, naming who raised it out of the reviewers that answered.
func TestDistinctMergesOneProblem(t *testing.T) {
	a := by(fnd("P2", "quality", "cache.go", 10, "Cache size is not bounded"), "reviewer-1", "openai/gpt-4.1")
	b := by(fnd("P1", "performance", "cache.go", 12, "Cache size not bounded"), "reviewer-2", "anthropic/claude-sonnet-4-5")
	c := by(fnd("P2", "quality", "cache.go", 10, "Cache size is not bounded"), "reviewer-3", "ollama/qwen")
	other := by(fnd("P2", "quality", "cache.go", 11, "Get has no test"), "reviewer-3", "ollama/qwen")
	far := by(fnd("P2", "quality", "cache.go", 30, "Cache size is not bounded"), "reviewer-1", "openai/gpt-4.1")
	again := a // reviewer-1 repeating itself counts once

	got := Distinct([]finding.Finding{a, b, other, c, far, again}, 3)
	if len(got) != 3 {
		t.Fatalf("%d findings, want 3 (the merged one, the test, the one 20 lines away): %+v", len(got), got)
	}
	m := got[0]
	if m.Priority != "P1" || m.ID != b.ID {
		t.Errorf("merged finding %s %s: want the highest priority's copy, %s P1", m.ID, m.Priority, b.ID)
	}
	if m.Agreement != "3/3" || !slices.Equal(m.Reviewers, []string{"openai/gpt-4.1", "anthropic/claude-sonnet-4-5", "ollama/qwen"}) {
		t.Errorf("merged finding raised by %v (%s), want all three in order", m.Reviewers, m.Agreement)
	}
	if got[1].ID != other.ID || got[1].Agreement != "1/3" || got[2].ID != far.ID || got[2].Agreement != "1/3" {
		t.Errorf("the others: %+v", got[1:])
	}
	if c := Count(got); c != (finding.Counts{P1: 1, P2: 2}) {
		t.Errorf("counts %+v: each problem once", c)
	}
	if s := Agreement(m); s != "3/3 reviewers (openai/gpt-4.1, anthropic/claude-sonnet-4-5, ollama/qwen)" {
		t.Errorf("Agreement = %q", s)
	}

	// Among equal priorities, the smallest ID; the agreement is out of
	// the reviewers that answered, not those configured.
	x := by(fnd("P2", "quality", "a.go", 5, "Unchecked error from Close"), "reviewer-1", "m1")
	y := by(fnd("P2", "bug", "a.go", 5, "Unchecked error from Close"), "reviewer-2", "m2")
	want := min(x.ID, y.ID)
	if d := Distinct([]finding.Finding{x, y}, 2); len(d) != 1 || d[0].ID != want || d[0].Agreement != "2/2" {
		t.Errorf("equal priorities: %+v, want %s by 2/2", d, want)
	}
}

// gh-ocdx's own secret finding stays itself when a reviewer reports the
// same token; threads are never merged; text a model put in reviewers or
// agreement does not survive.
func TestDistinctKeepsOwnAndThreadFindings(t *testing.T) {
	line := 7
	sec := finding.Finding{Priority: "P0", Category: "security", File: "config.go", Line: &line, Title: "Hard-coded github-token added",
		Source: &finding.Source{Type: "agent", Name: secretscan.Scanner}}
	sec.ID = sec.ComputeID()
	rev := by(fnd("P0", "security", "config.go", 7, "Hard-coded GitHub token added"), "reviewer-1", "m1")
	t1 := finding.Finding{ID: "THREAD-1", Priority: "P1", File: "config.go", Line: &line, Title: "Hard-coded github-token added", Source: &finding.Source{Type: "human", Name: "mona"}}
	t2 := finding.Finding{ID: "THREAD-2", Priority: "P1", File: "config.go", Line: &line, Title: "Hard-coded github-token added", Source: &finding.Source{Type: "human", Name: "mona"}}
	forged := by(fnd("P3", "docs", "README.md", 1, "Typo"), "reviewer-2", "m2")
	forged.Agreement = "9/9"

	got := Distinct([]finding.Finding{rev, sec, t1, t2, forged}, 2)
	if len(got) != 4 {
		t.Fatalf("%d findings, want 4: %+v", len(got), got)
	}
	if got[0].ID != sec.ID || got[0].Source.Name != secretscan.Scanner || got[0].Agreement != "1/2" {
		t.Errorf("the token: %+v, want gh-ocdx's own finding, raised by 1/2 reviewers too", got[0])
	}
	if got[1].ID != "THREAD-1" || got[2].ID != "THREAD-2" || got[1].Agreement != "" || got[1].Reviewers != nil {
		t.Errorf("threads: %+v", got[1:3])
	}
	if got[3].Agreement != "1/2" {
		t.Errorf("a model's agreement survived: %q", got[3].Agreement)
	}
}

// A problem raised again keeps the ID it had: by the same ID, or at the
// earlier finding's followed line with a similar title, whatever the
// category. Each earlier finding names one finding; a far one, a thread,
// or a finding across the SEC- boundary keeps its own ID.
func TestIdentifyGivesAProblemRaisedAgainItsEarlierID(t *testing.T) {
	leak := fnd("P1", "quality", "a.go", 12, "Leak of the handle") // followed from a.go:10
	typo := fnd("P3", "docs", "README.md", 3, "Typo in the intro")
	token := fnd("P0", "security", "config.go", 7, "Token in the source")
	again := fnd("P2", "performance", "a.go", 13, "Leak of the file handle")
	twice := fnd("P2", "quality", "a.go", 12, "Leak of the handle!")
	far := fnd("P1", "quality", "a.go", 30, "Leak of the handle")
	notSec := fnd("P1", "quality", "config.go", 7, "Token in the source")
	thread := finding.Finding{ID: "THREAD-9", Priority: "P1", File: "a.go", Line: lineOf(12), Title: "Leak of the handle"}
	sameID := typo
	sameID.Line = lineOf(4) // raised again with its ID, as a re-review may
	nearTypo := fnd("P3", "docs", "README.md", 3, "Typo in the intro!")
	fs := []finding.Finding{thread, again, twice, far, notSec, nearTypo, sameID}

	got, at := identify(fs, []finding.Finding{leak, typo, token}, func(finding.Finding) bool { return true })

	want := []string{"THREAD-9", leak.ID, twice.ID, far.ID, notSec.ID, nearTypo.ID, typo.ID}
	for i, f := range got {
		if f.ID != want[i] {
			t.Errorf("finding %d (%s): ID %s, want %s", i, fs[i].Title, f.ID, want[i])
		}
	}
	if len(at) != 2 || at[leak.ID] != 1 || at[typo.ID] != 6 {
		t.Errorf("raised again: %v, want %s at 1 and %s at 6", at, leak.ID, typo.ID)
	}
	if fs[1].ID != again.ID {
		t.Error("identify changed its argument")
	}

	// Where again refuses an earlier finding, only its own ID names it.
	got, at = identify(fs, []finding.Finding{leak, typo}, func(finding.Finding) bool { return false })
	if got[1].ID != again.ID || got[6].ID != typo.ID || len(at) != 1 {
		t.Errorf("again refused: %v, %v", got, at)
	}
}

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
	re := &reReview{Previous: []finding.Finding{prev}, Changed: map[string]bool{}}

	got := carry([]finding.Finding{again}, re, nil, 2)
	if len(got) != 1 || got[0].ID != prev.ID || got[0].Priority != "P1" || got[0].Agreement != "2/2" || !slices.Equal(got[0].Reviewers, []string{"m1", "m2"}) {
		t.Errorf("not judged: %+v, want one P1 %s raised by m1 and m2 (2/2)", got, prev.ID)
	}
	if c := Count(got); c != (finding.Counts{P1: 1}) {
		t.Errorf("counts %+v: the problem once", c)
	}

	resolved := Verdicts{prev.ID: {Resolved: 1}}
	if got := carry([]finding.Finding{again}, re, resolved, 2); len(got) != 1 || got[0].ID != again.ID {
		t.Errorf("judged resolved: %+v, want the new finding alone, under its own ID", got)
	}

	fixed := &reReview{Previous: []finding.Finding{prev}, Fixed: []finding.Finding{prev}, Changed: map[string]bool{}}
	got = carry([]finding.Finding{again}, fixed, nil, 2)
	if len(got) != 1 || got[0].ID != prev.ID || got[0].Agreement != "1/2" || !slices.Equal(got[0].Reviewers, []string{"m2"}) {
		t.Errorf("fixed: %+v, want the new copy alone under %s", got, prev.ID)
	}
	if stuck := Stuck(fixed.Fixed, got, nil); !slices.Equal(stuck, []string{prev.ID}) {
		t.Errorf("stuck %v, want %s", stuck, prev.ID)
	}

	// A dismissed finding raised again at its line is under its ID.
	closed := &reReview{Closed: []finding.Finding{prev}, Changed: map[string]bool{}}
	if got := carry([]finding.Finding{again}, closed, nil, 2); len(got) != 1 || got[0].ID != prev.ID || got[0].Agreement != "1/2" {
		t.Errorf("dismissed before: %+v, want the new copy under %s, not carried", got, prev.ID)
	}
}

// A reviewer's security finding merged with another's quality finding of
// the same priority keeps its SEC- ID, whichever ID is smaller: only an
// admin may dismiss the problem.
func TestDistinctKeepsTheSECIDAmongEquals(t *testing.T) {
	q := by(fnd("P1", "quality", "auth.go", 4, "Token compared with =="), "reviewer-1", "m1")
	s := by(fnd("P1", "security", "auth.go", 4, "Token compared with =="), "reviewer-2", "m2")
	if q.ID > s.ID {
		t.Fatalf("the test wants the quality ID smaller: %s, %s", q.ID, s.ID)
	}
	if d := Distinct([]finding.Finding{q, s}, 2); len(d) != 1 || d[0].ID != s.ID {
		t.Errorf("merged: %+v, want %s", d, s.ID)
	}
}
