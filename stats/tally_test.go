package stats

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/posts"
)

const (
	modelA = "openai/gpt-4.1"
	modelB = "anthropic/claude-sonnet-4-5"
	modelC = "openai/gpt-4.1-mini"
)

func entry(id string, st finding.Status, agreement, prio string, by ...string) posts.LedgerEntry {
	return posts.LedgerEntry{ID: id, Status: st, Agreement: agreement, Reviewers: by, Where: posts.Where{Priority: prio}}
}

func post(run, kind string, round int, at string, converged bool, tokens ...posts.ModelTokens) LedgerPost {
	return LedgerPost{Run: run, Kind: kind, Round: round, At: at, Converged: converged, Tokens: tokens}
}

func tok(model string, in, out int64) posts.ModelTokens {
	return posts.ModelTokens{Model: model, Input: in, Output: out}
}

// handHistory is four pull requests whose every count below was tallied by
// hand: ledgers of version 3 and 2, a person's thread, gh-ocdx's own SEC
// finding, a fix run, and a PR gh-ocdx never reviewed.
func handHistory() []ReviewedPR {
	const r1, r2, r3, r4 = "20260101T000000-aaaaaa", "20260101T020000-bbbbbb", "20260102T000000-cccccc", "20260103T000000-dddddd"
	return []ReviewedPR{
		{Number: 1, Ledger: &posts.Ledger{V: 3, Run: r2, Round: 1, Findings: []posts.LedgerEntry{
			entry("QUAL-00000001", finding.StatusFixed, "1/2", "P1", modelA),
			entry("QUAL-00000002", finding.StatusDismissed, "1/2", "P2", modelB),
			entry("SEC-00000003", finding.StatusResolved, "2/2", "P0", modelA, modelB),
			entry("PERF-00000004", finding.StatusOpen, "1/2", "", modelB),
			entry("THREAD-123", finding.StatusOpen, "", ""),
			entry("SEC-00000005", "", "", ""),
		}}, Posts: []LedgerPost{
			post(r1, "", 1, "2026-01-01T00:10:00Z", false, tok(modelA, 100, 10), tok(modelB, 200, 20)),
			post(r1, "", 2, "2026-01-01T01:10:00Z", true, tok(modelA, 300, 30), tok(modelB, 500, 50)),
			post(r2, "fix", 1, "2026-01-01T02:10:00Z", false, tok(modelC, 50, 5)),
		}},
		{Number: 2, Ledger: &posts.Ledger{V: 3, Run: r3, Round: 1, Findings: []posts.LedgerEntry{
			entry("QUAL-00000006", finding.StatusRefuted, "1/2", "", modelB),
			entry("QUAL-00000007", finding.StatusFixed, "1/1", "", modelA),
		}}, Posts: []LedgerPost{post(r3, "", 1, "2026-01-02T00:10:00Z", false, tok(modelA, 10, 1))}},
		{Number: 3, Ledger: &posts.Ledger{V: 2, Run: r4, Round: 1, Findings: []posts.LedgerEntry{
			entry("QUAL-00000008", finding.StatusFixed, "1/2", ""),
			entry("QUAL-00000009", finding.StatusDismissed, "2/2", ""),
		}}, Posts: []LedgerPost{post(r4, "", 1, "2026-01-03T00:10:00Z", true)}},
		{Number: 4},
	}
}

func outcomes(raised, open, fixed, resolved, dismissed, refuted, disputed, stuck int) Outcomes {
	o := Outcomes{Raised: raised, Open: open, Fixed: fixed, Resolved: resolved, Dismissed: dismissed, Refuted: refuted, Disputed: disputed, Stuck: stuck}
	o.finish()
	return o
}

