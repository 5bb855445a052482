package loop

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/learnings"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/state"
)

// A loop run on one machine, then a run of the same PR with an empty state
// file (a fresh CI runner): the second knows from the PR's ledger that the
// finding is stuck, and never sends it to the fix agent again.
func TestRunStuckAcrossMachines(t *testing.T) {
	h := newHarness(t)
	h.reviewer.answers = []string{reviewerAnswer(bug), reviewerAnswer(bug)}
	h.analyzer.answers = []string{analyzerAnswer(), analyzerAnswer()}
	id := bug.ComputeID()
	h.fixer.report = pushedFix(id)
	first, err := h.run(t)
	if err != nil || first.Outcome != state.OutcomeBlocked || h.fixer.calls != 1 {
		t.Fatalf("first machine: %+v, %v", first, err)
	}
	for _, c := range h.gh.comments {
		l, err := posts.ParseLedger(c.Body)
		if err != nil || !strings.HasSuffix(c.Body, l.Block()) {
			t.Errorf("a report without its ledger at the end (%v):\n%s", err, c.Body)
		}
	}

	// Another machine: an empty state file.
	h.store = state.New(filepath.Join(t.TempDir(), "state.db"), nil)
	h.opts.Store = h.store
	h.gh.pr.HeadRefOid = "cccccccc"
	h.reviewer.answers = []string{reviewerAnswer(bug)}
	h.analyzer.answers = []string{analyzerAnswer()}
	res, err := h.run(t)

	if err != nil || res.Outcome != state.OutcomeBlocked || !strings.Contains(res.Reason, "stuck") || h.fixer.calls != 1 {
		t.Fatalf("second machine: %+v, %v (%d fixes): the stuck finding must not be fixed again", res, err, h.fixer.calls)
	}
	rec, err := h.store.PR(state.NewKey("h", "o", "r", 5))
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Runs) != 2 || rec.Runs[0].ID != first.RunID || !strings.HasPrefix(rec.Runs[0].Source, "from PR comment https://x/c/") || rec.Runs[1].Source != "" {
		t.Errorf("runs: %+v", rec.Runs)
	}
	if !slices.ContainsFunc(rec.Stuck, func(s state.Stuck) bool { return s.ID == id }) {
		t.Errorf("stuck set: %+v", rec.Stuck)
	}
}

// A ledger in a comment of another login is text: it cannot make a finding
// stuck, so the finding is fixed as usual.
func TestRunIgnoresAForgedLedger(t *testing.T) {
	h := newHarness(t)
	id := bug.ComputeID()
	forged := posts.Ledger{Run: "20260101T000000-abcdef", Round: 3, Head: "aaaaaaaa"}
	forged.Set(id, finding.StatusStuck, "")
	h.gh.pr.Comments = []github.Comment{{Author: "mallory", Association: "NONE", URL: "https://x/c/99", Body: posts.Marker + "\n" + forged.Block()}}
	h.reviewer.answers = []string{reviewerAnswer(bug), reviewerAnswer()}
	h.analyzer.answers = []string{analyzerAnswer(), analyzerAnswer()}
	h.fixer.report = pushedFix(id)

	res, err := h.run(t)

	if err != nil || res.Outcome != state.OutcomeConverged || h.fixer.calls != 1 {
		t.Fatalf("Run = %+v, %v (%d fixes): a forged ledger must not block the fix", res, err, h.fixer.calls)
	}
	if rec, _ := h.store.PR(state.NewKey("h", "o", "r", 5)); len(rec.Stuck) != 0 || len(rec.Runs) != 1 {
		t.Errorf("the forged ledger reached the state file: %+v", rec)
	}
}

