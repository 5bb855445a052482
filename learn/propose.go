package learn

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/learnings"
)

// The threshold of a learning (docs/architecture.md, Learnings): it rests
// on at least MinDecisions decisions on at least MinPRs pull requests, one
// of them at least a person's (a dismissal, or a concession to their
// reply), and no finding it would match
// was fixed, resolved or restored. On LeaveOutPRs pull requests or more it
// leaves the findings out; on fewer it lowers them to P3.
const (
	MinDecisions  = 2
	MinPRs        = 2
	LeaveOutPRs   = 3
	maxTermsTried = 5
)

// Propose groups the decisions ds by what they are about and proposes a
// learning for each group that passes the threshold, in a fixed order:
// the same decisions give the same learnings, byte for byte. Decisions a
// learning of existing already covers propose nothing again.
func Propose(ds []Decision, existing []learnings.Learning) []learnings.Learning {
	var support, against []Decision
	for _, d := range ds {
		switch {
		case !d.supports():
			against = append(against, d)
		case !slices.ContainsFunc(existing, func(l learnings.Learning) bool { return l.Rule.Matches(d.finding()) }):
			support = append(support, d)
		}
	}
	var out []learnings.Learning
	for _, code := range codes(support) {
		var of []Decision
		for _, d := range support {
			if learnings.Code(d.ID) == code {
				of = append(of, d)
			}
		}
		for _, g := range byDirectory(of) {
			if l, ok := proposeFor(code, g, against); ok {
				out = append(out, l)
			}
		}
	}
	return out
}

// codes are the category codes of ds, sorted.
func codes(ds []Decision) []string {
	var cs []string
	for _, d := range ds {
		if c := learnings.Code(d.ID); !slices.Contains(cs, c) {
			cs = append(cs, c)
		}
	}
	slices.Sort(cs)
	return cs
}

// byDirectory groups ds by the first directory of their file (the
// repository's root files together, and the findings the ledger did not
// locate together), in the order of those names.
func byDirectory(ds []Decision) [][]Decision {
	groups := map[string][]Decision{}
	var keys []string
	for _, d := range ds {
		k := "\x00" // not located
		if d.File != "" {
			k, _, _ = strings.Cut(d.File, "/")
			if k == d.File {
				k = "" // the root's files
			}
		}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], d)
	}
	slices.Sort(keys)
	out := make([][]Decision, 0, len(keys))
	for _, k := range keys {
		out = append(out, groups[k])
	}
	return out
}

// proposeFor is the learning group g of category code supports: the rule
// of its common directory, else that narrowed to a term of its titles,
// the first (most supported) that passes the threshold.
func proposeFor(code string, g []Decision, against []Decision) (learnings.Learning, bool) {
	located := g[0].File != ""
	glob := ""
	if located {
		glob = commonGlob(g)
	}
	var tries []learnings.Rule
	if glob != "" || !located {
		tries = append(tries, learnings.Rule{Category: code, Path: glob})
	}
	for _, t := range terms(g) {
		tries = append(tries, learnings.Rule{Category: code, Path: glob, Terms: []string{t}})
	}
	for _, r := range tries {
		if sup, ok := passes(r, g, against); ok {
			return learning(r, sup), true
		}
	}
	return learnings.Learning{}, false
}

// passes is what of g rule r matches, and whether that passes the
// threshold.
func passes(r learnings.Rule, g, against []Decision) ([]Decision, bool) {
	if slices.ContainsFunc(against, func(d Decision) bool { return r.Matches(d.finding()) }) {
		return nil, false
	}
	var sup []Decision
	persons := false
	for _, d := range g {
		if r.Matches(d.finding()) {
			sup = append(sup, d)
			persons = persons || d.persons()
		}
	}
	return sup, persons && len(sup) >= MinDecisions && len(prsOf(sup)) >= MinPRs
}

// commonGlob is the glob of g's files: the file when there is one, else
// their common directory and all under it; "" when they share none.
func commonGlob(g []Decision) string {
	files := make([]string, 0, len(g))
	for _, d := range g {
		files = append(files, d.File)
	}
	slices.Sort(files)
	files = slices.Compact(files)
	if strings.ContainsAny(strings.Join(files, ""), "*?[\\") {
		return "" // a name that would read as a pattern
	}
	if len(files) == 1 {
		if strings.Contains(files[0], "/") {
			return files[0]
		}
		return "/" + files[0] // from the root, not any directory's file of that name
	}
	dir := path.Dir(files[0])
	for _, f := range files[1:] {
		for dir != "." && !strings.HasPrefix(f, dir+"/") {
			dir = path.Dir(dir)
		}
	}
	if dir == "." {
		return ""
	}
	return dir + "/**"
}

