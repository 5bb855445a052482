package e2e

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/state"
)

// loopFix is a PR with its head branch in a real bare remote, a clone on it,
// the fake GitHub, the fake reviewer models and the fix model.
type loopFix struct {
	t      *testing.T
	gh     *testkit.GitHub
	fm     *testkit.FakeModel
	fix    *testkit.FixModel
	env    *testkit.Env
	repo   *testkit.Repo
	pr     testkit.PR
	start  string // the PR's head before the run
	number int
	// fixture are the thread comments the test's PR began with: the
	// test's, not gh-ocdx's posts.
	fixture map[string]bool
}

const loopPR = 31

// newLoop sets up PR #31 on branch feature/cache; edit changes the PR
// before it is added to the fake GitHub.
func newLoop(t *testing.T, edit func(*testkit.PR)) *loopFix {
	t.Helper()
	l := testkit.NewLoopPR(t, repo, loopPR, edit)
	gh, fm, fx, env, r, pr := l.GitHub, l.Models, l.Fix, l.Env, l.Repo, l.PR
	env.WriteConfig(t, `{
  "reviewerModels": ["openai/rev-a", "anthropic/rev-b"],
  "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "ollama/fixer",
  "verify": ["true"]
}`)
	lf := &loopFix{t: t, gh: gh, fm: fm, fix: fx, env: env, repo: r, pr: pr, start: r.RemoteOID(t, r.Head), number: loopPR, fixture: map[string]bool{}}
	for _, th := range gh.Threads(repo, loopPR) {
		for _, c := range th.Comments {
			lf.fixture[c.ID] = true
		}
	}
	t.Cleanup(lf.checkInvariants)
	return lf
}

// pushWithoutRedoingTheFix re-runs a loop stopped before its push: the
// verified fix is pushed without a new call to the fix model, its report
// posted, and round 2 approves.
func (lf *loopFix) pushWithoutRedoingTheFix() {
	t := lf.t
	t.Helper()
	fixCalls := lf.fix.Count()
	lf.approveRound()

	res := lf.run("--yes")

	wantCode(t, res, 0)
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2]" {
		t.Fatalf("comments %s", k)
	}
	if lf.fix.Count() != fixCalls {
		t.Errorf("the verified fix was redone (%d more model calls)", lf.fix.Count()-fixCalls)
	}
}

var reTag = regexp.MustCompile(`<!-- ocdx:run=\S+ round=\d kind=(review|fix|final) -->`)

var secretPattern = regexp.MustCompile(`AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16}|PRIVATE KEY-----|xox[abposr]-|gh[pousr]_[0-9A-Za-z]{20,}|github_pat_|sk-[0-9A-Za-z_-]{16,}`)

// checkInvariants holds for every test: each comment gh-ocdx posted carries
// the marker, none leaks a secret or a diff, and the remote only moved
// forward.
func (lf *loopFix) checkInvariants() {
	t := lf.t
	for _, c := range lf.own() {
		if !strings.Contains(c.Body, posts.Marker) {
			t.Errorf("comment %d has no marker:\n%s", c.ID, c.Body)
		}
		// Every report carries its tag (a dismissal is a command, not a
		// report, and is never posted twice for the same IDs).
		if !reTag.MatchString(c.Body) && !reReviewPRTag.MatchString(c.Body) && !strings.HasPrefix(c.Body, "/ocdx dismiss ") && !strings.HasPrefix(c.Body, "/ocdx restore ") && !strings.Contains(c.Body, "<!-- ocdx:refused ") && !strings.Contains(c.Body, "<!-- ocdx:command=") {
			t.Errorf("comment %d has no run/round tag:\n%s", c.ID, c.Body)
		}
		if secretPattern.MatchString(c.Body) || strings.Contains(c.Body, "diff --git") {
			t.Errorf("comment %d leaks a secret or a diff:\n%s", c.ID, c.Body)
		}
	}
	// Every comment gh-ocdx wrote in a review thread (a round's or
	// review-pr's inline comment, a reply) is recognisably its own: the
	// marker and a tag of its kind.
	for _, th := range lf.gh.Threads(repo, lf.number) {
		for _, c := range th.Comments {
			if c.Login == lf.gh.Login && !lf.fixture[c.ID] && (!strings.Contains(c.Body, posts.Marker) || !strings.Contains(c.Body, "<!-- ocdx:")) {
				t.Errorf("thread comment %s has no marker or tag:\n%s", c.ID, c.Body)
			}
		}
	}
	tags := map[string]int{}
	for _, b := range lf.bodies() {
		tag := reTag.FindString(b)
		if tag == "" {
			continue
		}
		if tags[tag]++; tags[tag] == 2 {
			t.Errorf("posted twice: %s", tag)
		}
	}
	head := lf.repo.RemoteOID(t, lf.repo.Head)
	if head != lf.start {
		c := exec.Command("git", "--git-dir", lf.repo.Remote, "merge-base", "--is-ancestor", lf.start, head)
		if err := c.Run(); err != nil {
			t.Errorf("the remote head %s does not descend from %s: a non-fast-forward push", head, lf.start)
		}
	}
}