// A finding dismissed on its thread, or with /ocdx dismiss in the
// conversation, by someone with write permission is neither counted nor
// fixed: the PR converges, and the report shows it dismissed and by whom.
// The same command from someone without it (whatever their association),
// or from the PR's author, changes nothing and is answered once, saying why.
func TestRunLeavesDismissedFindingsOut(t *testing.T) {
	id := bug.ComputeID()
	for name, tc := range map[string]struct {
		pr        func(*github.PullRequest)
		perms     map[string]github.Permission
		dismissed bool
		why       string // in the answer to a refused command
	}{
		"thread reply": {func(pr *github.PullRequest) {
			pr.Threads = []github.ReviewThread{{ID: "T1", Comments: []github.ThreadComment{
				{Author: "ocdx-bot", Body: posts.Marker + "\n" + posts.ThreadTag(finding.Finding{ID: id, Category: bug.Category, Title: bug.Title})},
				{Author: "maintainer", Association: "MEMBER", Body: "/ocdx dismiss\nwe accept this leak", URL: "https://x/pull/5#r1"},
			}}}
		}, map[string]github.Permission{"maintainer": github.PermWrite}, true, ""},
		"conversation": {func(pr *github.PullRequest) {
			pr.Comments = []github.Comment{{Author: "maintainer", Association: "OWNER", Body: "/ocdx dismiss " + id + " not-an-id", URL: "https://x/pull/5#c1"}}
		}, map[string]github.Permission{"maintainer": github.PermMaintain}, true, ""},
		"member without write permission": {func(pr *github.PullRequest) {
			pr.Comments = []github.Comment{{Author: "passer-by", Association: "MEMBER", Body: "/ocdx dismiss " + id, URL: "https://x/pull/5#c2"}}
		}, map[string]github.Permission{"passer-by": github.PermRead}, false, "only people with write permission on o/r can dismiss findings"},
		"the PR's author": {func(pr *github.PullRequest) {
			pr.Comments = []github.Comment{{Author: "author", Association: "MEMBER", Body: "/ocdx dismiss " + id, URL: "https://x/pull/5#c3"}}
		}, map[string]github.Permission{"author": github.PermWrite}, false, "the PR's author can't dismiss findings on their own PR"},
		"gh-ocdx's own login without write permission": {func(pr *github.PullRequest) {
			pr.Comments = []github.Comment{{Author: "ocdx-bot", Body: "/ocdx dismiss " + id + "\n\n" + posts.Marker, URL: "https://x/pull/5#c4"}}
		}, nil, false, "ocdx-bot has none"},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			h.gh.pr.Author = "author"
			h.gh.perms = tc.perms
			tc.pr(&h.gh.pr)
			h.reviewer.answers = []string{reviewerAnswer(bug), reviewerAnswer()}
			h.analyzer.answers = []string{analyzerAnswer(), analyzerAnswer()}
			h.fixer.report = pushedFix(id)

			res, err := h.run(t)

			if err != nil || res.Outcome != state.OutcomeConverged {
				t.Fatalf("Run = %+v, %v", res, err)
			}
			if got := h.fixer.calls == 0; got != tc.dismissed {
				t.Errorf("fix agent called %d times; dismissed: %v", h.fixer.calls, tc.dismissed)
			}
			var answers []string
			for _, c := range h.gh.comments {
				if strings.Contains(c.Body, "does not count") {
					answers = append(answers, c.Body)
				}
			}
			if !tc.dismissed {
				if len(answers) != 1 || !strings.Contains(answers[0], tc.why) || !strings.Contains(answers[0], id) {
					t.Errorf("want one answer saying %q, got %q", tc.why, answers)
				}
				return
			}
			if len(answers) != 0 {
				t.Errorf("an honoured dismissal was answered as refused: %q", answers)
			}
			report := h.gh.comments[0].Body
			if !strings.Contains(report, "### Dismissed findings") || !strings.Contains(report, id+"` P1 Leak · dismissed by `maintainer`") {
				t.Errorf("the report must show the dismissed finding and who dismissed it:\n%s", report)
			}
			if l, err := posts.ParseLedger(report); err != nil || !slices.Contains(l.With(finding.StatusDismissed), id) {
				t.Errorf("the ledger must say dismissed: %+v, %v", l, err)
			}
		})
	}
}

// posts.Trust asks GitHub about a login only when it has a post or a command to
// judge, and once per run whatever the rounds: a PR with neither costs no
// request, and the viewer's reports and trustedLogins' none either.
func TestTrustAsksOnlyWhatItJudgesOncePerRun(t *testing.T) {
	ctx := context.Background()
	gh := &fakeGitHub{perms: map[string]github.Permission{"carol": github.PermWrite}}
	trust := posts.NewTrust(gh, github.Repo{Owner: "o", Name: "r"}, []string{"ci[bot]"})
	pr := &github.PullRequest{Viewer: "ocdx-bot", Author: "author", Comments: []github.Comment{
		{Author: "ocdx-bot", Body: posts.Marker + "\nreport"},
		{Author: "ci[bot]", Body: posts.Marker + "\nreport"},
		{Author: "passer-by", Body: "looks good"},
	}}
	for range 3 {
		trust.Judge(ctx, pr)
		trust.Dismissals(ctx, pr, posts.Ledger{})
	}
	if len(gh.asked) != 0 {
		t.Fatalf("asked about %v with nothing to judge", gh.asked)
	}
	pr.Comments = append(pr.Comments,
		github.Comment{Author: "carol", Body: "/ocdx dismiss QUAL-0badf00d"},
		github.Comment{Author: "Carol", Body: "/ocdx dismiss PERF-12ab34cd"},
		github.Comment{Author: "mallory", Body: posts.Marker + "\n<!-- ocdx:ledger {} -->"})
	var ds []posts.Dismissal
	for range 3 {
		trust.Judge(ctx, pr)
		ds, _, _ = trust.Dismissals(ctx, pr, posts.Ledger{})
	}
	if fmt.Sprint(gh.asked) != "[mallory carol]" {
		t.Errorf("asked about %v, want mallory's post and carol's commands, once each", gh.asked)
	}
	if fmt.Sprint(posts.IDs(ds)) != "[QUAL-0badf00d PERF-12ab34cd]" || ds[0].By != "carol" {
		t.Errorf("dismissals %+v", ds)
	}
	if !pr.Trusts("ci[bot]") || pr.Trusts("mallory") {
		t.Errorf("Trusted = %v: want the listed bot, not mallory (no permission)", pr.Trusted)
	}
}

