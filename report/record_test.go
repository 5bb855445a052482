package report

import (
	"reflect"
	"testing"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/roles"
	"github.com/ocdx/gh-ocdx/state"
	"github.com/ocdx/gh-ocdx/verifier"
)

// A round read back from its record says what it said when it ran: its
// counted findings without the refuted ones, which come back as refuted
// with their evidence; who answered and who failed; each role's tokens
// and, with prices, costs; the verifier's tokens and refutations.
func TestAReloadedRoundSaysWhatItSaid(t *testing.T) {
	u := tokens.Usage{Input: 1000, Output: 100}
	kept := finding.Finding{ID: "QUAL-00000001", Priority: "P1", File: "a.go", Title: "Kept", Reviewers: []string{"openai/a"},
		Source: &finding.Source{Type: "agent", Name: "reviewer-1"}}
	refuted := finding.Finding{ID: "QUAL-00000002", Priority: "P2", File: "b.go", Title: "Wrong", Reviewers: []string{"openai/a"},
		Status: finding.StatusRefuted, Evidence: "b.go:3 checks it"}
	ran := RoundResult{N: 1, HeadOID: "aaaaaaaa", Findings: []finding.Finding{kept}, Refuted: []finding.Finding{refuted},
		Consensus: consensus.RequestChanges, Stuck: []string{}, Counts: consensus.Count([]finding.Finding{kept}),
		Roles: []roles.Status{
			{Role: "reviewer-1", Model: "openai/a", OK: true, Conclusion: "request_changes", Findings: 1, Usage: u, Report: "# Full"},
			{Role: "reviewer-2", Model: "openai/b", Error: "timeout", Usage: tokens.Usage{}},
			{Role: roles.AnalyzerName, Model: "openai/a", OK: true, Usage: u},
		},
		Verifier: &verifier.Status{Model: "openai/v", OK: true, Sent: []string{refuted.ID}, Refuted: []string{refuted.ID}, Usage: u}}
	var rec state.Round
	ran.Record(&rec)

	var back RoundResult
	back.Reload(rec, map[string]config.Price{"openai/a": {Input: 1, Output: 2}})

	if len(back.Findings) != 1 || back.Findings[0].ID != kept.ID || len(back.Refuted) != 1 || back.Refuted[0].Evidence != "b.go:3 checks it" || back.Counts != ran.Counts {
		t.Errorf("findings %+v, refuted %+v, counts %+v", back.Findings, back.Refuted, back.Counts)
	}
	if back.ReviewersOK != 1 || len(back.Roles) != 3 || !back.Roles[0].OK || back.Roles[0].Conclusion != "request_changes" || back.Roles[0].Findings != 1 ||
		back.Roles[0].Report != "# Full" || back.Roles[1].OK || back.Roles[1].Error != "timeout" {
		t.Errorf("roles %+v, %d reviewers answered", back.Roles, back.ReviewersOK)
	}
	if back.Usage["reviewer-1"] != u || back.Usage[verifier.Name] != u || back.Costs["reviewer-1"] == 0 || back.Costs["reviewer-2"] != 0 {
		t.Errorf("usage %+v, costs %+v", back.Usage, back.Costs)
	}
	if v := back.Verifier; v == nil || !v.OK || !reflect.DeepEqual(v.Refuted, []string{refuted.ID}) || v.Usage != u {
		t.Errorf("verifier %+v", v)
	}
}
