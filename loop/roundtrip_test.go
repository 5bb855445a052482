package loop

import (
	"cmp"
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/inline"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/roles"
	"github.com/ocdx/gh-ocdx/state"
	"github.com/ocdx/gh-ocdx/verifier"
)

// decisions are what a run decided, as a machine that ran before and a
// fresh one must decide alike: the outcome, each round's incremental base,
// counts, stuck and dismissed findings, what was left, which previous
// findings the reviewers were asked to judge, and which calls were made.
type decisions struct {
	Outcome   state.RunOutcome
	Since     []string
	Sampled   []string
	Counts    []finding.Counts
	Stuck     [][]string
	Dismissed [][]string
	Remaining []string
	Previous  []string // the previous findings listed in each reviewer task
	Reviews   int
	Fixes     int
	Ledger    []string // the entries of the ledger the run left on the PR, as "ID status"
}

func decided(res *report.Result, h *harness, reviews, fixes int) decisions {
	d := decisions{Outcome: res.Outcome, Reviews: len(h.reviewer.tasks) - reviews, Fixes: h.fixer.calls - fixes}
	for _, rr := range res.Rounds {
		d.Since = append(d.Since, rr.Since)
		d.Sampled = append(d.Sampled, rr.Coverage.SampledBefore)
		d.Counts = append(d.Counts, rr.Counts)
		d.Stuck = append(d.Stuck, slices.Sorted(slices.Values(rr.Stuck)))
		var ds []string
		for _, f := range rr.Dismissed {
			ds = append(ds, f.ID)
		}
		d.Dismissed = append(d.Dismissed, ds)
	}
	for _, f := range res.Remaining {
		d.Remaining = append(d.Remaining, f.ID)
	}
	if led, _, _, ok := posts.PRLedger(&h.gh.pr); ok {
		for _, e := range led.Findings {
			d.Ledger = append(d.Ledger, e.ID+" "+string(cmp.Or(e.Status, finding.StatusOpen)))
		}
	}
	for _, task := range h.reviewer.tasks[reviews:] {
		_, list, _ := strings.Cut(task, "**Previous findings**")
		for l := range strings.Lines(list) {
			if strings.HasPrefix(l, "- `") {
				d.Previous = append(d.Previous, strings.TrimSpace(l))
			}
		}
	}
	return d
}