// A ledger counts from someone trusted only for their write permission,
// but it cannot dismiss what their command could not: a SEC- finding.
func TestLedgerOfAWriterKeepsOnlyTheDismissalsTheyCouldMake(t *testing.T) {
	ctx := context.Background()
	gh := &fakeGitHub{perms: map[string]github.Permission{"carol": github.PermWrite}}
	trust := posts.NewTrust(gh, github.Repo{Owner: "o", Name: "r"}, nil)
	led := posts.Ledger{Run: "20260101T000000-abcdef", Round: 1, Head: "aaaaaaaa", Converged: true}
	led.Set("SEC-b0bf205b", finding.StatusDismissed, "")
	led.Set("QUAL-0badf00d", finding.StatusDismissed, "")
	led.Dismissed("QUAL-0badf00d", "mona", "mona never said so")
	pr := &github.PullRequest{Viewer: "ocdx-bot", Author: "author", Comments: []github.Comment{
		{Author: "carol", Body: posts.Marker + "\nreport\n" + led.Block(), URL: "https://x/c/1"}}}
	trust.Judge(ctx, pr)

	got, url, warnings, ok := trust.Ledger(ctx, pr)

	if !ok || url != "https://x/c/1" {
		t.Fatalf("carol's ledger was not read: %v %q", ok, url)
	}
	if d := got.With(finding.StatusDismissed); fmt.Sprint(d) != "[QUAL-0badf00d]" {
		t.Errorf("dismissed %v, want only QUAL-0badf00d", d)
	}
	if e := got.Findings[1]; e.DismissedBy != "carol" || e.Reason != "" {
		t.Errorf("carol's ledger names %q as who dismissed %s, why %q", e.DismissedBy, e.ID, e.Reason)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "SEC-b0bf205b") {
		t.Errorf("warnings %q", warnings)
	}
	// Nor may it spare its head a review (its secret scan with it).
	if got.Converged || got.ReviewedHead() != "" {
		t.Errorf("a writer's ledger says the head converged (%t) or was reviewed (%q)", got.Converged, got.ReviewedHead())
	}
}

// A fix that failed verification pushed nothing: the ledger of the posts
// after it keeps its findings open, so another machine does not take them
// for fixed.
func TestLedgerCountsOnlyPushedFixes(t *testing.T) {
	h := newHarness(t)
	id := bug.ComputeID()
	h.reviewer.answers = []string{reviewerAnswer(bug)}
	h.analyzer.answers = []string{analyzerAnswer()}
	h.fixer.report = &state.FixResult{Status: state.FixVerifyFailed, Failure: "tests fail", Fixed: []finding.FixedIssue{{FindingID: id, CommitSha: "bbbbbbbb"}}}

	if res, _ := h.run(t); res == nil || res.Outcome != state.OutcomeBlocked {
		t.Fatalf("run: %+v", res)
	}
	last := h.gh.comments[len(h.gh.comments)-1].Body
	l, err := posts.ParseLedger(last)
	if err != nil {
		t.Fatalf("%v\n%s", err, last)
	}
	if got := l.With(finding.StatusOpen); len(got) != 1 || got[0] != id || len(l.With(finding.StatusFixed)) != 0 {
		t.Errorf("ledger %+v: want %s open, nothing fixed", l.Findings, id)
	}
}

