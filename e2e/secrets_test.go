package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// Credentials with values no sanitiser pattern matches: if one shows up
// anywhere, it got there by a leak, not past a mask.
const (
	openAIKey    = "oa-cred-7f3c9b1e2d4a"
	anthropicKey = "an-cred-5e8a4c0f6b2d"
)

// TestCredentialsNeverLeak runs review-loop (with a fix round), fix and
// review-pr with --debug and GH_DEBUG=api and a verify command that prints
// its environment, then looks for the GitHub token and the model API keys
// in stdout, stderr, the state file's bytes, every comment and review
// posted, every request body GitHub and the models received, and the
// headers the models received (the GitHub token must not reach them).
func TestCredentialsNeverLeak(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		run  func(t *testing.T) (*testkit.GitHub, *testkit.FakeModel, *testkit.Env, testkit.Result)
	}{
		{"review-loop", func(t *testing.T) (*testkit.GitHub, *testkit.FakeModel, *testkit.Env, testkit.Result) {
			lf := newLoop(t, nil)
			lf.env.WriteConfig(t, `{"reviewerModels": ["openai/rev-a", "anthropic/rev-b"], "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "ollama/fixer", "verify": ["env"]}`)
			lf.findingRound(cacheBug)
			lf.approveRound()
			withKeys(lf.env)
			res := lf.env.RunBinary(t, "--debug", "review-loop", "--yes")
			wantCode(t, res, 0)
			wantContains(t, "stderr (the verify command's environment)", res.Stderr, "PATH=")
			return lf.gh, lf.fm, lf.env, res
		}},
		{"fix", func(t *testing.T) (*testkit.GitHub, *testkit.FakeModel, *testkit.Env, testkit.Result) {
			s := newFixSetup(t)
			s.env.WriteConfig(t, `{"reviewerModels":["openai/reviewer"],"commentsAnalyzerModel":"openai/analyzer","prFixModel":"openai/fixer","verify":["sh check.sh","env"]}`)
			a, b := fixIDs()
			sha := s.predict(t, map[string]string{"a.txt": "fixed\n"}, "fix: a is safe now")
			s.fm.Script("fixer", testkit.CallTools(fixA), testkit.CallTools(call("run_command", map[string]any{"argv": []string{"env"}})),
				testkit.CallTools(commitA), envelope(map[string]string{a: sha}, map[string]string{b: "fine"}, sha))
			withKeys(s.env)
			res := s.env.RunBinary(t, "--debug", "fix", "--pr", "24", "--findings", filepath.Join(s.env.Root, "payload.json"), "--yes")
			wantCode(t, res, 0)
			if body := string(s.fm.Requests("fixer")[2].Body); !strings.Contains(body, "PATH=") {
				t.Error("run_command env did not run: the check below would prove nothing")
			}
			return s.gh, s.fm, s.env, res
		}},
		{"review-pr", func(t *testing.T) (*testkit.GitHub, *testkit.FakeModel, *testkit.Env, testkit.Result) {
			gh, fm, env := modelFixture(t, "anthropic/claude-rev")
			scriptReview(fm, "claude-rev", "COMMENT", reviewBody)
			withKeys(env)
			res := env.RunBinary(t, "--debug", "review-pr", "24", "--yes")
			wantCode(t, res, 0)
			return gh, fm, env, res
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gh, fm, env, res := tc.run(t)
			if !strings.Contains(res.Stderr, "Request to https://") {
				t.Fatalf("GH_DEBUG=api logged no request: the check below would prove nothing\n%s", res.Stderr)
			}
			where := map[string]string{"stdout": res.Stdout, "stderr": res.Stderr}
			db, err := os.ReadFile(filepath.Join(env.Vars["OCDX_STATE_DIR"], "state.db"))
			if err != nil && tc.name != "review-pr" {
				t.Fatal(err)
			}
			where["state file"] = string(db)
			for _, c := range gh.Comments(repo, 24) {
				where["comment"] += c.Body
			}
			for _, c := range gh.Comments(repo, loopPR) {
				where["comment"] += c.Body
			}
			for _, n := range []int{24, loopPR} {
				for _, r := range gh.Reviews(repo, n) {
					where["review"] += r.Body
					for _, c := range r.Comments {
						where["review"] += c.Body
					}
				}
			}
			for _, r := range gh.Requests() {
				where["GitHub request bodies"] += r.Body
			}
			for _, m := range []string{"rev-a", "rev-b", "analyzer", "fixer", "claude-rev"} {
				for _, r := range fm.Requests(m) {
					where["model request bodies"] += string(r.Body)
					for k, v := range r.Header {
						where[r.Format+" request headers"] += k + ": " + strings.Join(v, ",") + "\n"
					}
				}
			}
			for place, text := range where {
				// Each provider gets its own key, nothing else.
				secrets := map[string][]string{"openai request headers": {gh.Token, anthropicKey},
					"anthropic request headers": {gh.Token, openAIKey}}[place]
				if secrets == nil {
					secrets = []string{gh.Token, openAIKey, anthropicKey}
				}
				for _, s := range secrets {
					if strings.Contains(text, s) {
						t.Errorf("%s holds the credential %q", place, s)
					}
				}
			}
		})
	}
}

// withKeys sets the model API keys and go-gh's request logging.
func withKeys(env *testkit.Env) {
	env.Set("OPENAI_API_KEY", openAIKey)
	env.Set("ANTHROPIC_API_KEY", anthropicKey)
	env.Set("GH_DEBUG", "api")
}
