package fix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/state"
)

// Source says in the fix report where its findings came from: a fix of
// its own is not a round of a loop.
func Source(findingsFile string, resume *state.WIP, p finding.FixPayload) string {
	switch {
	case findingsFile != "":
		return fmt.Sprintf("findings from `%s`", filepath.Base(findingsFile))
	case resume != nil:
		return "an interrupted fix, continued"
	}
	return fmt.Sprintf("findings of review round %d", p.Round)
}

// Select is what a fix of pr fixes (gh ocdx fix, /ocdx fix): the findings
// of the file findingsFile, else of the interrupted fix resume continues,
// else of the latest review this machine recorded (recorded), else, on a
// machine with none (a fresh CI runner), the open findings of the PR's
// ledger; those dismissed on the PR or disputed in a conversation left
// out, each said with info. note says why nothing is left to fix, or which
// stuck findings were left out.
func Select(ctx context.Context, trust *posts.Trust, findingsFile string, pr *github.PullRequest, recorded state.PR, resume *state.WIP, info func(format string, a ...any)) (payload finding.FixPayload, note string, err error) {
	payload, note, err = payloadFor(findingsFile, pr, recorded, resume)
	if errors.As(err, new(noReviewError)) {
		// A machine that did not review the PR (a fresh CI runner) fixes
		// what the PR's ledger says is open (docs/architecture.md, The ledger).
		open, stuck, round, why, ok := trust.OpenFindings(ctx, pr)
		if ok {
			payload, note, err = ledgerPayload(pr.Number, open, stuck, round, why)
			info("this machine has no review of PR #%d: fixing the open findings of its latest report", pr.Number)
		}
	}
	if err != nil {
		return payload, note, err
	}
	// A finding dismissed on the PR since it was reviewed is not fixed; nor
	// is one gh-ocdx conceded in a conversation (disputed: a person decides).
	dismissed := posts.IDs(trust.DismissedOn(ctx, pr))
	var disputed []string
	for _, id := range posts.IDs(posts.Concessions(pr)) {
		if !slices.Contains(dismissed, id) {
			disputed = append(disputed, id)
		}
	}
	if left := leaveOut(&payload, disputed); len(left) > 0 {
		info("disputed in a conversation, not fixed: %s (someone with write permission dismisses them, or not)", strings.Join(left, ", "))
		if len(payload.IssuesToFix) == 0 {
			note = "every finding left to fix is disputed in a conversation (" + strings.Join(left, ", ") + ")"
		}
	}
	if left := leaveOut(&payload, dismissed); len(left) > 0 {
		info("dismissed on the PR, not fixed: %s", strings.Join(left, ", "))
		if len(payload.IssuesToFix) == 0 {
			note = "every finding left to fix was dismissed on the PR (" + strings.Join(left, ", ") + ")"
		}
	}
	return payload, note, nil
}

// payloadFor builds the fix payload: from a file (--findings), from the interrupted
// fix being continued, or from the latest round of the latest review-loop
// run. The note says why the payload is empty, or which stuck findings
// were left out of it.
//
// Only that round counts, and only when it reviewed the PR's current head:
// an older run's findings (say, before a run that converged and dropped
// its own) describe code that is gone, and must not be "fixed" and pushed.
func payloadFor(findingsFile string, pr *github.PullRequest, recorded state.PR, resume *state.WIP) (finding.FixPayload, string, error) {
	number := pr.Number
	if findingsFile != "" {
		p, err := readPayload(findingsFile, number)
		return p, orWhy(p, "the findings file lists no P0, P1 or P2 finding"), err
	}
	stuck := map[string]bool{}
	for _, s := range recorded.Stuck {
		stuck[s.ID] = true
	}
	if resume != nil {
		for i := len(recorded.Runs) - 1; i >= 0; i-- {
			r := recorded.Runs[i]
			if r.ID == resume.RunID && r.Kind == "fix" && len(r.Rounds) > 0 && r.Rounds[0].Findings != nil {
				p, _ := split(r.Rounds[0].Findings, number, 1, stuck)
				return p, orWhy(p, "the interrupted fix has no finding left"), nil
			}
		}
	}
	var run *state.Run
	for i := len(recorded.Runs) - 1; i >= 0 && run == nil; i-- {
		if k := recorded.Runs[i].Kind; k != "fix" && k != "review-pr" && len(recorded.Runs[i].Rounds) > 0 {
			run = &recorded.Runs[i]
		}
	}
	if run == nil || run.Outcome == state.OutcomeElsewhere {
		// A run another machine made is known here from the PR's ledger
		// only: its findings are read from the PR.
		return finding.FixPayload{}, "", noReviewError(number)
	}
	rd := run.Rounds[len(run.Rounds)-1]
	empty := finding.FixPayload{PRNumber: number, Round: rd.N, IssuesToFix: []finding.Finding{}, OptionalIssues: []finding.Finding{}}
	switch {
	case run.Outcome == state.OutcomeConverged:
		return empty, fmt.Sprintf("the latest review-loop run (%s) converged", run.ID), nil
	case rd.HeadOID != pr.HeadRefOid:
		return empty, fmt.Sprintf("the latest review (run %s, round %d) reviewed an older head %s, and the PR is at %s now: run 'gh ocdx review-loop --pr %d' first",
			run.ID, rd.N, text.ShortOID(rd.HeadOID), text.ShortOID(pr.HeadRefOid), number), nil
	case rd.Findings == nil:
		return empty, fmt.Sprintf("round %d of run %s has no findings recorded (it was not reviewed to the end): run 'gh ocdx review-loop --pr %d' first", rd.N, run.ID, number), nil
	}
	for _, id := range rd.StuckIDs {
		stuck[id] = true
	}
	p, left := split(rd.Findings, number, rd.N, stuck)
	if len(left) > 0 {
		return p, "stuck findings left out (they came back after being reported fixed, and need a human): " + strings.Join(left, ", "), nil
	}
	return p, orWhy(p, "the latest review has no P0, P1 or P2 code finding"), nil
}

