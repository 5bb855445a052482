package loop

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/fix"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/state"
)

// The ledger (docs/architecture.md, The ledger): every report gh-ocdx posts
// ends with the statuses of the PR's findings, and a machine whose state
// file lacks the PR's latest run takes them from there.

// PRLedger is the newest ledger in a report of gh-ocdx's own login on pr
// (its reviews and the conversation's last comments) and the report's URL.
// A ledger that cannot be read is skipped, and said in warnings.
func PRLedger(pr *github.PullRequest) (l finding.Ledger, url string, warnings []string, ok bool) {
	type report struct{ at, body, url string }
	var reports []report
	for _, r := range pr.Reviews {
		if Own(pr, r.Body, r.Author) {
			reports = append(reports, report{r.SubmittedAt, r.Body, r.URL})
		}
	}
	for _, c := range pr.Comments {
		if Own(pr, c.Body, c.Author) {
			reports = append(reports, report{c.Created, c.Body, c.URL})
		}
	}
	// Newest first; GitHub lists each kind oldest first, so among equal
	// times the later one is the newer.
	slices.Reverse(reports)
	slices.SortStableFunc(reports, func(a, b report) int { return -cmp.Compare(a.at, b.at) })
	for _, r := range reports {
		got, err := finding.ParseLedger(r.body)
		switch {
		case err == finding.ErrNoLedger:
			continue
		case err != nil:
			warnings = append(warnings, fmt.Sprintf("ignored the ledger of %s: %v", r.url, err))
			continue
		}
		return got, r.url, warnings, true
	}
	return finding.Ledger{}, "", warnings, false
}

// dismissCommand starts a comment that tells gh-ocdx to stop raising
// findings on the PR: on the thread of a finding, that one; in the
// conversation, the IDs that follow (gh ocdx dismiss posts such a comment).
const dismissCommand = "/ocdx dismiss"

// canDismiss are the associations of people who may dismiss a finding:
// those who could merge the PR's code anyway.
var canDismiss = []string{"OWNER", "MEMBER", "COLLABORATOR"}

// Dismissed lists the findings dismissed on pr: those the ledger led
// (the PR's newest) says were, and those a command on pr dismisses, by
// gh-ocdx's login or by someone with write access (canDismiss): anyone
// else's command is text.
func Dismissed(pr *github.PullRequest, led finding.Ledger) []string {
	ids := slices.Clone(led.With(finding.StatusDismissed))
	add := func(id string) {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	may := func(association, author string) bool {
		return slices.Contains(canDismiss, association) || pr.ByViewer(author)
	}
	for _, th := range OwnThreads(pr) {
		for _, c := range th.Replies {
			if _, ok := DismissCommand(c.Body); ok && may(c.Association, c.Author) {
				add(th.Finding.ID)
			}
		}
	}
	for _, c := range pr.Comments {
		if listed, ok := DismissCommand(c.Body); ok && may(c.Association, c.Author) {
			for _, id := range listed {
				add(id)
			}
		}
	}
	return ids
}

// DismissCommand reads a comment whose first line is /ocdx dismiss, and the
// finding IDs that follow it on that line; what is not an ID is left out.
func DismissCommand(body string) (ids []string, ok bool) {
	first, _, _ := strings.Cut(strings.TrimSpace(body), "\n")
	rest, ok := strings.CutPrefix(strings.TrimSpace(first), dismissCommand)
	if !ok || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return nil, false
	}
	for _, f := range strings.Fields(rest) {
		if finding.ValidLedgerID(f) && !slices.Contains(ids, f) {
			ids = append(ids, f)
		}
	}
	return ids, true
}

// ledger is the PR's ledger as round n of this run leaves it, its fix not
// yet counted: what an earlier run's ledger said, then each round's
// findings (open) and fixes (fixed), the stuck set and the dismissed.
func (l *loop) ledger(n int, head string) finding.Ledger {
	led := finding.Ledger{Run: l.run.ID(), Round: n, Head: head}
	for _, e := range l.seed.Findings {
		led.Set(e.ID, e.Status, e.Sha)
	}
	recorded := l.run.Run().Rounds
	for _, rr := range l.res.Rounds {
		for _, f := range rr.Findings {
			led.Set(f.ID, finding.StatusOpen, "")
		}
		for _, rd := range recorded {
			if rd.N != rr.N {
				continue
			}
			if res, ok := fix.Recorded(rd); ok {
				for _, x := range res.Fixed {
					led.Set(x.FindingID, finding.StatusFixed, x.CommitSha)
				}
			}
		}
	}
	for _, id := range l.stuck {
		led.Set(id, finding.StatusStuck, "")
	}
	for _, id := range l.dismissed {
		led.Set(id, finding.StatusDismissed, "")
	}
	return led
}

// rebuild takes from the PR's newest ledger what the state file lacks: a
// run another machine made (recorded with where it was read) and its stuck
// findings. A ledger is only ever gh-ocdx's own login's (PRLedger), and it
// can only add stuck and dismissed IDs of this PR: nothing it says widens
// what gh-ocdx runs, reads, posts or pushes.
func (l *loop) rebuild() error {
	led, url, warnings, ok := PRLedger(l.o.PR)
	for _, w := range warnings {
		l.progress("%s", w)
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
		l.progress("this machine had no record of run %s: took its round %d, %d stuck and %d dismissed finding(s) from %s",
			led.Run, led.Round, len(led.With(finding.StatusStuck)), len(led.With(finding.StatusDismissed)), url)
	}
	return nil
}

// dismiss sets the findings people dismissed, as pr shows them now.
func (l *loop) dismiss(pr *github.PullRequest) { l.dismissed = Dismissed(pr, l.seed) }

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
