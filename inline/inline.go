// Package inline chooses a round's inline review comments
// (docs/architecture.md, Posting; Noise budget): which findings go on their
// lines, within the round's budget, anchored only on lines the PR's diff
// shows; the comment of each, whose first lines name its finding so later
// rounds and runs know the thread; the replies in gh-ocdx's threads whose
// finding changed, and those that close a thread whose finding is fixed.
package inline

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/posts"
)

// ownThreadOf is the first of threads that is about f (the same ID, or the
// same finding by the stuck rules), or nil.
func ownThreadOf(threads []posts.OwnThread, f finding.Finding) *posts.OwnThread {
	for i := range threads {
		if consensus.SameFinding(threads[i].Finding, f) {
			return &threads[i]
		}
	}
	return nil
}

// Plan is what a round's review posts besides its body.
type Plan struct {
	Comments []github.ReviewComment `json:"comments"`
	// Posted are the findings of Comments, in their order: the body lists
	// each in one line (docs/architecture.md, The review body).
	Posted  []finding.Finding `json:"-"`
	OffDiff []finding.Finding `json:"offDiff"` // not on a changed line: written out in the body
	// Held are findings on a changed line not posted there: over the
	// round's budget, a priority not in inlinePriorities, or a P3 only one
	// reviewer raised. The body writes them out.
	Held []finding.Finding `json:"held,omitempty"`
	// OverBudget of Held would have been posted but for the round's
	// budget of Budget inline comments.
	OverBudget int      `json:"overBudget,omitempty"`
	Budget     int      `json:"budget,omitempty"`
	Open       []Linked `json:"open"` // already in a thread of gh-ocdx's, open or resolved: linked, not posted again
	// Updates are replies in those threads whose finding changed since
	// the thread last said (a priority, more reviewers agreeing).
	Updates []github.ThreadReply `json:"updates,omitempty"`
	Refused bool                 `json:"refused"` // GitHub refused the comments; the body lists them
}

// Linked is a finding and the thread of gh-ocdx's that already carries it.
type Linked struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

// Policy is how much a round may say on the PR's lines
// (docs/architecture.md, Noise budget).
type Policy struct {
	Priorities []string // the priorities posted on their lines; nil: P0–P2
	Max        int      // inline comments per round; 0: config.DefaultMaxInlineComments
}

// Select splits the code findings a round could put on their lines
// into those it comments on and those its body lists: a priority of the
// policy, a P3 only when at least two reviewers raised it (a lone model's
// suggestion is the noise people remove bots for), and at most Max of them,
// the most severe first, then the most agreed, then by ID, so that the same
// findings give the same comments on any machine. Threads are neither:
// they are people's, already on their lines; nor are refuted findings,
// which the body shows with the verifier's evidence. Both lists are in
// that order.
func Select(fs []finding.Finding, p Policy) (inline, body []finding.Finding) {
	budget := p.budget()
	code := slices.DeleteFunc(slices.Clone(fs), func(f finding.Finding) bool { return consensus.IsThread(f) || f.Status == finding.StatusRefuted })
	slices.SortStableFunc(code, func(a, b finding.Finding) int {
		return cmp.Or(cmp.Compare(consensus.Rank(a.Priority), consensus.Rank(b.Priority)),
			cmp.Compare(len(b.Reviewers), len(a.Reviewers)), cmp.Compare(a.ID, b.ID))
	})
	for _, f := range code {
		if p.eligible(f) && len(inline) < budget {
			inline = append(inline, f)
		} else {
			body = append(body, f)
		}
	}
	return inline, body
}

// eligible reports whether the policy lets f on its line, budget aside.
func (p Policy) eligible(f finding.Finding) bool {
	priorities := p.Priorities
	if priorities == nil {
		priorities = config.DefaultInlinePriorities()
	}
	return slices.Contains(priorities, f.Priority) && (f.Priority != "P3" || len(f.Reviewers) >= 2)
}

func (p Policy) budget() int {
	if p.Max <= 0 {
		return config.DefaultMaxInlineComments
	}
	return p.Max
}

// Choose chooses the inline comments of a round: the findings
// Select puts on their lines, each once, anchored on the diff
// (lines), unless a thread of gh-ocdx's already carries it. Only
// findings that anchor compete for the budget: one off the diff or
// already in a thread costs no comment. A model's file and line only ever
// anchor on a line the PR's diff shows.
func Choose(pr *github.PullRequest, lines diff.Lines, fs []finding.Finding, p Policy) Plan {
	in := Plan{Comments: []github.ReviewComment{}, OffDiff: []finding.Finding{}, Open: []Linked{}}
	// A thread someone resolved still carries its finding: a run that
	// posted it, then was killed, and a fresh runner after it, post no
	// second one (docs/architecture.md, Posting).
	threads := posts.OwnThreads(pr)
	seen := map[string]bool{}
	var candidates []finding.Finding
	anchors := map[string]github.ReviewComment{}
	for _, f := range fs {
		if consensus.IsThread(f) || f.Status == finding.StatusRefuted || seen[f.ID] {
			continue
		}
		seen[f.ID] = true
		if t := ownThreadOf(threads, f); t != nil {
			in.Open = append(in.Open, Linked{ID: f.ID, URL: t.URL})
			if r, ok := update(*t, f); ok && !t.Resolved {
				in.Updates = append(in.Updates, r)
			}
			continue
		}
		c, ok := anchor(lines, f)
		if !ok {
			in.OffDiff = append(in.OffDiff, f)
			continue
		}
		anchors[f.ID] = c
		candidates = append(candidates, f)
	}
	inline, held := Select(candidates, p)
	for _, f := range inline {
		in.Comments = append(in.Comments, anchors[f.ID])
	}
	in.Posted, in.Held, in.Budget = inline, held, p.budget()
	for _, f := range held {
		if p.eligible(f) {
			in.OverBudget++
		}
	}
	return in
}

