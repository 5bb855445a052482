package martian

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Held are the held-out projects: every project not in Tune.
func Held() []string {
	return slices.DeleteFunc(slices.Clone(Projects), func(p string) bool { return slices.Contains(Tune, p) })
}

// Grid are the policies tried for n tools: each agreement threshold, with
// no budget and with budgets 1, 2, 3, 5 and 10 (gh-ocdx's default).
func Grid(n int) []Policy {
	var out []Policy
	for k := 1; k <= n; k++ {
		for _, m := range []int{0, 1, 2, 3, 5, 10} {
			out = append(out, Policy{MinReviewers: k, Max: m})
		}
	}
	return out
}

// Mix is one policy's figures over every combination of n tools.
type Mix struct {
	Policy Policy
	// Tune and Held are the mean precision, recall and F1 over the
	// combinations (each combination's figures pooled over its PRs).
	Tune, Held [3]float64
	// HeldSevere is the mean recall of High and Critical golden comments on
	// the held-out projects.
	HeldSevere float64
	// BeatsMember is the share of combinations whose held-out F1 is above
	// that of their member with the best F1 on the tuning projects.
	BeatsMember float64
	// Slack is how much false agreement the held-out F1 can absorb: the
	// mean over combinations of the share of their false candidates that
	// could be copies of one problem raised by two tools (each such pair a
	// false finding posted) while the F1 stays above the best member's
	// (0 when even perfect precision would not). The data cannot say
	// whether two tools' false candidates are one problem (see Pairs).
	Slack float64
}

// Mixes replays every policy of Grid(n) over every combination of n of
// d's tools.
func Mixes(d *Data, n int, g Grouping) []Mix {
	held := Held()
	single := map[string]Score{}
	tuneF1 := map[string]float64{}
	for _, t := range d.Tools {
		single[t] = Replay(d, held, []string{t}, ByJudge, []Policy{{MinReviewers: 1}})[0]
		tuneF1[t] = Replay(d, Tune, []string{t}, ByJudge, []Policy{{MinReviewers: 1}})[0].F1()
	}
	ps := Grid(n)
	out := make([]Mix, len(ps))
	combos := Combinations(d.Tools, n)
	// The combinations are independent: replay them on every CPU, add up
	// in order.
	type result struct{ tune, held []Score }
	results := make([]result, len(combos))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				results[j] = result{Replay(d, Tune, combos[j], g, ps), Replay(d, held, combos[j], g, ps)}
			}
		}()
	}
	for j := range combos {
		next <- j
	}
	close(next)
	wg.Wait()
	for j, c := range combos {
		best := slices.MaxFunc(c, func(a, b string) int { return cmpFloat(tuneF1[a], tuneF1[b]) })
		tune, hs := results[j].tune, results[j].held
		for i := range ps {
			out[i].Policy = ps[i]
			out[i].Tune[0] += tune[i].Precision()
			out[i].Tune[1] += tune[i].Recall()
			out[i].Tune[2] += tune[i].F1()
			out[i].Held[0] += hs[i].Precision()
			out[i].Held[1] += hs[i].Recall()
			out[i].Held[2] += hs[i].F1()
			out[i].HeldSevere += ratio(hs[i].FoundBy[2]+hs[i].FoundBy[3], hs[i].GoldenBy[2]+hs[i].GoldenBy[3])
			if hs[i].F1() > single[best].F1() {
				out[i].BeatsMember++
			}
			out[i].Slack += slack(hs[i], single[best].F1(), falseCandidates(d, held, c))
		}
	}
	k := float64(len(combos))
	for i := range out {
		for j := range 3 {
			out[i].Tune[j] /= k
			out[i].Held[j] /= k
		}
		out[i].HeldSevere /= k
		out[i].BeatsMember /= k
		out[i].Slack /= k
	}
	return out
}

// slack is the share of n false candidates that could pair up into
// false findings posted beside s's while its F1 stays above f1.
func slack(s Score, f1 float64, n int) float64 {
	r := s.Recall()
	if 2*r <= f1 || n == 0 {
		return 0 // F1 ≤ 2R/(1+R) ≤ f1 even at precision 1
	}
	need := f1 * r / (2*r - f1) // the precision at which F1 = f1
	extra := float64(s.Correct)/need - float64(s.Posted)
	return min(1, max(0, 2*extra/float64(n)))
}

