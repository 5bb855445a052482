package martian

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/inline"
)

// Grouping is how two tools' candidates are found to be one problem.
// Candidates the judge matched to the same golden comment are one problem,
// whatever their words; the others, which the data cannot group, are
// grouped by gh-ocdx's own rule on their text (similar titles: the
// candidates carry no file or line). A matched candidate and an unmatched
// one are never one problem (the judge said the second is not the first's
// golden comment).
type Grouping struct {
	// Text groups every candidate by gh-ocdx's rule on its text alone, as
	// gh-ocdx would group findings that have no place.
	Text bool
	// Words, when above 0, also groups unmatched candidates whose sets of
	// words (WordOverlap) share at least this much: a measuring
	// instrument calibrated on the judge's pairs (CalibrateWords), not a
	// rule of gh-ocdx's.
	Words float64
}

var (
	ByJudge = Grouping{}
	ByText  = Grouping{Text: true}
)

func (g Grouping) String() string {
	switch {
	case g.Text:
		return "text rule for all"
	case g.Words > 0:
		return fmt.Sprintf("judge, word overlap ≥ %.2f or the text rule for unmatched", g.Words)
	}
	return "judge, text rule for unmatched"
}

// Findings are the candidates of tools on pr as gh-ocdx's reviewers would
// return them, one reviewer per tool, merged by consensus.Distinct, and for
// each finding's ID the golden comments it stands for (none: a false
// one). Every finding is a P2 of category quality without a place: the
// candidates carry no priority, file or line. IDs are finding.ID's hashes,
// which order findings in inline.Select; they never say which
// findings are true.
func Findings(pr PR, tools []string, g Grouping) ([]finding.Finding, map[string][]int) {
	var fs []finding.Finding
	golden := map[string][]int{}
	add := func(tool, file, idKey, text string, gs []int) {
		f := finding.Finding{Priority: "P2", Category: "quality", File: file, Title: text, Description: text,
			Source: &finding.Source{Type: "agent", Name: tool}, Reviewers: []string{tool}}
		f.ID = finding.ID(f.Category, file, nil, idKey)
		golden[f.ID] = gs
		fs = append(fs, f)
	}
	var key map[string]string // an unmatched candidate's group, by its text
	if g.Words > 0 {
		key = groupWords(pr, tools, g.Words)
	}
	for _, tool := range tools {
		for _, c := range pr.Reviews[tool] {
			switch {
			case g.Text:
				add(tool, "", tool+"|"+c.Text, c.Text, c.Golden)
			case len(c.Golden) == 0 && key != nil:
				add(tool, "", key[c.Text], c.Text, nil)
			case len(c.Golden) == 0:
				add(tool, "", c.Text, c.Text, nil)
			default:
				// One copy per golden comment it matched, each with that
				// comment's ID and its own "file", so that only the judge
				// merges matched candidates.
				for _, k := range c.Golden {
					file := fmt.Sprint("golden/", k)
					add(tool, file, file, c.Text, []int{k})
				}
			}
		}
	}
	return consensus.Distinct(fs, len(tools)), golden
}

// Policy is a rule for what of a round's distinct findings is posted.
type Policy struct {
	// MinReviewers keeps a finding when at least this many tools raised it
	// (1: every finding). gh-ocdx's agreement count, used as a vote.
	MinReviewers int
	// Max is the noise budget, inline.Select's maxInlineComments
	// (every finding here is a P2, so the most agreed go first); 0: none.
	Max int
}

func (p Policy) String() string {
	s := "every finding"
	if p.MinReviewers > 1 {
		s = fmt.Sprintf("raised by ≥ %d tools", p.MinReviewers)
	}
	if p.Max > 0 {
		s += fmt.Sprintf(", budget %d", p.Max)
	}
	return s
}

// Apply is what p posts of fs.
func (p Policy) Apply(fs []finding.Finding) []finding.Finding {
	kept := slices.DeleteFunc(slices.Clone(fs), func(f finding.Finding) bool { return len(f.Reviewers) < p.MinReviewers })
	if p.Max > 0 {
		kept, _ = inline.Select(kept, inline.Policy{Max: p.Max})
	}
	return kept
}

// Severities are the golden comments' severities, for recall by severity.
var Severities = []string{"Low", "Medium", "High", "Critical"}

