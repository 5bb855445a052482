package loop

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/review"
	"github.com/ocdx/gh-ocdx/state"
)

// Inline review comments (docs/architecture.md, Posting): a round's review
// carries one comment per finding on a line of the diff; the first comment
// of each thread names its finding, so later rounds and runs know it.

// ownThreadOf is the first of threads that is about f (the same ID, or the
// same finding by the stuck rules), or nil.
func ownThreadOf(threads []posts.OwnThread, f finding.Finding) *posts.OwnThread {
	for i := range threads {
		if SameFinding(threads[i].Finding, f) {
			return &threads[i]
		}
	}
	return nil
}

// Inline is what a round's review posts besides its body.
type Inline struct {
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

// InlinePolicy is how much a round may say on the PR's lines
// (docs/architecture.md, Noise budget).
type InlinePolicy struct {
	Priorities []string // the priorities posted on their lines; nil: P0–P2
	Max        int      // inline comments per round; 0: config.DefaultMaxInlineComments
}

// inlinePolicy is the policy in effect: the repository's .ocdx.json (read from
// the base branch) over the user's configuration over the defaults.
func inlinePolicy(o Options) InlinePolicy {
	p := InlinePolicy{Priorities: o.InlinePriorities, Max: o.MaxInlineComments}
	if o.Policy != nil {
		if o.Policy.InlinePriorities != nil {
			p.Priorities = o.Policy.InlinePriorities
		}
		if o.Policy.MaxInlineComments > 0 {
			p.Max = o.Policy.MaxInlineComments
		}
	}
	return p
}

// SelectInline splits the code findings a round could put on their lines
// into those it comments on and those its body lists: a priority of the
// policy, a P3 only when at least two reviewers raised it (a lone model's
// suggestion is the noise people remove bots for), and at most Max of them,
// the most severe first, then the most agreed, then by ID, so that the same
// findings give the same comments on any machine. Threads are neither:
// they are people's, already on their lines; nor are refuted findings,
// which the body shows with the verifier's evidence. Both lists are in
// that order.
func SelectInline(fs []finding.Finding, p InlinePolicy) (inline, body []finding.Finding) {
	budget := p.budget()
	code := slices.DeleteFunc(slices.Clone(fs), func(f finding.Finding) bool { return IsThread(f) || f.Status == finding.StatusRefuted })
	slices.SortStableFunc(code, func(a, b finding.Finding) int {
		return cmp.Or(cmp.Compare(rank(a.Priority), rank(b.Priority)),
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
func (p InlinePolicy) eligible(f finding.Finding) bool {
	priorities := p.Priorities
	if priorities == nil {
		priorities = config.DefaultInlinePriorities()
	}
	return slices.Contains(priorities, f.Priority) && (f.Priority != "P3" || len(f.Reviewers) >= 2)
}

func (p InlinePolicy) budget() int {
	if p.Max <= 0 {
		return config.DefaultMaxInlineComments
	}
	return p.Max
}

// PlanInline chooses the inline comments of a round: the findings
// SelectInline puts on their lines, each once, anchored on the diff
// (lines), unless a thread of gh-ocdx's already carries it. Only
// findings that anchor compete for the budget: one off the diff or
// already in a thread costs no comment. A model's file and line only ever
// anchor on a line the PR's diff shows.
func PlanInline(pr *github.PullRequest, lines github.DiffLines, fs []finding.Finding, p InlinePolicy) Inline {
	in := Inline{Comments: []github.ReviewComment{}, OffDiff: []finding.Finding{}, Open: []Linked{}}
	// A thread someone resolved still carries its finding: a run that
	// posted it, then was killed, and a fresh runner after it, post no
	// second one (docs/architecture.md, Posting).
	threads := posts.OwnThreads(pr)
	seen := map[string]bool{}
	var candidates []finding.Finding
	anchors := map[string]github.ReviewComment{}
	for _, f := range fs {
		if IsThread(f) || f.Status == finding.StatusRefuted || seen[f.ID] {
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
	inline, held := SelectInline(candidates, p)
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
	if a := Agreement(f); a != "" && nowN != wasN {
		fmt.Fprintf(&b, "; raised by %s", a)
	}
	b.WriteString(".")
	return github.ThreadReply{ThreadID: t.ID, Body: b.String(), Open: true}, true
}

// anchor places f on the diff: line..endLine when it gives a range, else
// its line.
func anchor(lines github.DiffLines, f finding.Finding) (github.ReviewComment, bool) {
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
	if side != github.Right {
		f.Replacement = nil // a suggestion replaces lines of the PR's version
	}
	return github.ReviewComment{Path: f.File, Line: end, StartLine: start, Side: side, Body: InlineBody(f)}, true
}

// InlineBody is the comment of one finding: marker, the thread's tag, the
// finding, and its replacement as a suggestion GitHub can commit. It is
// sanitised as the report is; the replacement, which anchor checked
// against the diff, is the only suggestion it carries: the model's words
// cannot add one, nor a tag.
func InlineBody(f finding.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s\n**%s** · %s · `%s`\n\n", posts.Marker, posts.ThreadTag(f), f.Priority, cell(f.Title, 200), f.ID)
	if a := Agreement(f); a != "" {
		fmt.Fprintf(&b, "_Raised by %s._\n\n", a)
	}
	if d := strings.TrimSpace(f.Description); d != "" {
		b.WriteString(prose(d, 2000) + "\n\n")
	}
	if s := strings.TrimSpace(f.Suggestion); s != "" {
		fmt.Fprintf(&b, "_Suggestion:_ %s\n\n", prose(s, 1000))
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
		if t.Resolved || t.Closed || t.ID == "" || slices.ContainsFunc(current, func(f finding.Finding) bool { return SameFinding(t.Finding, f) }) {
			continue
		}
		var say string
		switch e := entryOf(led, t.Finding.ID); e.Status {
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

// postReview posts round n's review once: its report as the body, its
// findings as inline comments (docs/architecture.md, Posting). The tag
// check reads the reviews of the PR as read this round, so it costs no
// request; only a POST whose outcome is unknown reads the PR again.
func (l *loop) postReview(ctx context.Context, n int, pr *github.PullRequest, rr *RoundResult) error {
	tag := posts.RunTag(l.run.ID(), n, "review")
	for _, c := range l.comments(n) {
		if c.Tag == tag {
			return nil
		}
	}
	record := func(url string) error {
		l.posted = true
		return l.run.Complete(n, state.PhaseCommented, func(rd *state.Round) {
			rd.Comments = append(rd.Comments, state.Comment{Kind: "review", Tag: tag, URL: url})
		})
	}
	if url, ok := reviewTagged(pr, tag); ok {
		l.progress("the review report of round %d is already on the PR: %s", n, url)
		return record(url)
	}
	if rr.lines == nil { // a resumed round: its diff was read by the run before
		diff, _, err := l.readDiff(ctx, pr, review.DiffLimit, nil)
		if err != nil {
			return err
		}
		rr.lines = github.ParseDiffLines(string(diff))
	}
	in := PlanInline(pr, rr.lines, rr.Findings, inlinePolicy(l.o))
	rr.Inline = &in
	body := func() string {
		return github.CapBodyWith(redact.ForComment(posts.Marker+"\n"+tag+"\n"+opening(l.o, n)+RenderReview(l.run.ID(), l.o.MaxRounds, rr)),
			"\n"+l.ledger(n, rr.HeadOID).Block())
	}
	posted, err := l.o.GitHub.PostReviewComments(ctx, l.o.Repo, pr.Number, github.CommentOnly, body(), in.Comments)
	if err != nil && github.Unprocessable(err) && len(in.Comments) > 0 {
		// Anchors are checked, so this is GitHub disagreeing about one:
		// the review goes again, its findings in the body only.
		l.progress("GitHub refused the inline comments of round %d (%v): posting the review without them", n, err)
		in.Refused = true
		posted, err = l.o.GitHub.PostReviewComments(ctx, l.o.Repo, pr.Number, github.CommentOnly, body(), nil)
	}
	if err != nil {
		// The POST may have been applied even though it failed: look.
		if again, rerr := l.o.GitHub.PullRequest(ctx, l.o.Repo, pr.Number); rerr == nil {
			if url, ok := reviewTagged(again, tag); ok {
				l.progress("posting the review report failed (%v), but it is on the PR: %s", err, url)
				return record(url)
			}
		}
		return err
	}
	if len(in.Updates) > 0 {
		// Not fatal: the threads still say the old values, so the next
		// round or run replies again.
		if err := l.o.GitHub.ResolveThreads(ctx, l.o.Repo, in.Updates); err != nil {
			l.progress("could not reply in %s whose finding changed: %v", text.Plural(len(in.Updates), "open thread"), err)
		}
	}
	inline := len(in.Comments)
	if in.Refused {
		inline = 0
	}
	l.progress("posted the review report of round %d with %s: %s", n, text.Plural(inline, "inline comment"), posted.URL)
	return record(posted.URL)
}

// reviewTagged finds gh-ocdx's own review carrying tag on pr.
func reviewTagged(pr *github.PullRequest, tag string) (string, bool) {
	for _, r := range pr.Reviews {
		if strings.Contains(r.Body, tag) && pr.Trusts(r.Author) {
			return r.URL, true
		}
	}
	return "", false
}

// resolveFixed replies on gh-ocdx's threads of the findings round n's
// review leaves fixed or resolved (Resolutions) and resolves them, in one
// request, only after a round every reviewer answered. A failure is
// reported, not fatal: the threads stay open and the next round or run
// tries again.
func (l *loop) resolveFixed(ctx context.Context, n int, pr *github.PullRequest, rr *RoundResult) {
	if rr.reviewersOK == 0 || len(failedReviewers(rr)) > 0 {
		return // a reviewer that failed said nothing: silence is no proof of a fix
	}
	replies := Resolutions(pr, l.ledger(n, rr.HeadOID), rr.Findings, rr.HeadOID)
	if len(replies) == 0 {
		return
	}
	if err := l.o.GitHub.ResolveThreads(ctx, l.o.Repo, replies); err != nil {
		l.progress("could not resolve %s: %v", text.Plural(len(replies), "thread"), err)
		return
	}
	l.progress("resolved %s of fixed or resolved findings", text.Plural(len(replies), "thread"))
}

// opening is what opens round n's report: o.Opening for round 1, set
// apart from the review below it.
func opening(o Options, n int) string {
	if n != 1 || o.Opening == "" {
		return ""
	}
	return o.Opening + "\n---\n\n"
}
