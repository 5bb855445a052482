package consensus

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/posts"
)

func TestReviewStateOf(t *testing.T) {
	rv := func(state, login, assoc, at string) github.Review {
		return github.Review{State: state, Author: login, Association: assoc, SubmittedAt: at}
	}
	marked := func(state, login, assoc, at string) github.Review {
		r := rv(state, login, assoc, at)
		r.Body = posts.Marker + "\n" + posts.RunTag("20261123T184200-abcdef", 1, "review-pr") + "\n**Verdict:** changes needed."
		return r
	}
	for _, tc := range []struct {
		name    string
		reviews []github.Review
		want    []string // logins with changes requested
	}{
		{"none", nil, nil},
		{"member requests changes", []github.Review{rv("CHANGES_REQUESTED", "boss", "MEMBER", "1")}, []string{"boss"}},
		{"owner and collaborator", []github.Review{rv("CHANGES_REQUESTED", "o", "OWNER", "1"), rv("CHANGES_REQUESTED", "c", "COLLABORATOR", "2")}, []string{"o", "c"}},
		{"contributor does not block", []github.Review{rv("CHANGES_REQUESTED", "pal", "CONTRIBUTOR", "1")}, nil},
		{"a later comment does not withdraw", []github.Review{rv("CHANGES_REQUESTED", "boss", "MEMBER", "1"), rv("COMMENTED", "boss", "MEMBER", "2")}, []string{"boss"}},
		{"a later approval withdraws", []github.Review{rv("CHANGES_REQUESTED", "boss", "MEMBER", "1"), rv("APPROVED", "boss", "MEMBER", "2")}, nil},
		{"dismissed", []github.Review{rv("CHANGES_REQUESTED", "boss", "MEMBER", "1"), rv("DISMISSED", "boss", "MEMBER", "2")}, nil},
		{"approval then changes", []github.Review{rv("APPROVED", "boss", "MEMBER", "1"), rv("CHANGES_REQUESTED", "boss", "MEMBER", "2")}, []string{"boss"}},
		{"another author's approval does not withdraw", []github.Review{rv("CHANGES_REQUESTED", "boss", "MEMBER", "1"), rv("APPROVED", "pal", "MEMBER", "2")}, []string{"boss"}},
		{"gh-ocdx's own change request does not block", []github.Review{marked("CHANGES_REQUESTED", "ocdx-bot", "MEMBER", "1")}, nil},
		{"gh-ocdx's own approval withdraws nothing", []github.Review{rv("CHANGES_REQUESTED", "boss", "MEMBER", "1"), marked("APPROVED", "ocdx-bot", "MEMBER", "2")}, []string{"boss"}},
		{"a person's request after gh-ocdx's review blocks", []github.Review{marked("APPROVED", "ocdx-bot", "MEMBER", "1"), rv("CHANGES_REQUESTED", "boss", "MEMBER", "2")}, []string{"boss"}},
		{"a maintainer's copy of the marker still blocks", []github.Review{marked("CHANGES_REQUESTED", "boss", "MEMBER", "1")}, []string{"boss"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := ReviewStateOf(&github.PullRequest{Viewer: "ocdx-bot", Reviews: tc.reviews})
			var got []string
			for _, a := range st.ChangesRequestedBy {
				got = append(got, a.Login)
			}
			if !slices.Equal(got, tc.want) || st.HasChangesRequested != (len(tc.want) > 0) {
				t.Errorf("got %+v, want changes requested by %v", st, tc.want)
			}
		})
	}
}

