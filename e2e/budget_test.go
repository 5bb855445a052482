package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
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
