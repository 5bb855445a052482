package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/fix"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/roles"
	"github.com/ocdx/gh-ocdx/state"
	"github.com/ocdx/gh-ocdx/verifier"
)

// A round's record in the state file (docs/architecture.md, State): what
// Record keeps of it, Reload reads back, so that a resumed run or a head
// already reviewed reports the round as it was.

// Record keeps round rr's reviews in its record rd: the findings (the
// refuted ones with their status and evidence), the settled ones, counts,
// consensus, stuck and disputed IDs, coverage, each role's summary,
// report and tokens.
func (rr *RoundResult) Record(rd *state.Round) {
	rd.Findings = append([]finding.Finding{}, rr.Findings...) // a copy, [] when none
	rd.Dismissed = slices.Clone(rr.Settled)
	rd.FindingIDs = nil
	for _, f := range rr.Findings {
		rd.FindingIDs = append(rd.FindingIDs, f.ID)
	}
	rd.Counts = rr.Counts
	rd.Consensus = rr.Consensus
	rd.StuckIDs, rd.DisputedIDs = rr.Stuck, rr.Disputed
	cov := rr.Coverage
	rd.Coverage = &cov
	rd.Learned = rr.Learned
	rd.FailedRoles, rd.Reports, rd.Usage = nil, nil, nil
	for _, r := range rr.Roles {
		sum := fmt.Sprintf("%s, %s", r.Conclusion, text.Plural(r.Findings, "finding"))
		if !r.OK {
			rd.FailedRoles = append(rd.FailedRoles, r.Role)
			sum = "failed: " + r.Error
		} else if r.Role == roles.AnalyzerName {
			sum = text.Plural(r.Findings, "unresolved thread")
		}
		rd.Reports = append(rd.Reports, state.Report{Role: r.Role, Model: r.Model, Summary: sum, Full: r.Report})
		rd.Usage = append(rd.Usage, state.Usage{Role: r.Role, Model: r.Model, Usage: r.Usage, CostUSD: rr.Costs[r.Role]})
	}
	rr.recordVerifier(rd)
}

// Reload fills rr, a reviewed round, from its record rd in the state file
// (a resumed run, a head already reviewed); prices give its costs.
func (rr *RoundResult) Reload(rd state.Round, prices map[string]config.Price) {
	rr.Findings = append([]finding.Finding{}, rd.Findings...)
	rr.Settled = slices.Clone(rd.Dismissed)
	rr.Counts, rr.Consensus, rr.Stuck, rr.Disputed = consensus.Count(rr.Findings), rd.Consensus, append([]string{}, rd.StuckIDs...), rd.DisputedIDs
	if rd.Coverage != nil {
		rr.Coverage = *rd.Coverage
	}
	rr.Learned = rd.Learned
	rr.Usage = map[string]tokens.Usage{}
	for _, u := range rd.Usage {
		lu := u.Usage
		rr.Usage[u.Role] = rr.Usage[u.Role].Add(lu)
		if p, ok := prices[u.Model]; ok {
			rr.AddCost(u.Role, p.Cost(lu.Input, lu.Cached, lu.Output))
		}
	}
	rr.reloadVerifier(rd)
	if res, ok := fix.Recorded(rd); ok {
		rr.Fix = res
	}
	for _, rep := range rd.Reports {
		if rep.Role == fix.Role {
			continue
		}
		st := roles.Status{Role: rep.Role, Model: rep.Model, OK: !slices.Contains(rd.FailedRoles, rep.Role), Report: rep.Full, Usage: rr.Usage[rep.Role], CostUSD: rr.Costs[rep.Role]}
		if st.OK {
			st.Conclusion, _, _ = strings.Cut(rep.Summary, ",")
			if rep.Role != roles.AnalyzerName {
				rr.ReviewersOK++
			}
		} else {
			st.Error = strings.TrimPrefix(rep.Summary, "failed: ")
		}
		for _, f := range rr.Findings {
			// A merged finding counts for every reviewer that raised it.
			if f.Source != nil && f.Source.Name == rep.Role || rep.Model != "" && slices.Contains(f.Reviewers, rep.Model) {
				st.Findings++
			}
		}
		rr.Roles = append(rr.Roles, st)
	}
}

// recordVerifier keeps in the round's record what the verifier did: its
// refuted findings (with their status and evidence), its tokens, and its
// failure (state.Round.FailedRoles; it has no report, so no reviewer is
// taken for it).
func (rr *RoundResult) recordVerifier(rd *state.Round) {
	rd.Findings = append(rd.Findings, rr.Refuted...)
	st := rr.Verifier
	if st == nil || len(st.Sent) == 0 {
		return
	}
	rd.Usage = append(rd.Usage, state.Usage{Role: verifier.Name, Model: st.Model, Usage: st.Usage, CostUSD: st.CostUSD})
	if !st.OK {
		rd.FailedRoles = append(rd.FailedRoles, verifier.Name)
	}
}

// reloadVerifier takes what recordVerifier kept back out of a recorded
// round, Reload has read: the refuted findings out of the counted ones.
func (rr *RoundResult) reloadVerifier(rd state.Round) {
	rr.Findings, rr.Refuted = verifier.SplitRefuted(rr.Findings)
	rr.Counts = consensus.Count(rr.Findings)
	for _, u := range rd.Usage {
		if u.Role != verifier.Name {
			continue
		}
		st := &verifier.Status{Model: u.Model, OK: !slices.Contains(rd.FailedRoles, verifier.Name), Sent: []string{}, Refuted: []string{},
			Usage: rr.Usage[verifier.Name], CostUSD: rr.Costs[verifier.Name]}
		for _, f := range rr.Refuted {
			st.Refuted = append(st.Refuted, f.ID)
		}
		rr.Verifier = st
	}
}