func TestThreadFindings(t *testing.T) {
	l := 7
	threads := []github.ReviewThread{
		{Comments: []github.ThreadComment{{ID: "C1", Body: "This MUST be fixed.", Author: "boss", Association: "MEMBER", Path: "a.go", Line: &l}}},
		{Comments: []github.ThreadComment{{ID: "C2", Body: "This must go", Author: "pal", Association: "CONTRIBUTOR"}}},
		{Comments: []github.ThreadComment{{ID: "C3", Body: "blocker: " + strings.Repeat("x", 300) + " ghp_abcdefghijklmnopqrstuvwxyz0123456789", Author: "o", Association: "OWNER", Path: "b.go"}}},
		{IsResolved: true, ResolvedBy: "boss", Comments: []github.ThreadComment{{ID: "C4", Body: "done", Author: "boss", Association: "MEMBER"}}},
		{Comments: []github.ThreadComment{{ID: "C5", Body: posts.Marker + " a report", Author: "bot"}}},
		// A reply on gh-ocdx's own thread is no thread finding: the next
		// round's reviewers are shown it.
		{Comments: []github.ThreadComment{{ID: "C6", Body: posts.Marker, Author: "bot"}, {ID: "C7", Body: "reply by a human", Author: "pal", Association: "NONE", Path: "c.go"}}},
		// A copy of the marker by someone else is a human thread.
		{Comments: []github.ThreadComment{{ID: "C8", Body: posts.Marker + " fake report", Author: "mallory", Association: "NONE", Path: "d.go"}}},
	}
	pr := &github.PullRequest{Threads: threads, Viewer: "bot"}
	fs, st := ThreadFindings(pr, posts.NewTrust(fakePerms{}, github.Repo{Owner: "o", Name: "r"}, nil).Resolution(context.Background(), pr))
	if st != (finding.ThreadStats{Total: 5, Resolved: 1, Unresolved: 4}) {
		t.Errorf("stats %+v", st)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.ID+" "+f.Priority+" "+f.File)
	}
	want := []string{"THREAD-C1 P0 a.go", "THREAD-C2 P1 (no-path)", "THREAD-C3 P0 b.go", "THREAD-C8 P1 d.go"}
	if !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
	if fs[0].Line == nil || *fs[0].Line != 7 || fs[1].Line != nil {
		t.Error("line must come from the comment, null when absent")
	}
	if d := fs[2].Description; len([]rune(d)) > 201 || strings.Contains(d, "ghp_") {
		t.Errorf("description must be cut at 200 characters and sanitised: %q", d)
	}
	if fs[0].Source == nil || fs[0].Source.Type != "human" || fs[0].Source.Name != "boss" || *fs[0].Source.ReviewID != "C1" {
		t.Errorf("source %+v", fs[0].Source)
	}
	for _, f := range fs {
		if err := f.Validate(); err != nil || !IsThread(f) {
			t.Errorf("%s: %v", f.ID, err)
		}
	}
}

func TestConsensus(t *testing.T) {
	changes := finding.ReviewState{HasChangesRequested: true}
	for _, tc := range []struct {
		st   finding.ReviewState
		c    finding.Counts
		want string
	}{
		{finding.ReviewState{}, finding.Counts{}, Approve},
		{finding.ReviewState{}, finding.Counts{P3: 4}, Approve},
		{finding.ReviewState{}, finding.Counts{P2: 1}, RequestChanges},
		{finding.ReviewState{}, finding.Counts{P1: 1, P2: 1}, RequestChanges},
		{finding.ReviewState{}, finding.Counts{P0: 1, P1: 1}, NeedsMajorWork},
		{changes, finding.Counts{}, RequestChanges},
		{changes, finding.Counts{P0: 2}, RequestChanges}, // a maintainer's change request comes first
	} {
		if got := Of(tc.st, tc.c); got != tc.want {
			t.Errorf("Of(%+v, %+v) = %s, want %s", tc.st, tc.c, got, tc.want)
		}
	}
}

func fnd(prio, cat, file string, line int, title string) finding.Finding {
	f := finding.Finding{Priority: prio, Category: cat, File: file, Title: title}
	if line > 0 {
		f.Line = &line
	}
	f.ID = f.ComputeID()
	return f
}

