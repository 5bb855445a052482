package inline

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/posts"
)

// A P3 goes on its line only when the configuration lists P3 and two
// reviewers raised it; by default it stays in the review's body.
func TestChooseFollowsThePriorities(t *testing.T) {
	lines := github.ParseDiffLines("diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,2 +1,4 @@\n package a\n+var x = 1\n+var y = 2\n+var z = 3\n")
	p1, p3, lone := bug, bug, bug
	p1.Line, p3.Line, lone.Line = intp(2), intp(3), intp(4)
	p3.Priority, p3.Title, p3.Reviewers = "P3", "Name y better", []string{"openai/a", "anthropic/b"}
	lone.Priority, lone.Title, lone.Reviewers = "P3", "Name z better", []string{"openai/a"}
	p1.ID, p3.ID, lone.ID = p1.ComputeID(), p3.ComputeID(), lone.ComputeID()
	pr := &github.PullRequest{}
	for _, tc := range []struct {
		priorities []string
		want       int
	}{{nil, 1}, {[]string{"P0", "P1", "P2", "P3"}, 2}, {[]string{}, 0}} {
		in := Choose(pr, lines, []finding.Finding{p1, p3, lone}, Policy{Priorities: tc.priorities})
		if len(in.Comments) != tc.want || len(in.Held) != 3-tc.want || in.OverBudget != 0 {
			t.Errorf("priorities %v: %d inline comment(s) %+v, %d held, want %d inline", tc.priorities, len(in.Comments), in.Comments, len(in.Held), tc.want)
		}
	}
}

// The budget keeps the most severe findings, then the most agreed, then
// the smallest ID, whatever order the reviewers answered in; the rest go
// to the body, in the same order.
func TestSelectBudgetAndOrder(t *testing.T) {
	mk := func(id, p string, n int) finding.Finding {
		return finding.Finding{ID: id, Priority: p, File: "a.go", Line: intp(1), Reviewers: []string{"m1", "m2", "m3"}[:n]}
	}
	fs := []finding.Finding{
		mk("QUAL-00000005", "P2", 1), mk("BUG-00000004", "P2", 3), mk("BUG-00000003", "P1", 1), mk("SEC-00000002", "P0", 0),
		mk("QUAL-00000001", "P2", 1), mk("PERF-00000006", "P3", 3), mk("PERF-00000007", "P3", 1),
		{ID: "THREAD-9", Priority: "P1", Category: consensus.ThreadCategory, File: "a.go"},
	}
	ids := func(fs []finding.Finding) string {
		var s []string
		for _, f := range fs {
			s = append(s, f.ID)
		}
		return strings.Join(s, " ")
	}
	all := []string{"P0", "P1", "P2", "P3"}
	for _, tc := range []struct {
		p            Policy
		inline, body string
	}{
		{Policy{Max: 3}, "SEC-00000002 BUG-00000003 BUG-00000004", "QUAL-00000001 QUAL-00000005 PERF-00000006 PERF-00000007"},
		{Policy{Priorities: all, Max: 10}, "SEC-00000002 BUG-00000003 BUG-00000004 QUAL-00000001 QUAL-00000005 PERF-00000006", "PERF-00000007"},
		{Policy{Priorities: all, Max: 5}, "SEC-00000002 BUG-00000003 BUG-00000004 QUAL-00000001 QUAL-00000005", "PERF-00000006 PERF-00000007"},
		{Policy{Priorities: []string{"P2"}}, "BUG-00000004 QUAL-00000001 QUAL-00000005", "SEC-00000002 BUG-00000003 PERF-00000006 PERF-00000007"},
	} {
		in, body := Select(fs, tc.p)
		if ids(in) != tc.inline || ids(body) != tc.body {
			t.Errorf("%+v: inline %q body %q, want %q and %q", tc.p, ids(in), ids(body), tc.inline, tc.body)
		}
		rev := slices.Clone(fs)
		slices.Reverse(rev)
		if in2, body2 := Select(rev, tc.p); ids(in2) != ids(in) || ids(body2) != ids(body) {
			t.Errorf("%+v: the reviewers' order changed the selection: %q %q", tc.p, ids(in2), ids(body2))
		}
	}
	// Without a budget, the default of 10 applies.
	var many []finding.Finding
	for i := range 12 {
		many = append(many, mk(fmt.Sprintf("BUG-%08d", i), "P1", 1))
	}
	if in, body := Select(many, Policy{}); len(in) != 10 || len(body) != 2 || body[0].ID != "BUG-00000010" {
		t.Errorf("default budget: %d inline, body %q", len(in), ids(body))
	}
}

