package eval

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/tokens"
)

func near(a, b float64) bool { return math.Abs(a-b) < 5e-4 }

// The intervals against published values: Wilson's for 1 of 3, 0 of 10
// and 3 of 3; Garwood's exact Poisson interval for 0, 1 and 3 events.
func TestIntervals(t *testing.T) {
	for _, tc := range []struct {
		k, n     int
		lo, high float64
	}{{1, 3, 0.0615, 0.7923}, {0, 10, 0, 0.2775}, {3, 3, 0.4385, 1}} {
		if got := Wilson(tc.k, tc.n); !near(got.Low, tc.lo) || !near(got.High, tc.high) {
			t.Errorf("Wilson(%d, %d) = %+v, want [%v, %v]", tc.k, tc.n, got, tc.lo, tc.high)
		}
	}
	for _, tc := range []struct {
		k, n     int
		lo, high float64
	}{{0, 1, 0, 3.6889}, {1, 1, 0.0253, 5.5716}, {3, 1, 0.6187, 8.7673}, {1, 2, 0.01266, 2.7858}} {
		if got := PoissonRate(tc.k, tc.n); !near(got.Low, tc.lo) || !near(got.High, tc.high) {
			t.Errorf("PoissonRate(%d, %d) = %+v, want [%v, %v]", tc.k, tc.n, got, tc.lo, tc.high)
		}
	}
}

func at(file string, line int, prio, title string) finding.Finding {
	f := finding.Finding{Priority: prio, Category: "bug", File: file, Line: &line, Title: title, Description: title}
	f.ID = f.ComputeID()
	return f
}

var use1, use2, useV = tokens.Usage{Calls: 1, Input: 1000, Output: 100}, tokens.Usage{Calls: 1, Input: 2000, Output: 200}, tokens.Usage{Calls: 1, Input: 500, Output: 50}

// results are two models' reviews and the verifier's verdicts on four
// cases: #1 with two bugs (a.go:10, b.go:50), #2 with one (c.go:5), #3
// and #4 clean. Auto chose deep, quick, standard and quick for them.
func results() *Results {
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	res := &Results{Reviewers: []string{"p/a", "p/b"}, Verifier: "p/v", Reviews: map[string]*Review{}, Verified: map[string]*Verdicts{},
		Tiers: map[int]effort.Choice{1: {Tier: effort.Deep}, 2: {Tier: effort.Quick}, 3: {Tier: effort.Standard}, 4: {Tier: effort.Quick}}}
	res.Cases = []Case{
		{PR: 1, Merged: day, Buggy: []Line{{File: "a.go", Line: 10, Fix: "f1"}, {File: "b.go", Line: 50, Fix: "f2"}}},
		{PR: 2, Merged: day.AddDate(0, 1, 0), Buggy: []Line{{File: "c.go", Line: 5, Fix: "f3"}}},
		{PR: 3, Merged: day}, {PR: 4, Merged: day.AddDate(0, 1, 0)},
	}
	rev := func(model string, pr int, u tokens.Usage, fs ...finding.Finding) {
		res.Reviews[pair(model, pr)] = &Review{Model: model, PR: pr, Usage: u, Findings: fs}
	}
	aMap, bMap := at("a.go", 12, "P1", "nil map write"), at("a.go", 13, "P1", "nil map write")
	bOff, bBounds, aMiss := at("b.go", 47, "P2", "off by one"), at("c.go", 6, "P2", "index out of bounds"), at("c.go", 20, "P2", "unchecked error")
	aX, bX, bY, bZ := at("x.go", 1, "P3", "naming"), at("x.go", 1, "P3", "naming"), at("y.go", 9, "P2", "slow loop"), at("z.go", 3, "P3", "typo")
	rev("p/a", 1, use1, aMap)
	rev("p/a", 2, use1, aMiss)
	rev("p/a", 3, use1, aX)
	rev("p/a", 4, use1)
	rev("p/b", 1, use2, bMap, bOff)
	rev("p/b", 2, use2, bBounds)
	rev("p/b", 3, use2, bX, bY)
	rev("p/b", 4, use2, bZ)
	for _, m := range []string{"p/a", "p/b"} {
		for pr := 1; pr <= 4; pr++ {
			res.Verified[pair(m, pr)] = &Verdicts{Refuted: []string{}}
		}
	}
	// The verifier refutes a real bug (#2's) and a noise finding (#3's).
	res.Verified[pair("p/b", 2)] = &Verdicts{Refuted: []string{bBounds.ID}, Usage: useV}
	res.Verified[pair("p/b", 3)] = &Verdicts{Refuted: []string{bY.ID}, Usage: useV}
	return res
}

