// Package consensus aggregates a round's findings and decides what they
// amount to (docs/architecture.md, Findings and agreement; Consensus): the
// copies of one problem merged into one finding with its agreement, a
// problem raised again under its earlier ID, review threads as findings,
// the consensus, the stuck findings and what goes to the fix agent.
package consensus

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/evidence"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/secretscan"
)

// Distinct merges the copies of one problem into one finding
// (docs/architecture.md, Findings and agreement): reviewers that raise the
// same ID, or the same place (one file, lines within nearLines of each
// other, or both without a line) with a similar title, found one problem,
// however they worded or categorised it. The merged finding is the copy
// with the highest priority (gh-ocdx's own secret finding first among
// equals, then a SEC- one, then the smallest ID), and names every reviewer that raised it,
// by model, with the agreement out of succeeded, the reviewers that
// answered. Thread findings are one per thread already and pass as they
// are. The order is that of each problem's first copy.
func Distinct(fs []finding.Finding, succeeded int) []finding.Finding {
	type group struct {
		copies []finding.Finding
		roles  []string // the reviewers (by role) that raised it, in order
		models []string
		tools  []string // the tools whose results it is (docs/architecture.md, Evidence)
	}
	var groups []*group
	for _, f := range fs {
		var g *group
		if !IsThread(f) {
			for _, c := range groups {
				if !IsThread(c.copies[0]) && slices.ContainsFunc(c.copies, func(x finding.Finding) bool { return SameProblem(x, f) }) {
					g = c
					break
				}
			}
		}
		if g == nil {
			g = &group{}
			groups = append(groups, g)
		}
		g.copies = append(g.copies, f)
		if evidence.Own(f) {
			if !slices.Contains(g.tools, f.Source.Name) {
				g.tools = append(g.tools, f.Source.Name)
			}
			continue
		}
		if f.Source != nil && !secretscan.Own(f) && !IsThread(f) && !slices.Contains(g.roles, f.Source.Name) {
			model := f.Source.Name
			if len(f.Reviewers) > 0 {
				model = f.Reviewers[0] // agentFindings names the reviewer's model
			}
			g.roles, g.models = append(g.roles, f.Source.Name), append(g.models, model)
		}
	}
	out := make([]finding.Finding, 0, len(groups))
	for _, g := range groups {
		m := first(g.copies)
		m.Reviewers, m.Agreement, m.Tools = nil, "", g.tools
		if !IsThread(m) && len(g.models) > 0 {
			m.Reviewers, m.Agreement = g.models, agreement(g.models, succeeded)
		}
		out = append(out, m)
	}
	return out
}

