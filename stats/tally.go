// Package stats counts how gh-ocdx's findings ended across a repository's
// pull requests, per reviewer model, priority and category, from the
// ledgers of its trusted reports; what each model cost; and what the
// numbers say to change (docs/architecture.md, Stats). The tally is pure:
// pull requests in (as state keeps them), a Report out.
package stats

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/posts"
)

// Report is what stats says of a repository: its --json, field for field.
type Report struct {
	Repository string `json:"repository"`
	// Read counts the pull requests read; PRs those gh-ocdx reviewed (a
	// trusted ledger): the figures rest on them.
	Read int `json:"read"`
	PRs  int `json:"prs"`
	// AgreementOnly counts the reviewed PRs whose ledger names no
	// reviewer (version 2 or earlier): their findings count in the totals,
	// by priority, category and agreement, not per model.
	AgreementOnly int `json:"agreementOnly"`
	// Rounds counts the review rounds of every reviewed PR; Converged the
	// PRs a review converged on, RoundsToConverge and TimeToConverge (in
	// seconds, from gh-ocdx's first report) their medians.
	Rounds           int     `json:"rounds"`
	Converged        int     `json:"converged"`
	RoundsToConverge float64 `json:"roundsToConverge"`
	TimeToConverge   float64 `json:"timeToConverge"`
	Tokens           Tokens  `json:"tokens"`
	// Cost is the estimated cost in dollars of the models with a price
	// (config prices), CostPerPR per reviewed PR; null when none has one.
	Cost      *float64 `json:"cost"`
	CostPerPR *float64 `json:"costPerPr"`
	// Findings are how every finding of the ledgers ended (people's
	// review threads are not gh-ocdx's findings, and not counted).
	Findings   Outcomes     `json:"findings"`
	Models     []ModelStats `json:"models"`
	Priorities []Group      `json:"priorities"`
	Categories []Group      `json:"categories"`
	// Agreement groups the findings by how many reviewers raised them:
	// lone (one of several that answered), shared, single (the only
	// reviewer that answered), unknown (gh-ocdx's own, or not recorded).
	Agreement []Group  `json:"agreement"`
	Advice    []Advice `json:"advice"`
	// Notes say what the figures cannot tell: too few to advise, ledgers
	// of an earlier version, models without a price, entries left out.
	Notes []string `json:"notes"`
}

// Tokens are a token count as the ledger keeps it: no cached share.
type Tokens struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

// Outcomes count findings by how they ended (finding.Status). Decided
// are those closed (fixed, resolved, dismissed, refuted); Accepted those
// fixed, or resolved after a change; AcceptedShare is Accepted of
// Decided (0 when none was decided).
type Outcomes struct {
	Raised        int     `json:"raised"`
	Open          int     `json:"open"`
	Fixed         int     `json:"fixed"`
	Resolved      int     `json:"resolved"`
	Dismissed     int     `json:"dismissed"`
	Refuted       int     `json:"refuted"`
	Disputed      int     `json:"disputed"`
	Stuck         int     `json:"stuck"`
	Decided       int     `json:"decided"`
	Accepted      int     `json:"accepted"`
	AcceptedShare float64 `json:"acceptedShare"`
}

// Group is the outcomes of one priority, category or agreement.
type Group struct {
	Name string `json:"name"`
	Outcomes
}

// ModelStats is one model's record: the findings it raised (Lone: those
// it alone raised, Lone.Accepted its marginal value) and what it spent in
// every role the ledgers count (reviewer, analyzer, verifier, fixer).
type ModelStats struct {
	Model string `json:"model"`
	PRs   int    `json:"prs"` // the PRs it raised a finding or spent tokens on
	Outcomes
	Lone       Outcomes `json:"lone"`
	Tokens     Tokens   `json:"tokens"`
	Cost       *float64 `json:"cost"` // null without a price
	Priorities []Group  `json:"priorities"`
	Categories []Group  `json:"categories"`
}

// Advice is a change the numbers support, and the numbers.
type Advice struct {
	Model  string `json:"model"`
	Change string `json:"change"` // "drop" or "keep"
	Why    string `json:"why"`
	// Saves is what the model spent over the PRs counted, and Loses the
	// findings only it raised that were accepted: dropping it trades one
	// for the other.
	Saves     Tokens   `json:"saves"`
	SavesCost *float64 `json:"savesCost"`
	Loses     int      `json:"loses"`
}

// The least the advice rests on: below, stats says the counts are too
// small rather than recommend.
const (
	MinPRs     = 10 // reviewed pull requests
	MinDecided = 10 // decided findings a model alone raised
	// DropShare is the share of a model's decided lone findings dismissed
	// or refuted from which dropping it is advised.
	DropShare = 0.5
)