// falseCandidates counts the candidates of tools the judge matched to no
// golden comment on the PRs of projects.
func falseCandidates(d *Data, projects, tools []string) int {
	n := 0
	for _, pr := range d.PRs {
		if slices.Contains(projects, pr.Project) {
			for _, t := range tools {
				for _, c := range pr.Reviews[t] {
					if len(c.Golden) == 0 {
						n++
					}
				}
			}
		}
	}
	return n
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Chosen is the policy of ms with the best mean F1 on the tuning projects.
func Chosen(ms []Mix) Mix {
	return slices.MaxFunc(ms, func(a, b Mix) int { return cmpFloat(a.Tune[2], b.Tune[2]) })
}

// Report is the tables of BENCHMARKS.md, Agreement on real reviews.
func Report(d *Data) string {
	var b strings.Builder
	held := Held()
	fmt.Fprintf(&b, "Data: %s at %s (%s), judge %s; %d PRs, %d tools. Tuning projects: %s; held out: %s.\n\n",
		d.Source.Repo, d.Source.Commit[:12], d.Source.License, d.Source.Judge, len(d.PRs), len(d.Tools),
		strings.Join(Tune, ", "), strings.Join(held, ", "))

	b.WriteString("Single tools (each its own findings, copies the judge matched to one golden comment merged):\n\n")
	b.WriteString("| tool | tuning P | R | F1 | held-out P | R | F1 | held-out findings | recall High/Critical |\n|---|---|---|---|---|---|---|---|---|\n")
	type row struct {
		tool      string
		tune, hld Score
	}
	var rows []row
	for _, t := range d.Tools {
		rows = append(rows, row{t, Replay(d, Tune, []string{t}, ByJudge, []Policy{{MinReviewers: 1}})[0],
			Replay(d, held, []string{t}, ByJudge, []Policy{{MinReviewers: 1}})[0]})
	}
	slices.SortStableFunc(rows, func(a, b row) int { return cmpFloat(b.tune.F1(), a.tune.F1()) })
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %d | %.3f |\n", r.tool,
			r.tune.Precision(), r.tune.Recall(), r.tune.F1(), r.hld.Precision(), r.hld.Recall(), r.hld.F1(), r.hld.Posted,
			ratio(r.hld.FoundBy[2]+r.hld.FoundBy[3], r.hld.GoldenBy[2]+r.hld.GoldenBy[3]))
	}
	bestHeld := slices.MaxFunc(rows, func(a, b row) int { return cmpFloat(a.hld.F1(), b.hld.F1()) })
	fmt.Fprintf(&b, "\nBest on the tuning projects: %s (held-out F1 %.3f); best on the held-out projects: %s (F1 %.3f).\n",
		rows[0].tool, rows[0].hld.F1(), bestHeld.tool, bestHeld.hld.F1())

	t, tp := CalibrateWords(d, Tune)
	hp := WordPairs(d, held, t)
	fmt.Fprintf(&b, "\nWord overlap for unmatched issues, calibrated on the tuning projects' pairs across tools: %.2f (pairwise precision %.3f, recall %.3f; held out %.3f, %.3f).\n",
		t, tp.Precision(), tp.Recall(), hp.Precision(), hp.Recall())
	for _, g := range []Grouping{ByJudge, {Words: t}, ByText} {
		for _, n := range []int{3, 5} {
			ms := Mixes(d, n, g)
			c := Chosen(ms)
			fmt.Fprintf(&b, "\n%d tools, every combination of %d (%d), same problem by %s; chosen on the tuning projects: %s.\n\n",
				n, n, len(Combinations(d.Tools, n)), g, c.Policy)
			b.WriteString("| policy | tuning P | R | F1 | held-out P | R | F1 | recall High/Critical | combinations above their best member | false agreement absorbed |\n|---|---|---|---|---|---|---|---|---|---|\n")
			shown := []Policy{{MinReviewers: 1}, {MinReviewers: 1, Max: 10}, {MinReviewers: 2, Max: 10}}
			for k := 2; k <= n; k++ {
				shown = append(shown, Policy{MinReviewers: k})
			}
			if !slices.Contains(shown, c.Policy) {
				shown = append(shown, c.Policy)
			}
			for _, p := range shown {
				m := ms[slices.IndexFunc(ms, func(m Mix) bool { return m.Policy == p })]
				name := p.String()
				if p == c.Policy {
					name += " (chosen)"
				}
				absorbed := "—" // every false candidate is posted already
				if p.MinReviewers > 1 {
					absorbed = fmt.Sprintf("%.0f%%", 100*m.Slack)
				}
				fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.0f%% | %s |\n", name,
					m.Tune[0], m.Tune[1], m.Tune[2], m.Held[0], m.Held[1], m.Held[2], m.HeldSevere, 100*m.BeatsMember, absorbed)
			}
		}
	}
	within, across := TextRulePairs(d)
	fmt.Fprintf(&b, "\nThe text rule (consensus.SimilarTitles) against the judge, pairwise: within one tool's review %d pairs one problem, %d merged, precision %.3f, recall %.3f; across tools %d one problem, %d merged, precision %.3f, recall %.3f.\n",
		within.Same, within.Merged, within.Precision(), within.Recall(), across.Same, across.Merged, across.Precision(), across.Recall())
	return b.String()
}
