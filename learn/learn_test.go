package learn

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/learnings"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/stats"
)

// perms are the fake's permissions: mona writes, rita reads, the author
// (octocat) is an admin.
type perms map[string]github.Permission

func (p perms) Permission(_ context.Context, login string) (github.Permission, error) {
	if v, ok := p[login]; ok {
		return v, nil
	}
	return github.PermNone, nil
}

var team = perms{"mona": github.PermWrite, "rita": github.PermRead, "octocat": github.PermAdmin}

func entry(id string, st finding.Status, file, title string) posts.LedgerEntry {
	return posts.LedgerEntry{ID: id, Status: st, Where: posts.Where{Priority: "P2", File: file, Line: 1, Title: title}}
}

func dismissed(id, by, why, file, title string) posts.LedgerEntry {
	e := entry(id, finding.StatusDismissed, file, title)
	e.DismissedBy, e.Reason = by, why
	return e
}

func pr(n int, es ...posts.LedgerEntry) stats.ReviewedPR {
	return stats.ReviewedPR{Number: n, Author: "octocat", Ledger: &posts.Ledger{V: 3, Findings: es}}
}

func learnOf(t *testing.T, prs []stats.ReviewedPR, file string) (Report, string) {
	t.Helper()
	r, out, err := Learn(context.Background(), Options{Repository: "octo/widgets", PRs: prs, Perms: team, File: file})
	if err != nil {
		t.Fatal(err)
	}
	return r, out
}

// A history: generated code under gen/ dismissed on three PRs, a naming
// finding in cache/ dismissed on two where a nil check in cache/ was
// fixed, and noise that must teach nothing.
func history() []stats.ReviewedPR {
	return []stats.ReviewedPR{
		pr(1, dismissed("PERF-00000001", "mona", "generated file", "gen/api/a.go", "Allocation in a loop"),
			entry("QUAL-00000002", finding.StatusFixed, "cache/cache.go", "Missing nil check")),
		pr(2, dismissed("PERF-00000003", "mona", "generated file", "gen/db/b.go", "Slow copy"),
			dismissed("QUAL-00000004", "mona", "we name it so", "cache/lru.go", "Confusing naming of the map")),
		pr(3, entry("PERF-00000005", finding.StatusRefuted, "gen/api/c.go", "Allocation in a loop"),
			dismissed("QUAL-00000006", "mona", "", "cache/cache.go", "Confusing naming of the key")),
		pr(4, dismissed("PERF-00000007", "mona", "vendored", "gen/api/a.go", "Allocation again"),
			// Noise: the author's own, a reader's, a SEC- and a P0 finding.
			dismissed("DOCS-00000008", "octocat", "", "docs/a.md", "Typo"),
			dismissed("DOCS-00000009", "rita", "", "docs/b.md", "Typo"),
			dismissed("SEC-0000000a", "mona", "", "gen/api/a.go", "Token"),
			posts.LedgerEntry{ID: "PERF-0000000b", Status: finding.StatusDismissed, DismissedBy: "mona", Where: posts.Where{Priority: "P0", File: "gen/x.go", Title: "Allocation"}}),
		pr(5, dismissed("DOCS-0000000c", "octocat", "", "docs/c.md", "Typo")),
	}
}

