package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// localReviewer is a reviewer's envelope raising fs (approving when none).
func localReviewer(fs ...finding.Finding) testkit.Step {
	conclusion := "approve"
	if len(fs) > 0 {
		conclusion = "request_changes"
	}
	b, _ := json.Marshal(map[string]any{"agent": "reviewer", "prNumber": 0, "conclusion": conclusion,
		"issues":   map[string]int{"p0_blocking": 0, "p1_critical": len(fs), "p2_important": 0, "p3_suggestion": 0},
		"findings": append([]finding.Finding{}, fs...), "fullReport": "done"})
	return testkit.Reply("BEGIN_JSON\n" + string(b) + "\nEND_JSON")
}

// localBranch is a clone on branch feature whose one commit (not pushed
// yet) sets a negative cache size, with two local reviewers configured.
func localBranch(t *testing.T) (*testkit.Repo, *testkit.Env, *testkit.FakeModel, *testkit.GitHub) {
	t.Helper()
	r := testkit.NewRepo(t, "main", "feature",
		map[string]string{"cache.go": "package cache\n\nvar size = 10\n"},
		map[string]string{"cache.go": "package cache\n\nvar size = 10\n\nvar ttl = 60\n"})
	testkit.Git(t, r.Clone, "remote", "set-head", "origin", "main")
	testkit.WriteFiles(t, r.Clone, map[string]string{"cache.go": "package cache\n\nvar size = -1\n\nvar ttl = 60\n"})
	testkit.Git(t, r.Clone, "commit", "--quiet", "-am", "disable the cache")
	gh := testkit.NewGitHub(t)
	fm := testkit.NewFakeModel(t)
	env := testkit.NewEnv(t)
	gh.Configure(env, repo)
	fm.Configure(env)
	env.Dir = r.Clone
	env.WriteConfig(t, `{"reviewerModels": ["ollama/qwen-a", "ollama/qwen-b"], "commentsAnalyzerModel": "ollama/qwen-a", "prFixModel": "ollama/qwen-a"}`)
	return r, env, fm, gh
}

var negativeSize = finding.Finding{Priority: "P1", Category: "quality", File: "cache.go", Line: new(3), Title: "negative cache size", Description: "size -1 disables the cache"}

func modelCalls(fm *testkit.FakeModel) int {
	return len(fm.Requests("qwen-a")) + len(fm.Requests("qwen-b"))
}

