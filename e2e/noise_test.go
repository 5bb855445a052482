package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// twelveFindings are 3 P1 and 9 P2 findings on the PR's changed lines of
// cache.go, every one a different problem.
func twelveFindings() []modelFinding {
	var fs []modelFinding
	for i := range 12 {
		p := "P2"
		if i < 3 {
			p = "P1"
		}
		fs = append(fs, modelFinding{Priority: p, Category: "quality", File: "cache.go", Line: line(3 + 2*(i%2)),
			Title: fmt.Sprintf("Problem %s of the cache", strings.Repeat("x", i+1))})
	}
	return fs
}

// A round with more findings than the budget posts 10 inline comments:
// the P1s, then the P2s both reviewers raised, then by ID; the other two
// are written out in the review's body, which lists each commented
// finding in one line.
func TestLoopNoiseBudgetPostsTenInline(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	fs := twelveFindings()
	agreed := []modelFinding{fs[10], fs[11]} // P2s both reviewers raise
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "request_changes", fs...))
	lf.fm.Script("rev-b", reviewerReply("reviewer-2", "request_changes", agreed...))
	lf.fm.Script("analyzer", analyzerReply())
	lf.approveRound()

	res := lf.run("--yes")

	wantCode(t, res, 0)
	reviews := lf.gh.Reviews(repo, lf.number)
	if len(reviews) != 2 {
		t.Fatalf("%d reviews, want one per round", len(reviews))
	}
	body, comments := reviews[0].Body, reviews[0].Comments
	if len(comments) != 10 {
		t.Fatalf("%d inline comments, want the budget of 10", len(comments))
	}
	// The lone P2s by ID: the two largest are the ones held back.
	var lone []string
	for _, f := range fs[3:10] {
		lone = append(lone, f.id())
	}
	slices.Sort(lone)
	held := lone[5:]
	for _, f := range fs {
		id := f.id()
		onLine := slices.ContainsFunc(comments, func(c testkit.PostedReviewComment) bool { return strings.Contains(c.Body, id) })
		if onLine == slices.Contains(held, id) {
			t.Errorf("%s %s: on its line %v, want %v", f.Priority, id, onLine, !onLine)
		}
		if n := strings.Count(body, "`"+id+"`"); n != 1 {
			t.Errorf("the body lists %s %d times, want once", id, n)
		}
		details := "details of " + f.Title
		if slices.Contains(held, id) != strings.Contains(body, details) {
			t.Errorf("the body writes out %s: %v, want only the findings not on a line", id, strings.Contains(body, details))
		}
	}
	for _, f := range agreed {
		if c := commentOf(comments, f.id()); !strings.Contains(c, "2/2 reviewers (openai/rev-a, anthropic/rev-b)") {
			t.Errorf("the comment of %s does not say who raised it:\n%s", f.id(), c)
		}
	}
	wantContains(t, "round 1's body", body, "P1 — critical (3)", "P2 — important (9)",
		"10 findings are commented on their lines", "2 findings are written out here instead of on their lines: over this round's budget of 10 inline comments")
}

func commentOf(cs []testkit.PostedReviewComment, id string) string {
	for _, c := range cs {
		if strings.Contains(c.Body, id) {
			return c.Body
		}
	}
	return ""
}

// A repository tunes the budget in its base branch's .ocdx.json, over the
// user's configuration; the PR's head cannot.
func TestLoopNoiseBudgetFromTheRepository(t *testing.T) {
	t.Parallel()
	r := testkit.NewRepo(t, "main", "feature/cache",
		map[string]string{".ocdx.json": `{"maxInlineComments": 2}`, "README.md": "# widgets\n", "cache.go": "package cache\n"},
		// The PR's own copy cannot raise the budget: its author controls it.
		map[string]string{"cache.go": "package cache\n\nvar Size = 10\n\nfunc Get(k string) string { return k }\n", ".ocdx.json": `{"maxInlineComments": 12}`})
	gh, fm, env := testkit.NewGitHub(t), testkit.NewFakeModel(t), testkit.NewEnv(t)
	gh.AddPR(repo, testkit.PR{Number: 40, Title: "Add a cache", Body: "Adds one.", Author: "mona",
		HeadRef: r.Head, BaseRef: r.Base, Remote: r.Remote, Diff: r.Diff(t)})
	gh.Configure(env, repo)
	fm.Configure(env)
	env.Dir = r.Clone
	env.WriteConfig(t, `{
  "reviewerModels": ["openai/rev-a"],
  "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "openai/fixer",
  "maxInlineComments": 5,
  "verify": ["true"]
}`)
	fm.Script("rev-a", reviewerReply("reviewer-1", "request_changes", twelveFindings()...))
	fm.Script("analyzer", analyzerReply())

	res := env.Run(t, "review-loop", "40", "--dry-run")

	wantCode(t, res, 0)
	if n := strings.Count(res.Stdout, "### cache.go:"); n != 2 {
		t.Errorf("%d inline comments would be posted, want the repository's 2:\n%s", n, res.Stdout)
	}
	wantContains(t, "stdout", res.Stdout, "10 findings are written out here instead of on their lines: over this round's budget of 2 inline comments")
}