// unknown names a priority or agreement the ledger does not record.
const unknown = "unknown"

// Tally counts prs (as stats read them, the most recently updated first)
// of repository, pricing tokens with prices (config prices; nil: none).
func Tally(repository string, prs []ReviewedPR, prices map[string]config.Price) Report {
	r := Report{Repository: repository, Read: len(prs)}
	models := map[string]*modelTally{}
	model := func(m string) *modelTally {
		if models[m] == nil {
			models[m] = &modelTally{prs: map[int]bool{}, prio: map[string]*Outcomes{}, cat: map[string]*Outcomes{}}
		}
		return models[m]
	}
	prio, cat, agree := map[string]*Outcomes{}, map[string]*Outcomes{}, map[string]*Outcomes{}
	var rounds, times []float64
	dropped := 0
	for _, pr := range prs {
		if pr.Ledger == nil {
			continue
		}
		r.PRs++
		l := *pr.Ledger
		if l.V < 3 {
			r.AgreementOnly++
		}
		dropped += l.Dropped
		run := runsOf(pr.Posts)
		r.Rounds += run.rounds
		if run.converged {
			r.Converged++
			rounds = append(rounds, float64(run.roundsToConverge))
			times = append(times, run.timeToConverge.Seconds())
		}
		for m, t := range run.tokens {
			mt := model(m)
			mt.tokens.Input += t.Input
			mt.tokens.Output += t.Output
			mt.prs[pr.Number] = true
		}
		for _, e := range l.Findings {
			if strings.HasPrefix(e.ID, "THREAD-") {
				continue // a person's review thread: no reviewer's finding
			}
			st := cmp.Or(e.Status, finding.StatusOpen)
			p, c, a := cmp.Or(e.Priority, unknown), Category(e.ID), agreementOf(e)
			r.Findings.add(st)
			group(prio, p).add(st)
			group(cat, c).add(st)
			group(agree, a).add(st)
			for _, m := range e.Reviewers {
				mt := model(m)
				mt.prs[pr.Number] = true
				mt.all.add(st)
				group(mt.prio, p).add(st)
				group(mt.cat, c).add(st)
				if a == "lone" {
					mt.lone.add(st)
				}
			}
		}
	}
	r.Findings.finish()
	r.Priorities = groups(prio, slices.Concat(finding.Priorities, []string{unknown}))
	r.Categories = groups(cat, nil)
	r.Agreement = groups(agree, []string{"lone", "shared", "single", unknown})
	r.RoundsToConverge, r.TimeToConverge = median(rounds), median(times)
	unpriced := r.addModels(models, prices)
	r.Notes = notes(r, unpriced, dropped)
	r.Advice, r.Notes = advise(r, r.Notes)
	return r
}

// addModels adds each model's figures to r, in the order of their names,
// with its cost when prices has one; unpriced are the models that spent
// tokens without a price.
func (r *Report) addModels(models map[string]*modelTally, prices map[string]config.Price) (unpriced []string) {
	for _, m := range slices.Sorted(maps.Keys(models)) {
		mt := models[m]
		s := ModelStats{Model: m, PRs: len(mt.prs), Outcomes: mt.all, Lone: mt.lone, Tokens: mt.tokens,
			Priorities: groups(mt.prio, slices.Concat(finding.Priorities, []string{unknown})), Categories: groups(mt.cat, nil)}
		s.Outcomes.finish()
		s.Lone.finish()
		r.Tokens.Input += mt.tokens.Input
		r.Tokens.Output += mt.tokens.Output
		if p, ok := prices[m]; ok {
			cost := p.Cost(mt.tokens.Input, 0, mt.tokens.Output)
			s.Cost = &cost
			r.Cost = ptr(deref(r.Cost) + cost)
		} else if mt.tokens != (Tokens{}) {
			unpriced = append(unpriced, m)
		}
		r.Models = append(r.Models, s)
	}
	if r.Models == nil {
		r.Models = []ModelStats{}
	}
	if r.Cost != nil && r.PRs > 0 {
		r.CostPerPR = ptr(*r.Cost / float64(r.PRs))
	}
	return unpriced
}

// notes are what r's reader must know of what it counts: ledgers too old
// to name reviewers, models without a price, uncached costs, findings left
// out of ledgers.
func notes(r Report, unpriced []string, dropped int) []string {
	notes := []string{}
	if r.AgreementOnly > 0 {
		notes = append(notes, fmt.Sprintf("%s of version 2 or earlier: they name no reviewer, so their findings count in the totals, by priority, category and agreement only, not per model", prCount(r.AgreementOnly)))
	}
	if len(unpriced) > 0 {
		notes = append(notes, fmt.Sprintf("no price for %s (config prices): not in the costs", strings.Join(unpriced, ", ")))
	}
	if r.Tokens != (Tokens{}) && r.Cost != nil {
		notes = append(notes, "costs count every input token at the uncached price: ledgers keep no cached share")
	}
	if dropped > 0 {
		notes = append(notes, fmt.Sprintf("%d closed findings were left out of ledgers to fit a comment, and are not counted", dropped))
	}
	return notes
}

