package stats

import (
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/internal/text"
)

// advise is what r's numbers say to change, each with the numbers behind
// it, and notes saying where they are too few to say anything: a model
// is judged by the findings it alone raised (the others another reviewer
// raised too, and would have been found without it), once MinDecided of
// them were decided, on at least MinPRs reviewed pull requests.
func advise(r Report, notes []string) ([]Advice, []string) {
	advice := []Advice{}
	if r.PRs < MinPRs {
		return advice, append(notes, fmt.Sprintf("no advice: the figures rest on %s, and advice needs at least %d", text.Plural(r.PRs, "reviewed pull request"), MinPRs))
	}
	var few []string
	for _, m := range r.Models {
		if m.Raised == 0 {
			continue // a role that raises nothing: the analyzer, the fixer
		}
		lone := m.Lone
		if lone.Decided < MinDecided {
			few = append(few, fmt.Sprintf("%s (%d)", m.Model, lone.Decided))
			continue
		}
		rejected := lone.Dismissed + lone.Refuted
		a := Advice{Model: m.Model, Saves: m.Tokens, SavesCost: m.Cost, Loses: lone.Accepted}
		numbers := fmt.Sprintf("of the %d findings only it raised that were decided, %d were dismissed or refuted and %d accepted (fixed or resolved)",
			lone.Decided, rejected, lone.Accepted)
		if float64(rejected) >= DropShare*float64(lone.Decided) {
			a.Change = "drop"
			a.Why = fmt.Sprintf("%s, over %s", numbers, text.Plural(m.PRs, "pull request"))
		} else {
			a.Change = "keep"
			a.Why = fmt.Sprintf("%s: %d accepted findings no other reviewer raised", numbers, lone.Accepted)
		}
		advice = append(advice, a)
	}
	if len(few) > 0 {
		notes = append(notes, fmt.Sprintf("too few decided findings that only one model raised to judge %s: at least %d each are needed", strings.Join(few, ", "), MinDecided))
	}
	return advice, notes
}

func dollars(f float64) string { return fmt.Sprintf("$%.2f", f) }
