package stats

import (
	"fmt"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/internal/text"
)

// Markdown is r as stats prints it: the repository's figures, a table
// per model, priority, category and agreement, then the advice and what
// the figures cannot tell. Model names are ledgers' text of a checked
// shape, shown as code.
func (r Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## gh-ocdx stats — %s\n\n", r.Repository)
	fmt.Fprintf(&b, "Read %s, the most recently updated first; gh-ocdx reviewed %d of them, and the figures rest on those %d.\n\n",
		text.Plural(r.Read, "pull request"), r.PRs, r.PRs)
	if r.PRs == 0 {
		b.WriteString("No report of gh-ocdx's own (its login's, or one the base branch's `.ocdx.json` trusts) carries a ledger on them: nothing to count.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "- Rounds of review: %d (%.1f a pull request)\n", r.Rounds, float64(r.Rounds)/float64(r.PRs))
	if r.Converged > 0 {
		fmt.Fprintf(&b, "- Converged: %d of %d, in a median %g rounds and %s from gh-ocdx's first report\n",
			r.Converged, r.PRs, r.RoundsToConverge, duration(r.TimeToConverge))
	} else {
		fmt.Fprintf(&b, "- Converged: none of %d\n", r.PRs)
	}
	fmt.Fprintf(&b, "- Tokens: %s in / %s out", text.Thousands(r.Tokens.Input), text.Thousands(r.Tokens.Output))
	if r.Cost != nil {
		fmt.Fprintf(&b, "; estimated cost %s (%s a pull request)", dollars(*r.Cost), dollars(*r.CostPerPR))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "- Findings: %d raised, %d decided, %s accepted\n\n", r.Findings.Raised, r.Findings.Decided, share(r.Findings))

	b.WriteString("### Per model\n\nAccepted: fixed, or resolved after a change, of those decided (fixed, resolved, dismissed, refuted). Alone: the findings no other reviewer that answered raised; those accepted are what the model adds.\n\n")
	b.WriteString("| Model | PRs | Raised | Fixed | Resolved | Dismissed | Refuted | Disputed | Stuck | Open | Accepted | Alone | Alone, accepted | Alone, dismissed or refuted | Tokens in / out | Cost |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, m := range r.Models {
		o := m.Outcomes
		fmt.Fprintf(&b, "| `%s` | %d | %d | %d | %d | %d | %d | %d | %d | %d | %s | %d | %d | %d | %s / %s | %s |\n",
			m.Model, m.PRs, o.Raised, o.Fixed, o.Resolved, o.Dismissed, o.Refuted, o.Disputed, o.Stuck, o.Open, share(o),
			m.Lone.Raised, m.Lone.Accepted, m.Lone.Dismissed+m.Lone.Refuted, text.Thousands(m.Tokens.Input), text.Thousands(m.Tokens.Output), cost(m.Cost))
	}
	b.WriteString("\n")
	table(&b, "Per priority", "Priority", r.Priorities)
	table(&b, "Per category", "Category", r.Categories)
	table(&b, "By agreement", "Raised by", r.Agreement)
	var byPriority, byCategory []Group
	for _, m := range r.Models {
		for _, g := range m.Priorities {
			byPriority = append(byPriority, Group{Name: fmt.Sprintf("`%s` %s", m.Model, g.Name), Outcomes: g.Outcomes})
		}
		for _, g := range m.Categories {
			byCategory = append(byCategory, Group{Name: fmt.Sprintf("`%s` %s", m.Model, g.Name), Outcomes: g.Outcomes})
		}
	}
	table(&b, "Per model and priority", "Model, priority", byPriority)
	table(&b, "Per model and category", "Model, category", byCategory)

	b.WriteString("### What it would change\n\n")
	if len(r.Advice) == 0 {
		b.WriteString("Nothing the numbers support yet.\n")
	}
	for _, a := range r.Advice {
		verb := "Keep"
		if a.Change == "drop" {
			verb = "Drop"
		}
		fmt.Fprintf(&b, "- **%s `%s`**: %s.", verb, a.Model, a.Why)
		if a.Change == "drop" {
			saved := fmt.Sprintf("%s input and %s output tokens", text.Thousands(a.Saves.Input), text.Thousands(a.Saves.Output))
			if a.SavesCost != nil {
				saved += " (" + dollars(*a.SavesCost) + ")"
			}
			fmt.Fprintf(&b, " Dropping it would have saved %s, and lost %s.", saved, text.Plural(a.Loses, "accepted finding"))
		}
		b.WriteString("\n")
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "_%s._\n\n", n)
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// table writes groups as a table under a heading; nothing when none.
func table(b *strings.Builder, heading, first string, gs []Group) {
	if len(gs) == 0 {
		return
	}
	fmt.Fprintf(b, "### %s\n\n| %s | Raised | Fixed | Resolved | Dismissed | Refuted | Disputed | Stuck | Open | Accepted |\n", heading, first)
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, g := range gs {
		o := g.Outcomes
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %s |\n",
			g.Name, o.Raised, o.Fixed, o.Resolved, o.Dismissed, o.Refuted, o.Disputed, o.Stuck, o.Open, share(o))
	}
	b.WriteString("\n")
}

// share is o's accepted share as "64% (70/110)"; "–" when none was decided.
func share(o Outcomes) string {
	if o.Decided == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%% (%d/%d)", 100*o.AcceptedShare, o.Accepted, o.Decided)
}

func cost(c *float64) string {
	if c == nil {
		return "–"
	}
	return dollars(*c)
}

// duration is seconds as "45s", "20m", "1h" or "1h20m": to the minute
// from a minute on.
func duration(seconds float64) string {
	d := time.Duration(seconds) * time.Second
	if d < time.Minute {
		return d.String()
	}
	d = d.Round(time.Minute)
	h, m := int(d.Hours()), int(d.Minutes())%60
	switch {
	case h == 0:
		return fmt.Sprintf("%dm", m)
	case m == 0:
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dh%dm", h, m)
}
