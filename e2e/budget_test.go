package e2e

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

var reRoundNeeds = regexp.MustCompile(`round 1 needs up to ([0-9,]+) tokens, ([0-9,]+) left`)

// TestLoopBudgetStartsARoundOnlyWhenAllOfItFits: a round reserves every
// role's call before it starts. A budget one token short of that starts
// nothing (no reviewer asked and then refused, no review thrown away);
// the exact amount runs the round to its end. The binary, as a user runs it.
func TestLoopBudgetStartsARoundOnlyWhenAllOfItFits(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.approveRound()
	run := func(budget int) (code int, stdout, stderr string) {
		res := lf.env.RunBinary(t, "review-loop", "--yes", "--max-tokens", strconv.Itoa(budget))
		return res.Code, res.Stdout, res.Stderr
	}

	// 200 tokens: the round says what it needs, and nothing more.
	code, _, stderr := run(200)
	m := reRoundNeeds.FindStringSubmatch(stderr)
	if code != 3 || m == nil || m[2] != "200" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	need, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))

	// One token short: still nothing starts, and each fact is said once.
	code, stdout, stderr := run(need - 1)
	if code != 3 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	sentence := "token budget reached: round 1 needs up to " + m[1] + " tokens, " + commas(need-1) + " left"
	for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if n := strings.Count(out, "token budget"); n != 1 || !strings.Contains(out, sentence) {
			t.Errorf("%s says the budget %d times, want once: %q\n%s", name, n, sentence, out)
		}
	}
	if n := strings.Count(stdout, "spent"); n != 1 || !strings.Contains(stdout, "**Tokens:** 0 of the budget of "+commas(need-1)+" spent") {
		t.Errorf("the spend is said %d times, want once:\n%s", n, stdout)
	}
	for _, role := range []string{"rev-a", "rev-b", "analyzer"} {
		if n := len(lf.fm.Requests(role)); n != 0 {
			t.Errorf("%s was called %d times by a round that could not start", role, n)
		}
	}
	if k := lf.kinds(); len(k) != 0 {
		t.Errorf("posted %v", k)
	}

	// Exactly what the round needs: every role answers, the run converges.
	code, stdout, stderr = run(need)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, role := range []string{"rev-a", "rev-b", "analyzer"} {
		if n := len(lf.fm.Requests(role)); n != 1 {
			t.Errorf("%s was called %d times, want once", role, n)
		}
	}
	if strings.Contains(stderr, "token budget") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// commas writes n as the messages do: 38,400.
func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestLoopBudgetReservesTheFixApart: the fix is a reservation of its own,
// made when it starts: a round that fits but leaves too little for the
// fix agent's answer ends the run there, blocked, before the fix model is
// called, saying what the fix needed; the round's review stays posted.
func TestLoopBudgetReservesTheFixApart(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.env.WriteConfig(t, `{"reviewerModels": ["openai/rev-a"], "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "ollama/fixer", "verify": ["true"], "outputTokens": {"prFixModel": 60000}}`)
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "request_changes", cacheBug))
	lf.fm.Script("analyzer", analyzerReply())
	res := lf.run("--yes", "--max-tokens", "200")
	m := reRoundNeeds.FindStringSubmatch(res.Stderr)
	if res.Code != 3 || m == nil {
		t.Fatalf("exit %d, stderr:\n%s", res.Code, res.Stderr)
	}
	budget := strings.ReplaceAll(m[1], ",", "") // exactly round 1

	res = lf.run("--yes", "--max-tokens", budget)

	wantCode(t, res, 3)
	wantContains(t, "stdout", res.Stdout, "token budget reached: pr-fix needs up to ")
	if lf.fix.Count() != 0 {
		t.Errorf("the fix model was called %d times", lf.fix.Count())
	}
	if k := strings.Join(lf.kinds(), " "); k != "review:1 final:1" {
		t.Errorf("posted %s, want the review and the final comment", k)
	}
}