// Score counts posted findings against the golden comments.
type Score struct {
	Posted, Correct int // findings posted, and those standing for a golden comment not posted before
	Found, Golden   int // golden comments posted, and all of them
	// FoundBy and GoldenBy are Found and Golden by severity (Severities).
	FoundBy, GoldenBy [4]int
}

// Add scores what was posted on pr. A finding is true when it stands for
// a golden comment no finding before it stood for: a second comment on a
// problem already posted (two tools' copies the rule did not merge) is
// noise too.
func (s *Score) Add(pr PR, posted []finding.Finding, golden map[string][]int) {
	found := make([]bool, len(pr.Golden))
	for _, f := range posted {
		s.Posted++
		if gs := golden[f.ID]; slices.ContainsFunc(gs, func(k int) bool { return !found[k] }) {
			s.Correct++
			for _, k := range gs {
				found[k] = true
			}
		}
	}
	for k, g := range pr.Golden {
		sev := slices.Index(Severities, g.Severity)
		s.Golden++
		if sev >= 0 {
			s.GoldenBy[sev]++
		}
		if found[k] {
			s.Found++
			if sev >= 0 {
				s.FoundBy[sev]++
			}
		}
	}
}

// Plus is s and t together.
func (s Score) Plus(t Score) Score {
	s.Posted += t.Posted
	s.Correct += t.Correct
	s.Found += t.Found
	s.Golden += t.Golden
	for i := range s.FoundBy {
		s.FoundBy[i] += t.FoundBy[i]
		s.GoldenBy[i] += t.GoldenBy[i]
	}
	return s
}