func TestSameFinding(t *testing.T) {
	base := fnd("P1", "quality", "a.go", 10, "Cache size is not bounded")
	for _, tc := range []struct {
		name string
		cur  finding.Finding
		want bool
	}{
		{"same ID", fnd("P1", "quality", "a.go", 10, "Cache size is not bounded"), true},
		{"moved and reworded", fnd("P2", "quality", "a.go", 13, "Cache size not bounded"), true},
		{"moved too far", fnd("P2", "quality", "a.go", 14, "Cache size not bounded"), false},
		{"same ID whatever the priority", fnd("P3", "quality", "a.go", 10, "Cache size is not bounded"), true},
		{"too far", fnd("P1", "quality", "a.go", 40, "Cache size is not bounded"), false},
		{"other file", fnd("P1", "quality", "b.go", 10, "Cache size is not bounded"), false},
		{"other category", fnd("P1", "security", "a.go", 10, "Cache size is not bounded"), false},
		{"other title", fnd("P1", "quality", "a.go", 11, "Lock is held during I/O"), false},
		{"line lost", fnd("P1", "quality", "a.go", 0, "Cache size is not bounded"), false},
	} {

		if got := SameFinding(base, tc.cur); got != tc.want {
			t.Errorf("%s: SameFinding = %t, want %t", tc.name, got, tc.want)
		}
	}
	// A finding a ledger located has no category: its ID's code stands
	// for it (a fix another verb or machine pushed is known so).
	located := base
	located.Category = ""
	if !SameFinding(located, fnd("P2", "quality", "a.go", 12, "Cache size not bounded")) {
		t.Error("a located finding moved by a fix is not matched")
	}
	if SameFinding(located, fnd("P2", "security", "a.go", 12, "Cache size not bounded")) {
		t.Error("a located finding matched another category")
	}
	noLine := fnd("P1", "docs", "README.md", 0, "Usage section is missing")
	if !SameFinding(noLine, fnd("P1", "docs", "README.md", 0, "The usage section is missing")) {
		t.Error("two findings without a line match by title")
	}
}

func TestStuck(t *testing.T) {
	fixed := []finding.Finding{fnd("P1", "quality", "a.go", 10, "Cache size is not bounded")}
	cur := []finding.Finding{
		fnd("P1", "quality", "a.go", 12, "Cache size not bounded"),
		fnd("P2", "testing", "a_test.go", 0, "No test for eviction"),
		{ID: "THREAD-X", Priority: "P1", Category: ThreadCategory, File: "a.go", Title: "Unresolved review thread"},
	}
	if got := Stuck(fixed, cur, nil); !slices.Equal(got, []string{cur[0].ID}) {
		t.Errorf("Stuck = %v, want [%s]", got, cur[0].ID)
	}
	if got := Stuck(nil, cur, nil); len(got) != 0 {
		t.Errorf("nothing fixed, nothing stuck: %v", got)
	}
	// A reviewer's verdict decides over the fuzzy match: resolved means a
	// similar new finding is new; still_present means stuck, reported again
	// or not.
	if got := Stuck(fixed, cur, Verdicts{fixed[0].ID: {Resolved: 1}}); len(got) != 0 {
		t.Errorf("resolved by the reviewers: Stuck = %v", got)
	}
	if got := Stuck(fixed, cur[1:], Verdicts{fixed[0].ID: {Still: 1, Resolved: 1}}); !slices.Equal(got, []string{fixed[0].ID}) {
		t.Errorf("still present for a reviewer: Stuck = %v", got)
	}
}

// The fuzzy match is tight: another subject in a title that shares most
// of its words is another finding.
func TestNilCheckOnUserIsNotStuckAfterNilCheckOnConfig(t *testing.T) {
	fixed := []finding.Finding{fnd("P1", "quality", "svc.go", 40, "Missing nil check on config")}
	cur := []finding.Finding{fnd("P1", "quality", "svc.go", 41, "Missing nil check on user")}
	if got := Stuck(fixed, cur, nil); len(got) != 0 {
		t.Errorf("Stuck = %v: a new finding would never be fixed", got)
	}
}