// gh ocdx fix has the token budget review-loop has (--max-tokens, else
// maxTokens): an attempt whose answer could pass it is not started, so the
// fix model is never called, nothing is pushed or posted, and the run
// stops with exit 3 saying what the attempt needed and what was spent,
// once.
func TestFixStopsAtItsTokenBudget(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	check := func(res testkit.Result, budget string) {
		t.Helper()
		wantCode(t, res, 3)
		out := res.Stdout + res.Stderr
		if n := strings.Count(out, "token budget reached"); n != 1 {
			t.Errorf("the budget is said %d times, want once:\n%s", n, out)
		}
		wantContains(t, "output", out, "token budget reached: pr-fix needs up to ", budget+" left", "0 of the budget of "+budget+" spent")
		if n := len(s.fm.Requests("fixer")); n != 0 {
			t.Errorf("the fix model was called %d times", n)
		}
		s.checkComments(t, 0)
		s.wantRemote(t, s.start)
	}

	check(s.run(t, "--yes", "--max-tokens", "300"), "300")

	s.env.WriteConfig(t, `{"reviewerModels":["openai/reviewer"],"commentsAnalyzerModel":"openai/analyzer","prFixModel":"openai/fixer","verify":["sh check.sh"],"maxTokens":400}`)
	check(s.run(t, "--yes"), "400")

	// --json says the budget for scripts, as review-loop's does.
	res := s.run(t, "--yes", "--max-tokens", "300", "--json", "budget")
	wantCode(t, res, 3)
	var out struct {
		Budget struct {
			MaxTokens int64 `json:"maxTokens"`
			Reached   bool  `json:"reached"`
		} `json:"budget"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil || out.Budget.MaxTokens != 300 || !out.Budget.Reached {
		t.Errorf("--json budget: %+v, %v\n%s", out, err, res.Stdout)
	}
}

// Within its budget, gh ocdx fix fixes as without one and says the spend
// once, within the budget.
func TestFixWithinItsTokenBudgetSaysTheSpend(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	a, b := fixIDs()
	sha := s.predict(t, map[string]string{"a.txt": "fixed\n"}, "fix: a is safe now")
	s.fm.Script("fixer", testkit.CallTools(fixA), testkit.CallTools(commitA), envelope(map[string]string{a: sha}, map[string]string{b: "fine as it is"}, sha))

	res := s.run(t, "--yes", "--max-tokens", "200000")

	wantCode(t, res, 0)
	s.wantRemote(t, sha)
	m := regexp.MustCompile(`Tokens: ([0-9,]+) of the budget of 200,000 spent`).FindStringSubmatch(res.Stdout)
	if m == nil || strings.Count(res.Stdout, "of the budget of") != 1 {
		t.Fatalf("the spend is not said once:\n%s", res.Stdout)
	}
	if spent, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", "")); spent == 0 || spent > 200000 {
		t.Errorf("spent %d of 200,000", spent)
	}
}

// /ocdx fix in the Action carries the command's --max-tokens to the fix:
// an attempt that could pass it is not started.
func TestCommandFixCarriesTheBudget(t *testing.T) {
	t.Parallel()
	s := newFixSetupFiles(t, map[string]string{".ocdx.json": `{"commands": {"fix": true}}`}, nil)
	odd := modelFinding{Priority: "P2", Category: "quality", File: "b.txt", Line: line(1), Title: "b is odd"}
	s.fm.Script("reviewer", reviewerReply("reviewer-1", "request_changes", odd))
	s.fm.Script("analyzer", analyzerReply())
	// A review-loop whose budget holds its round but not the fix records
	// the finding to fix.
	s.env.WriteConfig(t, `{"reviewerModels":["openai/reviewer"],"commentsAnalyzerModel":"openai/analyzer","prFixModel":"openai/fixer","verify":["sh check.sh"],"outputTokens":{"prFixModel":60000}}`)
	m := reRoundNeeds.FindStringSubmatch(s.env.Run(t, "review-loop", "24", "--yes", "--max-tokens", "200").Stderr)
	if m == nil {
		t.Fatal("review-loop did not say what its round needs")
	}
	wantContains(t, "review-loop", s.env.Run(t, "review-loop", "24", "--yes", "--max-tokens", strings.ReplaceAll(m[1], ",", "")).Stdout, "pr-fix needs up to")
	s.gh.SetPermission(repo, "mona", "admin")
	s.gh.AddCommentBy(repo, 24, "mona", "OWNER", "/ocdx fix")
	cs := s.gh.Comments(repo, 24)
	id := strconv.FormatInt(cs[len(cs)-1].ID, 10)

	res := s.env.Run(t, "command", "24", "--comment-id", id, "--max-tokens", "300")

	wantCode(t, res, 3)
	wantContains(t, "output", res.Stdout+res.Stderr, "token budget reached: pr-fix needs up to ", "300 left", "0 of the budget of 300 spent")
	if n := len(s.fm.Requests("fixer")); n != 0 {
		t.Errorf("the fix model was called %d times", n)
	}
	s.wantRemote(t, s.start)
}

var reReviewNeeds = regexp.MustCompile(`the review needs up to ([0-9,]+) tokens, ([0-9,]+) left`)

// gh ocdx review --fix draws on maxTokens as review-loop does: the review
// starts only when every reviewer's answer fits, the fix only when its
// answer fits in what is left; a stop is exit 3, with what was spent said
// once, and the fix model is never called past the budget.
func TestReviewFixHonoursMaxTokens(t *testing.T) {
	t.Parallel()
	r := testkit.NewRepo(t, "main", "feature",
		map[string]string{"cache.go": "package cache\n\nvar size = 10\n"},
		map[string]string{"cache.go": "package cache\n\nvar size = -1\n"})
	testkit.Git(t, r.Clone, "remote", "set-head", "origin", "main")
	fm := testkit.NewFakeModel(t)
	env := testkit.NewEnv(t)
	testkit.NewGitHub(t).Configure(env, repo)
	fm.Configure(env)
	env.Dir = r.Clone
	config := func(max string) {
		env.WriteConfig(t, `{"reviewerModels": ["ollama/qwen-a"], "commentsAnalyzerModel": "ollama/qwen-a", "prFixModel": "ollama/fixer",
  "verify": ["true"], "outputTokens": {"prFixModel": 60000}, "maxTokens": `+max+`}`)
	}
	bad := modelFinding{Priority: "P1", Category: "quality", File: "cache.go", Line: line(3), Title: "negative cache size"}

	config("200")
	res := env.Run(t, "review", "--fix", "--yes")
	wantCode(t, res, 3)
	m := reReviewNeeds.FindStringSubmatch(res.Stdout + res.Stderr)
	if m == nil || m[2] != "200" || len(fm.Requests("qwen-a")) != 0 {
		t.Fatalf("the review started past its budget:\n%s\n%s", res.Stdout, res.Stderr)
	}

	config(strings.ReplaceAll(m[1], ",", ""))
	fm.Script("qwen-a", reviewerReply("reviewer-1", "request_changes", bad))
	res = env.Run(t, "review", "--fix", "--yes")

	wantCode(t, res, 3)
	out := res.Stdout + res.Stderr
	wantContains(t, "output", out, "token budget reached: pr-fix needs up to ")
	if n := strings.Count(res.Stdout, "of the budget of "+m[1]+" spent"); n != 1 {
		t.Errorf("the spend is said %d times on stdout, want once:\n%s", n, res.Stdout)
	}
	if n := len(fm.Requests("fixer")); n != 0 {
		t.Errorf("the fix model was called %d times past the budget", n)
	}
}