// The same decisions, in any order, give the same file byte for byte:
// the PERF learning (3 PRs: leave out) and the QUAL one narrowed to
// "naming" (a nil check in cache/ was fixed; 2 PRs: lower to P3).
func TestLearnIsDeterministic(t *testing.T) {
	r, file := learnOf(t, history(), "")
	if len(r.Proposed) != 2 {
		t.Fatalf("proposed %+v", r.Proposed)
	}
	perf, qual := r.Proposed[0].Rule, r.Proposed[1].Rule
	wantPerf := learnings.Rule{Category: "PERF", Path: "gen/**", Action: learnings.LeaveOut, Reasons: []string{"generated file", "vendored"}, PRs: []int{1, 2, 3, 4}}
	wantQual := learnings.Rule{Category: "QUAL", Path: "cache/**", Terms: []string{"confusing"}, Action: learnings.Lower, To: "P3", Reasons: []string{"we name it so"}, PRs: []int{2, 3}}
	if !reflect.DeepEqual(perf, wantPerf) || !reflect.DeepEqual(qual, wantQual) {
		t.Errorf("rules\n%+v\n%+v\nwant\n%+v\n%+v", perf, qual, wantPerf, wantQual)
	}
	if r.Ignored != (Ignored{Author: 2, NoWrite: 1}) {
		t.Errorf("ignored %+v, want 2 by the author and 1 by a reader", r.Ignored)
	}
	for i := range 20 {
		prs := history()
		rand.New(rand.NewPCG(uint64(i), 1)).Shuffle(len(prs), func(a, b int) { prs[a], prs[b] = prs[b], prs[a] })
		for _, p := range prs {
			rand.New(rand.NewPCG(uint64(i), 2)).Shuffle(len(p.Ledger.Findings), func(a, b int) {
				p.Ledger.Findings[a], p.Ledger.Findings[b] = p.Ledger.Findings[b], p.Ledger.Findings[a]
			})
		}
		if _, again := learnOf(t, prs, ""); again != file {
			t.Fatalf("order %d gives another file:\n%s\nthen\n%s", i, file, again)
		}
	}
	// The file is reviewable text: each learning says what it is about
	// and what it rests on; its rule reads back.
	for _, want := range []string{"## Leave out performance findings in `gen/**`\n\nDo not raise performance findings in `gen/**`: maintainers dismissed 3 such findings (“generated file”; “vendored”) and the verifier refuted 1 more, on 4 pull requests.\n\nRests on #1, #2, #3 and #4.\n",
		"## Lower quality findings in `cache/**` whose title says “confusing” to P3\n"} {
		if !strings.Contains(file, want) {
			t.Errorf("the file lacks %q:\n%s", want, file)
		}
	}
	if ls, ws := learnings.Parse(file); len(ls) != 2 || len(ws) > 0 || !reflect.DeepEqual(ls, r.Proposed) {
		t.Errorf("the file reads back %+v %v", ls, ws)
	}
}

// Below the threshold nothing is proposed; a learning the file holds is
// not proposed again, and the file's text is kept as it was.
func TestLearnThresholdAndExistingLearnings(t *testing.T) {
	one := []stats.ReviewedPR{pr(1, dismissed("PERF-00000001", "mona", "", "gen/a.go", "Slow"), dismissed("PERF-00000002", "mona", "", "gen/b.go", "Slow"))}
	if r, _ := learnOf(t, one, ""); len(r.Proposed) != 0 || r.Diff != "" {
		t.Errorf("two decisions on one PR proposed %+v", r.Proposed)
	}
	refutedOnly := []stats.ReviewedPR{pr(1, entry("PERF-00000001", finding.StatusRefuted, "gen/a.go", "Slow")), pr(2, entry("PERF-00000002", finding.StatusRefuted, "gen/a.go", "Slow"))}
	if r, _ := learnOf(t, refutedOnly, ""); len(r.Proposed) != 0 {
		t.Errorf("the verifier's word alone proposed %+v", r.Proposed)
	}
	restored := history()
	restored[4].Ledger.Findings = append(restored[4].Ledger.Findings, posts.LedgerEntry{ID: "PERF-0000000d", Status: finding.StatusOpen, Restored: true, Where: posts.Where{Priority: "P2", File: "gen/api/z.go", Title: "Hot"}})
	// Restored under gen/, PERF's rule is narrowed to a word its titles
	// share that the restored one's does not.
	if r, _ := learnOf(t, restored, ""); len(r.Proposed) != 2 || !reflect.DeepEqual(r.Proposed[0].Rule.Terms, []string{"allocation"}) {
		t.Errorf("a finding restored under gen/: proposed %+v, want PERF's rule narrowed to allocation", r.Proposed)
	}
	_, file := learnOf(t, history(), "")
	r2, file2 := learnOf(t, history(), file)
	if len(r2.Existing) != 2 || len(r2.Proposed) != 0 || file2 != file || r2.Diff != "" {
		t.Errorf("the file's own learnings proposed again: %+v", r2.Proposed)
	}
	edited := "# Ours\n\nKept as written.\n"
	_, file3 := learnOf(t, history(), edited)
	if !strings.HasPrefix(file3, edited+"\n## ") || len(file3) != len(edited)+len(file)-len(learnings.Header) {
		t.Errorf("the existing text is not kept whole, the learnings after it:\n%s", file3)
	}
}

