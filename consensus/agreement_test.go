package consensus

import (
	"slices"
	"testing"

	"github.com/ocdx/gh-ocdx/evidence"
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
	thread := finding.Finding{ID: "THREAD-9", Priority: "P1", File: "a.go", Line: new(12), Title: "Leak of the handle"}
	sameID := typo
	sameID.Line = new(4) // raised again with its ID, as a re-review may
	nearTypo := fnd("P3", "docs", "README.md", 3, "Typo in the intro!")
	fs := []finding.Finding{thread, again, twice, far, notSec, nearTypo, sameID}

	got, at := Identify(fs, []finding.Finding{leak, typo, token}, func(finding.Finding) bool { return true })

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
		t.Error("Identify changed its argument")
	}

	// Where again refuses an earlier finding, only its own ID names it.
	got, at = Identify(fs, []finding.Finding{leak, typo}, func(finding.Finding) bool { return false })
	if got[1].ID != again.ID || got[6].ID != typo.ID || len(at) != 1 {
		t.Errorf("again refused: %v, %v", got, at)
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

// A problem raised again is one finding: the higher priority, named by the
// reviewers of both (the earlier ones first, each once), its agreement out
// of the reviewers that answered this round.
func TestRaisedAgain(t *testing.T) {
	p := by(fnd("P2", "quality", "a.go", 12, "Leak of the handle"), "reviewer-1", "m1")
	p.Reviewers = []string{"m1", "m2"}
	f := by(fnd("P1", "quality", "a.go", 14, "Leak of the file handle"), "reviewer-3", "m3")
	f.Reviewers = []string{"m2", "m3"}
	got := RaisedAgain(f, p, 3)
	if got.Priority != "P1" || !slices.Equal(got.Reviewers, []string{"m1", "m2", "m3"}) || got.Agreement != "3/3" {
		t.Errorf("raised again: %s by %v (%s), want P1 by m1, m2, m3 (3/3)", got.Priority, got.Reviewers, got.Agreement)
	}
	if got := RaisedAgain(f, p, 2); got.Agreement != "3/3" {
		t.Errorf("agreement %s: never more reviewers than answered", got.Agreement)
	}
	p.Reviewers, f.Reviewers = nil, nil
	if got := RaisedAgain(f, p, 2); got.Reviewers != nil || got.Agreement != "" {
		t.Errorf("nobody's finding got reviewers: %v %q", got.Reviewers, got.Agreement)
	}
}

// What a report and an inline comment say of who raised a finding.
func TestAgreement(t *testing.T) {
	for _, tc := range []struct {
		f    finding.Finding
		want string
	}{
		{finding.Finding{Agreement: "2/3", Reviewers: []string{"openai/a", "anthropic/b"}}, "2/3 reviewers (openai/a, anthropic/b)"},
		{finding.Finding{Agreement: "1/1", Reviewers: []string{"openai/a"}}, "1/1 reviewer (openai/a)"},
		{finding.Finding{ID: "THREAD-1"}, ""},
	} {
		if got := Agreement(tc.f); got != tc.want {
			t.Errorf("Agreement(%+v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

// Priorities order most severe first, an unknown one last; P0–P2 block.
func TestRankAndBlocking(t *testing.T) {
	if !(Rank("P0") < Rank("P1") && Rank("P1") < Rank("P3") && Rank("P3") < Rank("P9") && Rank("") == Rank("P9")) {
		t.Errorf("ranks P0 %d P1 %d P3 %d P9 %d", Rank("P0"), Rank("P1"), Rank("P3"), Rank("P9"))
	}
	for p, want := range map[string]bool{"P0": true, "P1": true, "P2": true, "P3": false, "": false} {
		if got := Blocking(finding.Finding{Priority: p}); got != want {
			t.Errorf("Blocking(%s) = %v", p, got)
		}
	}
}

// A tool's result and a reviewer's finding naming its rule at the same
// place are one finding: at the higher priority, its agreement naming the
// reviewers and the tool; a reviewer's finding about another problem on
// the same line stays apart, and the tool is never counted as a reviewer.
func TestDistinctMergesToolAndReviewer(t *testing.T) {
	tool := evidence.Findings([]evidence.Result{{Tool: "staticcheck", File: "cart.go", Line: 19, Column: 5, Level: evidence.LevelWarning,
		Rule: "S1003", Message: `should use strings.Contains(name, "x") instead`}}, "now")[0]
	model := by(fnd("P3", "quality", "cart.go", 19, "Use strings.Contains"), "reviewer-1", "openai/gpt-4.1")
	model.Description = "staticcheck's S1003 is right: strings.Index != -1 reads worse than strings.Contains."
	other := by(fnd("P1", "quality", "cart.go", 19, "Label drops the name's case"), "reviewer-2", "anthropic/claude-sonnet-4-5")

	got := Distinct([]finding.Finding{model, other, tool}, 2)
	if len(got) != 2 {
		t.Fatalf("%d findings, want 2 (the merged one and the other problem): %+v", len(got), got)
	}
	m := got[0]
	if m.Priority != "P2" || m.ID != tool.ID {
		t.Errorf("merged %s %s, want the tool's P2 copy %s", m.ID, m.Priority, tool.ID)
	}
	if !slices.Equal(m.Tools, []string{"staticcheck"}) || m.Agreement != "1/2" {
		t.Errorf("merged tools %v agreement %q", m.Tools, m.Agreement)
	}
	if a := Agreement(m); a != "1/2 reviewers (openai/gpt-4.1) + staticcheck" {
		t.Errorf("Agreement = %q", a)
	}
	if got[1].ID != other.ID || len(got[1].Tools) != 0 {
		t.Errorf("the other problem: %+v", got[1])
	}
	// Alone, the tool's finding names the tool and no reviewer.
	alone := Distinct([]finding.Finding{tool}, 2)
	if len(alone) != 1 || alone[0].Agreement != "" || Agreement(alone[0]) != "staticcheck" {
		t.Errorf("tool alone: %+v, %q", alone, Agreement(alone[0]))
	}
}

// What a model writes in tools is replaced, as its reviewers and
// agreement are.
func TestDistinctDropsModelTools(t *testing.T) {
	f := by(fnd("P2", "quality", "a.go", 1, "x"), "reviewer-1", "m")
	f.Tools = []string{"codeql"}
	if got := Distinct([]finding.Finding{f}, 1); len(got[0].Tools) != 0 {
		t.Errorf("model-sent tools kept: %v", got[0].Tools)
	}
}
