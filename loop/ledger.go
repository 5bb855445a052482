package loop

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/ledger"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/state"
)

// ledger is the PR's ledger as round n of this run leaves it at head
// (package ledger).
func (l *loop) ledger(n int, head string) posts.Ledger {
	return ledger.Of(ledger.Run{ID: l.run.ID(), Converged: l.converged && head == l.headOf(n), Seed: l.seed, Rounds: l.res.Rounds,
		Recorded: l.run.Run().Rounds, Stuck: l.stuck, Disputed: l.conceded, Dismissals: l.dismissals, Restores: l.restores}, n, head)
}

// rebuild takes from the PR's newest ledger what the state file lacks: a
// run another machine made (recorded with where it was read) and its stuck
// findings. A ledger is only ever a trusted login's (posts.Trust.Ledger), and it
// can only add stuck and dismissed IDs of this PR: nothing it says widens
// what gh-ocdx runs, reads, posts or pushes.
func (l *loop) rebuild(ctx context.Context) error {
	led, url, warnings, ok := l.trust.Ledger(ctx, l.o.PR)
	for _, w := range warnings {
		l.progress("! %s", w)
	}
	if !ok {
		return nil
	}
	l.seed = led
	adopted, err := l.o.Store.Adopt(l.key, state.Adoption{RunID: led.Run, Kind: cmp.Or(led.Kind, Kind), Round: led.Round, Head: led.Head,
		Stuck: led.With(finding.StatusStuck), Source: "from PR comment " + url})
	if err != nil {
		return err
	}
	if adopted {
		l.progress("this machine had no record of run %s: took its round %d, %d stuck and %d dismissed findings from %s",
			led.Run, led.Round, len(led.With(finding.StatusStuck)), len(led.With(finding.StatusDismissed)), url)
	}
	return nil
}

// judge sets whose posts on pr count as gh-ocdx's own (posts.Trust.Judge).
func (l *loop) judge(ctx context.Context, pr *github.PullRequest) {
	for _, w := range l.trust.Judge(ctx, pr) {
		l.progress("! %s", w)
	}
}

// dismiss sets the findings people dismissed, as pr shows them now, and,
// when answer is set, answers each refused /ocdx dismiss once.
func (l *loop) dismiss(ctx context.Context, pr *github.PullRequest, answer bool) error {
	ds, refused, warnings := l.trust.Dismissals(ctx, pr, l.seed)
	for _, w := range warnings {
		l.progress("! %s", w)
	}
	l.dismissals = ds
	l.conceded = posts.Concessions(pr)
	l.disputed = posts.IDs(l.conceded)
	// Conceded since it got stuck: disputed now, and only that.
	l.stuck = slices.DeleteFunc(l.stuck, func(id string) bool { return slices.Contains(l.disputed, id) })
	for _, r := range refused {
		if err := l.refusal(ctx, pr, r, "/ocdx "+posts.CmdDismiss, "gh-ocdx still counts and fixes what it names.", answer); err != nil {
			return err
		}
	}
	return nil
}

// threads are pr's thread findings and their counts: a resolution counts
// by posts.Trust.Resolution, and a thread dismissed on the PR (l.dismiss) is no
// longer unresolved: it no longer blocks, and the report lists it as
// dismissed.
func (l *loop) threads(ctx context.Context, pr *github.PullRequest) ([]finding.Finding, finding.ThreadStats) {
	fs, st := consensus.ThreadFindings(pr, l.trust.Resolution(ctx, pr))
	dismissed := posts.IDs(l.dismissals)
	for _, f := range fs {
		if slices.Contains(dismissed, f.ID) {
			st.Unresolved--
		}
	}
	return fs, st
}

// refusal says that the command r does not count, and when answer is set
// answers it in the conversation: once, whichever verb sees it first. A
// command answered on the PR already (by gh ocdx command or an earlier
// run) is not said again, nor is one said earlier in this run
// (docs/architecture.md, Commands).
func (l *loop) refusal(ctx context.Context, pr *github.PullRequest, r posts.Refusal, command, still string, answer bool) error {
	if posts.CommandAnswered(pr, pr.Comments, r.ID, r.URL) {
		return nil
	}
	if key := r.Tag(); !slices.Contains(l.refusalsSaid, key) {
		l.refusalsSaid = append(l.refusalsSaid, key)
		l.progress("! not honoured: the %s of %s (%s): %s", command, r.By, r.URL, r.Why)
	}
	if !answer {
		return nil
	}
	// The answer is a courtesy: a failed one is said, and tried again
	// next round (its tag tells whether it arrived after all).
	if err := l.answerRefusal(ctx, pr, r, command, still); ctx.Err() != nil {
		return ctx.Err()
	} else if err != nil {
		l.progress("answering the %s of %s failed: %v", command, r.By, err)
	}
	return nil
}

// answerRefusal answers, in the conversation, a command that does not
// count, unless a post that arrived after pr was read answers it.
func (l *loop) answerRefusal(ctx context.Context, pr *github.PullRequest, r posts.Refusal, command, still string) error {
	cs, err := l.o.GitHub.Comments(ctx, l.o.Repo, pr.Number)
	if err != nil {
		return err
	}
	if posts.CommandAnswered(pr, cs, r.ID, r.URL) {
		return nil
	}
	tags := r.Tag()
	if r.ID != "" {
		tags = posts.CommandTag(r.ID) + "\n" + tags
	}
	body := fmt.Sprintf("%s\n%s\n@%s: your [`%s`](%s) of %s does not count: %s. %s",
		posts.Marker, tags, r.By, command, r.URL, codeList(r.IDs), r.Why, still)
	c, err := l.o.GitHub.PostComment(ctx, l.o.Repo, pr.Number, body)
	if err != nil {
		return err
	}
	l.progress("answered the %s of %s: %s", command, r.By, c.URL)
	return nil
}

// codeList is ids as `A`, `B`.
func codeList(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = "`" + id + "`"
	}
	return strings.Join(q, ", ")
}

// dismissedBy maps the findings of fs to who dismissed them, and why
// when they said, where a command or a ledger names them.
func dismissedBy(fs []finding.Finding, ds []posts.Dismissal) (by, why map[string]string) {
	for _, f := range fs {
		for _, d := range ds {
			if d.ID != f.ID || d.By == "" {
				continue
			}
			if by == nil {
				by, why = map[string]string{}, map[string]string{}
			}
			by[f.ID] = d.By
			if d.Reason != "" {
				why[f.ID] = d.Reason
			}
		}
	}
	return by, why
}

// splitDismissed takes the dismissed findings out of fs.
func splitDismissed(fs []finding.Finding, dismissed []string) (kept, out []finding.Finding) {
	kept = []finding.Finding{}
	for _, f := range fs {
		if slices.Contains(dismissed, f.ID) {
			out = append(out, f)
		} else {
			kept = append(kept, f)
		}
	}
	return kept, out
}

// headOf is the head round n reviewed.
func (l *loop) headOf(n int) string {
	for _, rr := range l.res.Rounds {
		if rr.N == n {
			return rr.HeadOID
		}
	}
	return l.o.PR.HeadRefOid
}