// Off the diff or already in an open thread costs no comment of the
// budget; a re-run posts nothing new for a finding whose thread is open.
func TestChooseBudgetCountsOnlyNewComments(t *testing.T) {
	lines := github.ParseDiffLines("diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,4 @@\n package a\n+var x = 1\n+var y = 2\n+var z = 3\n")
	var fs []finding.Finding
	for i, title := range []string{"x is wrong", "y is wrong", "z is wrong", "README is wrong"} {
		f := bug
		f.Title, f.Line = title, intp(i+2)
		if i == 3 {
			f.File, f.Line = "README.md", intp(1)
		}
		f.ID = f.ComputeID()
		fs = append(fs, f)
	}
	pr := &github.PullRequest{Viewer: "ocdx-bot", Threads: []github.ReviewThread{{ID: "T1", Path: "a.go", Comments: []github.ThreadComment{
		{ID: "C1", Author: "ocdx-bot", Body: Body(fs[0]), Path: "a.go", Line: intp(2), URL: "https://x/pull/5#discussion_r1"}}}}}
	in := Choose(pr, lines, fs, Policy{Max: 2})
	if len(in.Comments) != 2 || in.Comments[0].Line != 3 || in.Comments[1].Line != 4 {
		t.Errorf("comments %+v, want y and z (x has its thread)", in.Comments)
	}
	if len(in.Open) != 1 || in.Open[0].ID != fs[0].ID || len(in.OffDiff) != 1 || len(in.Held) != 0 {
		t.Errorf("open %+v, off the diff %d, held %d", in.Open, len(in.OffDiff), len(in.Held))
	}
}

// A thread of gh-ocdx's that someone resolved still carries its finding:
// raised again, it gets no second thread (a run killed after posting, then
// a fresh runner, would post one), and no update in the resolved thread.
func TestChoosePostsNoSecondThreadAfterAResolvedOne(t *testing.T) {
	lines := github.ParseDiffLines("diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,2 @@\n package a\n+var x = 1\n")
	f := bug
	f.Line, f.Priority, f.Agreement = intp(2), "P2", "1/2"
	f.ID = f.ComputeID()
	pr := &github.PullRequest{Viewer: "ocdx-bot", Threads: []github.ReviewThread{{ID: "T1", Path: "a.go", IsResolved: true, Comments: []github.ThreadComment{
		{ID: "C1", Author: "ocdx-bot", Body: Body(f), Path: "a.go", Line: intp(2), URL: "https://x/pull/5#discussion_r1"}}}}}
	now := f
	now.Priority = "P1"
	in := Choose(pr, lines, []finding.Finding{now}, Policy{})
	if len(in.Comments) != 0 || len(in.Open) != 1 || in.Open[0].URL != "https://x/pull/5#discussion_r1" || len(in.Updates) != 0 {
		t.Errorf("comments %+v, linked %+v, updates %+v: want the resolved thread linked, nothing posted", in.Comments, in.Open, in.Updates)
	}
}

func intp(n int) *int { return &n }