// stopWords are words of titles too common to say what a finding is about.
var stopWords = []string{"about", "after", "again", "before", "could", "does", "from", "have", "into", "missing", "more", "should", "than", "that", "their", "there", "this", "when", "which", "while", "with", "without", "would"}

// terms are the words of g's titles that could narrow a rule, the ones on
// the most pull requests first (then the most decisions, then by
// spelling): at most maxTermsTried.
func terms(g []Decision) []string {
	type term struct {
		word string
		n    int
		prs  []int
	}
	var ts []*term
	for _, d := range g {
		words := learnings.TitleWords(d.Title)
		slices.Sort(words)
		for _, w := range slices.Compact(words) {
			if len(w) < 4 || len(w) > 40 || slices.Contains(stopWords, w) {
				continue
			}
			i := slices.IndexFunc(ts, func(t *term) bool { return t.word == w })
			if i < 0 {
				ts, i = append(ts, &term{word: w}), len(ts)
			}
			ts[i].n++
			if !slices.Contains(ts[i].prs, d.PR) {
				ts[i].prs = append(ts[i].prs, d.PR)
			}
		}
	}
	slices.SortFunc(ts, func(a, b *term) int {
		return cmp.Or(-cmp.Compare(len(a.prs), len(b.prs)), -cmp.Compare(a.n, b.n), strings.Compare(a.word, b.word))
	})
	var out []string
	for _, t := range ts[:min(len(ts), maxTermsTried)] {
		out = append(out, t.word)
	}
	return out
}

// prsOf are the pull requests of ds, sorted.
func prsOf(ds []Decision) []int {
	var prs []int
	for _, d := range ds {
		prs = append(prs, d.PR)
	}
	slices.Sort(prs)
	return slices.Compact(prs)
}

// reasonsOf are the reasons people gave for the dismissals of ds, the
// most given first (then by spelling): at most three.
func reasonsOf(ds []Decision) []string {
	count := map[string]int{}
	var rs []string
	for _, d := range ds {
		if d.Kind == Dismissed && d.Reason != "" {
			if count[d.Reason] == 0 {
				rs = append(rs, d.Reason)
			}
			count[d.Reason]++
		}
	}
	slices.SortFunc(rs, func(a, b string) int { return cmp.Or(-cmp.Compare(count[a], count[b]), strings.Compare(a, b)) })
	return rs[:min(len(rs), 3)]
}

// categoryNames name the category codes in a sentence.
var categoryNames = map[string]string{"PERF": "performance", "QUAL": "quality", "ARCH": "architecture", "TEST": "testing", "DOCS": "documentation", "OTHER": "other"}

// learning is rule r with its record (the reasons and pull requests of
// sup) and its words, from a template: a learning says what it rests on
// and nothing a model made up.
func learning(r learnings.Rule, sup []Decision) learnings.Learning {
	r.PRs, r.Reasons = prsOf(sup), reasonsOf(sup)
	r.Action = learnings.LeaveOut
	if len(r.PRs) < LeaveOutPRs {
		r.Action, r.To = learnings.Lower, "P3"
	}
	what := cmp.Or(categoryNames[r.Category], r.Category) + " findings"
	if r.Path != "" {
		what += " in " + text.CodeSpan(strings.TrimPrefix(r.Path, "/"))
	}
	if len(r.Terms) > 0 {
		what += " whose title says “" + strings.Join(r.Terms, "”, “") + "”"
	}
	n := map[Kind]int{}
	for _, d := range sup {
		n[d.Kind]++
	}
	dismissed, conceded, refuted := n[Dismissed], n[Conceded], n[Refuted]
	why := ""
	if dismissed > 0 {
		why = "maintainers dismissed " + text.Plural(dismissed, "such finding")
	}
	if len(r.Reasons) > 0 {
		quoted := make([]string, len(r.Reasons))
		for i, s := range r.Reasons {
			quoted[i] = "“" + text.InertMarkup(s) + "”"
		}
		why += " (" + strings.Join(quoted, "; ") + ")"
	}
	switch {
	case conceded > 0 && dismissed > 0:
		why += fmt.Sprintf(", gh-ocdx conceded %d more to their replies", conceded)
	case conceded > 0:
		why = "gh-ocdx conceded " + text.Plural(conceded, "such finding") + " to maintainers' replies"
	}
	if refuted > 0 {
		why += fmt.Sprintf(" and the verifier refuted %d more,", refuted)
	}
	why += " on " + text.Plural(len(r.PRs), "pull request")
	l := learnings.Learning{Rule: r}
	if r.Action == learnings.LeaveOut {
		l.Title = "Leave out " + what
		l.Sentence = "Do not raise " + what + ": " + why + "."
	} else {
		l.Title = "Lower " + what + " to " + r.To
		l.Sentence = "Raise " + what + " at most as " + r.To + " suggestions: " + why + "."
	}
	return l
}
