package loop

import (
	"slices"
	"testing"

	"github.com/ocdx/gh-ocdx/evidence"
	"github.com/ocdx/gh-ocdx/finding"
)

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
