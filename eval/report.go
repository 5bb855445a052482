package eval

import (
	"fmt"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
)

// Rules are the rules every figure of the report follows, said in it.
var Rules = []string{
	"Cases: mined from git alone (SZZ): a fix commit's changed lines traced with blame to the merged pull request that wrote them; clean pull requests are those no fix traced to, matched in size.",
	"As it was: each pull request is reviewed on its own diff from its base to its head; the models' tools read that head's files only, from git's objects by path (no later commit, no .git, no work tree); no GitHub request; the fixed lines and the fix commits are in no prompt.",
	"A bug is the lines one fix commit traced to the pull request; it is caught when a finding the configuration keeps names the same file at a line within ±3 of one of them (a finding without a line catches nothing).",
	"Recall: bugs caught over bugs, with the Wilson score 95% interval.",
	"Noise: the findings (every priority) a configuration keeps on the clean pull requests, per clean pull request, with the exact (Garwood) 95% Poisson interval of the count over the clean pull requests; a finding there may be a bug nobody has fixed yet, so noise is an upper bound.",
	"k of n: the findings of the n models are merged into problems by review-loop's rule (same ID, or same file within a few lines with a similar title); a problem is kept when at least k of the n raised it.",
	"With the verifier: as in a round, a P1–P3 problem one model raised (any, with one model) is dropped when the verifier refuted it; its verdicts are those it gave on each model's findings alone, and its tokens those calls'.",
	"Effort standard: every reviewer, every problem kept, the verifier as above. Effort auto: per case, package effort's tier from the case's paths, size and secrets and its base's path rules: quick is the first reviewer alone without verifier, standard as above, deep every reviewer with the verifier on every P1–P3 problem.",
	"Tokens: input and output of every call of the configuration on the cases it counts; estimated dollars from the configured prices (none when a model has no price); per bug caught.",
	"Cutoffs: a pull request counts only when merged after --after and after the modelCutoffs date of every model of the configuration.",
	"Recommendation: only when a configuration's recall interval lies wholly above effort standard's; otherwise the data cannot tell.",
}

// Report is gh ocdx eval history's result.
type Report struct {
	Reviewers []string `json:"reviewers"`
	Verifier  string   `json:"verifier,omitempty"`
	BugCases  int      `json:"bugCases"`
	Clean     int      `json:"cleanCases"`
	Rows      []Row    `json:"rows"`
	// Auto is the tier auto chose for each case and why.
	Auto []CaseTier `json:"auto"`
	// Recommendation is what the figures support, or that they cannot tell.
	Recommendation string   `json:"recommendation"`
	Rules          []string `json:"rules"`
	Calls          int      `json:"calls"`
	Cached         int      `json:"cached"`
	Failed         int      `json:"failed"`
	After          string   `json:"after,omitempty"`
}

// CaseTier is the tier auto chose for a case.
type CaseTier struct {
	PR   int         `json:"pr"`
	Bug  bool        `json:"bug"`
	Tier effort.Tier `json:"tier"`
	Why  string      `json:"why"`
}

// Score computes the report from the results, without a model call: each
// model alone, every mix of the models with every agreement, with and
// without the verifier, and the effort tiers standard and auto.
func Score(res *Results, o ScoreOptions) *Report {
	rep := &Report{Reviewers: res.Reviewers, Verifier: res.Verifier, Rules: Rules, Calls: res.Calls, Cached: res.Cached, Failed: res.Failed}
	if !o.After.IsZero() {
		rep.After = o.After.Format(time.DateOnly)
	}
	for _, c := range res.Cases {
		if len(c.Buggy) > 0 {
			rep.BugCases++
		} else {
			rep.Clean++
		}
		if ch, ok := res.Tiers[c.PR]; ok {
			rep.Auto = append(rep.Auto, CaseTier{PR: c.PR, Bug: len(c.Buggy) > 0, Tier: ch.Tier, Why: ch.Why})
		}
	}
	verifiers := []bool{false}
	if res.Verifier != "" {
		verifiers = append(verifiers, true)
	}
	for _, models := range subsets(res.Reviewers) {
		for k := 1; k <= len(models); k++ {
			for _, v := range verifiers {
				rep.Rows = append(rep.Rows, res.score(mix{models: models, k: k, verifier: v}, o))
			}
		}
	}
	if len(res.Reviewers) > 0 {
		std := res.score(mix{models: res.Reviewers, k: 1, verifier: true, tier: effort.Standard}, o)
		auto := res.score(mix{models: res.Reviewers, k: 1, verifier: true, tier: effort.Auto}, o)
		rep.Rows = append(rep.Rows, std, auto)
		rep.Recommendation = recommend(rep.Rows, std)
	}
	return rep
}