func TestTallyMatchesAHandTallyOfLedgersV2AndV3(t *testing.T) {
	prices := map[string]config.Price{modelA: {Input: 1, Output: 10}, modelC: {Input: 2, Output: 20}}
	r := Tally("o/r", handHistory(), prices)

	if r.Read != 4 || r.PRs != 3 || r.AgreementOnly != 1 {
		t.Errorf("read %d, reviewed %d, agreement only %d; want 4, 3, 1", r.Read, r.PRs, r.AgreementOnly)
	}
	// Rounds: run 1's two (its fix run's report is no round), one each for PRs 2 and 3.
	if r.Rounds != 4 || r.Converged != 2 || r.RoundsToConverge != 1.5 || r.TimeToConverge != 1800 {
		t.Errorf("rounds %d, converged %d in %g rounds and %gs; want 4, 2 in 1.5 rounds and 1800s", r.Rounds, r.Converged, r.RoundsToConverge, r.TimeToConverge)
	}
	// A run's tokens are its newest report's: run 1's round 2, not 1 and 2 added.
	if r.Tokens != (Tokens{Input: 860, Output: 86}) {
		t.Errorf("tokens %+v, want 860 in, 86 out", r.Tokens)
	}
	wantCost := (310*1 + 31*10 + 50*2 + 5*20) / 1e6
	if r.Cost == nil || math.Abs(*r.Cost-wantCost) > 1e-12 || math.Abs(*r.CostPerPR-wantCost/3) > 1e-12 {
		t.Errorf("cost %v, per PR %v; want %g, %g", r.Cost, r.CostPerPR, wantCost, wantCost/3)
	}
	// Every finding but the person's thread: 9.
	if want := outcomes(9, 2, 3, 1, 2, 1, 0, 0); r.Findings != want {
		t.Errorf("findings %+v, want %+v", r.Findings, want)
	}
	if r.Findings.Decided != 7 || r.Findings.Accepted != 4 {
		t.Errorf("decided %d, accepted %d; want 7, 4", r.Findings.Decided, r.Findings.Accepted)
	}

	byModel := map[string]ModelStats{}
	for _, m := range r.Models {
		byModel[m.Model] = m
	}
	a, b, c := byModel[modelA], byModel[modelB], byModel[modelC]
	if want := outcomes(3, 0, 2, 1, 0, 0, 0, 0); a.Outcomes != want || a.Lone != outcomes(1, 0, 1, 0, 0, 0, 0, 0) || a.PRs != 2 {
		t.Errorf("%s: %+v, lone %+v, %d PRs", modelA, a.Outcomes, a.Lone, a.PRs)
	}
	if want := outcomes(4, 1, 0, 1, 1, 1, 0, 0); b.Outcomes != want || b.Lone != outcomes(3, 1, 0, 0, 1, 1, 0, 0) || b.PRs != 2 {
		t.Errorf("%s: %+v, lone %+v, %d PRs", modelB, b.Outcomes, b.Lone, b.PRs)
	}
	if c.Raised != 0 || c.Tokens != (Tokens{50, 5}) || c.PRs != 1 {
		t.Errorf("%s: raised %d, tokens %+v, %d PRs", modelC, c.Raised, c.Tokens, c.PRs)
	}
	if a.Tokens != (Tokens{310, 31}) || b.Tokens != (Tokens{500, 50}) || b.Cost != nil || a.Cost == nil || *a.Cost != 620/1e6 {
		t.Errorf("tokens and cost: %s %+v %v, %s %+v %v", modelA, a.Tokens, a.Cost, modelB, b.Tokens, b.Cost)
	}
	if want := []Group{{"P0", outcomes(1, 0, 0, 1, 0, 0, 0, 0)}, {"P2", outcomes(1, 0, 0, 0, 1, 0, 0, 0)}, {"unknown", outcomes(2, 1, 0, 0, 0, 1, 0, 0)}}; !reflect.DeepEqual(b.Priorities, want) {
		t.Errorf("%s per priority:\n got %+v\nwant %+v", modelB, b.Priorities, want)
	}

	wantGroups := func(name string, got []Group, want []Group) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
	}
	wantGroups("priorities", r.Priorities, []Group{
		{"P0", outcomes(1, 0, 0, 1, 0, 0, 0, 0)}, {"P1", outcomes(1, 0, 1, 0, 0, 0, 0, 0)}, {"P2", outcomes(1, 0, 0, 0, 1, 0, 0, 0)},
		{"unknown", outcomes(6, 2, 2, 0, 1, 1, 0, 0)}})
	wantGroups("categories", r.Categories, []Group{
		{"PERF", outcomes(1, 1, 0, 0, 0, 0, 0, 0)}, {"QUAL", outcomes(6, 0, 3, 0, 2, 1, 0, 0)}, {"SEC", outcomes(2, 1, 0, 1, 0, 0, 0, 0)}})
	wantGroups("agreement", r.Agreement, []Group{
		{"lone", outcomes(5, 1, 2, 0, 1, 1, 0, 0)}, {"shared", outcomes(2, 0, 0, 1, 1, 0, 0, 0)},
		{"single", outcomes(1, 0, 1, 0, 0, 0, 0, 0)}, {"unknown", outcomes(1, 1, 0, 0, 0, 0, 0, 0)}})

	if len(r.Advice) != 0 {
		t.Errorf("advice on 3 pull requests: %+v", r.Advice)
	}
	notes := strings.Join(r.Notes, "\n")
	for _, want := range []string{"1 pull request's ledger is of version 2", "no price for " + modelB, "no advice: the figures rest on 3 reviewed pull requests, and advice needs at least 10"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	md := r.Markdown()
	for _, want := range []string{"gh-ocdx reviewed 3 of them", "| `" + modelB + "` | 2 | 4 | 0 | 1 | 1 | 1 | 0 | 0 | 1 | 33% (1/3) | 3 | 0 | 2 |", "Converged: 2 of 3, in a median 1.5 rounds and 30m"} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
}

