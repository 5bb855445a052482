package loop

import (
	"context"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/roles"
	"github.com/ocdx/gh-ocdx/state"
)

type anyFixer struct{}

func (anyFixer) Fix(context.Context, FixRequest) (*state.FixResult, error) { return nil, nil }

// What blocks, what is stuck and what goes to the fix is decided once
// (triage) wherever the findings go: a PR round and a local review send
// the same findings to the fix, and neither sends one that came back after
// a fix; when only stuck ones are left, both stop and say so.
func TestSinksShareWhatGoesToTheFix(t *testing.T) {
	mk := func(title string) finding.Finding {
		f := finding.Finding{Priority: "P1", Category: "quality", File: "a.go", Line: new(2), Title: title, Source: &finding.Source{Name: "reviewer-1"}}
		f.ID = f.ComputeID()
		return f
	}
	back, fresh := mk("came back"), mk("new")
	reviewers := []roles.Role{{Name: "reviewer-1"}}
	round := func(fs ...finding.Finding) *report.RoundResult {
		rr := &report.RoundResult{N: 1, Findings: fs, ReviewersOK: 1}
		rr.Counts = consensus.Count(fs)
		rr.Consensus = consensus.Of(rr.ReviewState, rr.Counts)
		return rr
	}
	l := &loop{o: Options{CanPush: true, MaxRounds: 3, Reviewers: reviewers}, stuck: []string{back.ID}}
	sinks := map[string]sink{
		"pr":     prSink{l: l},
		"branch": branchSink{l: l, o: LocalOptions{Reviewers: reviewers, Fixer: anyFixer{}}},
	}
	for name, sk := range sinks {
		outcome, _, toFix, _ := sk.decide(round(back, fresh))
		if outcome != "" || len(toFix) != 1 || toFix[0].ID != fresh.ID {
			t.Errorf("%s: outcome %q, to fix %v: want the new finding fixed, not the stuck one", name, outcome, toFix)
		}
		outcome, reason, toFix, _ := sk.decide(round(back))
		if outcome != state.OutcomeBlocked || len(toFix) != 0 || !strings.Contains(reason, "stuck") {
			t.Errorf("%s: only a stuck finding left: %q %q, to fix %v: want blocked, stuck said", name, outcome, reason, toFix)
		}
		if outcome, _, _, _ := sk.decide(round()); outcome != state.OutcomeConverged {
			t.Errorf("%s: nothing found: %q, want converged", name, outcome)
		}
	}
}

// recordingSink says what sinkRound asked of it, in order.
type recordingSink struct {
	outcome state.RunOutcome
	calls   *[]string
}

func (s recordingSink) decide(*report.RoundResult) (state.RunOutcome, string, []finding.Finding, []finding.Finding) {
	*s.calls = append(*s.calls, "decide")
	return s.outcome, "why", nil, nil
}

func (s recordingSink) publish(context.Context, *report.RoundResult) error {
	*s.calls = append(*s.calls, "publish")
	return nil
}

func (s recordingSink) fix(context.Context, *report.RoundResult, []finding.Finding, []finding.Finding) (bool, error) {
	*s.calls = append(*s.calls, "fix")
	return false, nil
}

func (s recordingSink) end(_ *report.RoundResult, o state.RunOutcome, _ string, err error) error {
	*s.calls = append(*s.calls, "end "+string(o))
	return err
}

// A reviewed round is published wherever it goes before the run ends or
// fixes; a round no reviewer answered ends failed, with the error; one
// with something to fix goes to the fix.
func TestSinkRoundPublishesThenEndsOrFixes(t *testing.T) {
	for _, tc := range []struct {
		outcome  state.RunOutcome
		answered int
		want     string
		done     bool
		err      bool
	}{
		{"", 1, "decide publish fix", false, false},
		{state.OutcomeConverged, 1, "decide publish end converged", true, false},
		{state.OutcomeFailed, 0, "decide publish end failed", true, true},
	} {
		var calls []string
		l := &loop{}
		rr := &report.RoundResult{N: 1, ReviewersOK: tc.answered}
		done, err := l.sinkRound(context.Background(), recordingSink{tc.outcome, &calls}, rr)
		if got := strings.Join(calls, " "); got != tc.want || done != tc.done || (err != nil) != tc.err || rr.Note != "why" {
			t.Errorf("%q: %q, done %v, err %v, note %q; want %q, done %v, error %v", tc.outcome, got, done, err, rr.Note, tc.want, tc.done, tc.err)
		}
	}
}