// A re-run on a PR that already has gh-ocdx's open thread for a finding
// posts no second comment for it: the body links the thread, and the
// thread gets a reply because now both reviewers raise it.
func TestLoopReRunDoesNotCommentTwice(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, func(pr *testkit.PR) { pr.Permission = "READ" }) // review only: one round, the thread stays open
	lf.findingRound(cacheBug)
	wantCode(t, lf.run("--yes"), 3)
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "request_changes", cacheBug))
	lf.fm.Script("rev-b", reviewerReply("reviewer-2", "request_changes", cacheBug))
	lf.fm.Script("analyzer", analyzerReply())

	res := lf.run("--yes", "--full", "--json", "remaining")

	wantCode(t, res, 3)
	// --json and state show say who raised it.
	wantContains(t, "--json", res.Stdout, `"reviewers": [`, `"openai/rev-a"`, `"anthropic/rev-b"`, `"agreement": "2/2"`)
	show := lf.env.Run(t, "state", "show", "--pr", fmt.Sprint(loopPR))
	wantCode(t, show, 0)
	wantContains(t, "state show", show.Stdout, cacheBug.id()+": P1 Cache size is not bounded · 2/2 reviewers (openai/rev-a, anthropic/rev-b)")
	reviews := lf.gh.Reviews(repo, lf.number)
	if len(reviews) != 2 {
		t.Fatalf("%d reviews, want one per run", len(reviews))
	}
	if len(reviews[0].Comments) != 1 || len(reviews[1].Comments) != 0 {
		t.Errorf("inline comments per run: %d then %d, want 1 then 0", len(reviews[0].Comments), len(reviews[1].Comments))
	}
	threads := lf.gh.Threads(repo, lf.number)
	if len(threads) != 1 || threads[0].Resolved {
		t.Fatalf("threads %+v, want the one open thread", threads)
	}
	if c := threads[0].Comments; len(c) != 2 || !strings.Contains(c[1].Body, "Still raised; raised by 2/2 reviewers (openai/rev-a, anthropic/rev-b).") {
		t.Errorf("the thread's comments %+v, want one reply saying both reviewers raise it now", c)
	}
	body := reviews[1].Body
	wantContains(t, "the re-run's body", body, "1 finding already has its thread", "Cache size is not bounded · [`cache.go:3`](", fmt.Sprintf("/%s/pull/%d", repo, loopPR))
	if strings.Contains(body, "details of "+cacheBug.Title) {
		t.Errorf("the re-run's body writes out a finding that is on its line:\n%s", body)
	}
}

// The review body reads top to bottom: consensus and next step, the
// findings (a commented one in one line, one on no changed line written
// out), the inline note, the roles, the sign-off last.
func TestLoopReviewBodyIsAnIndex(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug, readmeGap)
	lf.approveRound()

	res := lf.run("--yes")

	wantCode(t, res, 0)
	body := lf.gh.Reviews(repo, lf.number)[0].Body
	order := []string{"**Consensus:**", "**Next:**", "**Reviewers:**", "### P1 — critical (1)", "- **P1** `" + cacheBug.id() + "` Cache size is not bounded · `cache.go:3` · 1/2 reviewers (openai/rev-a)\n",
		"### P2 — important (1)", "`README.md:1`", "  details of " + readmeGap.Title, "**Inline:** 1 finding is commented on its line; 1 finding is on no changed line.",
		"### Roles", "<details><summary>Role reports</summary>", "<sub>gh-ocdx review-loop · run "}
	at := 0
	for _, s := range order {
		i := strings.Index(body[at:], s)
		if i < 0 {
			t.Fatalf("the body lacks %q after position %d:\n%s", s, at, body)
		}
		at += i + len(s)
	}
	if strings.Contains(body, "details of "+cacheBug.Title) {
		t.Errorf("the body writes out the commented finding:\n%s", body)
	}
	if tail := body[at:]; strings.Contains(tail, "**") || strings.Contains(tail, "###") {
		t.Errorf("something follows the sign-off:\n%s", tail)
	}
}
