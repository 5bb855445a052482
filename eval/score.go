package eval

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/verifier"
)

// Near is how far, in lines, a finding may be from a fixed line and catch
// it.
const Near = 3

// ScoreOptions are the choices the report is computed with.
type ScoreOptions struct {
	Prices map[string]config.Price
	// After leaves out the pull requests merged before it (--after).
	After time.Time
	// Cutoffs are the models' training cutoffs (modelCutoffs): a pull
	// request merged before a model's counts for no mix with that model.
	Cutoffs map[string]time.Time
}

// Interval is a 95% confidence interval.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Row is one configuration's figures.
type Row struct {
	Name     string   `json:"name"`
	Models   []string `json:"models"`
	K        int      `json:"k"` // a problem is kept when at least K of Models raised it
	Verifier bool     `json:"verifier"`
	// Tier is "standard" or "auto" for the effort rows, "" for a mix.
	Tier string `json:"tier,omitempty"`

	// Cases are the pull requests counted: reviewed by every model of the
	// configuration, merged after the cutoffs.
	Cases    int      `json:"cases"`
	Bugs     int      `json:"bugs"`
	Caught   int      `json:"caught"`
	Recall   float64  `json:"recall"`
	RecallCI Interval `json:"recallInterval"`

	CleanPRs      int      `json:"cleanPRs"`
	NoiseFindings int      `json:"noiseFindings"`
	Noise         float64  `json:"noisePerCleanPR"`
	NoiseCI       Interval `json:"noiseInterval"`

	Tokens        int64    `json:"tokens"`
	TokensPerBug  *float64 `json:"tokensPerBugCaught"` // nil when none was caught
	Dollars       *float64 `json:"estimatedDollars"`   // nil without a price for every model
	DollarsPerBug *float64 `json:"estimatedDollarsPerBugCaught"`
	// Tiers counts the cases auto reviewed at each tier (auto's row).
	Tiers map[effort.Tier]int `json:"tiers,omitempty"`
}

// mix is a configuration to score: models, agreement, verifier, tier.
type mix struct {
	models   []string
	k        int
	verifier bool
	tier     effort.Tier // "" for a mix; Standard or Auto
}

// counts reports whether case c counts for every model of m.
func (o ScoreOptions) counts(c Case, models []string) bool {
	if !o.After.IsZero() && !c.Merged.After(o.After) {
		return false
	}
	for _, m := range models {
		if t, ok := o.Cutoffs[m]; ok && !c.Merged.After(t) {
			return false
		}
	}
	return true
}

// kept are the findings mix m keeps on case pr, and the tokens its calls
// used; ok false when a model of m has no review of the case.
func (res *Results) kept(m mix, pr int) (fs []finding.Finding, used map[string]tokens.Usage, ok bool) {
	var all []finding.Finding
	used = map[string]tokens.Usage{}
	for _, model := range m.models {
		rev := res.Reviews[pair(model, pr)]
		if rev == nil {
			return nil, nil, false
		}
		for _, f := range rev.Findings {
			// One source per model: Distinct counts the models that raised a problem by it.
			f.Source = &finding.Source{Type: "agent", Name: model}
			f.Reviewers = []string{model}
			all = append(all, f)
		}
		used[model] = used[model].Add(rev.Usage)
	}
	merged := consensus.Distinct(all, len(m.models))
	for _, f := range merged {
		if len(f.Reviewers) >= m.k {
			fs = append(fs, f)
		}
	}
	if !m.verifier || res.Verifier == "" {
		return fs, used, true
	}
	// As a round: the verifier checks a problem one reviewer raised (every
	// one at deep, or with one reviewer), P1–P3 only; a refuted one is
	// dropped. Its verdict is the one it gave on that reviewer's findings.
	all1 := len(m.models) == 1 || m.tier == effort.Deep
	var out []finding.Finding
	for _, f := range fs {
		refuted := false
		if verifier.Checkable(f) && (all1 || len(f.Reviewers) <= 1) {
			for _, model := range f.Reviewers {
				if vd := res.Verified[pair(model, pr)]; vd != nil && slices.Contains(vd.Refuted, f.ID) {
					refuted = true
				}
			}
		}
		if !refuted {
			out = append(out, f)
		}
	}
	for _, model := range m.models {
		if vd := res.Verified[pair(model, pr)]; vd != nil {
			used["verifier"] = used["verifier"].Add(vd.Usage)
		}
	}
	return out, used, true
}

// caught reports whether a finding of fs names bug's file within Near
// lines of one of its lines (a finding without a line catches nothing).
func caught(fs []finding.Finding, bug []Line) bool {
	for _, f := range fs {
		if f.Line == nil {
			continue
		}
		lo, hi := *f.Line, *f.Line
		if f.EndLine != nil && *f.EndLine > hi {
			hi = *f.EndLine
		}
		for _, l := range bug {
			if f.File == l.File && l.Line >= lo-Near && l.Line <= hi+Near {
				return true
			}
		}
	}
	return false
}