// An open thread gets a reply when its finding changed since the thread
// last said (another priority, more reviewers), once; fewer reviewers (one
// may have failed) and threads that never said get none.
func TestChooseRepliesWhenAFindingChanged(t *testing.T) {
	lines := github.ParseDiffLines("diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,2 @@\n package a\n+var x = 1\n")
	was := bug
	was.Line, was.Priority, was.Reviewers, was.Agreement = intp(2), "P2", []string{"openai/a"}, "1/2"
	was.ID = was.ComputeID()
	thread := func(first string, more ...string) *github.PullRequest {
		cs := []github.ThreadComment{{ID: "C1", Author: "ocdx-bot", Body: first, Path: "a.go", Line: intp(2), URL: "https://x/pull/5#discussion_r1"}}
		for _, b := range more {
			cs = append(cs, github.ThreadComment{Author: "ocdx-bot", Body: b})
		}
		return &github.PullRequest{Viewer: "ocdx-bot", Threads: []github.ReviewThread{{ID: "T1", Path: "a.go", Comments: cs}}}
	}
	now := was
	now.Priority, now.Reviewers, now.Agreement = "P1", []string{"openai/a", "anthropic/b"}, "2/2"
	fewer := was
	fewer.Agreement = "1/1"
	old := posts.Marker + "\n" + "<!-- ocdx:finding=" + was.ID + " category=quality title=Leak -->"
	for _, tc := range []struct {
		name string
		pr   *github.PullRequest
		f    finding.Finding
		want string
	}{
		{"changed", thread(Body(was)), now, "Still raised, now **P1** (was P2); raised by 2/2 reviewers (openai/a, anthropic/b)."},
		{"unchanged", thread(Body(was)), was, ""},
		{"fewer reviewers", thread(Body(was)), fewer, ""},
		{"already said", thread(Body(was), posts.Marker+"\n"+posts.UpdateTag(now)), now, ""},
		{"a thread that never said", thread(old), now, ""},
	} {
		in := Choose(tc.pr, lines, []finding.Finding{tc.f}, Policy{})
		if len(in.Comments) != 0 || len(in.Open) != 1 {
			t.Errorf("%s: comments %+v, open %+v: the thread carries the finding", tc.name, in.Comments, in.Open)
		}
		switch {
		case tc.want == "" && len(in.Updates) != 0:
			t.Errorf("%s: replies %+v, want none", tc.name, in.Updates)
		case tc.want != "" && (len(in.Updates) != 1 || !strings.Contains(in.Updates[0].Body, tc.want) || !in.Updates[0].Open || in.Updates[0].ThreadID != "T1"):
			t.Errorf("%s: replies %+v, want one in T1 saying %q, leaving it open", tc.name, in.Updates, tc.want)
		}
	}
}

// A reviewer's replacement that holds an HTML comment or a gh-ocdx tag is
// not posted as a suggestion: it could pass for gh-ocdx's own markup.
func TestAReplacementWithMarkupIsNoSuggestion(t *testing.T) {
	marked := "x := 1 <!-- ocdx:finding=QUAL-00000000 category=x title=y -->"
	f := finding.Finding{ID: "QUAL-1b2c3d4e", Priority: "P2", File: "a.go", Line: intp(2), Title: "t", Replacement: &marked}
	if body := Body(f); strings.Contains(body, "suggestion") || strings.Contains(body, "QUAL-00000000") {
		t.Errorf("the replacement was posted:\n%s", body)
	}
	clean := "x := 1"
	f.Replacement = &clean
	if body := Body(f); !strings.Contains(body, "```suggestion\nx := 1\n```") {
		t.Errorf("a clean replacement is a suggestion:\n%s", body)
	}
}