// Verdicts count each reviewer once per previous ID, and only IDs and
// verdicts gh-ocdx asked about.
func TestVerdictsOf(t *testing.T) {
	prev := []finding.Finding{fnd("P1", "quality", "a.go", 10, "Cache size is not bounded")}
	id := prev[0].ID
	results := []*finding.ReviewerResult{
		{Previous: []finding.Verdict{{ID: id, Verdict: "still_present"}, {ID: id, Verdict: "resolved"}, {ID: "SEC-00000000", Verdict: "still_present"}}},
		{Previous: []finding.Verdict{{ID: id, Verdict: "gone"}, {ID: id, Verdict: "resolved"}}},
		nil,
	}
	v := VerdictsOf(prev, results)
	if len(v) != 1 || v[id].Still != 1 || v[id].Resolved != 1 {
		t.Errorf("verdicts %+v", v)
	}
}

func TestIssuesToFix(t *testing.T) {
	fs := []finding.Finding{
		fnd("P3", "docs", "d.md", 0, "Typo"),
		fnd("P2", "quality", "a.go", 1, "Naming"),
		{ID: "THREAD-1", Priority: "P0", Category: ThreadCategory, File: "a.go", Title: "Unresolved review thread"},
		fnd("P0", "security", "s.go", 3, "Injection"),
		fnd("P1", "quality", "b.go", 2, "Leak"),
	}
	toFix, optional := IssuesToFix(fs, []string{fs[4].ID})
	var got []string
	for _, f := range toFix {
		got = append(got, f.Priority+" "+f.Title)
	}
	if !slices.Equal(got, []string{"P0 Injection", "P2 Naming"}) {
		t.Errorf("issuesToFix %v: want P0 then P2, without the thread and the stuck P1", got)
	}
	if len(optional) != 1 || optional[0].Title != "Typo" {
		t.Errorf("optional %v", optional)
	}
}

// One ID raised by several reviewers (or twice by one) is sent once, at
// the highest priority any of them gave it.
func TestIssuesToFixHoldsEachIDOnce(t *testing.T) {
	a, b, c := fnd("P2", "quality", "a.go", 1, "Naming"), fnd("P1", "quality", "a.go", 1, "Naming"), fnd("P3", "quality", "a.go", 1, "Naming")
	a.Source, b.Source, c.Source = &finding.Source{Name: "reviewer-1"}, &finding.Source{Name: "reviewer-2"}, &finding.Source{Name: "reviewer-2"}
	toFix, optional := IssuesToFix([]finding.Finding{a, b, a, c}, nil)
	if len(toFix) != 1 || toFix[0].Priority != "P1" || len(optional) != 0 {
		t.Errorf("issuesToFix %v, optional %v: want the ID once, as P1", toFix, optional)
	}
	if d := Distinct([]finding.Finding{a, b, a, c}, 2); len(d) != 1 || d[0].Priority != "P1" || d[0].Agreement != "2/2" {
		t.Errorf("distinct %+v: want one P1 raised by 2 of 2 reviewers", d)
	}
}

// A thread's finding is keyed by its first human comment's database id,
// which survives edits; the node id earlier ledgers and commands used for
// it still names it: a dismissal of THREAD-<node id> dismisses it.
func TestThreadIDsAndTheirOldNames(t *testing.T) {
	l := 3
	pr := &github.PullRequest{Viewer: "bot", Author: "author", Threads: []github.ReviewThread{
		{Comments: []github.ThreadComment{{ID: "PRRC_kwDOold", DatabaseID: "2001", Body: "why?", Author: "pal", Association: "NONE", Path: "a.go", Line: &l}}},
		{Comments: []github.ThreadComment{{ID: "PRRC_nodb", Body: "and this?", Author: "pal", Association: "NONE", Path: "b.go"}}},
	}}
	fs, _ := ThreadFindings(pr, posts.NewTrust(fakePerms{}, github.Repo{Owner: "o", Name: "r"}, nil).Resolution(context.Background(), pr))
	if len(fs) != 2 || fs[0].ID != "THREAD-2001" || fs[1].ID != "THREAD-PRRC_nodb" {
		t.Fatalf("thread IDs %+v", fs)
	}
	led := posts.Ledger{Run: "20260101T000000-abcdef", Round: 1, Head: "aaaaaaaa"}
	led.Set("THREAD-PRRC_kwDOold", finding.StatusDismissed, "")
	pr.Comments = []github.Comment{{Author: "bot", Body: posts.Marker + "\nreport\n" + led.Block(), URL: "https://x/c/1"},
		{Author: "maint", Body: "/ocdx dismiss THREAD-PRRC_kwDOold", URL: "https://x/c/2"}}
	trust := posts.NewTrust(fakePerms(map[string]github.Permission{"maint": github.PermWrite}), github.Repo{Owner: "o", Name: "r"}, nil)
	trust.Judge(context.Background(), pr)
	got, _, _, ok := trust.Ledger(context.Background(), pr)
	if !ok || fmt.Sprint(got.With(finding.StatusDismissed)) != "[THREAD-2001]" {
		t.Errorf("the old ledger's thread: %+v", got.Findings)
	}
	ds, refused, _ := trust.Dismissals(context.Background(), pr, posts.Ledger{})
	if len(ds) != 1 || ds[0].ID != "THREAD-2001" || ds[0].By != "maint" || len(refused) != 0 {
		t.Errorf("the old command's thread: %+v, refused %+v", ds, refused)
	}
}

