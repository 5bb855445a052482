package ledger

import (
	"slices"
	"testing"

	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/fix"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/roles"
	"github.com/ocdx/gh-ocdx/state"
	"github.com/ocdx/gh-ocdx/verifier"
)

const run = "20260101T000000-abcdef"

func at(n int) *int { return &n }

var (
	leak  = finding.Finding{ID: "QUAL-00000001", Priority: "P1", File: "a.go", Line: at(3), Title: "Leak", Description: "d", Agreement: "2/2", Reviewers: []string{"openai/a", "openai/b"}}
	typo  = finding.Finding{ID: "DOCS-00000002", Priority: "P3", File: "README.md", Title: "Typo", Description: "d"}
	nilDe = finding.Finding{ID: "QUAL-00000003", Priority: "P2", File: "b.go", Title: "No description"}
)

func status(led posts.Ledger, id string) finding.Status { return led.StatusOf(id) }

// A fix counts once pushed: one that failed verification, or was never
// pushed, leaves its findings open.
func TestAFixCountsOncePushed(t *testing.T) {
	rounds := []report.RoundResult{{N: 1, HeadOID: "aaaaaaaa", ReviewersOK: 1, Findings: []finding.Finding{leak, typo}}}
	rec := func(pushed bool) []state.Round {
		rd := state.Round{N: 1}
		res := &state.FixResult{Status: state.FixPushed, Pushed: pushed, Fixed: []finding.FixedIssue{{FindingID: leak.ID, CommitSha: "bbbbbbbb"}}}
		if !pushed {
			res.Status = state.FixVerifyFailed
		}
		rd.Fix = res
		return []state.Round{rd}
	}
	if _, ok := fix.Recorded(rec(true)[0]); !ok {
		t.Fatal("the fix is not recorded")
	}
	pushed := Of(Run{ID: run, Rounds: rounds, Recorded: rec(true)}, 1, "aaaaaaaa")
	if status(pushed, leak.ID) != finding.StatusFixed || pushed.Entry(leak.ID).Sha != "bbbbbbbb" || status(pushed, typo.ID) != finding.StatusOpen {
		t.Errorf("pushed: %+v", pushed.Findings)
	}
	failed := Of(Run{ID: run, Rounds: rounds, Recorded: rec(false)}, 1, "aaaaaaaa")
	if status(failed, leak.ID) != finding.StatusOpen {
		t.Errorf("a fix that pushed nothing: %+v", failed.Findings)
	}
}

// The newest round a reviewer answered is the basis: its code findings
// are located, and an open finding of an earlier ledger it did not raise
// is resolved; a round every reviewer failed is no basis, and resolves
// nothing.
func TestTheBasisIsTheNewestReviewedRound(t *testing.T) {
	seed := posts.Ledger{Run: "20251231T000000-abcdef", Round: 2, Head: "00000000", Reviewed: "00000000", Basis: "00000000"}
	seed.Set(typo.ID, finding.StatusOpen, "")
	seed.Locate(typo)
	reviewed := report.RoundResult{N: 1, HeadOID: "aaaaaaaa", ReviewersOK: 1, Findings: []finding.Finding{leak},
		Coverage: diff.Coverage{SampledBefore: ""}}
	led := Of(Run{ID: run, Seed: seed, Rounds: []report.RoundResult{reviewed}}, 1, "aaaaaaaa")
	if led.Basis != "aaaaaaaa" || led.ReviewedHead() != "aaaaaaaa" || status(led, typo.ID) != finding.StatusResolved || status(led, leak.ID) != finding.StatusOpen {
		t.Errorf("basis %q reviewed %q, %+v", led.Basis, led.ReviewedHead(), led.Findings)
	}
	if e := led.Entry(leak.ID); e.File != "a.go" || e.Line != 3 || e.At != run+"/1" {
		t.Errorf("the basis's finding is not located or named: %+v", e)
	}

	failed := report.RoundResult{N: 1, HeadOID: "aaaaaaaa", ReviewersOK: 0, Findings: []finding.Finding{}}
	led = Of(Run{ID: run, Seed: seed, Rounds: []report.RoundResult{failed}}, 1, "aaaaaaaa")
	if led.Basis != "00000000" || status(led, typo.ID) != finding.StatusOpen {
		t.Errorf("a failed round took the basis: basis %q, %+v", led.Basis, led.Findings)
	}
}

