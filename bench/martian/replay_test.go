package martian

import (
	"math"
	"os"
	"testing"
)

func load(tb testing.TB) *Data {
	tb.Helper()
	d, err := Load("testdata/martian.json")
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// TestReport prints the tables of BENCHMARKS.md, Agreement on real
// reviews; with OCDX_BENCH set only (script/bench), as it takes a while.
// OCDX_BENCH_MARTIAN_DATA replays another judge's data that cmd/convert
// wrote instead of the committed one.
func TestReport(t *testing.T) {
	if os.Getenv("OCDX_BENCH") == "" {
		t.Skip("OCDX_BENCH not set")
	}
	d := load(t)
	if path := os.Getenv("OCDX_BENCH_MARTIAN_DATA"); path != "" {
		var err error
		if d, err = Load(path); err != nil {
			t.Fatal(err)
		}
	}
	r := Report(d)
	t.Log("\n" + r)
	if out := os.Getenv("OCDX_BENCH_MARTIAN_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(r), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func pr(tb testing.TB, d *Data, url string) PR {
	tb.Helper()
	for _, p := range d.PRs {
		if p.URL == url {
			return p
		}
	}
	tb.Fatalf("no PR %s in the data", url)
	return PR{}
}

// TestReplayByHand replays one committed PR with three tools, every figure
// counted by hand from testdata/martian.json. Sentry #77754 has four golden
// comments (Medium: a shared mutable default timestamp, and a datetime in
// to_dict; Low: two test names). augment raised the timestamp; bugbot the
// timestamp and an unused parameter (no golden comment); greptile the
// timestamp and one test name's typo.
func TestReplayByHand(t *testing.T) {
	d := load(t)
	p := pr(t, d, "https://github.com/getsentry/sentry/pull/77754")
	tools := []string{"augment", "bugbot", "greptile"}
	policies := []Policy{{MinReviewers: 1}, {MinReviewers: 2}, {MinReviewers: 3}, {MinReviewers: 1, Max: 1}}

	// By the judge: the timestamp once, raised by all three; the typo; the
	// unused parameter.
	fs, golden := Findings(p, tools, ByJudge)
	if len(fs) != 3 {
		t.Fatalf("%d distinct findings, want 3: %+v", len(fs), fs)
	}
	if fs[0].Agreement != "3/3" || len(golden[fs[0].ID]) != 1 || golden[fs[0].ID][0] != 0 {
		t.Errorf("the timestamp finding: agreement %q, golden %v; want 3/3 and golden comment 0", fs[0].Agreement, golden[fs[0].ID])
	}
	want := []Score{
		// 3 posted, 2 true; 2 of 4 golden comments: one Medium of 2, one Low of 2.
		{Posted: 3, Correct: 2, Found: 2, Golden: 4, FoundBy: [4]int{1, 1, 0, 0}, GoldenBy: [4]int{2, 2, 0, 0}},
		// The timestamp alone: 1 posted, 1 true, 1 of 4 found.
		{Posted: 1, Correct: 1, Found: 1, Golden: 4, FoundBy: [4]int{0, 1, 0, 0}, GoldenBy: [4]int{2, 2, 0, 0}},
		{Posted: 1, Correct: 1, Found: 1, Golden: 4, FoundBy: [4]int{0, 1, 0, 0}, GoldenBy: [4]int{2, 2, 0, 0}},
		// A budget of one posts the most agreed: the timestamp.
		{Posted: 1, Correct: 1, Found: 1, Golden: 4, FoundBy: [4]int{0, 1, 0, 0}, GoldenBy: [4]int{2, 2, 0, 0}},
	}
	for i, pol := range policies {
		var s Score
		s.Add(p, pol.Apply(fs), golden)
		if s != want[i] {
			t.Errorf("%s: %+v, want %+v", pol, s, want[i])
		}
	}
	if s := want[0]; math.Abs(s.Precision()-2.0/3) > 1e-12 || s.Recall() != 0.5 || math.Abs(s.F1()-4.0/7) > 1e-12 {
		t.Errorf("every finding: P %v R %v F1 %v, want 2/3, 1/2, 4/7", s.Precision(), s.Recall(), s.F1())
	}

	// By text alone no two of the five candidates share 80% of their
	// words: five findings, none raised twice, two true (the first copy of
	// the timestamp and the typo; the timestamp's other two copies are
	// repeats).
	fs, golden = Findings(p, tools, ByText)
	for i, want := range []Score{
		{Posted: 5, Correct: 2, Found: 2, Golden: 4, FoundBy: [4]int{1, 1, 0, 0}, GoldenBy: [4]int{2, 2, 0, 0}},
		{Golden: 4, GoldenBy: [4]int{2, 2, 0, 0}},
	} {
		var s Score
		s.Add(p, policies[i].Apply(fs), golden)
		if s != want {
			t.Errorf("by text, %s: %+v, want %+v", policies[i], s, want)
		}
	}
}

// TestOneCandidateForTwoGoldenComments: a candidate the judge matched to
// two golden comments counts for both. Keycloak's greptile #1 has two
// (Medium) golden comments; augment and greptile each raised one text the
// judge matched to both, bugbot a duplicated-logic remark matched to none.
func TestOneCandidateForTwoGoldenComments(t *testing.T) {
	d := load(t)
	p := pr(t, d, "https://github.com/ai-code-review-evaluation/keycloak-greptile/pull/1")
	fs, golden := Findings(p, []string{"augment", "bugbot", "greptile"}, ByJudge)
	var every, agreed Score
	every.Add(p, Policy{MinReviewers: 1}.Apply(fs), golden)
	agreed.Add(p, Policy{MinReviewers: 2}.Apply(fs), golden)
	if want := (Score{Posted: 3, Correct: 2, Found: 2, Golden: 2, FoundBy: [4]int{0, 2, 0, 0}, GoldenBy: [4]int{0, 2, 0, 0}}); every != want {
		t.Errorf("every finding: %+v, want %+v", every, want)
	}
	if want := (Score{Posted: 2, Correct: 2, Found: 2, Golden: 2, FoundBy: [4]int{0, 2, 0, 0}, GoldenBy: [4]int{0, 2, 0, 0}}); agreed != want {
		t.Errorf("raised by two: %+v, want %+v", agreed, want)
	}
}

// TestSingleToolFigures pins a single tool's held-out figures on the
// committed data (BENCHMARKS.md, Agreement on real reviews): augment
// posted 67 distinct findings on Discourse and Keycloak, 32 of them true,
// and found 32 of the 52 golden comments.
func TestSingleToolFigures(t *testing.T) {
	s := Replay(load(t), Held(), []string{"augment"}, ByJudge, []Policy{{MinReviewers: 1}})[0]
	if s.Posted != 67 || s.Correct != 32 || s.Found != 32 || s.Golden != 52 {
		t.Errorf("augment held out: %+v, want 67 posted, 32 true, 32 of 52 found", s)
	}
}

// TestTextRulePairs measures the text rule's merge decisions against the
// judge on a case built by hand, then on the committed data.
func TestTextRulePairs(t *testing.T) {
	d := &Data{Tools: []string{"a", "b"}, PRs: []PR{{Golden: []Golden{{"High", "x"}, {"Low", "y"}}, Reviews: map[string][]Candidate{
		"a": {
			{Text: "Nil check missing on user in handler", Golden: []int{0}},
			{Text: "nil check missing on user in the handler", Golden: []int{0}}, // 7 of 8 words: merged, one problem
			{Text: "Typo in the name", Golden: []int{1}},                         // different problem, not merged
			{Text: "Consider renaming the variable"},                             // unmatched: different from the three
		},
		"b": {
			{Text: "Nil check missing on user in handler", Golden: []int{0, 1}}, // merged, one problem with all three of a's
			{Text: "Consider renaming the variable"},                            // merged with a's unmatched: no truth, left out
			{Text: "Typo in the name!"},                                         // merged with a's typo, which the judge says it is not
		},
	}}}}
	within, across := TextRulePairs(d)
	// Within a: 6 pairs, all with a matched candidate; one problem: the
	// two nil checks, merged.
	if want := (Pairs{Merged: 1, MergedSame: 1, Same: 1}); within != want {
		t.Errorf("within: %+v, want %+v", within, want)
	}
	// Across: a's 4 × b's 3 = 12 pairs, less a's unmatched × b's two
	// unmatched = 10. One problem: b's nil check with a's two nil checks
	// and a's typo (3). Merged: b's nil check with the two nil checks
	// (≥ 80% of words), b's typo with a's typo (no truth says same: a
	// false merge).
	if want := (Pairs{Merged: 3, MergedSame: 2, Same: 3}); across != want {
		t.Errorf("across: %+v, want %+v", across, want)
	}

	within, across = TextRulePairs(load(t))
	if want := (Pairs{Merged: 21, MergedSame: 2, Same: 17}); within != want {
		t.Errorf("committed data, within: %+v, want %+v", within, want)
	}
	if want := (Pairs{Merged: 3, MergedSame: 3, Same: 1861}); across != want {
		t.Errorf("committed data, across: %+v, want %+v", across, want)
	}
}

// TestSlack: a combination that found 5 of 10 golden comments with 10 true
// findings posted and no false one has F1 2/3; against a best member's
// F1 of 0.5 it may post up to 10 false findings (precision 0.5), that is
// 20 of its 40 false candidates paired up: half.
func TestSlack(t *testing.T) {
	s := Score{Posted: 10, Correct: 10, Found: 5, Golden: 10}
	if got := slack(s, 0.5, 40); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("slack = %v, want 0.5", got)
	}
	// A recall of 0.2 cannot give an F1 above 1/3, whatever the precision.
	if got := slack(Score{Posted: 2, Correct: 2, Found: 2, Golden: 10}, 0.4, 40); got != 0 {
		t.Errorf("slack = %v, want 0", got)
	}
	if n3, n5 := len(Combinations(load(t).Tools, 3)), len(Combinations(load(t).Tools, 5)); n3 != 220 || n5 != 792 {
		t.Errorf("%d and %d combinations of 12 tools, want 220 and 792", n3, n5)
	}
}

// TestMixesByHand: three tools, one tuning PR and one held-out PR, each
// figure of Mixes counted by hand. Sentry (tuning): one golden comment,
// which a and b raise; c raises a false one. Discourse (held out): golden
// comments 0 (High) and 1 (Low); a raises 0 and a false one, b raises 0,
// c raises 1 and a false one. Held-out single F1: a 0.5, b 2/3, c 0.5;
// on the tuning PR a and b score 1, so a is the best member of (a,b) and
// (a,c), b of (b,c).
func TestMixesByHand(t *testing.T) {
	d := &Data{Tools: []string{"a", "b", "c"}, PRs: []PR{
		{Project: "sentry", Golden: []Golden{{"High", "g"}}, Reviews: map[string][]Candidate{
			"a": {{Text: "the cache key ignores the user", Golden: []int{0}}},
			"b": {{Text: "cache keyed without user id", Golden: []int{0}}},
			"c": {{Text: "rename this variable"}},
		}},
		{Project: "discourse", Golden: []Golden{{"High", "g0"}, {"Low", "g1"}}, Reviews: map[string][]Candidate{
			"a": {{Text: "nil dereference of post", Golden: []int{0}}, {Text: "prefer a constant here"}},
			"b": {{Text: "post may be nil", Golden: []int{0}}},
			"c": {{Text: "typo in the method name", Golden: []int{1}}, {Text: "missing test for the migration"}},
		}},
	}}
	ms := Mixes(d, 2, ByJudge)
	get := func(p Policy) Mix {
		for _, m := range ms {
			if m.Policy == p {
				return m
			}
		}
		t.Fatalf("no policy %s", p)
		return Mix{}
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	// Every finding, held out: (a,b) P 1/2 R 1/2 F1 1/2, not above a's
	// 1/2; (a,c) P 2/4 R 1 F1 2/3 > 1/2; (b,c) P 2/3 R 1 F1 4/5 > 2/3.
	// Tuning: (a,b) F1 1, (a,c) and (b,c) P 1/2 R 1 F1 2/3.
	every := get(Policy{MinReviewers: 1})
	if !near(every.Held[0], (0.5+0.5+2.0/3)/3) || !near(every.Held[1], (0.5+1+1)/3) || !near(every.Held[2], (0.5+2.0/3+0.8)/3) ||
		!near(every.Tune[2], (1+2.0/3+2.0/3)/3) || !near(every.BeatsMember, 2.0/3) || !near(every.HeldSevere, 1) {
		t.Errorf("every finding: %+v", every)
	}
	// Raised by both, held out: only (a,b) posts anything, golden comment
	// 0: P 1 R 1/2 F1 2/3 > 1/2. Its one false candidate could pair up
	// with another tool's (one more false finding: P 1/2, F1 1/2, still
	// not below a's): slack 1; the others find nothing: 0.
	two := get(Policy{MinReviewers: 2})
	if !near(two.Held[0], 1.0/3) || !near(two.Held[1], 0.5/3) || !near(two.Held[2], (2.0/3)/3) ||
		!near(two.BeatsMember, 1.0/3) || !near(two.Slack, 1.0/3) || !near(two.HeldSevere, 1.0/3) || !near(two.Tune[2], 1.0/3) {
		t.Errorf("raised by both: %+v", two)
	}
}

// TestWordGrouping: the word overlap groups two tools' unmatched issues
// that gh-ocdx's title rule keeps apart, and never a matched one with an
// unmatched one.
func TestWordGrouping(t *testing.T) {
	// {cache, key, ignores, user} and {cache, key, misses, user}: 3 of 5.
	if got := WordOverlap("The cache key ignores the user id", "cache key misses user id"); math.Abs(got-0.6) > 1e-12 {
		t.Errorf("WordOverlap = %v, want 0.6", got)
	}
	p := PR{Golden: []Golden{{"High", "g"}}, Reviews: map[string][]Candidate{
		"a": {{Text: "The cache key ignores the user id"}, {Text: "cache key misses user id and tenant", Golden: []int{0}}},
		"b": {{Text: "cache key misses user id"}},
	}}
	agreed := func(g Grouping) (n int) {
		fs, _ := Findings(p, []string{"a", "b"}, g)
		for _, f := range fs {
			if len(f.Reviewers) == 2 {
				n++
			}
		}
		return n
	}
	if n := agreed(ByJudge); n != 0 {
		t.Errorf("by the title rule, %d findings raised by both, want 0", n)
	}
	// a's and b's unmatched issues are one; a's matched one stays apart
	// though it shares more words with b's.
	if n := agreed(Grouping{Words: 0.5}); n != 1 {
		t.Errorf("by word overlap ≥ 0.5, %d findings raised by both, want 1", n)
	}
	if fs, _ := Findings(p, []string{"a", "b"}, Grouping{Words: 0.5}); len(fs) != 2 {
		t.Errorf("%d findings, want 2 (the unmatched pair, the matched one)", len(fs))
	}
}