// Resolving a person's thread clears its finding as a dismissal does
// (docs/architecture.md, Who may dismiss): it counts from the thread's
// author or from someone posts.MayOverrule allows; from anyone else, or from
// nobody GitHub names, the thread stays a finding that says who resolved
// it.
func TestThreadResolutionCountsOnlyFromWhomMayDismiss(t *testing.T) {
	perms := map[string]github.Permission{"carol": github.PermWrite, "mona": github.PermWrite, "pat": github.PermRead, "root": github.PermAdmin, "bot": github.PermWrite}
	for _, tc := range []struct {
		by, prAuthor string
		counts       bool
		why          string
	}{
		{"boss", "mona", true, ""},                 // the thread's author
		{"BOSS", "mona", true, ""},                 // logins ignore case
		{"carol", "mona", true, ""},                // write permission
		{"root", "root", true, ""},                 // the PR's author, an admin
		{"mona", "mona", false, "the PR's author"}, // the PR's author, write
		{"pat", "mona", false, "pat has read"},     // read
		{"ghost", "mona", false, "ghost has none"}, // unknown to the repository
		{"bot", "mona", true, ""},                  // gh-ocdx's login counts as its owner's permission
		{"", "mona", false, "GitHub does not say who resolved it"},
	} {
		pr := &github.PullRequest{Viewer: "bot", Author: tc.prAuthor, Threads: []github.ReviewThread{
			{IsResolved: true, ResolvedBy: tc.by, Comments: []github.ThreadComment{{ID: "C1", DatabaseID: "11", Body: "This must not ship.", Author: "boss", Association: "MEMBER", Path: "a.go"}}},
		}}
		trust := posts.NewTrust(fakePerms(perms), github.Repo{Owner: "o", Name: "r"}, nil)
		fs, st := ThreadFindings(pr, trust.Resolution(context.Background(), pr))
		if tc.counts {
			if len(fs) != 0 || st != (finding.ThreadStats{Total: 1, Resolved: 1}) {
				t.Errorf("resolved by %q: want it resolved, got %+v %+v", tc.by, fs, st)
			}
			continue
		}
		if len(fs) != 1 || st != (finding.ThreadStats{Total: 1, Unresolved: 1}) || fs[0].ID != "THREAD-11" || fs[0].Priority != "P0" {
			t.Errorf("resolved by %q: want the P0 thread finding, got %+v %+v", tc.by, fs, st)
			continue
		}
		if !strings.Contains(fs[0].Title, "which does not count") || !strings.Contains(fs[0].Title, tc.why) ||
			tc.by != "" && !strings.Contains(fs[0].Title, "resolved by "+tc.by+",") {
			t.Errorf("resolved by %q: the finding must say who resolved it and why that does not count: %q / %q", tc.by, fs[0].Title, fs[0].Description)
		}
	}
}

// fakePerms is the repository's permissions by login; anyone else has none.
type fakePerms map[string]github.Permission

func (p fakePerms) Permission(_ context.Context, _ github.Repo, login string) (github.Permission, error) {
	if v, ok := p[login]; ok {
		return v, nil
	}
	return github.PermNone, nil
}