// A dismissal or a restore of an ID nobody raised is no entry; a
// dismissed finding a round raised is, with who dismissed it and why.
func TestDismissalsAndRestoresNameRaisedFindingsOnly(t *testing.T) {
	rr := report.RoundResult{N: 1, HeadOID: "aaaaaaaa", ReviewersOK: 1, Findings: []finding.Finding{typo},
		Dismissed: []finding.Finding{leak}, Refuted: []finding.Finding{nilDe}}
	led := Of(Run{ID: run, Rounds: []report.RoundResult{rr},
		Dismissals: []posts.Dismissal{{ID: leak.ID, By: "mona", Reason: "intended"}, {ID: "QUAL-0000dead", By: "mallory"}},
		Restores:   []posts.Restore{{ID: nilDe.ID}, {ID: "QUAL-0000beef"}}}, 1, "aaaaaaaa")
	if led.Has("QUAL-0000dead") || led.Has("QUAL-0000beef") {
		t.Errorf("an ID nobody raised has an entry: %+v", led.Findings)
	}
	if e := led.Entry(leak.ID); e.Status != finding.StatusDismissed || e.DismissedBy != "mona" || e.Reason != "intended" || e.Agreement != "2/2" {
		t.Errorf("the dismissed finding: %+v", e)
	}
	if e := led.Entry(nilDe.ID); !e.Restored || !slices.Contains(led.Restored(), nilDe.ID) {
		t.Errorf("the restored finding: %+v", e)
	}
}

// A finding gh-ocdx conceded is disputed while it is open or stuck; a
// fixed one stays fixed; the stuck set is stuck.
func TestDisputedOverOpenAndStuckOnly(t *testing.T) {
	seed := posts.Ledger{Run: "20251231T000000-abcdef", Round: 1, Head: "00000000"}
	seed.Set(nilDe.ID, finding.StatusFixed, "cccccccc")
	rr := report.RoundResult{N: 1, HeadOID: "aaaaaaaa", ReviewersOK: 1, Findings: []finding.Finding{leak, typo}}
	led := Of(Run{ID: run, Seed: seed, Rounds: []report.RoundResult{rr}, Stuck: []string{typo.ID},
		Disputed: []posts.Concession{{ID: leak.ID, To: "mona"}, {ID: typo.ID}, {ID: nilDe.ID, To: "mona"}}}, 1, "aaaaaaaa")
	if status(led, leak.ID) != finding.StatusDisputed || status(led, typo.ID) != finding.StatusDisputed || status(led, nilDe.ID) != finding.StatusFixed {
		t.Errorf("%+v", led.Findings)
	}
	// Whose reply it was conceded to goes with a disputed finding, from
	// the threads or, past them, the earlier ledger.
	if led.Entry(leak.ID).ConcededTo != "mona" || led.Entry(nilDe.ID).ConcededTo != "" {
		t.Errorf("conceded to: %+v", led.Findings)
	}
	next := Of(Run{ID: run, Seed: led}, 1, "aaaaaaaa")
	if e := next.Entry(leak.ID); e.Status != finding.StatusDisputed || e.ConcededTo != "mona" {
		t.Errorf("the next ledger: %+v", e)
	}
	led = Of(Run{ID: run, Rounds: []report.RoundResult{rr}, Stuck: []string{typo.ID}}, 1, "aaaaaaaa")
	if status(led, typo.ID) != finding.StatusStuck {
		t.Errorf("the stuck finding: %+v", led.Findings)
	}
}

// The ledger names the report of a finding it wrote out, not of one
// without a description (the earlier ledger's stays named), nor of a
// round after the one it is written for; it adds every role's tokens by
// model.
func TestV3NamesReportsAndAddsTokens(t *testing.T) {
	seed := posts.Ledger{Run: "20251231T000000-abcdef", Round: 1, Head: "00000000", Reviewed: "00000000", Basis: "00000000"}
	seed.Set(nilDe.ID, finding.StatusOpen, "")
	seed.Locate(nilDe)
	seed.Mark(nilDe.ID, "20251231T000000-abcdef", 1)
	u := tokens.Usage{Input: 100, Output: 10}
	r1 := report.RoundResult{N: 1, HeadOID: "aaaaaaaa", ReviewersOK: 1, Findings: []finding.Finding{leak, nilDe},
		Roles:    []roles.Status{{Role: "reviewer-1", Model: "openai/a", OK: true, Usage: u}, {Role: roles.AnalyzerName, Model: "openai/a", OK: true, Usage: u}},
		Verifier: &verifier.Status{Model: "openai/v", Usage: u}}
	r2 := report.RoundResult{N: 2, HeadOID: "bbbbbbbb", Findings: []finding.Finding{typo}} // every reviewer failed: r1 stays the basis
	led := Of(Run{ID: run, Seed: seed, Rounds: []report.RoundResult{r1, r2}}, 1, "aaaaaaaa")
	if led.Entry(leak.ID).At != run+"/1" || led.Entry(nilDe.ID).At != "20251231T000000-abcdef/1" || led.Entry(typo.ID).At != "" {
		t.Errorf("reports named: %+v", led.Findings)
	}
	var a, v int64
	for _, m := range led.Tokens {
		switch m.Model {
		case "openai/a":
			a = m.Input + m.Output
		case "openai/v":
			v = m.Input + m.Output
		}
	}
	if a != 220 || v != 110 {
		t.Errorf("tokens: %+v", led.Tokens)
	}
}
