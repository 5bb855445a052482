package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/state"
)

// The same model configured twice reports the same finding twice: it is one
// finding, fixed once and listed once, saying which reviewers raised it.
func TestLoopDuplicateFindingIsFixedOnce(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.env.WriteConfig(t, `{
  "reviewerModels": ["openai/rev-a", "openai/rev-a", "anthropic/rev-b"],
  "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "ollama/fixer",
  "verify": ["true"]
}`)
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "request_changes", cacheBug), reviewerReply("reviewer-2", "request_changes", cacheBug))
	lf.fm.Script("rev-b", reviewerReply("reviewer-3", "approve"))
	lf.fm.Script("analyzer", analyzerReply())
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "approve"), reviewerReply("reviewer-2", "approve"))
	lf.fm.Script("rev-b", reviewerReply("reviewer-3", "approve"))
	lf.fm.Script("analyzer", analyzerReply())

	res := lf.run("--yes")

	wantCode(t, res, 0)
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2]" {
		t.Fatalf("comments %s, want review, fix, review", k)
	}
	report := lf.bodies()[0]
	wantContains(t, "round 1 report", report, "P1 — critical (1)", "2/3 reviewers (openai/rev-a, openai/rev-a)")
	if n := strings.Count(report, "`"+cacheBug.id()+"`"); n != 1 {
		t.Errorf("the report lists %s %d times, want once", cacheBug.id(), n)
	}
	wantContains(t, "stdout", res.Stdout, "converged", "1 fixed ("+cacheBug.id()+")")
}

// seedReview records a review-loop run of PR #24 in the state file, as the
// loop would have: one round at head with findings, ended with outcome.
func seedReview(t *testing.T, s *fixSetup, head string, outcome state.RunOutcome, fs ...finding.Finding) {
	t.Helper()
	for i := range fs {
		fs[i].ID = fs[i].ComputeID()
	}
	store := state.New(filepath.Join(s.env.Vars["OCDX_STATE_DIR"], "state.db"), nil)
	run, err := store.Begin(state.NewKey(s.gh.Host(), "octo", "widgets", 24), "review-loop")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.StartRound(1, head); err != nil {
		t.Fatal(err)
	}
	if err := run.Complete(1, state.PhaseReviewed, func(rd *state.Round) { rd.Findings = fs }); err != nil {
		t.Fatal(err)
	}
	if err := run.End(outcome, string(outcome)); err != nil {
		t.Fatal(err)
	}
}

// After a run that converged (its findings dropped from the state file),
// fix must not fall back to an older run's findings and push a "fix" of
// code that is fine; nor fix findings of a head the PR has moved from.
func TestFixNeverTakesStaleFindings(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	seedReview(t, s, s.start, state.OutcomeBlocked, fixFindings[0])
	seedReview(t, s, s.start, state.OutcomeConverged)

	res := s.env.Run(t, "fix", "--pr", "24", "--yes")

	if res.Code != 0 || !strings.Contains(res.Stdout, "Nothing to fix on PR #24: the latest review-loop run") || !strings.Contains(res.Stdout, "converged") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.Code, res.Stdout, res.Stderr)
	}
	if n := len(s.fm.Requests("fixer")); n != 0 {
		t.Errorf("the fix model was called %d times on stale findings", n)
	}
	s.wantRemote(t, s.start)
	s.checkComments(t, 0)

	old := strings.Repeat("ab", 20)
	seedReview(t, s, old, state.OutcomeBlocked, fixFindings[0])
	res = s.env.Run(t, "fix", "--pr", "24", "--yes")
	if res.Code != 0 || !strings.Contains(res.Stdout, "reviewed an older head abababa") || !strings.Contains(res.Stdout, "run 'gh ocdx review-loop --pr 24' first") {
		t.Fatalf("older head: exit %d\nstdout:\n%s\nstderr:\n%s", res.Code, res.Stdout, res.Stderr)
	}
	if len(s.fm.Requests("fixer")) != 0 || s.gh.Count("comment") != 0 {
		t.Error("nothing to fix, yet the model was called or a comment posted")
	}
	s.wantRemote(t, s.start)
}

// A mistyped model is a configuration error, not a failed reviewer: the
// loop stops before posting anything, exits 1 and names the key and model.
func TestLoopUnknownModelStopsBeforePosting(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.env.WriteConfig(t, `{
  "reviewerModels": ["openai/rev-a", "openai/gpt-4.1-typo"],
  "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "ollama/fixer",
  "verify": ["true"]
}`)
	lf.fm.Models("rev-a", "analyzer")
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "approve"))
	lf.fm.Script("analyzer", analyzerReply())

	res := lf.run("--yes")

	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, `reviewerModels[1] "openai/gpt-4.1-typo": the provider answered 404 model not found`, "check the name with gh ocdx config validate --online")
	if n := len(lf.bodies()); n != 0 {
		t.Fatalf("%d comments posted; a configuration error stops before posting anything", n)
	}
	if lf.fix.Count() != 0 {
		t.Error("the fix model was called")
	}
}