func row(t *testing.T, rep *Report, name string) Row {
	t.Helper()
	for _, r := range rep.Rows {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no row %q", name)
	return Row{}
}

// Recall, noise and tokens of each mix, computed by hand in the comments.
func TestScoreByHand(t *testing.T) {
	rep := Score(results(), ScoreOptions{})
	for _, tc := range []struct {
		name                 string
		caught, bugs         int
		noise, clean         int
		tokens               int64
		recallLo, recallHigh float64
	}{
		// a catches a.go:10 at 12 (2 lines off); c.go:20 is 15 off c.go:5.
		{"p/a", 1, 3, 1, 2, 4 * 1100, 0.0615, 0.7923},
		// b catches a.go:10 at 13, b.go:50 at 47 (3 off: still caught), c.go:5 at 6.
		{"p/b", 3, 3, 3, 2, 4 * 2200, 0.4385, 1},
		// Alone, every finding of b goes to the verifier: #2's bug is refuted, so is y.go.
		{"p/b, verifier", 2, 3, 2, 2, 4*2200 + 2*550, 0.2077, 0.9385},
		// Together: a.go merged (same place, same title), b's b.go and c.go.
		{"1 of p/a + p/b", 3, 3, 3, 2, 4 * 3300, 0.4385, 1},
		// Both raised only a.go and x.go.
		{"2 of p/a + p/b", 1, 3, 1, 2, 4 * 3300, 0.0615, 0.7923},
		// Lone findings verified: b's c.go:6 refuted (a's c.go:20 stands, a miss), y.go refuted.
		{"1 of p/a + p/b, verifier", 2, 3, 2, 2, 4*3300 + 2*550, 0.2077, 0.9385},
		{"effort standard", 2, 3, 2, 2, 4*3300 + 2*550, 0.2077, 0.9385},
		// #1 deep (both, nothing refuted): 2 bugs; #2 quick (a alone): missed;
		// #3 standard: x.go kept, y.go refuted; #4 quick: a raised nothing.
		{"effort auto", 2, 3, 1, 2, 3300 + 1100 + 3300 + 550 + 1100, 0.2077, 0.9385},
	} {
		r := row(t, rep, tc.name)
		if r.Caught != tc.caught || r.Bugs != tc.bugs || r.NoiseFindings != tc.noise || r.CleanPRs != tc.clean || r.Tokens != tc.tokens {
			t.Errorf("%s: caught %d/%d, noise %d on %d, tokens %d; want %d/%d, %d on %d, %d", tc.name, r.Caught, r.Bugs, r.NoiseFindings, r.CleanPRs, r.Tokens,
				tc.caught, tc.bugs, tc.noise, tc.clean, tc.tokens)
		}
		if !near(r.RecallCI.Low, tc.recallLo) || !near(r.RecallCI.High, tc.recallHigh) {
			t.Errorf("%s: recall interval %+v, want [%v, %v]", tc.name, r.RecallCI, tc.recallLo, tc.recallHigh)
		}
		if want := float64(tc.tokens) / float64(tc.caught); r.TokensPerBug == nil || *r.TokensPerBug != want {
			t.Errorf("%s: tokens per bug %v, want %v", tc.name, r.TokensPerBug, want)
		}
		if r.Dollars != nil {
			t.Errorf("%s: dollars without prices: %v", tc.name, *r.Dollars)
		}
	}
	if auto := row(t, rep, "effort auto"); auto.Tiers[effort.Quick] != 2 || auto.Tiers[effort.Deep] != 1 || auto.Tiers[effort.Standard] != 1 {
		t.Errorf("auto's tiers: %v", auto.Tiers)
	}
	// 3 singles-or-verified rows per subset: a, a+v, b, b+v, then k=1,2 with and without.
	if len(rep.Rows) != 2+2+4+2 {
		t.Errorf("%d rows", len(rep.Rows))
	}
	if !strings.HasPrefix(rep.Recommendation, "The data cannot tell") {
		t.Errorf("recommendation on 3 bugs: %s", rep.Recommendation)
	}
	md := rep.Markdown()
	for _, want := range []string{"within ±3", "Wilson score 95% interval", "exact (Garwood) 95% Poisson interval", "| effort auto (quick 2, standard 1, deep 1) | 4 | 67% [21–94%] | 2/3 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report does not say %q:\n%s", want, md)
		}
	}
}

