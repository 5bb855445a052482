package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// effortConfig has three reviewers and a verifier: what auto can spare on
// a change that needs little review.
const effortConfig = `{
  "reviewerModels": ["openai/rev-a", "anthropic/rev-b", "openai/rev-c"],
  "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "ollama/fixer",
  "verifierModel": "openai/checker",
  "verify": ["true"]
}`

// newEffortLoop is a PR whose head changes headFiles, with effortConfig
// and every model approving, whatever it is asked.
func newEffortLoop(t *testing.T, baseFiles, headFiles map[string]string) *loopFix {
	t.Helper()
	r := testkit.NewRepo(t, "main", "feature/docs", baseFiles, headFiles)
	gh, fm, env := testkit.NewGitHub(t), testkit.NewFakeModel(t), testkit.NewEnv(t)
	fx := testkit.NewFixModel(t)
	pr := testkit.PR{Number: loopPR, Title: "Explain the cache", Body: "Docs.", Author: "mona",
		HeadRef: r.Head, BaseRef: r.Base, Remote: r.Remote, Diff: r.Diff(t)}
	gh.AddPR(repo, pr)
	gh.Configure(env, repo)
	fm.Configure(env)
	env.Set("OLLAMA_HOST", fx.URL())
	env.Dir = r.Clone
	env.WriteConfig(t, effortConfig)
	lf := &loopFix{t: t, gh: gh, fm: fm, fix: fx, env: env, repo: r, pr: pr, start: r.RemoteOID(t, r.Head), number: loopPR, fixture: map[string]bool{}}
	for _, m := range []string{"rev-a", "rev-b", "rev-c"} {
		fm.Script(m, repeat(reviewerReply(m, "approve"), 4)...)
	}
	fm.Script("analyzer", repeat(analyzerReply(), 4)...)
	return lf
}