// A reviewer whose account is out of quota is a configuration error too:
// asked once (a retry would not help), the loop stops before posting and
// names the key, the variable holding the API key, and the request ID.
func TestLoopQuotaStopsBeforePostingAndNamesTheKey(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.env.WriteConfig(t, `{
  "reviewerModels": ["openai/rev-a", "openai/rev-b"],
  "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "ollama/fixer",
  "verify": ["true"]
}`)
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "approve"))
	lf.fm.Script("rev-b", testkit.Step{Status: 429, ErrorType: "insufficient_quota"})
	lf.fm.Script("analyzer", analyzerReply())

	res := lf.run("--yes")

	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, `reviewerModels[1] "openai/rev-b": the provider answered 429 insufficient_quota`,
		"the account of OPENAI_API_KEY has no quota or credit left", "set reviewerModels[1] to another model", testkit.RequestID)
	if n := len(lf.fm.Requests("rev-b")); n != 1 {
		t.Errorf("%d calls of the model out of quota, want 1", n)
	}
	if n := len(lf.bodies()); n != 0 {
		t.Fatalf("%d comments posted; a configuration error stops before posting anything", n)
	}
}

// The fix model's key refused: exit 1 naming prFixModel.
func TestLoopFixModelRefusedNamesItsKey(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug)
	lf.fix.Faults = []testkit.Step{testkit.Fail(401, "")}

	res := lf.run("--yes")

	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, `prFixModel "ollama/fixer": the provider answered 401 unauthorized`)
	if lf.repo.RemoteOID(t, lf.repo.Head) != lf.start {
		t.Error("nothing may be pushed")
	}
}

// config validate reports every problem in one pass: a missing key (a
// missing key, not an invalid file), a verify program this machine lacks,
// and a model its provider does not serve; the X lines first and the
// verdict, with the path, last.
func TestConfigValidateReportsEveryProblem(t *testing.T) {
	t.Parallel()
	fm := testkit.NewFakeModel(t)
	env := testkit.NewEnv(t)
	fm.Configure(env)
	env.Set("ANTHROPIC_API_KEY", "")
	fm.Models("gpt-4.1")
	env.WriteConfig(t, `{
  "reviewerModels": ["openai/gpt-4.1", "anthropic/claude-sonnet-4-5"],
  "commentsAnalyzerModel": "openai/gpt-4.2",
  "prFixModel": "openai/gpt-4.1",
  "verify": ["nosuch-linter ./..."]
}`)

	res := env.Run(t, "config", "validate", "--online")

	wantCode(t, res, 1)
	path := env.Vars["OCDX_CONFIG"]
	want := "X ANTHROPIC_API_KEY is not set, and anthropic/claude-sonnet-4-5 (reviewerModels[1]) needs it; export ANTHROPIC_API_KEY=<your API key>\n" +
		"X verify[0] \"nosuch-linter ./...\" (~/.config/gh-ocdx/config.json): nosuch-linter is not on PATH; install it, or change the command\n" +
		"Models, as their providers list them (no tokens spent):\n" +
		"  ✓ reviewerModels[0] openai/gpt-4.1\n" +
		"  - reviewerModels[1] anthropic/claude-sonnet-4-5: not asked, ANTHROPIC_API_KEY is not set\n"
	if !strings.HasPrefix(res.Stdout, want) || !strings.HasSuffix(res.Stdout, "X "+path+": 3 problems\n") ||
		!strings.Contains(res.Stdout, `X commentsAnalyzerModel openai/gpt-4.2: openai (`) || strings.Contains(res.Stdout, "is valid") ||
		strings.Contains(res.Stderr, "invalid configuration") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", res.Stdout, res.Stderr)
	}
}