// update is the reply in t when its finding f changed since the thread last
// said: another priority, or more reviewers raising it. Fewer is no news
// (a reviewer may have failed this round), and a thread that never said
// gets none.
func update(t posts.OwnThread, f finding.Finding) (github.ThreadReply, bool) {
	if t.ID == "" || t.Priority == "" {
		return github.ThreadReply{}, false
	}
	was, _, _ := strings.Cut(t.Agreement, "/")
	now, _, _ := strings.Cut(f.Agreement, "/")
	wasN, _ := strconv.Atoi(was)
	nowN, _ := strconv.Atoi(now)
	if f.Priority == t.Priority && nowN <= wasN {
		return github.ThreadReply{}, false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s\nStill raised", posts.Marker, posts.UpdateTag(f))
	if f.Priority != t.Priority {
		fmt.Fprintf(&b, ", now **%s** (was %s)", f.Priority, t.Priority)
	}
	if a := consensus.Agreement(f); a != "" && nowN != wasN {
		fmt.Fprintf(&b, "; raised by %s", a)
	}
	b.WriteString(".")
	return github.ThreadReply{ThreadID: t.ID, Body: b.String(), Open: true}, true
}

// anchor places f on the diff: line..endLine when it gives a range, else
// its line.
func anchor(lines diff.Lines, f finding.Finding) (github.ReviewComment, bool) {
	if f.Line == nil || *f.Line <= 0 {
		return github.ReviewComment{}, false
	}
	start, end := 0, *f.Line
	if f.EndLine != nil && *f.EndLine > end {
		start, end = end, *f.EndLine
	}
	side, ok := lines.Anchor(f.File, start, end, f.Side)
	if !ok && start > 0 {
		// The range leaves the diff: the first line alone, without the
		// replacement, which was written for the whole range.
		start, end = 0, *f.Line
		f.Replacement = nil
		side, ok = lines.Anchor(f.File, 0, end, f.Side)
	}
	if !ok {
		return github.ReviewComment{}, false
	}
	if side != diff.Right {
		f.Replacement = nil // a suggestion replaces lines of the PR's version
	}
	return github.ReviewComment{Path: f.File, Line: end, StartLine: start, Side: side, Body: Body(f)}, true
}

// Body is the comment of one finding: marker, the thread's tag, the
// finding, and its replacement as a suggestion GitHub can commit. It is
// sanitised as the report is; the replacement, which anchor checked
// against the diff, is the only suggestion it carries: the model's words
// cannot add one, nor a tag.
func Body(f finding.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s\n**%s** · %s · `%s`\n\n", posts.Marker, posts.ThreadTag(f), f.Priority, text.Cell(f.Title, 200), f.ID)
	if a := consensus.Agreement(f); a != "" {
		fmt.Fprintf(&b, "_Raised by %s._\n\n", a)
	}
	if d := strings.TrimSpace(f.Description); d != "" {
		b.WriteString(text.Prose(d, 2000) + "\n\n")
	}
	if s := strings.TrimSpace(f.Suggestion); s != "" {
		fmt.Fprintf(&b, "_Suggestion:_ %s\n\n", text.Prose(s, 1000))
	}
	if f.Replacement != nil && !posts.CarriesMarkup(*f.Replacement) {
		b.WriteString(finding.SuggestionBlock(*f.Replacement) + "\n")
	}
	return redact.ForComment(strings.TrimRight(b.String(), "\n"))
}

// Resolutions are the replies and resolutions for gh-ocdx's open threads
// whose findings led, the ledger as a review at head leaves it, says are
// fixed or resolved and that this review (current) no longer raises: a fix
// of any earlier round or run, read from the ledger, so that a thread a
// round with a failed reviewer left open is closed by the next review that
// approves the fix, on any machine. A thread is closed once: one a person
// opened again after gh-ocdx closed it is theirs.
func Resolutions(pr *github.PullRequest, led posts.Ledger, current []finding.Finding, head string) []github.ThreadReply {
	var out []github.ThreadReply
	for _, t := range posts.OwnThreads(pr) {
		if t.Resolved || t.Closed || t.ID == "" || slices.ContainsFunc(current, func(f finding.Finding) bool { return consensus.SameFinding(t.Finding, f) }) {
			continue
		}
		var say string
		switch e := led.Entry(t.Finding.ID); e.Status {
		case finding.StatusFixed:
			say = "Fixed in " + cmp.Or(e.Sha, head) + "."
		case finding.StatusResolved:
			say = "Resolved: the review of " + text.ShortOID(head) + " no longer raises it."
		default:
			continue
		}
		out = append(out, github.ThreadReply{ThreadID: t.ID, Body: posts.Marker + "\n" + posts.FixedTag(t.Finding.ID) + "\n" + say})
	}
	return out
}