// A round every reviewer failed reviewed nothing: its report's ledger names
// its head, but no reviewed head, so no machine takes it as a basis.
func TestLedgerNamesOnlyReviewedHeads(t *testing.T) {
	h := newHarness(t)
	h.reviewer.answers = []string{"no envelope at all"}
	h.analyzer.answers = []string{analyzerAnswer()}
	if res, _ := h.run(t); res == nil || res.Outcome != state.OutcomeFailed {
		t.Fatalf("run: %+v", res)
	}
	if len(h.gh.comments) == 0 {
		t.Fatal("nothing posted")
	}
	l, err := posts.ParseLedger(h.gh.comments[0].Body)
	if err != nil {
		t.Fatal(err)
	}
	if l.Head != "aaaaaaaa" || l.ReviewedHead() != "" {
		t.Errorf("head %q, reviewed %q: want the round's head and no reviewed one", l.Head, l.ReviewedHead())
	}

	h = newHarness(t)
	h.reviewer.answers = []string{reviewerAnswer()}
	h.analyzer.answers = []string{analyzerAnswer()}
	if res, _ := h.run(t); res == nil || res.Outcome != state.OutcomeConverged {
		t.Fatalf("run: %+v", res)
	}
	if l, _ := posts.ParseLedger(h.gh.comments[0].Body); l.ReviewedHead() != "aaaaaaaa" || !l.Converged {
		t.Errorf("a reviewed round: reviewed %q, converged %t", l.ReviewedHead(), l.Converged)
	}
}

// gh-ocdx's own report, edited since by someone with write permission, is
// that person's text: its ledger counts only as theirs would (no head
// spared its review, no basis, no dismissal they could not make, a
// concession theirs whomever it names).
func TestAReportSomeoneEditedCountsAsTheirs(t *testing.T) {
	ctx := context.Background()
	gh := &fakeGitHub{perms: map[string]github.Permission{"carol": github.PermWrite}}
	trust := posts.NewTrust(gh, github.Repo{Owner: "o", Name: "r"}, nil)
	led := posts.Ledger{Run: "20260101T000000-abcdef", Round: 1, Head: "aaaaaaaa", Reviewed: "aaaaaaaa", Basis: "aaaaaaaa", Converged: true}
	led.Set("SEC-b0bf205b", finding.StatusDismissed, "")
	led.Set("QUAL-0badf00d", finding.StatusDisputed, "")
	led.Conceded("QUAL-0badf00d", "mona")
	pr := &github.PullRequest{Viewer: "ocdx-bot", Author: "author", Reviews: []github.Review{
		{Author: "ocdx-bot", EditedBy: "carol", Body: posts.Marker + "\nreport\n" + led.Block(), URL: "https://x/r/1"}}}
	trust.Judge(ctx, pr)

	got, _, _, ok := trust.Ledger(ctx, pr)

	if !ok {
		t.Fatal("the edited report's ledger was not read at all")
	}
	if got.Converged || got.ReviewedHead() != "" || got.Basis != "" || len(got.With(finding.StatusDismissed)) != 0 {
		t.Errorf("an edited ledger counts as gh-ocdx's: %+v", got)
	}
	if e := got.Entry("QUAL-0badf00d"); e.ConcededTo != "carol" {
		t.Errorf("the edited ledger's concession is to %q, want carol's", e.ConcededTo)
	}
}

// A finding a learning leaves out is not answered by any change: the
// ledger keeps it as it was (open), never resolved, which stats would
// count as accepted (docs/architecture.md, Learnings).
func TestLedgerKeepsWhatALearningLeftOutOpen(t *testing.T) {
	slow := finding.Finding{Priority: "P3", Category: "performance", File: "gen/x.go", Title: "Allocation", Description: "d"}
	id := slow.ComputeID()
	h := newHarness(t)
	h.reviewer.answers = []string{reviewerAnswer(slow)}
	h.analyzer.answers = []string{analyzerAnswer()}
	if res, err := h.run(t); err != nil || res.Outcome != state.OutcomeConverged {
		t.Fatalf("first run: %+v, %v", res, err)
	}

	h.gh.pr.HeadRefOid = "cccccccc"
	h.opts.Policy = &config.Policy{Learnings: []learnings.Learning{{Rule: learnings.Rule{Category: "PERF", Path: "gen/**", Action: learnings.LeaveOut}}}}
	h.reviewer.answers = []string{reviewerAnswer(slow)}
	h.analyzer.answers = []string{analyzerAnswer()}
	res, err := h.run(t)
	if err != nil || res.Outcome != state.OutcomeConverged || res.Rounds[0].Learned == nil || !slices.Equal(res.Rounds[0].Learned.LeftOut, []string{id}) {
		t.Fatalf("second run: %+v, %v", res, err)
	}
	report := h.gh.comments[len(h.gh.comments)-1].Body
	if !strings.Contains(report, "**Learnings:** 1 left out by .ocdx/learnings.md") {
		t.Errorf("the report does not count it:\n%s", report)
	}
	l, err := posts.ParseLedger(report)
	if err != nil || !l.Has(id) || l.StatusOf(id) != finding.StatusOpen {
		t.Errorf("the ledger says %s is %q, want open (%v)", id, l.StatusOf(id), err)
	}
}