// config validate --online asks each provider for its models (Anthropic
// page by page) and names the one that does not exist; no token is spent.
func TestConfigValidateOnline(t *testing.T) {
	t.Parallel()
	fm := testkit.NewFakeModel(t)
	env := testkit.NewEnv(t)
	fm.Configure(env)
	fm.Models("gpt-4.1", "gpt-4.1-mini", "claude-a", "claude-b", "claude-sonnet-4-5", "qwen2.5-coder:latest")
	fm.ModelPage = 2
	env.WriteConfig(t, `{
  "reviewerModels": ["openai/gpt-4.1", "openai/gpt-4.1-typo", "anthropic/claude-sonnet-4-5", "anthropic/claude-sonet-4-5"],
  "commentsAnalyzerModel": "ollama/qwen2.5-coder",
  "prFixModel": "openai/gpt-4.1-mini",
  "reviewPrModel": "ollama/qwen2.5-codr"
}`)

	res := env.Run(t, "config", "validate", "--online")

	// One line per model in gh's style, the path once (config validate's
	// first line), a mistyped name answered with the nearest served one,
	// and nothing more on stderr: the lines say it.
	wantCode(t, res, 1)
	wantContains(t, "stdout", res.Stdout, "\n  ✓ reviewerModels[0] openai/gpt-4.1\n",
		"\n  X reviewerModels[1] openai/gpt-4.1-typo: openai ("+fm.URL(), `) serves no model "gpt-4.1-typo"; did you mean "gpt-4.1-mini"?`+"\n",
		"\n  ✓ reviewerModels[2] anthropic/claude-sonnet-4-5\n", "\n  X reviewerModels[3] anthropic/claude-sonet-4-5: anthropic (", `did you mean "claude-sonnet-4-5"?`,
		"\n  ✓ commentsAnalyzerModel ollama/qwen2.5-coder\n", "\n  ✓ prFixModel openai/gpt-4.1-mini\n",
		`X reviewPrModel ollama/qwen2.5-codr: ollama (`, `did you mean "qwen2.5-coder"?`)
	if n := strings.Count(res.Stdout+res.Stderr, env.Vars["OCDX_CONFIG"]); n != 1 {
		t.Errorf("the path is said %d times, want once:\n%s%s", n, res.Stdout, res.Stderr)
	}
	for _, noise := range []string{"ok:", "error:"} {
		if strings.Contains(res.Stdout+res.Stderr, noise) {
			t.Errorf("%q in the output:\n%s%s", noise, res.Stdout, res.Stderr)
		}
	}
	for _, m := range []string{"gpt-4.1", "gpt-4.1-typo", "claude-sonnet-4-5", "claude-sonet-4-5", "qwen2.5-coder"} {
		if n := len(fm.Requests(m)); n != 0 {
			t.Errorf("%s: %d chat requests; validating must spend no tokens", m, n)
		}
	}

	env.WriteConfig(t, `{"reviewerModels": ["anthropic/claude-b"], "commentsAnalyzerModel": "openai/gpt-4.1-mini", "prFixModel": "openai/gpt-4.1"}`)
	wantCode(t, env.Run(t, "config", "validate", "--online"), 0)
}

// bigDiff is a diff adding n files of about size bytes each.
func bigDiff(n, size int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "diff --git a/src/file%03d.txt b/src/file%03d.txt\nnew file mode 100644\n--- /dev/null\n+++ b/src/file%03d.txt\n@@ -0,0 +1,%d @@\n", i, i, i, size/40)
		for j := 0; j < size/40; j++ {
			fmt.Fprintf(&b, "+line %04d of file %03d, to make it large\n", j, i)
		}
	}
	return b.String()
}

// Reviewers see at most 50 KB of diff: the report, the summary and --json
// say how much they saw, and a convergence over a sampled diff says so.
func TestLoopDisclosesASampledDiff(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, func(pr *testkit.PR) { pr.Diff = bigDiff(40, 4000) })
	lf.approveRound()

	res := lf.run("--yes", "--json")

	wantCode(t, res, 0)
	report := lf.bodies()[0]
	wantContains(t, "review report", report, "**Coverage:** large diff: sampled", "of 40 files whole, 1 cut (`src/file0", "left out (`src/file0", "… and ")
	var out struct {
		Label  string
		Rounds []struct {
			Coverage struct {
				Files, Whole, LeftOut int
				Cut, LeftOutNames     []string
			}
		}
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil {
		t.Fatalf("--json: %v\n%s", err, res.Stdout)
	}
	if out.Label != "converged (large diff: sampled)" || len(out.Rounds) != 1 {
		t.Fatalf("--json label %q; want the sampled diff said", out.Label)
	}
	c := out.Rounds[0].Coverage
	if c.Files != 40 || c.Whole+len(c.Cut)+c.LeftOut != 40 || len(c.Cut) != 1 || c.LeftOut < 20 || len(c.LeftOutNames) != 20 {
		t.Errorf("coverage %+v", c)
	}
	if task := string(lf.fm.Requests("rev-a")[0].Body); !strings.Contains(task, "[Diff truncated at 50KB. Use read_file ") || !strings.Contains(task, ", or pr_diff ") {
		t.Error("the notice after the cut diff must name the reviewer's tools, read_file and pr_diff")
	}
}

