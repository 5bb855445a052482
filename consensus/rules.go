package consensus

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/secretscan"
)

// Consensus values (docs/architecture.md, Consensus).
const (
	Approve        = "approve"
	RequestChanges = "request_changes"
	NeedsMajorWork = "needs_major_work"
)

// ThreadCategory is the category of a finding made from a review thread.
const ThreadCategory = "review-thread"

// maintainers are the associations whose requested changes decide the
// consensus (docs/architecture.md, Consensus) and whose "must" makes a
// thread P0.
var maintainers = []string{"OWNER", "MEMBER", "COLLABORATOR"}

// ReviewStateOf computes the consensus's review state from the PR's reviews: the latest
// decisive review of each author counts (a later COMMENTED review does not
// withdraw a change request, a later APPROVED or DISMISSED one does), and
// changes requested by an OWNER, MEMBER or COLLABORATOR block. Reviews
// carrying the marker are gh-ocdx's own (review-pr's): they are no person's
// change request, and they withdraw none. Reviews are in submission order,
// as GitHub lists them.
func ReviewStateOf(pr *github.PullRequest) finding.ReviewState {
	latest := map[string]github.Review{}
	var order []string
	for _, r := range pr.Reviews {
		// gh-ocdx's own reviews (review-pr's) are no one's change request
		// and withdraw none.
		if posts.Own(pr, r.Body, r.Author) {
			continue
		}
		switch r.State {
		case "APPROVED", "CHANGES_REQUESTED", "DISMISSED":
		default:
			continue
		}
		key := r.Author
		if key == "" {
			key = "(ghost)"
		}
		if _, seen := latest[key]; !seen {
			order = append(order, key)
		}
		if prev, ok := latest[key]; !ok || prev.SubmittedAt <= r.SubmittedAt {
			latest[key] = r
		}
	}
	st := finding.ReviewState{ChangesRequestedBy: []finding.Actor{}}
	for _, login := range order {
		r := latest[login]
		if r.State == "CHANGES_REQUESTED" && slices.Contains(maintainers, r.Association) {
			st.HasChangesRequested = true
			st.ChangesRequestedBy = append(st.ChangesRequestedBy, finding.Actor{Login: login, Association: r.Association})
		}
	}
	return st
}

// blocking finds the words that make a maintainer's thread P0.
var blocking = regexp.MustCompile(`(?i)\b(must|block\w*)\b`)

// MaxThreadExcerpt bounds the comment text a thread finding quotes.
const MaxThreadExcerpt = 200

// ThreadFindings maps review threads to findings:
// gh-ocdx's own comments (the marker, posted by pr's viewer) are ignored (a
// thread that gh-ocdx opened is not counted), and each thread left
// unresolved, or resolved by someone resolved does not count, becomes
// THREAD-<id of its first comment>, P0 when a maintainer's first comment
// says "must" or "block", else P1.
func ThreadFindings(pr *github.PullRequest, resolved func(th github.ReviewThread, first github.ThreadComment) (counts bool, why string)) ([]finding.Finding, finding.ThreadStats) {
	var out []finding.Finding
	var st finding.ThreadStats
	for _, th := range pr.Threads {
		// gh-ocdx's own threads (its findings) are never a person's: their
		// replies go to the reviewers instead (docs/architecture.md, Posting).
		if len(th.Comments) > 0 && posts.Own(pr, th.Comments[0].Body, th.Comments[0].Author) {
			continue
		}
		var human []github.ThreadComment
		for _, c := range th.Comments {
			if !posts.Own(pr, c.Body, c.Author) {
				human = append(human, c)
			}
		}
		if len(human) == 0 {
			continue
		}
		st.Total++
		first := human[0]
		title := "Unresolved review thread"
		if th.IsResolved {
			counts, why := resolved(th, first)
			if counts {
				st.Resolved++
				continue
			}
			// Resolving is a dismissal by another route: by someone who
			// could not dismiss it, the thread still blocks. The title
			// says so (the analyzer may reword the description).
			title = fmt.Sprintf("Review thread resolved by %s, which does not count (%s)", cmp.Or(th.ResolvedBy, "an account GitHub does not name"), why)
		}
		st.Unresolved++
		prio := "P1"
		if slices.Contains(maintainers, first.Association) && blocking.MatchString(first.Body) {
			prio = "P0"
		}
		path := first.Path
		if path == "" {
			path = th.Path
		}
		if path == "" {
			path = "(no-path)"
		}
		line := first.Line
		if line == nil {
			line = th.Line
		}
		id := first.ID
		out = append(out, finding.Finding{
			ID: posts.ThreadID(first), Priority: prio, Category: ThreadCategory, File: path, Line: line,
			Title:       title,
			Description: redact.ForComment(text.Excerpt(first.Body, MaxThreadExcerpt)),
			Source:      &finding.Source{Type: "human", Name: first.Author, ReviewID: &id, Timestamp: first.CreatedAt},
		})
	}
	return out, st
}

// IsThread reports whether f came from a human review thread.
func IsThread(f finding.Finding) bool { return strings.HasPrefix(f.ID, "THREAD-") }

// Count counts findings per priority.
func Count(fs []finding.Finding) finding.Counts {
	var c finding.Counts
	for _, f := range fs {
		switch f.Priority {
		case "P0":
			c.P0++
		case "P1":
			c.P1++
		case "P2":
			c.P2++
		case "P3":
			c.P3++
		}
	}
	return c
}