// first is the copy of one problem that stands for it: the highest
// priority, gh-ocdx's own secret finding first among equals, then a SEC-
// one (a writer's dismissal of the problem must not clear what a reviewer
// called a security finding), then the smallest ID, then the first given.
func first(copies []finding.Finding) finding.Finding {
	return slices.MinFunc(copies, func(a, b finding.Finding) int {
		if r := Rank(a.Priority) - Rank(b.Priority); r != 0 {
			return r
		}
		if sa, sb := secretscan.Own(a), secretscan.Own(b); sa != sb {
			if sa {
				return -1
			}
			return 1
		}
		if sa, sb := isSec(a), isSec(b); sa != sb {
			if sa {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// agreement is how many of the succeeded reviewers that answered models
// are ("2/3").
func agreement(models []string, succeeded int) string {
	return fmt.Sprintf("%d/%d", len(models), max(succeeded, len(models)))
}

// Identify gives each finding of fs raised again its earlier ID: one
// problem keeps one ID across heads (docs/architecture.md, Findings and
// agreement). A finding with the ID of an earlier one is that one; else
// one at the same place as an earlier finding, its line followed to fs's
// head, with a similar title (SameProblem, as Distinct merges a round's
// copies) takes its ID, when again allows the earlier one to be raised
// again. Each earlier finding names one finding at most, and a thread
// none. A SEC- finding takes only a SEC- ID and the reverse, so that a
// dismissal a writer may make never reaches a finding only an admin may
// dismiss (docs/architecture.md, The ledger). at maps each earlier ID
// raised again to its finding's index in out.
func Identify(fs, earlier []finding.Finding, again func(finding.Finding) bool) (out []finding.Finding, at map[string]int) {
	out, at = slices.Clone(fs), map[string]int{}
	ids := make(map[string]bool, len(earlier))
	for _, p := range earlier {
		ids[p.ID] = true
	}
	taken := make([]bool, len(out))
	for i, f := range out {
		if !IsThread(f) && ids[f.ID] {
			at[f.ID], taken[i] = i, true
		}
	}
	for _, p := range earlier {
		if _, ok := at[p.ID]; ok || IsThread(p) || !again(p) {
			continue
		}
		for i, f := range out {
			if !taken[i] && !IsThread(f) && isSec(f) == isSec(p) && SameProblem(p, f) {
				out[i].ID, at[p.ID], taken[i] = p.ID, i, true
				break
			}
		}
	}
	return out, at
}

// isSec reports whether f is a security finding, by its ID.
func isSec(f finding.Finding) bool { return strings.HasPrefix(f.ID, "SEC-") }

// RaisedAgain is f, an earlier finding p raised again under p's ID, merged
// with p carried on: one finding, the copy first picks, named by the
// reviewers of both, earlier ones first, out of the succeeded that
// answered this round.
func RaisedAgain(f, p finding.Finding, succeeded int) finding.Finding {
	m := first([]finding.Finding{f, p})
	models := slices.Clone(p.Reviewers)
	for _, r := range f.Reviewers {
		if !slices.Contains(models, r) {
			models = append(models, r)
		}
	}
	m.Reviewers, m.Agreement, m.Tools = nil, "", slices.Clone(p.Tools)
	if len(models) > 0 {
		m.Reviewers, m.Agreement = models, agreement(models, succeeded)
	}
	for _, t := range f.Tools {
		if !slices.Contains(m.Tools, t) {
			m.Tools = append(m.Tools, t)
		}
	}
	return m
}

// Agreement says who raised f, for a report: "2/3 reviewers
// (openai/gpt-4.1, anthropic/claude-sonnet-4-5)", with the tools whose
// results it is ("… + staticcheck", or "staticcheck" alone); "" when no
// reviewer or tool did (a thread, gh-ocdx's own secret finding).
func Agreement(f finding.Finding) string {
	tools := strings.Join(f.Tools, ", ")
	if f.Agreement == "" {
		return tools
	}
	noun := "reviewers"
	if strings.HasSuffix(f.Agreement, "/1") {
		noun = "reviewer"
	}
	s := fmt.Sprintf("%s %s (%s)", f.Agreement, noun, strings.Join(f.Reviewers, ", "))
	if tools != "" {
		s += " + " + tools
	}
	return s
}

// SameProblem reports whether two reviewers' findings are one problem: the
// same ID, or the same file and place with a similar title. Unlike
// SameFinding, which follows a finding across a fix, the category may
// differ (one model's quality issue is another's performance issue) and
// the place is not allowed to move: across heads, Identify follows the
// earlier finding's line first.
func SameProblem(a, b finding.Finding) bool {
	if a.ID != "" && a.ID == b.ID {
		return true
	}
	if evidence.Confirms(a, b) || evidence.Confirms(b, a) {
		return true
	}
	if a.File != b.File {
		return false
	}
	switch {
	case a.Line == nil && b.Line == nil:
	case a.Line == nil || b.Line == nil:
		return false
	default:
		if d := *a.Line - *b.Line; d > nearLines || d < -nearLines {
			return false
		}
	}
	return SimilarTitles(a.Title, b.Title)
}

// Rank orders priorities, most severe first; an unknown one last.
func Rank(p string) int {
	if i := slices.Index(finding.Priorities, p); i >= 0 {
		return i
	}
	return len(finding.Priorities)
}