// gh ocdx review as a pre-push hook, through git push and the built
// binary: a P1 stops the push and the hook says how to skip it once; the
// finding, dismissed for the branch (gh ocdx dismiss --branch), no longer
// blocks: the next push goes through, with the finding listed as
// dismissed and no model asked again (the branch did not change).
func TestPrePushHookHonoursALocalDismissal(t *testing.T) {
	t.Parallel()
	r, env, fm, gh := localBranch(t)
	hook := filepath.Join(r.Clone, ".git", "hooks", "pre-push")
	script := "#!/bin/sh\n# Review what is about to be pushed; exit 3 (findings) or 1 (error) stops the push.\nexec '" + testkit.Binary(t) + "' review </dev/null\n"
	if err := os.MkdirAll(filepath.Dir(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	fm.Script("qwen-a", localReviewer(negativeSize))
	fm.Script("qwen-b", localReviewer())
	id := negativeSize.ComputeID()
	pushed := r.RemoteOID(t, "feature")

	res := env.RunWith(t, nil, "git", "push", "origin", "feature")
	if res.Code == 0 {
		t.Fatalf("the push went through a P1:\n%s", res.Stderr)
	}
	wantContains(t, "the hook's output", res.Stdout+res.Stderr, id, "git push --no-verify", "gh ocdx dismiss --branch feature "+id)
	if got := r.RemoteOID(t, "feature"); got != pushed {
		t.Fatalf("the blocked push moved the remote branch to %s", got)
	}
	calls := modelCalls(fm)

	// Dismissed for the branch's local review: nothing is posted.
	res = env.RunBinary(t, "dismiss", "--branch", "feature", id)
	wantCode(t, res, 0)
	wantContains(t, "dismiss", res.Stderr, "✓ Dismissed for the local review of feature: "+id)
	res = env.RunBinary(t, "dismiss", "--branch", "feature", id)
	wantCode(t, res, 0)
	wantContains(t, "dismiss again", res.Stderr, "! Already dismissed")
	res = env.RunBinary(t, "state", "show", "--branch", "feature", "--json", "dismissed", "--jq", ".dismissed[].id")
	wantCode(t, res, 0)
	if strings.TrimSpace(res.Stdout) != id {
		t.Errorf("state show --branch feature lists the dismissals %q, want %s", res.Stdout, id)
	}

	res = env.RunWith(t, nil, "git", "push", "origin", "feature")
	if res.Code != 0 {
		t.Fatalf("the push with the finding dismissed exited %d:\n%s", res.Code, res.Stderr)
	}
	head := testkit.Git(t, r.Clone, "rev-parse", "HEAD")
	if got := r.RemoteOID(t, "feature"); got != head {
		t.Errorf("the remote branch is at %s, want the pushed %s", got, head)
	}
	wantContains(t, "the hook's output", res.Stdout+res.Stderr, "already reviewed at "+head[:7], "## Dismissed (1)", id)
	if n := modelCalls(fm); n != calls {
		t.Errorf("the unchanged branch was reviewed again: %d model calls, want %d", n, calls)
	}
	if reqs := gh.Requests(); len(reqs) != 0 {
		t.Errorf("the hook and dismiss --branch made %d GitHub request(s): %v", len(reqs), reqs)
	}
}

// Without a pull request for the branch, dismiss records the dismissal for
// the branch's local review instead of failing; a SEC- finding is
// dismissed with a warning that the pull request's review raises it again.
func TestDismissWithoutAPullRequestIsLocal(t *testing.T) {
	t.Parallel()
	_, env, fm, _ := localBranch(t)
	fm.Script("qwen-a", localReviewer(negativeSize))
	fm.Script("qwen-b", localReviewer())
	id := negativeSize.ComputeID()

	res := env.RunBinary(t, "dismiss", id, "SEC-0badf00d")
	wantCode(t, res, 0)
	wantContains(t, "stderr", res.Stderr, `no open pull request in `+repo+` has feature as its head`, "SEC-0badf00d is a secret", "only an admin can dismiss it there")
	wantContains(t, "stderr", res.Stderr, "✓ Dismissed for the local review of feature: "+id+", SEC-0badf00d")

	res = env.RunBinary(t, "review", "--json", "outcome,dismissed,remaining", "--jq", `"\(.outcome) \([.dismissed[].id] | join(",")) \(.remaining | length)"`)
	wantCode(t, res, 0)
	if got := strings.TrimSpace(res.Stdout); got != "converged "+id+" 0" {
		t.Errorf("review after the dismissal: %q, want converged with %s dismissed", got, id)
	}

	res = env.RunBinary(t, "dismiss", "--branch", "no-such-branch", id)
	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, `no branch "no-such-branch"`)
}

// A second review of an unchanged branch (same commit, same uncommitted
// changes, same merge base and policy) asks no model: it prints the same
// findings with the same exit code and says it was already reviewed.
// A change in the working tree, or --full, reviews again.
func TestReviewLocalReusesTheReviewOfAnUnchangedBranch(t *testing.T) {
	t.Parallel()
	r, env, fm, _ := localBranch(t)
	fm.Script("qwen-a", localReviewer(negativeSize))
	fm.Script("qwen-b", localReviewer())
	head := testkit.Git(t, r.Clone, "rev-parse", "HEAD")

	first := env.RunBinary(t, "review")
	wantCode(t, first, 3)
	calls := modelCalls(fm)

	again := env.RunBinary(t, "review")
	wantCode(t, again, 3)
	if n := modelCalls(fm); n != calls {
		t.Fatalf("the unchanged branch was reviewed again: %d model calls, want %d\n%s", n, calls, again.Stderr)
	}
	wantContains(t, "stderr", again.Stderr, "already reviewed at "+head[:7])
	for _, s := range []string{"## P1 (1)", "`cache.go:3` **negative cache size**", negativeSize.ComputeID()} {
		if !strings.Contains(first.Stdout, s) || !strings.Contains(again.Stdout, s) {
			t.Errorf("the findings differ: %q in the first review's output and the second's?\nfirst:\n%s\nsecond:\n%s", s, first.Stdout, again.Stdout)
		}
	}
	res := env.RunBinary(t, "review", "--json", "alreadyReviewed", "--jq", ".alreadyReviewed")
	wantCode(t, res, 3)
	if strings.TrimSpace(res.Stdout) != head {
		t.Errorf("--json alreadyReviewed is %q, want %s", res.Stdout, head)
	}

	// An uncommitted change is a new review.
	testkit.WriteFiles(t, r.Clone, map[string]string{"cache.go": "package cache\n\nvar size = 20\n\nvar ttl = 60\n"})
	fm.Script("qwen-a", localReviewer())
	fm.Script("qwen-b", localReviewer())
	res = env.RunBinary(t, "review")
	wantCode(t, res, 0)
	if n := modelCalls(fm); n != calls+2 {
		t.Errorf("the changed working tree was not reviewed again: %d model calls, want %d", n, calls+2)
	}
	if strings.Contains(res.Stderr, "already reviewed") {
		t.Errorf("a changed working tree said it was already reviewed:\n%s", res.Stderr)
	}

	// --full asks the models again, unchanged or not.
	fm.Script("qwen-a", localReviewer())
	fm.Script("qwen-b", localReviewer())
	res = env.RunBinary(t, "review", "--full")
	wantCode(t, res, 0)
	if n := modelCalls(fm); n != calls+4 {
		t.Errorf("--full did not review again: %d model calls, want %d", n, calls+4)
	}
}

// A pre-push hook whose reviewers all fail stops the push too: the error
// says how to skip the review once, and a failed review is never reused.
func TestReviewLocalFailureSaysHowToSkipTheHook(t *testing.T) {
	t.Parallel()
	_, env, fm, _ := localBranch(t)
	for _, m := range []string{"qwen-a", "qwen-b"} {
		fm.Script(m, testkit.Reply("no envelope"), testkit.Reply("still no envelope"))
	}
	res := env.RunBinary(t, "review")
	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, "error: all 2 reviewers failed", "git push --no-verify skips the review once")
	calls := modelCalls(fm)

	fm.Script("qwen-a", localReviewer(negativeSize))
	fm.Script("qwen-b", localReviewer())
	res = env.RunBinary(t, "review")
	wantCode(t, res, 3)
	if modelCalls(fm) == calls || strings.Contains(res.Stderr, "already reviewed") {
		t.Errorf("the failed review was reused:\n%s", res.Stderr)
	}
}