func repeat(s testkit.Step, n int) []testkit.Step {
	out := make([]testkit.Step, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// effortOf runs a dry run with args and returns its one round's tier, why,
// and the tokens the run spent.
func (lf *loopFix) effortOf(args ...string) (tier, why string, tokens int64) {
	lf.t.Helper()
	res := lf.env.Run(lf.t, append([]string{"review-loop", "31", "--dry-run", "--json", "rounds"}, args...)...)
	wantCode(lf.t, res, 0)
	var out struct {
		Rounds []struct {
			Effort struct{ Tier, Why string }
			Usage  map[string]struct {
				Input  int64 `json:"inputTokens"`
				Output int64 `json:"outputTokens"`
			}
		}
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil || len(out.Rounds) != 1 {
		lf.t.Fatalf("%v: %s", err, res.Stdout)
	}
	for _, u := range out.Rounds[0].Usage {
		tokens += u.Input + u.Output
	}
	return out.Rounds[0].Effort.Tier, out.Rounds[0].Effort.Why, tokens
}

// A documentation-only PR is reviewed at quick under auto: the first
// reviewer alone, no analyzer (no threads), no verifier; at most 0.35 of
// the tokens of the same review at standard. The tier and why are in
// --json and the report.
func TestAutoEffortReviewsADocumentationChangeQuickly(t *testing.T) {
	t.Parallel()
	lf := newEffortLoop(t, map[string]string{"README.md": "# widgets\n", "cache.go": "package cache\n"},
		map[string]string{"README.md": "# widgets\n\nThe cache keeps ten entries.\n", "docs/cache.md": "# Cache\n\nBounded.\n"})

	tier, why, quick := lf.effortOf()
	if tier != "quick" || why != "2 files changed, all documentation" {
		t.Errorf("auto chose %s (%s), want quick for documentation", tier, why)
	}
	for _, m := range []string{"rev-b", "rev-c", "analyzer", "checker"} {
		if n := len(lf.fm.Requests(m)); n != 0 {
			t.Errorf("%s was asked %d times at quick", m, n)
		}
	}
	tier, _, standard := lf.effortOf("--effort", "standard")
	if tier != "standard" || standard == 0 {
		t.Fatalf("--effort standard ran %s with %d tokens", tier, standard)
	}
	if ratio := float64(quick) / float64(standard); ratio > 0.35 {
		t.Errorf("quick spent %d tokens, standard %d: %.2f of it, want at most 0.35", quick, standard, ratio)
	}
	t.Logf("documentation-only PR: auto (quick) %d tokens, standard %d: %.2f", quick, standard, float64(quick)/float64(standard))

	res := lf.env.Run(t, "review-loop", "31", "--dry-run")
	wantCode(t, res, 0)
	wantContains(t, "the report", res.Stdout, "**Effort:** `quick` — 2 files changed, all documentation; not run: 2 reviewers, the comments analyzer, the verifier.")
}

// A secret in a documentation change is never reviewed at quick, even
// when quick is asked for; a path the base branch marks deep is reviewed
// deep whatever else changed; a flag overrides auto.
func TestEffortTierRules(t *testing.T) {
	t.Parallel()
	base := map[string]string{"README.md": "# widgets\n", "auth/token.go": "package auth\n",
		".ocdx.json": `{"paths": [{"glob": "auth/**", "effort": "deep"}]}`}
	t.Run("secret", func(t *testing.T) {
		t.Parallel()
		lf := newEffortLoop(t, base, map[string]string{"README.md": "# widgets\n\nexport GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n"})
		tier, why, _ := lf.effortOf("--effort", "quick")
		if tier != "standard" || !strings.Contains(why, "quick was asked for, but the secret scan found 1 secret: never quick") {
			t.Errorf("%s (%s)", tier, why)
		}
	})
	t.Run("deep path", func(t *testing.T) {
		t.Parallel()
		lf := newEffortLoop(t, base, map[string]string{"README.md": "# widgets\n\nAuth.\n", "auth/token.go": "package auth\n\nvar TTL = 5\n"})
		tier, why, _ := lf.effortOf()
		if tier != "deep" || !strings.Contains(why, `"auth/**"`) {
			t.Errorf("%s (%s)", tier, why)
		}
		if tier, _, _ = lf.effortOf("--effort", "quick"); tier != "quick" {
			t.Errorf("--effort quick ran %s", tier)
		}
	})
	t.Run("bad flag", func(t *testing.T) {
		t.Parallel()
		lf := newEffortLoop(t, base, map[string]string{"README.md": "# widgets\n\nAuth.\n"})
		res := lf.env.Run(t, "review-loop", "31", "--dry-run", "--effort", "max")
		wantCode(t, res, 2)
		wantContains(t, "stderr", res.Stderr, `invalid --effort: "max" is not an effort tier: use one of quick, standard, deep, auto`)
		if n := len(lf.fm.Requests("rev-a")); n != 0 {
			t.Errorf("a bad flag asked a model %d times", n)
		}
	})
}

// The local review chooses its tier as review-loop does: a branch that
// changes only documentation is reviewed by the first reviewer alone at
// auto, by both at --effort standard; the output and --json say which.
func TestReviewLocalEffort(t *testing.T) {
	t.Parallel()
	r := testkit.NewRepo(t, "main", "docs", map[string]string{"README.md": "# widgets\n", "cache.go": "package cache\n"},
		map[string]string{"README.md": "# widgets\n\nThe cache keeps ten entries.\n"})
	testkit.Git(t, r.Clone, "remote", "set-head", "origin", "main")
	fm, env := testkit.NewFakeModel(t), testkit.NewEnv(t)
	testkit.NewGitHub(t).Configure(env, repo)
	fm.Configure(env)
	env.Dir = r.Clone
	env.WriteConfig(t, `{"reviewerModels": ["ollama/qwen-a", "ollama/qwen-b"], "commentsAnalyzerModel": "ollama/qwen-a", "prFixModel": "ollama/qwen-a"}`)
	for _, m := range []string{"qwen-a", "qwen-b"} {
		fm.Script(m, repeat(reviewerReply("reviewer", "approve"), 2)...)
	}

	res := env.Run(t, "review")
	wantCode(t, res, 0)
	wantContains(t, "stdout", res.Stdout, "- Effort: `quick` — 1 file changed, all documentation")
	if n := len(fm.Requests("qwen-b")); n != 0 {
		t.Errorf("the second reviewer was asked %d times at quick", n)
	}
	res = env.Run(t, "review", "--effort", "standard", "--json", "effort")
	wantCode(t, res, 0)
	wantContains(t, "--json", res.Stdout, `"tier": "standard"`)
	if n := len(fm.Requests("qwen-b")); n != 1 {
		t.Errorf("the second reviewer was asked %d times at standard, want 1", n)
	}
}