// A permission that cannot be read stops learn rather than counting a
// dismissal it could not judge.
func TestLearnStopsOnAnUnreadablePermission(t *testing.T) {
	_, _, err := Collect(context.Background(), history(), failing{})
	if err == nil {
		t.Fatal("no error")
	}
}

type failing struct{}

func (failing) Permission(context.Context, string) (github.Permission, error) {
	return "", fmt.Errorf("502")
}

func conceded(id, to, file, title string) posts.LedgerEntry {
	e := entry(id, finding.StatusDisputed, file, title)
	e.ConcededTo = to
	return e
}

// A concession counts as its replier's decision when they have write
// permission and are not the PR's author: with a dismissal it proposes a
// learning; the author's, a reader's and one whose ledger names nobody
// teach nothing, and are counted as dismissals are.
func TestLearnCountsAConcessionToAWritersReply(t *testing.T) {
	prs := []stats.ReviewedPR{
		pr(1, conceded("PERF-00000001", "mona", "gen/a.go", "Slow copy")),
		pr(2, dismissed("PERF-00000002", "mona", "generated file", "gen/b.go", "Slow copy")),
		pr(3, conceded("PERF-00000003", "octocat", "gen/c.go", "Slow copy")),
		pr(4, conceded("PERF-00000004", "rita", "gen/d.go", "Slow copy")),
		pr(5, entry("PERF-00000005", finding.StatusDisputed, "gen/e.go", "Slow copy")),
	}
	r, file := learnOf(t, prs, "")
	if r.Decisions[Conceded] != 1 || r.Decisions[Dismissed] != 1 || r.Ignored != (Ignored{Author: 1, NoWrite: 1, Unnamed: 1}) {
		t.Errorf("decisions %v, ignored %+v; want mona's concession and dismissal, the author's, a reader's and an unnamed concession ignored", r.Decisions, r.Ignored)
	}
	want := learnings.Rule{Category: "PERF", Path: "gen/**", Action: learnings.Lower, To: "P3", Reasons: []string{"generated file"}, PRs: []int{1, 2}}
	if len(r.Proposed) != 1 || !reflect.DeepEqual(r.Proposed[0].Rule, want) {
		t.Fatalf("proposed %+v, want %+v", r.Proposed, want)
	}
	if s := "maintainers dismissed 1 such finding (“generated file”), gh-ocdx conceded 1 more to their replies on 2 pull requests."; !strings.Contains(file, s) {
		t.Errorf("the file lacks %q:\n%s", s, file)
	}

	// Concessions alone, to a writer on two PRs, are people's decisions;
	// to the author on two, nothing.
	mine := []stats.ReviewedPR{pr(1, conceded("PERF-00000001", "mona", "gen/a.go", "Slow")), pr(2, conceded("PERF-00000002", "mona", "gen/b.go", "Slow"))}
	if r, file := learnOf(t, mine, ""); len(r.Proposed) != 1 || !strings.Contains(file, "gh-ocdx conceded 2 such findings to maintainers' replies on 2 pull requests.") {
		t.Errorf("a writer's concessions on two PRs proposed %+v:\n%s", r.Proposed, file)
	}
	for _, p := range mine {
		for i := range p.Ledger.Findings {
			p.Ledger.Findings[i].ConcededTo = "octocat"
		}
	}
	if r, _ := learnOf(t, mine, ""); len(r.Proposed) != 0 || r.Ignored.Author != 2 {
		t.Errorf("the author's concessions proposed %+v, ignored %+v", r.Proposed, r.Ignored)
	}
}

// A directory named by a PR's files is the learning's path: a backtick or
// gh-ocdx's marker in it stays inside one code span, in the sentence as in
// the title, so a file name cannot write markup into the learnings file.
func TestALearningsPathStaysInItsCodeSpan(t *testing.T) {
	sup := []Decision{
		{PR: 1, ID: "PERF-1", Kind: Dismissed, By: "mona", Reason: "generated"},
		{PR: 2, ID: "PERF-2", Kind: Dismissed, By: "mona", Reason: "generated"},
	}
	l := learning(learnings.Rule{Category: "PERF", Path: "gen`x <!-- ocdx:learning/**"}, sup)
	for _, s := range []string{l.Title, l.Sentence} {
		if !strings.Contains(s, "``gen`x") || strings.Contains(s, "<!-- ocdx") {
			t.Errorf("the path left its code span or kept the marker: %q", s)
		}
	}
}
