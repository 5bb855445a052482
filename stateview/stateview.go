// Package stateview shows what gh-ocdx remembers (gh ocdx state show):
// the state file's pull requests as a table, and one pull request's runs,
// rounds, stuck findings, work in progress and lease as Markdown.
package stateview

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/fix"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/state"
	"github.com/ocdx/gh-ocdx/verify"
)

// Describe says in a few words what is recorded of a pull request.
func Describe(pr state.PR) string {
	s := text.Plural(len(pr.Runs), "run") + ", " + text.Plural(len(pr.Stuck), "stuck finding")
	if pr.WIP != nil {
		s += ", work in progress"
	}
	return s
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// status is a run's outcome, or what became of a run that has none.
func status(st *state.Store, r state.Run, lease *state.Lease) string {
	switch {
	case r.Outcome != "":
		return string(r.Outcome)
	case lease != nil && lease.RunID == r.ID && st.Live(*lease):
		return "running"
	default:
		return "interrupted"
	}
}

func leaseText(st *state.Store, l *state.Lease) string {
	if l == nil {
		return "-"
	}
	s := fmt.Sprintf("pid %d on %s", l.PID, l.Host)
	if !st.Live(*l) {
		s += " (dead)"
	}
	return s
}

// List writes the table of PRs, newest first, its columns aligned as
// text/tabwriter would with a padding of 2. The table is built by hand:
// tabwriter took most of state show's time at 10,000 PRs.
func List(w io.Writer, st *state.Store, list []state.Summary) {
	// Newest first, as gh lists: by the last run's start, those never run
	// last. The rows are sorted by reference: a Summary is large to move.
	order := make([]*state.Summary, len(list))
	for i := range list {
		order[i] = &list[i]
	}
	slices.SortStableFunc(order, func(a, b *state.Summary) int {
		var ta, tb time.Time
		if a.Last != nil {
			ta = a.Last.Started
		}
		if b.Last != nil {
			tb = b.Last.Started
		}
		return tb.Compare(ta)
	})
	const cols = 8
	rows := make([][cols]string, 0, len(list)+1)
	rows = append(rows, [cols]string{"PR", "RUNS", "LAST RUN", "STATUS", "ROUNDS", "STUCK", "WIP", "LEASE"})
	for _, s := range order {
		last, stat := "-", "-"
		if s.Last != nil {
			last, stat = stamp(s.Last.Started), status(st, *s.Last, s.Lease)
		}
		wip := s.WIP
		if wip == "" {
			wip = "-"
		}
		rows = append(rows, [cols]string{s.Key.String(), strconv.Itoa(s.Runs), last, stat, strconv.Itoa(s.Rounds), strconv.Itoa(s.Stuck), wip, leaseText(st, s.Lease)})
	}
	var width [cols - 1]int // the last column is not padded
	for _, r := range rows {
		for c := range width {
			width[c] = max(width[c], utf8.RuneCountInString(r[c]))
		}
	}
	// One write for the whole table (write syscalls were a third of state
	// show when every cell went out on its own).
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	for _, r := range rows {
		for c := range width {
			bw.WriteString(r[c])
			for range width[c] - utf8.RuneCountInString(r[c]) + 2 {
				bw.WriteByte(' ')
			}
		}
		bw.WriteString(r[cols-1])
		bw.WriteByte('\n')
	}
}

// PR writes one PR's record as Markdown.
func PR(w io.Writer, st *state.Store, pr state.PR) {
	fmt.Fprintf(w, "# %s\n\n", pr.Key)
	if pr.Lease != nil {
		verb := "Held by"
		if !st.Live(*pr.Lease) {
			verb = "Lease of a dead or stale run (the next run takes it over):"
		}
		fmt.Fprintf(w, "%s %s.\n\n", verb, pr.Lease)
	} else {
		fmt.Fprintf(w, "No run is working on it.\n\n")
	}

	fmt.Fprintf(w, "## Stuck findings (%d)\n\n", len(pr.Stuck))
	for _, s := range pr.Stuck {
		fmt.Fprintf(w, "- %s (since run %s, round %d)\n", s.ID, s.RunID, s.Round)
	}
	if len(pr.Stuck) == 0 {
		fmt.Fprintln(w, "None.")
	}
	if len(pr.Disputed) > 0 {
		fmt.Fprintf(w, "\n## Disputed findings (%d)\n\n", len(pr.Disputed))
		for _, x := range pr.Disputed {
			fmt.Fprintf(w, "- %s (conceded in a conversation, %s; it blocks until someone dismisses it)\n", x.ID, stamp(x.Since))
		}
	}
	if len(pr.Dismissed) > 0 {
		fmt.Fprintf(w, "\n## Dismissed for the local review (%d)\n\n", len(pr.Dismissed))
		for _, x := range pr.Dismissed {
			fmt.Fprintf(w, "- %s (by %s, %s)\n", x.ID, cmp.Or(x.By, "-"), stamp(x.At))
		}
	}

	if x := pr.WIP; x != nil {
		fmt.Fprintf(w, "\n## Work in progress\n\n")
		item(w, "Phase", x.Phase)
		item(w, "Next step", x.NextStep)
		item(w, "Context", x.Context)
		item(w, "Files modified", strings.Join(x.FilesModified, ", "))
		if x.UncommittedChanges {
			item(w, "Uncommitted changes", "yes")
		}
		item(w, "Last commit", text.ShortOID(x.LastCommit))
		item(w, "Verification", verifications(x.Verification))
		for _, e := range x.Errors {
			item(w, "Error", strings.TrimSpace(strings.Join([]string{e.Type, e.File, e.Message}, " ")))
		}
		for _, dec := range x.Decisions {
			item(w, "Decision", strings.TrimSuffix(dec.Decision+" — "+dec.Reason, " — "))
		}
		item(w, "Updated", stamp(x.Updated)+" by run "+x.RunID)
	}

	fmt.Fprintf(w, "\n## Runs (%d), newest first\n", len(pr.Runs))
	for _, r := range slices.Backward(pr.Runs) {
		fmt.Fprintf(w, "\n### Run %s: %s, %s\n\n", r.ID, r.Kind, status(st, r, pr.Lease))
		fmt.Fprintf(w, "Started %s", stamp(r.Started))
		if !r.Ended.IsZero() {
			fmt.Fprintf(w, ", ended %s", stamp(r.Ended))
		}
		if r.Resumes > 0 {
			fmt.Fprintf(w, ", resumed %s", text.Plural(r.Resumes, "time"))
		}
		if r.Reason != "" {
			fmt.Fprintf(w, ": %s", r.Reason)
		}
		fmt.Fprintln(w, ".")
		if r.Source != "" {
			fmt.Fprintf(w, "Recorded on another machine; rebuilt %s.\n", text.Inert(r.Source))
		} else {
			fmt.Fprintln(w, "Recorded on this machine (local).")
		}
		if r.Compacted {
			fmt.Fprintln(w, "Full reports dropped after convergence; summaries kept.")
		}
		for _, rd := range r.Rounds {
			renderRound(w, rd)
		}
	}
}

func renderRound(w io.Writer, rd state.Round) {
	var phases []string
	for _, p := range rd.Phases {
		phases = append(phases, string(p.Phase))
	}
	done := strings.Join(phases, ", ")
	if done == "" {
		done = "nothing done yet"
	}
	fmt.Fprintf(w, "\n- Round %d, head %s: %s\n", rd.N, short(rd.HeadOID), done)
	sub := func(label, v string) {
		if v != "" {
			fmt.Fprintf(w, "  - %s: %s\n", label, v)
		}
	}
	sub("Consensus", rd.Consensus)
	if len(rd.FindingIDs) > 0 || rd.Counts != (finding.Counts{}) {
		sub("Findings", fmt.Sprintf("%d %s", len(rd.FindingIDs), counts(rd.Counts)))
	}
	for _, f := range rd.Findings { // each with who raised it (gone after decay)
		what := f.Priority + " " + text.Inert(text.OneLine(f.Title))
		if a := consensus.Agreement(f); a != "" {
			what += " · " + a
		}
		fmt.Fprintf(w, "    - %s: %s\n", f.ID, what)
	}
	sub("Failed roles", strings.Join(rd.FailedRoles, ", "))
	if res, ok := fix.Recorded(rd); ok {
		var rejected, commits []string
		for _, x := range res.Rejected {
			rejected = append(rejected, x.FindingID)
		}
		for _, c := range res.Commits {
			commits = append(commits, text.ShortOID(c.Sha))
		}
		sub("Fix", string(res.Status))
		sub("Fixed", strings.Join(res.FixedIDs(), ", "))
		sub("Rejected", strings.Join(rejected, ", "))
		sub("Commits", strings.Join(commits, ", "))
	}
	sub("Stuck", strings.Join(rd.StuckIDs, ", "))
	sub("Disputed", strings.Join(rd.DisputedIDs, ", "))
	if rd.Pushing != "" && !rd.Done(state.PhasePushed) {
		sub("Pushing, not confirmed (the run stopped during its push)", short(rd.Pushing))
	}
	for _, c := range rd.Comments {
		sub("Posted "+c.Kind, c.URL)
	}
	sub("Verification", verifications(rd.Verification))
	for _, r := range rd.Reports {
		sub("Report of "+r.Role, r.Summary)
	}
	for _, u := range rd.Usage {
		used := u.Usage.String()
		if u.CostUSD > 0 {
			used += ", estimated " + tokens.Dollars(u.CostUSD)
		}
		sub("Tokens of "+u.Role, used)
	}
}

func item(w io.Writer, label, v string) {
	if v != "" {
		fmt.Fprintf(w, "- %s: %s\n", label, v)
	}
}

// short is text.ShortOID with a dash for a round that has no head yet.
func short(oid string) string {
	if oid == "" {
		return "-"
	}
	return text.ShortOID(oid)
}

// counts lists per-priority counts in key order (P0, P1, ...).
func counts(c finding.Counts) string {
	if c == (finding.Counts{}) {
		return ""
	}
	return fmt.Sprintf("(P0 %d, P1 %d, P2 %d, P3 %d)", c.P0, c.P1, c.P2, c.P3)
}

func verifications(vs []verify.Result) string {
	var parts []string
	for _, v := range vs {
		res := "ok"
		if !v.OK {
			res = fmt.Sprintf("failed (exit %d)", v.ExitCode)
		}
		parts = append(parts, fmt.Sprintf("`%s` %s", v.Command, res))
	}
	return strings.Join(parts, "; ")
}