// Every scenario of a PR's memory decides the same on the machine that ran
// before and on a fresh one (an empty state file: a new CI runner), which
// knows the PR only from the ledger on it (docs/architecture.md, The
// ledger).
func TestTheLedgerRoundTripsEveryScenario(t *testing.T) {
	id := bug.ComputeID()
	other := finding.Finding{Priority: "P3", Category: "docs", File: "README.md", Line: lineOf(3), Title: "Typo", Description: "d"}
	dismissal := github.Comment{Author: "maintainer", Body: "/ocdx dismiss " + id, URL: "https://x/pull/5#c9"}
	// leak at a.go:10, and the same problem raised again, reworded, where
	// two lines added on top moved it (a.go:12): another ID.
	leak := finding.Finding{Priority: "P1", Category: "quality", File: "a.go", Line: lineOf(10), Title: "Leak of the handle", Description: "d"}
	again := leak
	again.Line, again.Title = lineOf(12), "Leak of the file handle"
	dismissLeak := github.Comment{Author: "maintainer", Body: "/ocdx dismiss " + leak.ComputeID(), URL: "https://x/pull/5#c10"}
	moved := func(context.Context, string, string) (string, bool) {
		return "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -0,0 +1,2 @@\n+one\n+two\n", true
	}
	// oneEntry: the ledger holds the problem once, under its first ID.
	oneEntry := func(t *testing.T, d decisions, status finding.Status) {
		if !slices.Contains(d.Ledger, leak.ComputeID()+" "+string(status)) || slices.ContainsFunc(d.Ledger, func(e string) bool { return strings.HasPrefix(e, again.ComputeID()) }) {
			t.Errorf("ledger %v: want %s %s, and no entry for %s", d.Ledger, leak.ComputeID(), status, again.ComputeID())
		}
	}
	// oneLeak: the problem is one finding under its first ID, open.
	oneLeak := func(t *testing.T, d decisions) {
		if !slices.Equal(d.Remaining, []string{leak.ComputeID()}) || d.Counts[0] != (finding.Counts{P1: 1}) {
			t.Errorf("remaining %v, counts %+v: want the one problem once, as %s", d.Remaining, d.Counts, leak.ComputeID())
		}
		if len(d.Stuck[0]) == 0 {
			oneEntry(t, d, finding.StatusOpen)
		} else {
			oneEntry(t, d, finding.StatusStuck)
		}
	}
	// leakDismissed: raised again, it is still dismissed, and blocks nothing.
	leakDismissed := func(t *testing.T, d decisions) {
		if d.Outcome != state.OutcomeConverged || len(d.Remaining) != 0 || !slices.Equal(d.Dismissed[0], []string{leak.ComputeID()}) {
			t.Errorf("outcome %s, remaining %v, dismissed %v: want %s dismissed under its ID, nothing blocking", d.Outcome, d.Remaining, d.Dismissed, leak.ComputeID())
		}
		oneEntry(t, d, finding.StatusDismissed)
	}
	leakRaised := func(t *testing.T, h *harness) {
		h.reviewer.answers = []string{reviewerAnswer(leak)}
		h.analyzer.answers = []string{analyzerAnswer()}
		wantOutcome(t, h, state.OutcomeBlocked)
	}
	leakDismissedFirst := func(t *testing.T, h *harness) {
		leakRaised(t, h)
		h.gh.pr.Comments = append(h.gh.pr.Comments, dismissLeak)
		h.reviewer.answers = []string{reviewerAnswer(leak)}
		h.analyzer.answers = []string{analyzerAnswer()}
		wantOutcome(t, h, state.OutcomeConverged)
	}
	for _, sc := range []struct {
		name string
		// first runs the PR up to the push the second run follows.
		first func(t *testing.T, h *harness)
		// then scripts the second run.
		then func(h *harness)
		// since is the second run's incremental base: "" for a full review.
		since string
		// check, when set, says what both must have decided.
		check func(t *testing.T, d decisions)
	}{
		{"blocked, then a push", func(t *testing.T, h *harness) {
			h.reviewer.answers = []string{reviewerAnswer(bug, other)}
			h.analyzer.answers = []string{analyzerAnswer()}
			wantOutcome(t, h, state.OutcomeBlocked)
		}, func(h *harness) {
			h.reviewer.answers = []string{reviewerVerdicts([]finding.Verdict{{ID: id, Verdict: finding.Resolved}})}
		}, "aaaaaaaa", nil},
		{"approved, then a push", func(t *testing.T, h *harness) {
			h.reviewer.answers = []string{reviewerAnswer(other)}
			h.analyzer.answers = []string{analyzerAnswer()}
			wantOutcome(t, h, state.OutcomeConverged)
		}, func(h *harness) { h.reviewer.answers = []string{reviewerVerdicts(nil)} }, "aaaaaaaa", nil},
		{"every reviewer failed", func(t *testing.T, h *harness) {
			h.reviewer.answers = []string{"no envelope at all"}
			h.analyzer.answers = []string{analyzerAnswer()}
			wantOutcome(t, h, state.OutcomeFailed)
		}, func(h *harness) { h.reviewer.answers = []string{reviewerAnswer()} }, "", nil},
		{"a fix never pushed, nobody judges it", func(t *testing.T, h *harness) {
			unpushed(t, h)
		}, func(h *harness) { h.reviewer.answers = []string{reviewerVerdicts(nil)} }, "aaaaaaaa", nil},
		{"a fix never pushed, still present", func(t *testing.T, h *harness) {
			unpushed(t, h)
		}, func(h *harness) {
			h.reviewer.answers = []string{reviewerVerdicts([]finding.Verdict{{ID: id, Verdict: finding.StillPresent}})}
		}, "aaaaaaaa", nil},
		{"a pushed fix, the finding comes back", func(t *testing.T, h *harness) {
			h.opts.CanPush, h.opts.ReviewOnlyReason = true, ""
			h.reviewer.answers = []string{reviewerAnswer(bug), reviewerVerdicts([]finding.Verdict{{ID: id, Verdict: finding.Resolved}})}
			h.analyzer.answers = []string{analyzerAnswer(), analyzerAnswer()}
			h.fixer.report = pushedFix(id)
			wantOutcome(t, h, state.OutcomeConverged)
		}, func(h *harness) { h.reviewer.answers = []string{reviewerAnswer(bug)} }, "bbbbbbbb", nil},
		{"a sampled basis", func(t *testing.T, h *harness) {
			h.gh.diff = "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1 +1,30000 @@\n x\n" + strings.Repeat("+a line of a very large change, to be cut\n", 29999)
			h.reviewer.answers = []string{reviewerAnswer(other)}
			h.analyzer.answers = []string{analyzerAnswer()}
			wantOutcome(t, h, state.OutcomeConverged)
		}, func(h *harness) { h.reviewer.answers = []string{reviewerVerdicts(nil)} }, "aaaaaaaa", nil},
		{"a dismissed finding", func(t *testing.T, h *harness) {
			h.reviewer.answers = []string{reviewerAnswer(bug)}
			h.analyzer.answers = []string{analyzerAnswer()}
			wantOutcome(t, h, state.OutcomeBlocked)
			h.gh.pr.Comments = append(h.gh.pr.Comments, dismissal)
			h.reviewer.answers = []string{reviewerAnswer(bug)}
			h.analyzer.answers = []string{analyzerAnswer()}
			wantOutcome(t, h, state.OutcomeConverged)
		}, func(h *harness) {
			h.reviewer.answers = []string{reviewerVerdicts([]finding.Verdict{{ID: id, Verdict: finding.StillPresent}})}
		}, "aaaaaaaa", nil},
		{"two reviewers, one problem", func(t *testing.T, h *harness) {
			second := &scripted{}
			h.opts.Reviewers = append(h.opts.Reviewers, roles.Role{Name: "reviewer-2", Model: "anthropic/c", LLM: second})
			h.reviewer.answers = []string{reviewerAnswer(bug)}
			second.answers = []string{reviewerAnswer(bug)}
			h.analyzer.answers = []string{analyzerAnswer()}
			wantOutcome(t, h, state.OutcomeBlocked)
			second.answers = []string{reviewerVerdicts(nil)}
		}, func(h *harness) { h.reviewer.answers = []string{reviewerVerdicts(nil)} }, "aaaaaaaa", nil},
		{"raised again at its moved line", leakRaised, func(h *harness) {
			h.opts.Whole = moved
			h.reviewer.answers = []string{reviewerVerdicts(nil, again)}
		}, "aaaaaaaa", oneLeak},
		{"raised again at its moved line, still present", leakRaised, func(h *harness) {
			h.opts.Whole = moved
			h.reviewer.answers = []string{reviewerVerdicts([]finding.Verdict{{ID: leak.ComputeID(), Verdict: finding.StillPresent}}, again)}
		}, "aaaaaaaa", oneLeak},
		{"raised again at its moved line, a full review", leakRaised, func(h *harness) {
			h.opts.Whole, h.opts.Full = moved, true
			h.reviewer.answers = []string{reviewerAnswer(again)}
		}, "", oneLeak},
		{"stuck, raised again at its moved line", func(t *testing.T, h *harness) {
			h.opts.CanPush, h.opts.ReviewOnlyReason = true, ""
			h.reviewer.answers = []string{reviewerAnswer(leak), reviewerAnswer(leak)}
			h.analyzer.answers = []string{analyzerAnswer(), analyzerAnswer()}
			h.fixer.report = pushedFix(leak.ComputeID())
			wantOutcome(t, h, state.OutcomeBlocked)
		}, func(h *harness) {
			h.opts.Whole = moved
			h.reviewer.answers = []string{reviewerVerdicts(nil, again)}
		}, "bbbbbbbb", func(t *testing.T, d decisions) {
			oneLeak(t, d)
			if !slices.Equal(d.Stuck[0], []string{leak.ComputeID()}) {
				t.Errorf("stuck %v, want %s, still stuck", d.Stuck, leak.ComputeID())
			}
		}},
		{"restored, raised again at its moved line", func(t *testing.T, h *harness) {
			h.opts.Verifier = &roles.Role{Name: verifier.Name, Model: "openai/v", LLM: &scripted{answers: []string{refutes(leak.ComputeID())}}}
			h.reviewer.answers = []string{reviewerAnswer(leak)}
			h.analyzer.answers = []string{analyzerAnswer()}
			wantOutcome(t, h, state.OutcomeConverged)
			h.gh.pr.Comments = append(h.gh.pr.Comments, github.Comment{Author: "maintainer", Body: "/ocdx restore " + leak.ComputeID(), URL: "https://x/pull/5#c11"})
		}, func(h *harness) {
			h.opts.Whole = moved
			h.opts.Verifier.LLM = &scripted{answers: []string{refutes(again.ComputeID())}}
			h.reviewer.answers = []string{reviewerVerdicts(nil, again)}
		}, "aaaaaaaa", oneLeak},
		{"disputed, raised again at its moved line", func(t *testing.T, h *harness) {
			leakRaised(t, h)
			posted := leak
			posted.ID = leak.ComputeID()
			h.gh.pr.Threads = append(h.gh.pr.Threads, github.ReviewThread{ID: "T1", Path: "a.go", Comments: []github.ThreadComment{
				{ID: "C1", Author: "ocdx-bot", Body: inline.Body(posted), Path: "a.go", Line: lineOf(10)},
				{ID: "C2", DatabaseID: "2", Author: "mona", Body: "intended"},
				{ID: "C3", Author: "ocdx-bot", Body: posts.Marker + "\n" + posts.AnswerTag("2") + "\n" + posts.ConcededTag(posted.ID) + "\nYou're right."},
			}})
		}, func(h *harness) {
			h.opts.Whole = moved
			h.reviewer.answers = []string{reviewerVerdicts(nil, again)}
		}, "aaaaaaaa", func(t *testing.T, d decisions) {
			if !slices.Equal(d.Remaining, []string{leak.ComputeID()}) || d.Counts[0] != (finding.Counts{P1: 1}) {
				t.Errorf("remaining %v, counts %+v: want the one problem once, as %s", d.Remaining, d.Counts, leak.ComputeID())
			}
			oneEntry(t, d, finding.StatusDisputed)
		}},
		{"dismissed, raised again at its moved line", leakDismissedFirst, func(h *harness) {
			h.opts.Whole = moved
			h.reviewer.answers = []string{reviewerVerdicts(nil, again)}
		}, "aaaaaaaa", leakDismissed},
		{"dismissed, raised again at its moved line, a full review", leakDismissedFirst, func(h *harness) {
			h.opts.Whole, h.opts.Full = moved, true
			h.reviewer.answers = []string{reviewerAnswer(again)}
		}, "", leakDismissed},
	} {
		t.Run(sc.name, func(t *testing.T) {
			var got [2]decisions
			for i, fresh := range []bool{false, true} {
				h, _ := sinceHarness(t)
				h.gh.perms = map[string]github.Permission{"maintainer": github.PermWrite}
				h.opts.CanPush, h.opts.ReviewOnlyReason = false, "a fork"
				sc.first(t, h)
				h.opts.CanPush, h.opts.ReviewOnlyReason = false, "a fork"
				h.gh.pr.HeadRefOid = "cccccccc" // the author pushed
				if fresh {
					h.opts.Store = state.New(filepath.Join(t.TempDir(), "fresh.db"), nil)
				}
				sc.then(h)
				h.analyzer.answers = []string{analyzerAnswer()}
				reviews, fixes := len(h.reviewer.tasks), h.fixer.calls

				res, err := h.run(t)

				if err != nil {
					t.Fatalf("fresh %t: %v", fresh, err)
				}
				got[i] = decided(res, h, reviews, fixes)
			}
			if s := got[0].Since; len(s) != 1 || s[0] != sc.since {
				t.Errorf("the second run reviewed since %v, want %q", s, sc.since)
			}
			if !reflect.DeepEqual(got[0], got[1]) {
				t.Errorf("the machine that ran before and a fresh one decide differently:\nbefore %+v\nfresh  %+v", got[0], got[1])
			}
			if sc.check != nil {
				for i, fresh := range []string{"the machine that ran before", "a fresh one"} {
					t.Run(fresh, func(t *testing.T) { sc.check(t, got[i]) })
				}
			}
		})
	}
}