// Of applies the consensus rules (docs/architecture.md, Consensus)
// to all findings (no dedupe) and the
// computed review state.
func Of(st finding.ReviewState, c finding.Counts) string {
	switch {
	case st.HasChangesRequested:
		return RequestChanges
	case c.P0 > 0:
		return NeedsMajorWork
	case c.P1 > 0, c.P2 > 0:
		return RequestChanges
	default:
		return Approve
	}
}

// Blocking reports whether f must be fixed before the loop converges.
func Blocking(f finding.Finding) bool {
	return f.Priority == "P0" || f.Priority == "P1" || f.Priority == "P2"
}

// nearLines is how far a finding may move and still be the same one, and
// sameTitle how much of their words two titles must share: the fuzzy
// match only decides where no reviewer gave a verdict, and a loose one
// keeps new problems ("nil check on user" after "nil check on config")
// from ever being fixed.
const (
	nearLines = 3
	sameTitle = 0.8
)

// SameFinding reports whether cur is prev reported again: same ID, or the
// same category and file, a nearby line and a similar title (a fix shifts
// lines, and models reword titles).
func SameFinding(prev, cur finding.Finding) bool {
	if prev.ID != "" && prev.ID == cur.ID {
		return true
	}
	return sameCategory(prev, cur) && SameProblem(prev, cur)
}

// sameCategory compares categories, or, where one is not known (a finding
// a ledger located, which records no category), the category code their
// IDs start with: a fix another verb or machine pushed is located so.
func sameCategory(a, b finding.Finding) bool {
	ca, cb := strings.TrimSpace(a.Category), strings.TrimSpace(b.Category)
	if ca != "" && cb != "" {
		return strings.EqualFold(ca, cb)
	}
	pa, _, okA := strings.Cut(a.ID, "-")
	pb, _, okB := strings.Cut(b.ID, "-")
	return okA && okB && pa == pb
}

// SimilarTitles compares titles by their words: equal ignoring case and
// punctuation, or sharing at least 80% of their distinct words.
func SimilarTitles(a, b string) bool {
	wa, wb := words(a), words(b)
	if len(wa) == 0 || len(wb) == 0 {
		return len(wa) == len(wb)
	}
	common := 0
	for w := range wa {
		if wb[w] {
			common++
		}
	}
	union := len(wa) + len(wb) - common
	return float64(common)/float64(union) >= sameTitle
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out[w] = true
	}
	return out
}

// Verdicts are the reviewers' verdicts on the previous round's findings:
// for each ID, how many said it is still present and how many resolved.
type Verdicts map[string]struct{ Still, Resolved int }

// VerdictsOf counts the verdicts of results on the IDs of prev; any other
// ID or verdict a model sends is left out, and a reviewer counts once per
// ID (its first verdict).
func VerdictsOf(prev []finding.Finding, results []*finding.ReviewerResult) Verdicts {
	v := Verdicts{}
	for _, r := range results {
		if r == nil {
			continue
		}
		seen := map[string]bool{}
		for _, x := range r.Previous {
			if seen[x.ID] || !slices.ContainsFunc(prev, func(f finding.Finding) bool { return f.ID == x.ID }) {
				continue
			}
			c := v[x.ID]
			switch x.Verdict {
			case finding.StillPresent:
				c.Still++
			case finding.Resolved:
				c.Resolved++
			default:
				continue
			}
			seen[x.ID] = true
			v[x.ID] = c
		}
	}
	return v
}

// Stuck returns the IDs of the findings reported fixed in the previous
// round (fixed) that are back: a reviewer marks it still_present, or a
// current finding has its ID; and, only for a fixed finding no reviewer
// gave a verdict on, a current finding that is the same by SameFinding.
func Stuck(fixed, current []finding.Finding, verdicts Verdicts) []string {
	var out []string
	add := func(id string) {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	for _, p := range fixed {
		v, judged := verdicts[p.ID]
		if v.Still > 0 {
			add(p.ID)
		}
		for _, c := range current {
			if IsThread(c) {
				continue
			}
			if c.ID == p.ID || !judged && SameFinding(p, c) {
				add(c.ID)
			}
		}
	}
	return out
}

// IssuesToFix splits the findings for the fix payload: P0–P2
// code findings that are not stuck, most severe first, and the P3 ones as
// optional. Thread findings are never sent: humans resolve them, nor are
// refuted ones (a recorded round keeps them, for its report).
//
// Each ID is sent once, as the fix agent must account for each exactly
// once: when several reviewers raise one ID (the same model configured
// twice, a reviewer repeating itself) the copy with the highest priority
// is kept, and among equals the first reported.
func IssuesToFix(fs []finding.Finding, stuck []string) (toFix, optional []finding.Finding) {
	seen := map[string]bool{}
	for _, p := range finding.Priorities {
		for _, f := range fs {
			if f.Priority != p || IsThread(f) || secretscan.NeedsRewrite(f) || f.Status == finding.StatusRefuted || slices.Contains(stuck, f.ID) || seen[f.ID] {
				continue
			}
			seen[f.ID] = true
			if p == "P3" {
				optional = append(optional, f)
			} else {
				toFix = append(toFix, f)
			}
		}
	}
	return toFix, optional
}