// A model whose lone findings were mostly dismissed or refuted is one to
// drop, with what it cost and what only it found; one whose lone findings
// were accepted is one to keep; one with too few decided is not judged.
func TestTallyAdvisesOnlyOnEnoughDecidedLoneFindings(t *testing.T) {
	var prs []ReviewedPR
	for i := range 12 {
		run := fmt.Sprintf("20260101T0000%02d-aaaaaa", i)
		fs := []posts.LedgerEntry{
			entry(fmt.Sprintf("QUAL-%08x", 100+i), finding.StatusDismissed, "1/3", "P2", modelA),
			entry(fmt.Sprintf("QUAL-%08x", 200+i), finding.StatusFixed, "1/3", "P1", modelB),
		}
		if i < 2 {
			fs = append(fs, entry(fmt.Sprintf("PERF-%08x", 300+i), finding.StatusFixed, "1/3", "P1", modelA))
		}
		if i < 3 {
			fs = append(fs, entry(fmt.Sprintf("TEST-%08x", 400+i), finding.StatusRefuted, "1/3", "P3", modelC))
		}
		prs = append(prs, ReviewedPR{Number: i + 1, Ledger: &posts.Ledger{V: 3, Run: run, Round: 1, Findings: fs},
			Posts: []LedgerPost{post(run, "", 1, "2026-01-01T00:00:00Z", false, tok(modelA, 1000, 100), tok(modelB, 10, 1))}})
	}
	r := Tally("o/r", prs, map[string]config.Price{modelA: {Input: 1, Output: 1}})
	if len(r.Advice) != 2 {
		t.Fatalf("advice %+v, want one for %s and one for %s", r.Advice, modelA, modelB)
	}
	// Models in name order: modelB's first.
	keep, drop := r.Advice[0], r.Advice[1]
	if drop.Model != modelA || drop.Change != "drop" || drop.Loses != 2 || drop.Saves != (Tokens{12000, 1200}) ||
		drop.SavesCost == nil || math.Abs(*drop.SavesCost-13200/1e6) > 1e-12 {
		t.Errorf("advice on %s: %+v", modelA, drop)
	}
	if !strings.Contains(drop.Why, "of the 14 findings only it raised that were decided, 12 were dismissed or refuted and 2 accepted") {
		t.Errorf("the advice does not say its numbers: %s", drop.Why)
	}
	if keep.Model != modelB || keep.Change != "keep" || keep.Loses != 12 {
		t.Errorf("advice on %s: %+v", modelB, keep)
	}
	if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, "too few decided findings that only one model raised to judge "+modelC+" (3)") {
		t.Errorf("the notes do not say why %s is not judged:\n%s", modelC, notes)
	}
	if md := r.Markdown(); !strings.Contains(md, "**Drop `"+modelA+"`**") || !strings.Contains(md, "would have saved 12,000 input and 1,200 output tokens ($0.01), and lost 2 accepted findings") {
		t.Errorf("the Markdown does not advise dropping %s with its numbers:\n%s", modelA, md)
	}
}
