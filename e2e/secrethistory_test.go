package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// historyToken is planted in the PR's history only: a commit's removed
// line, a file's name, a commit's message.
const historyToken = "ghp_hist0ryhist0ryhist0ryhist0ryhist0ry1"

// plantHistory commits a secret on the branch checked out in dir the way
// kind says, and returns the commit that holds it: "removed" adds the
// token to cache.go and takes it out again in the next commit, "name"
// adds keys/<token>.json, "message" writes it in a commit's message.
func plantHistory(t *testing.T, dir, kind string) string {
	t.Helper()
	commit := func(msg string) string {
		testkit.Git(t, dir, "add", "-A")
		testkit.Git(t, dir, "commit", "--quiet", "--allow-empty", "-m", msg)
		return testkit.Git(t, dir, "rev-parse", "HEAD")
	}
	var sha string
	switch kind {
	case "removed":
		old := testkit.Git(t, dir, "show", "HEAD:cache.go")
		testkit.WriteFiles(t, dir, map[string]string{"cache.go": old + "\nvar key = \"" + historyToken + "\"\n"})
		sha = commit("read the key")
		testkit.WriteFiles(t, dir, map[string]string{"cache.go": old + "\n"})
		commit("removed the key")
	case "name":
		testkit.WriteFiles(t, dir, map[string]string{"keys/" + historyToken + ".json": "{}\n"})
		sha = commit("keys")
	case "message":
		sha = commit("use the token " + historyToken + " for now")
	}
	return sha
}

// A secret that only the PR's history holds (added then removed, in an
// added file's name, in a commit's message) is a P0 SEC- finding that
// names the commit: review-loop does not converge over it, and the
// secret is neither posted, printed nor sent to a model (before, the scan
// read only the net diff and the run converged with exit 0).
func TestLoopFindsASecretInThePRsHistory(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"removed", "name", "message"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			lf := newLoop(t, nil)
			sha := plantHistory(t, lf.repo.Clone, kind)
			testkit.Git(t, lf.repo.Clone, "push", "--quiet", "origin", "HEAD")
			for range 3 {
				lf.approveRound()
			}

			res := lf.run("--yes", "--json")

			wantCode(t, res, 3)
			var out struct {
				Outcome, Reason string
				Rounds          []struct {
					Findings []struct{ ID, Priority, File, Title, Description, Suggestion string }
				}
			}
			if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil || len(out.Rounds) == 0 {
				t.Fatalf("--json: %v\n%s", err, res.Stdout)
			}
			var sec []string
			for _, f := range out.Rounds[0].Findings {
				if strings.HasPrefix(f.ID, "SEC-") && f.Priority == "P0" {
					sec = append(sec, f.ID)
					all := f.Title + " " + f.Description + " " + f.Suggestion
					if kind != "name" && !strings.Contains(all, sha[:7]) {
						t.Errorf("the finding does not name commit %s: %+v", sha[:7], f)
					}
					wantContains(t, "the finding", all, "github-token", "Revoke the exposed secret", "squash-merge")
				}
			}
			if len(sec) != 1 {
				t.Fatalf("want one P0 SEC- finding, got %v: %+v", sec, out.Rounds[0].Findings)
			}
			if out.Outcome != "blocked" {
				t.Errorf("outcome %s: %s", out.Outcome, out.Reason)
			}
			wantContains(t, "review report", lf.bodies()[0], sec[0])
			if strings.Contains(res.Stdout+res.Stderr, historyToken) {
				t.Error("the token is in the output")
			}
			for _, m := range []string{"rev-a", "rev-b", "analyzer"} {
				for _, q := range lf.fm.Requests(m) {
					if strings.Contains(string(q.Body), historyToken) {
						t.Errorf("the token was sent to %s", m)
					}
				}
			}
		})
	}
}

// gh ocdx review scans the branch's commits since the merge base the same
// way: a token added and removed again, or in a commit's message, exits 3
// with a P0 SEC- finding naming the commit.
func TestReviewLocalFindsASecretInTheBranchsHistory(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"removed", "message"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			r := testkit.NewRepo(t, "main", "feature",
				map[string]string{"cache.go": "package cache\n\nvar size = 10\n"},
				map[string]string{"cache.go": "package cache\n\nvar size = 20\n"})
			testkit.Git(t, r.Clone, "remote", "set-head", "origin", "main")
			sha := plantHistory(t, r.Clone, kind)
			fm := testkit.NewFakeModel(t)
			env := testkit.NewEnv(t)
			fm.Configure(env)
			env.Dir = r.Clone
			env.WriteConfig(t, `{"reviewerModels": ["ollama/qwen-a"], "commentsAnalyzerModel": "ollama/qwen-a", "prFixModel": "ollama/qwen-a"}`)
			fm.Script("qwen-a", testkit.Reply(`BEGIN_JSON
{"agent":"reviewer","prNumber":0,"conclusion":"approve","issues":{"p0_blocking":0,"p1_critical":0,"p2_important":0,"p3_suggestion":0},"findings":[],"fullReport":"fine"}
END_JSON`))

			res := env.Run(t, "review")

			wantCode(t, res, 3)
			wantContains(t, "stdout", res.Stdout, "## P0 (1)", "SEC-", sha[:7], "github-token")
			if strings.Contains(res.Stdout+res.Stderr, historyToken) {
				t.Error("the token is in the output")
			}
			for _, q := range fm.Requests("qwen-a") {
				if strings.Contains(string(q.Body), historyToken) {
					t.Error("the token was sent to the model")
				}
			}
		})
	}
}