// modelTally is a model's counts as Tally gathers them.
type modelTally struct {
	prs       map[int]bool
	all, lone Outcomes
	prio, cat map[string]*Outcomes
	tokens    Tokens
}

// Category is the category a finding's ID names by its code (SEC, QUAL…):
// the ledger keeps no other.
func Category(id string) string {
	code, _, _ := strings.Cut(id, "-")
	return code
}

// agreementOf says whether e was raised by one reviewer of several (lone),
// by several (shared), by the only one that answered (single), or is not
// known (unknown): from its agreement, which every ledger version keeps.
func agreementOf(e posts.LedgerEntry) string {
	k, n, ok := strings.Cut(e.Agreement, "/")
	raised, err1 := strconv.Atoi(k)
	of, err2 := strconv.Atoi(n)
	switch {
	case !ok || err1 != nil || err2 != nil:
		return unknown
	case of == 1:
		return "single"
	case raised == 1:
		return "lone"
	}
	return "shared"
}

func (o *Outcomes) add(s finding.Status) {
	o.Raised++
	switch s {
	case finding.StatusFixed:
		o.Fixed++
	case finding.StatusResolved:
		o.Resolved++
	case finding.StatusDismissed:
		o.Dismissed++
	case finding.StatusRefuted:
		o.Refuted++
	case finding.StatusDisputed:
		o.Disputed++
	case finding.StatusStuck:
		o.Stuck++
	default:
		o.Open++
	}
}

// finish computes the decided, the accepted and their share.
func (o *Outcomes) finish() {
	o.Decided = o.Fixed + o.Resolved + o.Dismissed + o.Refuted
	o.Accepted = o.Fixed + o.Resolved
	o.AcceptedShare = 0
	if o.Decided > 0 {
		o.AcceptedShare = float64(o.Accepted) / float64(o.Decided)
	}
}

func group(m map[string]*Outcomes, name string) *Outcomes {
	if m[name] == nil {
		m[name] = &Outcomes{}
	}
	return m[name]
}

// groups lists m's groups in order's order, the others by name after.
func groups(m map[string]*Outcomes, order []string) []Group {
	out := []Group{}
	names := slices.Sorted(maps.Keys(m))
	slices.SortStableFunc(names, func(a, b string) int {
		ia, ib := slices.Index(order, a), slices.Index(order, b)
		if ia < 0 {
			ia = len(order)
		}
		if ib < 0 {
			ib = len(order)
		}
		return ia - ib
	})
	for _, n := range names {
		o := *m[n]
		o.finish()
		out = append(out, Group{Name: n, Outcomes: o})
	}
	return out
}

// runs is what a PR's trusted reports say of its runs.
type runs struct {
	rounds           int // review rounds (a fix report is none)
	converged        bool
	roundsToConverge int
	timeToConverge   time.Duration
	tokens           map[string]Tokens // per model, every run's
}

// runsOf reads a PR's trusted reports, oldest first: its review rounds
// (each run and round once), the first that converged, and each run's
// tokens as its newest report counts them (a ledger counts its run's
// tokens so far).
func runsOf(posts []LedgerPost) runs {
	var out runs
	out.tokens = map[string]Tokens{}
	seen := map[string]bool{}
	newest := map[string]LedgerPost{}
	var first time.Time
	for _, p := range posts {
		at, _ := time.Parse(time.RFC3339, p.At)
		if first.IsZero() || at.Before(first) {
			first = at
		}
		if n, ok := newest[p.Run]; !ok || p.Round >= n.Round {
			newest[p.Run] = p
		}
		if key := fmt.Sprintf("%s/%d", p.Run, p.Round); p.Kind != "fix" && !seen[key] {
			seen[key] = true
			out.rounds++
		}
		if p.Converged && !out.converged {
			out.converged, out.roundsToConverge, out.timeToConverge = true, out.rounds, at.Sub(first)
		}
	}
	for _, p := range newest {
		for _, t := range p.Tokens {
			x := out.tokens[t.Model]
			out.tokens[t.Model] = Tokens{Input: x.Input + t.Input, Output: x.Output + t.Output}
		}
	}
	return out
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	if n := len(xs); n%2 == 1 {
		return xs[n/2]
	} else {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
}

func ptr(f float64) *float64 { return &f }

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

func prCount(n int) string {
	return text.Plural(n, "pull request's ledger is", "pull requests' ledgers are")
}