// unpushed runs a round whose fix of bug fails verification: nothing is
// pushed.
func unpushed(t *testing.T, h *harness) {
	h.opts.CanPush, h.opts.ReviewOnlyReason = true, ""
	h.reviewer.answers = []string{reviewerAnswer(bug)}
	h.analyzer.answers = []string{analyzerAnswer()}
	h.fixer.report = &state.FixResult{Status: state.FixVerifyFailed, Failure: "tests fail", Fixed: []finding.FixedIssue{{FindingID: bug.ComputeID(), CommitSha: "bbbbbbbb"}}}
	wantOutcome(t, h, state.OutcomeBlocked)
}

func wantOutcome(t *testing.T, h *harness, want state.RunOutcome) {
	t.Helper()
	res, err := h.run(t)
	if res == nil || res.Outcome != want {
		t.Fatalf("first run: %+v, %v; want %s", res, err, want)
	}
}

// quietRereview runs h once more, its reviewers raising nothing new, and
// is what that run decided.
func quietRereview(t *testing.T, h *harness) decisions {
	t.Helper()
	h.reviewer.answers = []string{reviewerVerdicts(nil)}
	h.analyzer.answers = []string{analyzerAnswer()}
	reviews, fixes := len(h.reviewer.tasks), h.fixer.calls
	res, err := h.run(t)
	if err != nil {
		t.Fatal(err)
	}
	return decided(res, h, reviews, fixes)
}