// Precision is the share of posted findings that stand for a golden
// comment; Recall the share of golden comments posted.
func (s Score) Precision() float64 { return ratio(s.Correct, s.Posted) }
func (s Score) Recall() float64    { return ratio(s.Found, s.Golden) }
func (s Score) F1() float64        { return f1(s.Precision(), s.Recall()) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Replay scores each policy for the tools on the PRs of projects.
func Replay(d *Data, projects, tools []string, g Grouping, ps []Policy) []Score {
	out := make([]Score, len(ps))
	for _, pr := range d.PRs {
		if !slices.Contains(projects, pr.Project) {
			continue
		}
		fs, golden := Findings(pr, tools, g)
		for i, p := range ps {
			out[i].Add(pr, p.Apply(fs), golden)
		}
	}
	return out
}

// Combinations are the n-element subsets of tools, in order.
func Combinations(tools []string, n int) [][]string {
	var out [][]string
	var rec func(start int, cur []string)
	rec = func(start int, cur []string) {
		if len(cur) == n {
			out = append(out, slices.Clone(cur))
			return
		}
		for i := start; i <= len(tools)-(n-len(cur)); i++ {
			rec(i+1, append(cur, tools[i]))
		}
	}
	rec(0, nil)
	return out
}

// Pairs counts merge decisions of the text rule on pairs of candidates
// whose truth the judge gives: both matched (one problem when they share
// a golden comment), or one matched and one not (two problems). Two
// unmatched candidates are left out: the data cannot say.
type Pairs struct {
	Merged, MergedSame, Same int
}

func (p Pairs) Precision() float64 { return ratio(p.MergedSame, p.Merged) }
func (p Pairs) Recall() float64    { return ratio(p.MergedSame, p.Same) }

// TextRulePairs measures gh-ocdx's "same problem" rule on text
// (consensus.SimilarTitles, what consensus.Distinct applies to two findings at the
// same place) against the judge: pairs of one tool's candidates on one PR
// (within), and pairs of two tools' (across).
func TextRulePairs(d *Data) (within, across Pairs) {
	eachPair(d, nil, func(a, b Candidate, sameTool bool) {
		p := &across
		if sameTool {
			p = &within
		}
		p.add(a, b, consensus.SimilarTitles(a.Text, b.Text))
	})
	return within, across
}

// eachPair calls f with each pair of candidates on one PR of projects
// (nil: every PR) whose truth the judge gives: at least one of them
// matched.
func eachPair(d *Data, projects []string, f func(a, b Candidate, sameTool bool)) {
	type cand struct {
		tool string
		Candidate
	}
	for _, pr := range d.PRs {
		if projects != nil && !slices.Contains(projects, pr.Project) {
			continue
		}
		var cs []cand
		for _, tool := range d.Tools {
			for _, c := range pr.Reviews[tool] {
				cs = append(cs, cand{tool, c})
			}
		}
		for i, a := range cs {
			for _, b := range cs[i+1:] {
				if len(a.Golden) > 0 || len(b.Golden) > 0 {
					f(a.Candidate, b.Candidate, a.tool == b.tool)
				}
			}
		}
	}
}

// add counts one merge decision on a and b.
func (p *Pairs) add(a, b Candidate, merged bool) {
	same := slices.ContainsFunc(a.Golden, func(k int) bool { return slices.Contains(b.Golden, k) })
	if same {
		p.Same++
	}
	if merged {
		p.Merged++
		if same {
			p.MergedSame++
		}
	}
}

// groupWords groups the unmatched candidates of tools on pr whose word
// overlap is at least t, transitively: each text's key is the first text
// of its group.
func groupWords(pr PR, tools []string, t float64) map[string]string {
	var texts []string
	for _, tool := range tools {
		for _, c := range pr.Reviews[tool] {
			if len(c.Golden) == 0 && !slices.Contains(texts, c.Text) {
				texts = append(texts, c.Text)
			}
		}
	}
	root := make([]int, len(texts))
	for i := range root {
		root[i] = i
	}
	find := func(i int) int {
		for root[i] != i {
			i = root[i]
		}
		return i
	}
	ws := make([]map[string]bool, len(texts))
	for i, s := range texts {
		ws[i] = contentWords(s)
	}
	for i := range texts {
		for j := i + 1; j < len(texts); j++ {
			if overlap(ws[i], ws[j]) >= t {
				a, b := find(i), find(j)
				root[max(a, b)] = min(a, b)
			}
		}
	}
	key := make(map[string]string, len(texts))
	for i, s := range texts {
		key[s] = "words|" + texts[find(i)]
	}
	return key
}

// stopWords are left out of WordOverlap: they say nothing of a problem.
var stopWords = map[string]bool{"the": true, "and": true, "for": true, "not": true, "with": true, "this": true,
	"that": true, "are": true, "from": true, "when": true, "which": true, "can": true, "will": true, "should": true,
	"may": true, "could": true, "but": true, "its": true, "into": true, "than": true, "there": true, "been": true,
	"being": true, "has": true, "have": true, "was": true, "were": true, "would": true, "also": true, "any": true}

// contentWords are s's words of three letters or more, lower case, less
// stopWords.
func contentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) >= 3 && !stopWords[w] {
			out[w] = true
		}
	}
	return out
}

// overlap is the share of a's and b's words they have in common
// (Jaccard).
func overlap(a, b map[string]bool) float64 {
	common := 0
	for w := range a {
		if b[w] {
			common++
		}
	}
	return ratio(common, len(a)+len(b)-common)
}

// WordOverlap is how much of their content words two texts share.
func WordOverlap(a, b string) float64 { return overlap(contentWords(a), contentWords(b)) }

// CalibrateWords chooses the word overlap at which two tools' candidates
// are taken for one problem: the threshold (0.10 to 0.60) whose merge
// decisions best agree with the judge (pairwise F1) on the pairs of the
// PRs of projects whose truth it gives, as TextRulePairs counts them.
func CalibrateWords(d *Data, projects []string) (best float64, p Pairs) {
	bestF1 := -1.0
	for i := 10; i <= 60; i += 5 {
		t := float64(i) / 100
		q := WordPairs(d, projects, t)
		if f := f1(q.Precision(), q.Recall()); f > bestF1 {
			best, p, bestF1 = t, q, f
		}
	}
	return best, p
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// WordPairs counts the merge decisions of a word overlap of at least t on
// pairs of two tools' candidates on the PRs of projects, against the
// judge (as TextRulePairs, across tools).
func WordPairs(d *Data, projects []string, t float64) Pairs {
	var p Pairs
	eachPair(d, projects, func(a, b Candidate, sameTool bool) {
		if !sameTool {
			p.add(a, b, WordOverlap(a.Text, b.Text) >= t)
		}
	})
	return p
}