// A finding dismissed on the PR after it was reviewed is not fixed: fix
// reads the dismissals as the loop does, from people allowed to dismiss.
func TestFixLeavesOutFindingsDismissedSinceTheReview(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	seedReview(t, s, s.start, state.OutcomeBlocked, fixFindings[0])
	id := fixFindings[0].ComputeID()
	s.gh.SetPermission(repo, "maint", "admin")
	s.gh.AddComment(repo, 24, "maint", "/ocdx dismiss "+id)

	res := s.env.Run(t, "fix", "--pr", "24", "--yes")

	if res.Code != 0 || !strings.Contains(res.Stdout, "Nothing to fix on PR #24") || !strings.Contains(res.Stdout, "dismissed on the PR") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.Code, res.Stdout, res.Stderr)
	}
	if n := len(s.fm.Requests("fixer")); n != 0 {
		t.Errorf("the fix model was called %d times on a dismissed finding", n)
	}
	s.wantRemote(t, s.start)
}

// config show gives the analyzers in effect, where they came from and the
// model cutoffs, a token in an argv masked; config validate names the
// analyzer whose program is not on PATH and what to do. The working
// tree's .ocdx.json replaces the configuration's analyzers in both.
func TestConfigShowAndValidateAnalyzers(t *testing.T) {
	t.Parallel()
	const token = "ghp_0123456789abcdefghijklmnopqrstuvwxyz"
	env := testkit.NewEnv(t)
	env.WriteConfig(t, `{
  "reviewerModels": ["ollama/rev"], "commentsAnalyzerModel": "ollama/rev", "prFixModel": "ollama/rev",
  "analyzers": [{"name": "scan", "argv": ["nosuch-analyzer", "--token", "`+token+`"], "format": "sarif", "timeout": 60}],
  "modelCutoffs": {"ollama/rev": "2024-06-01"}
}`)
	path := env.Vars["OCDX_CONFIG"]

	res := env.Run(t, "config", "show")
	wantCode(t, res, 0)
	wantContains(t, "stdout", res.Stdout, "Analyzers", "from the configuration", "scan", "nosuch-analyzer --token", "sarif", "1m0s", "Model cutoffs", "2024-06-01")
	res = env.Run(t, "config", "show", "--json", "analyzers,analyzersFrom,modelCutoffs")
	wantCode(t, res, 0)
	var shown struct {
		Analyzers []struct {
			Name    string   `json:"name"`
			Argv    []string `json:"argv"`
			Format  string   `json:"format"`
			Timeout int      `json:"timeout"`
		} `json:"analyzers"`
		AnalyzersFrom string            `json:"analyzersFrom"`
		ModelCutoffs  map[string]string `json:"modelCutoffs"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &shown); err != nil {
		t.Fatalf("%v:\n%s", err, res.Stdout)
	}
	if len(shown.Analyzers) != 1 || shown.Analyzers[0].Name != "scan" || len(shown.Analyzers[0].Argv) != 3 || shown.Analyzers[0].Argv[0] != "nosuch-analyzer" ||
		shown.Analyzers[0].Format != "sarif" || shown.Analyzers[0].Timeout != 60 || shown.AnalyzersFrom != path || shown.ModelCutoffs["ollama/rev"] != "2024-06-01" {
		t.Errorf("config show --json: %s", res.Stdout)
	}
	res = env.Run(t, "config", "validate")
	wantCode(t, res, 1)
	wantContains(t, "stdout", res.Stdout, `X analyzers[0] "scan" "nosuch-analyzer --token [SECRET:`, "(~/.config/gh-ocdx/config.json): nosuch-analyzer is not on PATH; install it, or change the command\n",
		"X "+path+": 1 problem\n")
	if strings.Contains(res.Stdout+res.Stderr, token) {
		t.Errorf("the token shown:\n%s%s", res.Stdout, res.Stderr)
	}

	// The working tree's .ocdx.json: its analyzers are the ones in effect.
	if err := os.MkdirAll(filepath.Join(env.Dir, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(env.Dir, ".ocdx.json"), []byte(`{"analyzers": [{"name": "gitstat", "argv": ["git", "status"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	repoFile := filepath.Join(env.Dir, ".ocdx.json")
	res = env.Run(t, "config", "show")
	wantCode(t, res, 0)
	wantContains(t, "stdout", res.Stdout, "from `"+repoFile+"`", "gitstat", "git status", "detected", "5m0s")
	if strings.Contains(res.Stdout, "nosuch-analyzer") {
		t.Errorf("the configuration's analyzers shown beside the repository's:\n%s", res.Stdout)
	}
	res = env.Run(t, "config", "validate")
	wantCode(t, res, 0)
	wantContains(t, "stdout", res.Stdout, "✓ "+path+" is valid\n", "✓ "+repoFile+" (")
}