// A finding about no file, with a tab in its title (a model wrote both),
// is located in the ledger all the same: a fresh machine carries it as the
// machine that ran before does, rather than dropping a P1.
func TestTheLedgerLocatesAFindingWithoutAFile(t *testing.T) {
	general := finding.Finding{Priority: "P1", Category: "quality", File: "", Title: "Design\tflaw", Description: "d"}
	var got [2]decisions
	for i, fresh := range []bool{false, true} {
		h, _ := sinceHarness(t)
		h.opts.CanPush, h.opts.ReviewOnlyReason = false, "a fork"
		h.reviewer.answers = []string{reviewerAnswer(general)}
		h.analyzer.answers = []string{analyzerAnswer()}
		wantOutcome(t, h, state.OutcomeBlocked)
		h.gh.pr.HeadRefOid = "cccccccc"
		if fresh {
			h.opts.Store = state.New(filepath.Join(t.TempDir(), "fresh.db"), nil)
		}
		got[i] = quietRereview(t, h)
	}
	if !reflect.DeepEqual(got[0], got[1]) {
		t.Errorf("the two machines decide differently:\nbefore %+v\nfresh  %+v", got[0], got[1])
	}
}

// Machine M raises bug; machine N, fresh, re-reviews and resolves it; M
// runs again and every reviewer fails (its ledger passes N's basis on);
// then M and a fresh machine run once more: both start from N's review,
// and neither brings bug back.
func TestARunAfterAnotherMachinesAndAFailedOneStartsFromTheLedger(t *testing.T) {
	id := bug.ComputeID()
	h, _ := sinceHarness(t)
	h.gh.perms = map[string]github.Permission{"maintainer": github.PermWrite}
	h.opts.CanPush, h.opts.ReviewOnlyReason = false, "a fork"
	h.reviewer.answers = []string{reviewerAnswer(bug)}
	h.analyzer.answers = []string{analyzerAnswer()}
	wantOutcome(t, h, state.OutcomeBlocked)
	mStore := h.opts.Store
	// machine N
	h.gh.pr.HeadRefOid = "cccccccc"
	h.opts.Store = state.New(filepath.Join(t.TempDir(), "n.db"), nil)
	h.reviewer.answers = []string{reviewerVerdicts([]finding.Verdict{{ID: id, Verdict: finding.Resolved}})}
	h.analyzer.answers = []string{analyzerAnswer()}
	if _, err := h.run(t); err != nil {
		t.Fatal(err)
	}
	// machine M, every reviewer fails
	h.opts.Store = mStore
	h.gh.pr.HeadRefOid = "dddddddd"
	h.reviewer.answers = []string{"no envelope at all"}
	h.analyzer.answers = []string{analyzerAnswer()}
	h.run(t) // fails: every reviewer failed
	// machine M again, and a fresh one
	saved := h.gh.pr
	saved.Reviews = append([]github.Review(nil), h.gh.pr.Reviews...)
	saved.Comments = append([]github.Comment(nil), h.gh.pr.Comments...)
	var got [2]decisions
	for i, fresh := range []bool{false, true} {
		h.gh.pr = saved
		if fresh {
			h.opts.Store = state.New(filepath.Join(t.TempDir(), "f.db"), nil)
		}
		got[i] = quietRereview(t, h)
	}
	if !reflect.DeepEqual(got[0], got[1]) {
		t.Errorf("the two machines decide differently:\nM     %+v\nfresh %+v", got[0], got[1])
	}
}

// refutes is a verifier's answer refuting id.
func refutes(id string) string {
	return envelope(finding.VerifierResult{Agent: verifier.Name, Verdicts: []finding.VerifierAnswer{{ID: id, Verdict: finding.Refuted, Evidence: "a.go:10 closes it"}}})
}