// Prices give dollars per bug caught; a cutoff leaves out the cases
// merged before it for every mix with that model, and --after for all.
func TestScorePricesAndCutoffs(t *testing.T) {
	prices := map[string]config.Price{"p/a": {Input: 1, CachedInput: 1, Output: 10}, "p/b": {Input: 2, CachedInput: 2, Output: 20}, "p/v": {Input: 1, CachedInput: 1, Output: 1}}
	rep := Score(results(), ScoreOptions{Prices: prices})
	// p/a: 4 calls of 1000 in at $1/M and 100 out at $10/M: $0.008; one bug caught.
	if r := row(t, rep, "p/a"); r.Dollars == nil || !near(*r.Dollars, 0.008) || !near(*r.DollarsPerBug, 0.008) {
		t.Errorf("p/a dollars %v per bug %v", r.Dollars, r.DollarsPerBug)
	}
	cut := time.Date(2025, 3, 15, 0, 0, 0, 0, time.UTC)
	rep = Score(results(), ScoreOptions{Cutoffs: map[string]time.Time{"p/b": cut}})
	if r := row(t, rep, "p/a"); r.Bugs != 3 || r.CleanPRs != 2 {
		t.Errorf("p/a has no cutoff, yet counts %d bugs and %d clean", r.Bugs, r.CleanPRs)
	}
	if r := row(t, rep, "1 of p/a + p/b"); r.Cases != 2 || r.Bugs != 1 || r.CleanPRs != 1 || r.Caught != 1 {
		t.Errorf("with p/b's cutoff the mix counts only #2 and #4: %d bugs, %d clean, %d caught", r.Bugs, r.CleanPRs, r.Caught)
	}
	rep = Score(results(), ScoreOptions{After: cut})
	if r := row(t, rep, "p/b"); r.Bugs != 1 || r.CleanPRs != 1 || rep.After != "2025-03-15" {
		t.Errorf("--after: %d bugs, %d clean, after %q", r.Bugs, r.CleanPRs, rep.After)
	}
}

// A configuration is recommended only when its recall interval lies
// wholly above standard's: 40 of 40 against 5 of 40.
func TestRecommendOnlyWhenIntervalsApart(t *testing.T) {
	std := Row{Name: "effort standard", Tier: "standard", Bugs: 40, Caught: 5, Recall: 5.0 / 40, RecallCI: Wilson(5, 40)}
	better := Row{Name: "p/b", Bugs: 40, Caught: 40, Recall: 1, RecallCI: Wilson(40, 40), Tokens: 10}
	close := Row{Name: "p/a", Bugs: 40, Caught: 8, Recall: 8.0 / 40, RecallCI: Wilson(8, 40)}
	if got := recommend([]Row{close, better, std}, std); !strings.HasPrefix(got, "p/b: its recall") {
		t.Errorf("recommend: %s", got)
	}
	if got := recommend([]Row{close, std}, std); !strings.HasPrefix(got, "The data cannot tell") {
		t.Errorf("recommend with overlapping intervals: %s", got)
	}
}