// noReviewError: neither the state file nor the PR records a review of
// PR #N.
type noReviewError int

func (n noReviewError) Error() string {
	return fmt.Sprintf("no review of PR #%d is recorded in the state file or on the PR: run 'gh ocdx review-loop --pr %d' first, or give the findings with --findings FILE (a fix payload: see 'gh ocdx fix --help')", n, n)
}

// ledgerPayload is the fix payload of the open findings the PR's ledger
// names (posts.Trust.OpenFindings), stuck ones left out as for a review
// this machine recorded.
func ledgerPayload(number int, open []finding.Finding, stuckIDs []string, round int, why string) (finding.FixPayload, string, error) {
	if why != "" {
		return finding.FixPayload{PRNumber: number, Round: max(round, 1), IssuesToFix: []finding.Finding{}, OptionalIssues: []finding.Finding{}}, why, nil
	}
	stuck := map[string]bool{}
	for _, id := range stuckIDs {
		stuck[id] = true
	}
	p, _ := split(open, number, max(round, 1), stuck)
	if len(stuckIDs) > 0 {
		return p, "stuck findings left out (they came back after being reported fixed, and need a human): " + strings.Join(stuckIDs, ", "), nil
	}
	return p, orWhy(p, "the latest review has no open P0, P1 or P2 code finding"), nil
}

// orWhy is why, when p holds nothing to fix.
func orWhy(p finding.FixPayload, why string) string {
	if len(p.IssuesToFix) > 0 {
		return ""
	}
	return why
}

// split makes a payload of recorded findings, as the loop does: P0..P2 to
// fix, P3 optional, each ID once; thread findings (for humans) and stuck
// ones are left out, the stuck P0..P2 named in left.
func split(recorded []finding.Finding, number, round int, stuck map[string]bool) (p finding.FixPayload, left []string) {
	all := slices.Clone(recorded)
	var ids []string
	for i := range all {
		if all[i].ID == "" {
			all[i].ID = all[i].ComputeID()
		}
		if stuck[all[i].ID] && consensus.Blocking(all[i]) && !consensus.IsThread(all[i]) && !slices.Contains(left, all[i].ID) {
			left = append(left, all[i].ID)
		}
	}
	for id := range stuck {
		ids = append(ids, id)
	}
	toFix, optional := consensus.IssuesToFix(all, ids)
	p = finding.FixPayload{PRNumber: number, Round: round, IssuesToFix: []finding.Finding{}, OptionalIssues: []finding.Finding{}}
	p.IssuesToFix = append(p.IssuesToFix, toFix...)
	p.OptionalIssues = append(p.OptionalIssues, optional...)
	return p, left
}

func readPayload(file string, number int) (finding.FixPayload, error) {
	data, err := config.ReadFile(file)
	if err != nil {
		return finding.FixPayload{}, fmt.Errorf("reading the findings: %w", err)
	}
	var p finding.FixPayload
	if err := json.Unmarshal(data, &p); err != nil {
		return p, fmt.Errorf("%s is not a fix payload ({\"prNumber\", \"round\", \"issuesToFix\", \"optionalIssues\"}): %v", file, err)
	}
	if p.PRNumber != 0 && p.PRNumber != number {
		return p, fmt.Errorf("%s is for PR #%d, not PR #%d: pass --pr %d or the right file", file, p.PRNumber, number, p.PRNumber)
	}
	p.PRNumber = number
	if p.Round < 1 {
		p.Round = 1
	}
	if p.OptionalIssues == nil {
		p.OptionalIssues = []finding.Finding{}
	}
	seen := map[string]bool{}
	for _, list := range [][]finding.Finding{p.IssuesToFix, p.OptionalIssues} {
		for i := range list {
			if list[i].ID == "" {
				list[i].ID = list[i].ComputeID()
			}
			if seen[list[i].ID] {
				return p, fmt.Errorf("%s lists finding %s twice: each finding once, please", file, list[i].ID)
			}
			seen[list[i].ID] = true
		}
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("%s: %w", file, err)
	}
	return p, nil
}

// leaveOut takes the findings of ids out of p, and says which it took.
func leaveOut(p *finding.FixPayload, ids []string) (left []string) {
	drop := func(f finding.Finding) bool {
		if slices.Contains(ids, f.ID) {
			left = append(left, f.ID)
			return true
		}
		return false
	}
	p.IssuesToFix = slices.DeleteFunc(p.IssuesToFix, drop)
	p.OptionalIssues = slices.DeleteFunc(p.OptionalIssues, drop)
	return left
}