// subsets are the non-empty subsets of models, the smaller first, each in
// the configured order.
func subsets(models []string) [][]string {
	var out [][]string
	for size := 1; size <= len(models); size++ {
		for mask := 1; mask < 1<<len(models); mask++ {
			var s []string
			for i, m := range models {
				if mask&(1<<i) != 0 {
					s = append(s, m)
				}
			}
			if len(s) == size {
				out = append(out, s)
			}
		}
	}
	return out
}

// recommend names the configuration whose recall interval lies wholly
// above standard's (the highest recall, then the fewest tokens), or says
// that the data cannot tell one.
func recommend(rows []Row, std Row) string {
	var best *Row
	for i := range rows {
		r := &rows[i]
		if r.Tier != "" || r.Bugs == 0 || r.RecallCI.Low <= std.RecallCI.High {
			continue
		}
		if best == nil || r.Recall > best.Recall || r.Recall == best.Recall && r.Tokens < best.Tokens {
			best = r
		}
	}
	if best != nil {
		return fmt.Sprintf("%s: its recall (%s) is above effort standard's (%s), intervals apart, on %s.",
			best.Name, pct(best.Recall, best.RecallCI), pct(std.Recall, std.RecallCI), text.Plural(best.Bugs, "bug"))
	}
	return fmt.Sprintf("The data cannot tell: no configuration's recall interval lies above effort standard's (%s, on %s); more cases would narrow the intervals.",
		pct(std.Recall, std.RecallCI), text.Plural(std.Bugs, "bug"))
}

func pct(p float64, ci Interval) string {
	return fmt.Sprintf("%.0f%% [%.0f–%.0f%%]", 100*p, 100*ci.Low, 100*ci.High)
}

// Markdown is the report as the terminal shows it.
func (rep *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# gh ocdx eval history\n\n%s and %s; reviewers %s", text.Plural(rep.BugCases, "bug case"), text.Plural(rep.Clean, "clean case"), strings.Join(rep.Reviewers, ", "))
	if rep.Verifier != "" {
		fmt.Fprintf(&b, "; verifier %s", rep.Verifier)
	}
	fmt.Fprintf(&b, ". %s made, %s from the cache", text.Plural(rep.Calls, "model call"), text.Plural(rep.Cached, "answer"))
	if rep.Failed > 0 {
		fmt.Fprintf(&b, ", %s failed (a reviewer's case does not count for it, a verifier's findings stand; a rerun asks again)", text.Plural(rep.Failed, "call"))
	}
	b.WriteString(".\n\n**" + rep.Recommendation + "**\n\n")
	b.WriteString("| Configuration | Cases | Recall (95% Wilson) | Bugs | Noise per clean PR (95% Poisson) | Clean PRs | Tokens | Tokens per bug caught | Est. $ per bug caught |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rep.Rows {
		name := r.Name
		if r.Tiers != nil {
			name += fmt.Sprintf(" (quick %d, standard %d, deep %d)", r.Tiers[effort.Quick], r.Tiers[effort.Standard], r.Tiers[effort.Deep])
		}
		perBug, dollars := "-", "-"
		if r.TokensPerBug != nil {
			perBug = text.Thousands(int64(*r.TokensPerBug))
		}
		if r.DollarsPerBug != nil {
			dollars = tokens.Dollars(*r.DollarsPerBug)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %d/%d | %.2f [%.2f–%.2f] | %d | %s | %s | %s |\n", name, r.Cases, pct(r.Recall, r.RecallCI), r.Caught, r.Bugs,
			r.Noise, r.NoiseCI.Low, r.NoiseCI.High, r.CleanPRs, text.Thousands(r.Tokens), perBug, dollars)
	}
	b.WriteString("\n## Rules\n\n")
	for _, r := range rep.Rules {
		b.WriteString("- " + r + "\n")
	}
	return b.String()
}