// recorded reads the PR's record through `state show --json` and checks
// that it is consistent: no lease left behind by an exited process, and
// every run ended but the last, which may wait to be resumed.
func recorded(t *testing.T, env *testkit.Env, pr int) state.PR {
	t.Helper()
	res := env.Run(t, "state", "show", "--pr", strconv.Itoa(pr), "--json", "lease,stuck,wip,runs")
	wantCode(t, res, 0)
	var rec state.PR
	if err := json.Unmarshal([]byte(res.Stdout), &rec); err != nil {
		t.Fatalf("state show --json: %v\n%s", err, res.Stdout)
	}
	if rec.Lease != nil {
		t.Errorf("a lease outlived its process: %v", rec.Lease)
	}
	for i, r := range rec.Runs {
		if r.Outcome == "" && i < len(rec.Runs)-1 {
			t.Errorf("run %s neither ended nor is the one to resume", r.ID)
		}
	}
	return rec
}

// last is the PR's latest run; the zero Run when there is none.
func last(rec state.PR) state.Run {
	if len(rec.Runs) == 0 {
		return state.Run{}
	}
	return rec.Runs[len(rec.Runs)-1]
}

func (lf *loopFix) run(args ...string) testkit.Result {
	lf.t.Helper()
	return lf.env.Run(lf.t, append([]string{"review-loop"}, args...)...)
}

// own returns what gh-ocdx posted (by the token's login) in order: its
// comments and its reviews (a round's report is a review).
func (lf *loopFix) own() []testkit.PostedComment {
	var out []testkit.PostedComment
	for _, c := range lf.gh.Comments(repo, lf.number) {
		if c.Login == lf.gh.Login {
			out = append(out, c)
		}
	}
	for _, r := range lf.gh.Reviews(repo, lf.number) {
		out = append(out, testkit.PostedComment{ID: r.ID, Body: r.Body, Login: lf.gh.Login})
	}
	slices.SortFunc(out, func(a, b testkit.PostedComment) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// bodies returns the bodies of the comments gh-ocdx posted.
func (lf *loopFix) bodies() []string {
	var out []string
	for _, c := range lf.own() {
		out = append(out, c.Body)
	}
	return out
}

// kinds lists the kind of every posted comment, in order ("review:1").
func (lf *loopFix) kinds() []string {
	re := regexp.MustCompile(`round=(\d) kind=(\w+)`)
	var out []string
	for _, b := range lf.bodies() {
		if m := re.FindStringSubmatch(b); m != nil {
			out = append(out, m[2]+":"+m[1])
		}
	}
	return out
}

// modelFinding is a reviewer's finding for a scripted answer.
type modelFinding struct {
	Priority, Category, File string
	Line                     *int
	Title, Description       string
}

func line(n int) *int { return &n }

func (f modelFinding) id() string { return finding.ID(f.Category, f.File, f.Line, f.Title) }

// reviewerReply is a reviewer's result envelope.
func reviewerReply(agent, conclusion string, fs ...modelFinding) testkit.Step {
	list := []map[string]any{}
	for _, f := range fs {
		d := f.Description
		if d == "" {
			d = "details of " + f.Title
		}
		list = append(list, map[string]any{"id": "MODEL-ID", "priority": f.Priority, "category": f.Category, "file": f.File, "line": f.Line,
			"title": f.Title, "description": d, "suggestion": "do better"})
	}
	b, _ := json.Marshal(map[string]any{"agent": agent, "prNumber": loopPR, "conclusion": conclusion,
		"issues":   map[string]int{"p0_blocking": 0, "p1_critical": 0, "p2_important": 0, "p3_suggestion": 0},
		"findings": list, "fullReport": "Reviewed " + agent + "."})
	return testkit.Reply("BEGIN_JSON\n" + string(b) + "\nEND_JSON")
}

// analyzerReply is the comments analyzer's result envelope.
func analyzerReply(pending ...string) testkit.Step {
	list := []map[string]any{}
	for _, id := range pending {
		list = append(list, map[string]any{"id": id, "priority": "P1", "category": "review-thread", "file": "cache.go", "line": nil,
			"title": "Unresolved review thread", "description": "The reviewer asks for a bound on the cache.", "suggestion": "Bound it."})
	}
	b, _ := json.Marshal(map[string]any{"agent": "comments-analyzer", "prNumber": loopPR,
		"reviewState": map[string]any{"hasChangesRequested": false, "changesRequestedBy": []any{}},
		"stats":       map[string]int{"totalThreads": 0, "resolvedThreads": 0, "unresolvedThreads": 0}, "threadsTruncated": false,
		"issues":        map[string]int{"p0_blocking": 0, "p1_critical": 0, "p2_important": 0, "p3_suggestion": 0},
		"pendingIssues": list, "fullReport": "Threads analysed."})
	return testkit.Reply("BEGIN_JSON\n" + string(b) + "\nEND_JSON")
}

// approveRound scripts a round where both reviewers approve.
func (lf *loopFix) approveRound() {
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "approve"))
	lf.fm.Script("rev-b", reviewerReply("reviewer-2", "approve"))
	lf.fm.Script("analyzer", analyzerReply())
}

// findingRound scripts a round where reviewer-1 reports fs.
func (lf *loopFix) findingRound(fs ...modelFinding) {
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "request_changes", fs...))
	lf.fm.Script("rev-b", reviewerReply("reviewer-2", "approve"))
	lf.fm.Script("analyzer", analyzerReply())
}

func wantCode(t *testing.T, res testkit.Result, code int) {
	t.Helper()
	if res.Code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", res.Code, code, res.Stdout, res.Stderr)
	}
}

func wantContains(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s lacks %q:\n%s", what, sub, s)
		}
	}
}