// bugs are a case's bugs: its traced lines grouped by the fix that
// changed them, in the order the fixes come.
func bugs(c Case) [][]Line {
	var order []string
	by := map[string][]Line{}
	for _, l := range c.Buggy {
		if _, ok := by[l.Fix]; !ok {
			order = append(order, l.Fix)
		}
		by[l.Fix] = append(by[l.Fix], l)
	}
	out := make([][]Line, len(order))
	for i, fix := range order {
		out[i] = by[fix]
	}
	return out
}

// score computes m's row over the cases.
func (res *Results) score(m mix, o ScoreOptions) Row {
	row := Row{Models: m.models, K: m.k, Verifier: m.verifier && res.Verifier != "", Tier: string(m.tier)}
	var cost float64
	priced := true
	for _, c := range res.Cases {
		if !o.counts(c, m.models) {
			continue
		}
		mc := m
		if m.tier == effort.Auto {
			mc = res.autoMix(c.PR, m)
			if row.Tiers == nil {
				row.Tiers = map[effort.Tier]int{}
			}
		}
		fs, used, ok := res.kept(mc, c.PR)
		if !ok {
			continue
		}
		row.Cases++
		if row.Tiers != nil {
			row.Tiers[res.Tiers[c.PR].Tier]++
		}
		for _, model := range slices.Sorted(maps.Keys(used)) { // one order: the same sum every run
			u := used[model]
			row.Tokens += u.Input + u.Output
			name := model
			if model == "verifier" {
				name = res.Verifier
			}
			p, ok := o.Prices[name]
			priced = priced && ok
			cost += p.Cost(u.Input, u.Cached, u.Output)
		}
		if len(c.Buggy) == 0 {
			row.CleanPRs++
			row.NoiseFindings += len(fs)
			continue
		}
		for _, b := range bugs(c) {
			row.Bugs++
			if caught(fs, b) {
				row.Caught++
			}
		}
	}
	row.Recall, row.RecallCI = ratio(row.Caught, row.Bugs), Wilson(row.Caught, row.Bugs)
	row.Noise, row.NoiseCI = ratio(row.NoiseFindings, row.CleanPRs), PoissonRate(row.NoiseFindings, row.CleanPRs)
	if priced {
		row.Dollars = &cost
	}
	if row.Caught > 0 {
		t := float64(row.Tokens) / float64(row.Caught)
		row.TokensPerBug = &t
		if priced {
			d := cost / float64(row.Caught)
			row.DollarsPerBug = &d
		}
	}
	row.Name = m.name()
	return row
}

// autoMix is what auto ran on case pr: the tier package effort chose from
// the case's paths, size and secrets (docs/architecture.md, Effort tiers).
func (res *Results) autoMix(pr int, m mix) mix {
	switch res.Tiers[pr].Tier {
	case effort.Quick:
		return mix{models: m.models[:1], k: 1}
	case effort.Deep:
		return mix{models: m.models, k: 1, verifier: true, tier: effort.Deep}
	}
	return mix{models: m.models, k: 1, verifier: true}
}

func (m mix) name() string {
	var s string
	switch {
	case m.tier != "":
		s = "effort " + string(m.tier)
	case len(m.models) == 1:
		s = m.models[0]
	default:
		s = fmt.Sprintf("%d of %s", m.k, strings.Join(m.models, " + "))
	}
	if m.verifier && m.tier == "" {
		s += ", verifier"
	}
	return s
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// z is the normal quantile of a two-sided 95% interval.
const z = 1.959963984540054

// Wilson is the Wilson score 95% interval of a proportion of k in n.
func Wilson(k, n int) Interval {
	if n == 0 {
		return Interval{0, 1}
	}
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return Interval{math.Max(0, mid-half), math.Min(1, mid+half)}
}

// PoissonRate is the 95% interval of a rate of k events in n units: the
// exact (Garwood) Poisson interval of the count k, over n.
func PoissonRate(k, n int) Interval {
	if n == 0 {
		return Interval{}
	}
	lo := 0.0
	if k > 0 {
		// The lowest mean under which k or more events have 2.5% chance.
		lo = bisect(func(m float64) bool { return 1-poissonCDF(k-1, m) < 0.025 }, float64(k))
	}
	// The highest mean under which k or fewer events have 2.5% chance.
	hi := bisect(func(m float64) bool { return poissonCDF(k, m) > 0.025 }, float64(k)+10+10*math.Sqrt(float64(k)))
	return Interval{lo / float64(n), hi / float64(n)}
}

// poissonCDF is the chance of k or fewer events when m are expected.
func poissonCDF(k int, m float64) float64 {
	if m == 0 {
		return 1
	}
	sum := 0.0
	for i := 0; i <= k; i++ {
		lg, _ := math.Lgamma(float64(i + 1))
		sum += math.Exp(float64(i)*math.Log(m) - m - lg)
	}
	return math.Min(sum, 1)
}

// bisect finds where below turns false on [0, hi]: below holds under it.
func bisect(below func(float64) bool, hi float64) float64 {
	lo := 0.0
	for range 100 {
		mid := (lo + hi) / 2
		if below(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