// gh-ocdx resolves its thread of a finding the ledger says is fixed (by
// any earlier round or run) or resolved, once a review no longer raises
// it; an open, stuck, disputed or dismissed finding's thread, one the
// review raises again, one already resolved, and one a person opened again
// after gh-ocdx closed it are left alone.
func TestResolutionsFollowTheLedger(t *testing.T) {
	sha := strings.Repeat("ab", 20)
	ids := []string{"QUAL-00000001", "QUAL-00000002", "QUAL-00000003", "QUAL-00000004", "QUAL-00000005", "QUAL-00000006", "QUAL-00000007"}
	led := posts.Ledger{Run: "r", Round: 1, Head: "h"}
	for i, st := range []finding.Status{finding.StatusFixed, finding.StatusResolved, finding.StatusOpen, finding.StatusStuck, finding.StatusDisputed, finding.StatusDismissed, finding.StatusFixed} {
		led.Set(ids[i], st, sha)
	}
	pr := &github.PullRequest{Viewer: "bot"}
	for i, id := range ids {
		f := finding.Finding{ID: id, Priority: "P1", Category: "quality", File: "a.go", Line: intp(i + 1), Title: fmt.Sprintf("Problem %d", i)}
		pr.Threads = append(pr.Threads, github.ReviewThread{ID: fmt.Sprintf("T%d", i), Comments: []github.ThreadComment{{Body: Body(f), Author: "bot", Path: "a.go", Line: intp(i + 1)}}})
	}
	pr.Threads = append(pr.Threads, github.ReviewThread{ID: "T-done", IsResolved: true, Comments: pr.Threads[0].Comments})
	// Closed once already, then opened again by a person: theirs now.
	reopened := slices.Clone(pr.Threads[1].Comments)
	reopened = append(reopened, github.ThreadComment{Author: "bot", Body: posts.Marker + "\n" + posts.FixedTag(ids[1]) + "\nResolved."})
	pr.Threads = append(pr.Threads, github.ReviewThread{ID: "T-reopened", Comments: reopened})
	current := []finding.Finding{{ID: ids[6], Priority: "P1", Category: "quality", File: "a.go", Line: intp(7), Title: "Problem 6"}}

	got := Resolutions(pr, led, current, strings.Repeat("cd", 20))

	var threads []string
	for _, r := range got {
		_, say, _ := strings.Cut(strings.TrimPrefix(r.Body, posts.Marker+"\n"), "\n")
		threads = append(threads, r.ThreadID+": "+say)
	}
	want := []string{"T0: Fixed in " + sha + ".", "T1: Resolved: the review of cdcdcdc no longer raises it."}
	if !slices.Equal(threads, want) {
		t.Errorf("resolutions %q, want %q", threads, want)
	}
}

// bug is a reviewer's P1 finding with no place yet.
var bug = finding.Finding{Priority: "P1", Category: "quality", File: "a.go", Title: "Leak", Description: "d"}

// a.go's diff: line 10 of the base removed, lines 10–12 of the PR's
// version added in its place.
const rewrite = `diff --git a/a.go b/a.go
--- a/a.go
+++ b/a.go
@@ -9,2 +9,4 @@
 package a
-old line
+new 10
+new 11
+new 12
`

// A finding is anchored only on lines the PR's diff shows: a range that
// leaves the diff falls back to its first line, without the replacement
// written for the whole range; a suggestion only ever replaces lines of the
// PR's version; a line off the diff is no comment at all.
func TestAnchorOnlyOnTheDiff(t *testing.T) {
	lines := diff.IndexOf([]byte(rewrite))
	f := bug
	f.ID, f.Line, f.EndLine, f.Replacement = "QUAL-00000001", new(10), new(11), new("fixed 10\nfixed 11")
	c, ok := anchor(lines, f)
	if !ok || c.StartLine != 10 || c.Line != 11 || c.Side != diff.Right || !strings.Contains(c.Body, "```suggestion") {
		t.Errorf("a range on the diff: %+v, %v", c, ok)
	}
	f.Line, f.EndLine = new(12), new(20)
	c, ok = anchor(lines, f)
	if !ok || c.StartLine != 0 || c.Line != 12 || strings.Contains(c.Body, "suggestion") {
		t.Errorf("a range leaving the diff: %+v, %v; want line 12 alone, no suggestion", c, ok)
	}
	f.Line, f.EndLine, f.Side = new(10), nil, "LEFT"
	c, ok = anchor(lines, f)
	if !ok || c.Side != diff.Left || strings.Contains(c.Body, "suggestion") {
		t.Errorf("a removed line: %+v, %v; want LEFT, no suggestion", c, ok)
	}
	f.Line, f.Side = new(40), ""
	if c, ok := anchor(lines, f); ok {
		t.Errorf("a line off the diff was anchored: %+v", c)
	}
	f.Line = nil
	if _, ok := anchor(lines, f); ok {
		t.Error("a finding without a line was anchored")
	}
}
