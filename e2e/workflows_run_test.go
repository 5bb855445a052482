package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// The README's workflows that use the action run as copied: each is taken
// from the README, its configuration is committed with the README's own
// block, and its job runs step by step in a simulated runner (runner_test.go)
// against the fakes, the action installing the release binary it is
// pinned at. The run ends as its user would want to see it: every step
// passes, the action's outputs and the job's summary say how it ended, and
// the review is on the pull request.
func TestREADMEWorkflowsRunAsCopiedInASimulatedRunner(t *testing.T) {
	t.Parallel()
	ran := 0
	for name, wf := range workflows(t) {
		if !strings.HasPrefix(name, "README.md: ") {
			continue
		}
		for id, job := range wf.Jobs {
			action := -1
			for i, s := range job.Steps {
				if strings.HasPrefix(s.Uses, "ocdx/gh-ocdx@") {
					action = i
				}
			}
			if action < 0 {
				continue
			}
			ran++
			_, onPR := wf.On["pull_request"]
			_, onComment := wf.On["issue_comment"]
			switch {
			case onPR:
				// Only the action runs gh: as copied, it runs on GitHub
				// Enterprise Server too.
				for _, ghes := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s, job %s, GHES %t", name, id, ghes), func(t *testing.T) {
						t.Parallel()
						runLoopWorkflow(t, wf, job, job.Steps[action], ghes)
					})
				}
			case onComment:
				// Its own steps run gh, which on GitHub Enterprise Server
				// needs GH_HOST and GH_ENTERPRISE_TOKEN (README, In GitHub
				// Actions): on github.com.
				for _, fork := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s, job %s, fork %t", name, id, fork), func(t *testing.T) {
						t.Parallel()
						runCommandsWorkflow(t, job, job.Steps[action], fork)
					})
				}
			default:
				t.Errorf("%s: a workflow on %v, for which the simulated runner has no event", name, wf.On)
			}
		}
	}
	if ran < 2 {
		t.Fatalf("%d workflows of the README use the action, want the review-loop and the commands workflows", ran)
	}
}

// workflowPR is PR #31 of a Go repository, in a bare remote, on the fake
// GitHub, with the README's configuration committed to main, and the
// release v1 of the action's repository holding a binary that runs the
// built one (releaseBinary).
type workflowPR struct {
	gh     *testkit.GitHub
	fm     *testkit.FakeModel
	repo   *testkit.Repo
	config readmeConfig
	start  string
}

// readmeConfig is the configuration the README has the user commit.
type readmeConfig struct {
	ReviewerModels        []string
	CommentsAnalyzerModel string
	PRFixModel            string
	Verify                []string
}

// newWorkflowPR is the PR; edit, when not nil, changes it before it is
// added to the fake.
func newWorkflowPR(t *testing.T, configPath string, edit func(*testkit.PR)) *workflowPR {
	t.Helper()
	r := testkit.NewRepo(t, "main", "feature/cache",
		map[string]string{"README.md": "# widgets\n", "go.mod": "module example.com/widgets\n\ngo 1.22\n", "cache.go": "package cache\n"},
		map[string]string{"cache.go": "package cache\n\nvar Size = 10\n\nfunc Get(k string) string { return k }\n"})
	gh := testkit.NewGitHub(t)
	pr := testkit.PR{Number: loopPR, Title: "Add a cache", Body: "Adds a cache.", Author: "mona",
		HeadRef: r.Head, BaseRef: r.Base, Remote: r.Remote, Diff: r.Diff(t)}
	if edit != nil {
		edit(&pr)
	}
	gh.AddPR(repo, pr)
	gh.AddRelease("ocdx/gh-ocdx", ghOcdxRelease("v1", "5d2e0f4c9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d", releaseBinary(t), nil))
	w := &workflowPR{gh: gh, fm: testkit.NewFakeModel(t), repo: r, start: r.RemoteOID(t, r.Head)}
	w.commitREADMEConfig(t, configPath)
	return w
}

// commitREADMEConfig runs the README's block that writes configPath and
// commits it to the default branch, in a maintainer's clone of main.
func (w *workflowPR) commitREADMEConfig(t *testing.T, configPath string) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(testkit.ModuleRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := ""
	for _, m := range regexp.MustCompile("(?ms)^```sh\n(.*?)^```").FindAllStringSubmatch(string(readme), -1) {
		if strings.Contains(m[1], "cat > "+configPath+" <<") {
			block = m[1]
		}
	}
	if block == "" {
		t.Fatalf("the README has no sh block writing %s", configPath)
	}
	dev := testkit.NewEnv(t)
	testkit.Git(t, dev.Root, "clone", "--quiet", "--branch", w.repo.Base, w.repo.Remote, "clone")
	dev.Dir = filepath.Join(dev.Root, "clone")
	if res := dev.RunWith(t, nil, "bash", "-e", "-c", block); res.Code != 0 {
		t.Fatalf("the README's configuration block exited %d:\n%s\n%s%s", res.Code, block, res.Stdout, res.Stderr)
	}
	b, err := os.ReadFile(filepath.Join(dev.Dir, configPath))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &w.config); err != nil {
		t.Fatalf("the README's %s: %v", configPath, err)
	}
	if got := testkit.Git(t, dev.Dir, "rev-parse", "HEAD"); w.repo.RemoteOID(t, w.repo.Base) != got {
		t.Fatalf("the README's block did not push %s to %s", configPath, w.repo.Base)
	}
}

var reCommitted = regexp.MustCompile(`committed ([0-9a-f]{40})`)

// scriptModels has the configuration's models answer: its first reviewer
// finds cacheBug in the first findingRounds rounds, every other answer
// approves; the fix model (which may be a reviewer too) bounds the cache,
// commits and answers with its envelope.
func (w *workflowPR) scriptModels(t *testing.T, findingRounds int) {
	t.Helper()
	name := func(m string) string { _, n, _ := strings.Cut(m, "/"); return n }
	var mu sync.Mutex
	rounds := map[string]int{}
	fixCalls := 0
	fix := func(req testkit.ModelRequest) testkit.Step {
		fixCalls++
		switch fixCalls {
		case 1:
			return testkit.CallTools(call("edit_file", map[string]string{"path": "cache.go", "old_string": "var Size = 10", "new_string": "const Size = 10"}))
		case 2:
			return testkit.CallTools(call("git_commit", map[string]any{"message": "fix: the cache size is a constant", "paths": []string{"cache.go"}}))
		}
		sha := ""
		if m := reCommitted.FindAllStringSubmatch(string(req.Body), -1); m != nil {
			sha = m[len(m)-1][1]
		}
		res := finding.FixAnswer{Agent: "pr-fix", PRNumber: loopPR, FixedIssues: []finding.FixedIssue{{FindingID: cacheBug.id(), CommitSha: sha, Description: "Size is a constant."}},
			RejectedIssues: []finding.RejectedIssue{}, Commits: []finding.Commit{{Sha: sha, Message: "fix: the cache size is a constant"}}}
		b, _ := json.Marshal(res)
		return testkit.Reply("BEGIN_JSON\n" + string(b) + "\nEND_JSON")
	}
	answer := func(model string) func(testkit.ModelRequest) testkit.Step {
		return func(req testkit.ModelRequest) testkit.Step {
			mu.Lock()
			defer mu.Unlock()
			if strings.Contains(string(req.Body), "You are gh-ocdx's pr-fix agent") {
				return fix(req)
			}
			if model == name(w.config.CommentsAnalyzerModel) {
				return analyzerReply()
			}
			for i, m := range w.config.ReviewerModels {
				if name(m) != model {
					continue
				}
				rounds[model]++
				agent := fmt.Sprintf("reviewer-%d", i+1)
				if i == 0 && rounds[model] <= findingRounds {
					return reviewerReply(agent, "request_changes", cacheBug)
				}
				return reviewerReply(agent, "approve")
			}
			return testkit.Reply("no answer scripted for " + model)
		}
	}
	models := append([]string{w.config.CommentsAnalyzerModel, w.config.PRFixModel}, w.config.ReviewerModels...)
	for _, m := range models {
		w.fm.Answer(name(m), answer(name(m)))
	}
}

// runner is a runner (of GitHub Enterprise Server: ghes) for event on
// this PR, with the providers' keys as the repository's secrets.
func (w *workflowPR) runner(t *testing.T, ghes bool, event string, payload map[string]any) *runner {
	t.Helper()
	r := newRunner(t, w.gh, ghes, event, payload, map[string]string{"OPENAI_API_KEY": "fake-openai-key", "ANTHROPIC_API_KEY": "fake-anthropic-key"})
	for _, k := range []string{"OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"} {
		r.env.Set(k, w.fm.Getenv(k))
	}
	return r
}

// prPayload is the pull_request event GitHub sends for PR #31.
func (w *workflowPR) prPayload(t *testing.T) map[string]any {
	head := map[string]any{"ref": w.repo.Head, "sha": w.start, "repo": map[string]any{"full_name": repo}}
	base := map[string]any{"ref": w.repo.Base, "sha": w.repo.RemoteOID(t, w.repo.Base), "repo": map[string]any{"full_name": repo}}
	return map[string]any{"action": "synchronize", "number": float64(loopPR),
		"pull_request": map[string]any{"number": float64(loopPR), "head": head, "base": base, "user": map[string]any{"login": "mona"}},
		"repository":   map[string]any{"full_name": repo}, "sender": map[string]any{"login": "mona"}}
}

func runLoopWorkflow(t *testing.T, wf workflowFile, job workflowJob, step workflowStep, ghes bool) {
	w := newWorkflowPR(t, step.With["config"], nil)
	w.scriptModels(t, 1)
	if !jobGrants(wf, job, "checks") {
		w.gh.RefuseChecks(403) // as GitHub answers a token without checks: write
	}
	r := w.runner(t, ghes, "pull_request", w.prPayload(t))

	failed := r.job(job)

	if failed >= 0 {
		t.Fatalf("step %d failed:\n%s", failed+1, r.Log.String())
	}
	a := r.Action
	if !a.Ran {
		t.Fatal("the action's step did not run")
	}
	if a.Outputs["outcome"] != "converged" || a.Outputs["exit-code"] != "0" {
		t.Errorf("the action's outputs: %v\n%s", a.Outputs, r.Log.String())
	}
	log := a.Result.Stdout + a.Result.Stderr
	wantContains(t, "the step's log", log, platform+" of release v1 matches its SHA-256",
		"the configuration is "+step.With["config"]+" of main (", "✓ go vet ./...", "✓ go test ./...",
		"/base/"+step.With["config"]+"): go vet ./...; go test ./...\n")
	wantContains(t, "the job's summary", a.Summary, "## gh-ocdx review-loop: PR #31", "**converged** (exit 0)", "| 1 | `", "| 2 | `",
		"No P0–P2 finding remains.", "[The report on the pull request](https://")
	if n := len(w.gh.Reviews(repo, loopPR)); n < 2 {
		t.Errorf("%d reviews on the PR, want one per round", n)
	}
	for _, m := range w.config.ReviewerModels {
		if _, n, _ := strings.Cut(m, "/"); len(w.fm.Requests(n)) == 0 {
			t.Errorf("the configuration's reviewer %s was never called", m)
		}
	}
	// The fix was pushed to the PR's branch as the workflow's git identity.
	head := w.repo.RemoteOID(t, w.repo.Head)
	if head == w.start {
		t.Fatal("no fix was pushed")
	}
	if who := testkit.Git(t, w.repo.Remote, "log", "-1", "--format=%an <%ae> %s", head); who != "gh-ocdx <gh-ocdx@users.noreply.github.com> fix: the cache size is a constant" {
		t.Errorf("the pushed commit: %s", who)
	}
	// The gh-ocdx check run a ruleset can require, on the head the run
	// converged on.
	if crs := w.gh.CheckRuns(repo); len(crs) != 1 || crs[0].Name != "gh-ocdx" || crs[0].HeadSHA != head || crs[0].Conclusion != "success" {
		t.Errorf("check runs %+v, want one gh-ocdx success on %s\n%s", crs, head, r.Log.String())
	}
}

// runCommandsWorkflow runs the commands workflow for a maintainer's
// /ocdx review: on the repository's own PR a review round runs; on a
// fork's PR the workspace stays on the default branch, without the
// checkout's credential, and the answer is one line.
func runCommandsWorkflow(t *testing.T, job workflowJob, step workflowStep, fork bool) {
	var edit func(*testkit.PR)
	if fork {
		edit = fromAFork
	}
	w := newWorkflowPR(t, step.With["config"], edit)
	w.scriptModels(t, 0)
	w.gh.SetPermission(repo, "mona", "admin")
	w.gh.AddCommentBy(repo, loopPR, "mona", "OWNER", "/ocdx review")
	cs := w.gh.Comments(repo, loopPR)
	id := cs[len(cs)-1].ID
	payload := map[string]any{"action": "created",
		"issue": map[string]any{"number": float64(loopPR), "pull_request": map[string]any{"url": "https://" + w.gh.Host() + "/api/v3/repos/" + repo + "/pulls/31"}},
		"comment": map[string]any{"id": float64(id), "body": "/ocdx review", "author_association": "OWNER",
			"user": map[string]any{"login": "mona", "type": "User"}},
		"repository": map[string]any{"full_name": repo}, "sender": map[string]any{"login": "mona"}}
	r := w.runner(t, false, "issue_comment", payload)

	failed := r.job(job)

	if failed >= 0 {
		t.Fatalf("step %d failed:\n%s", failed+1, r.Log.String())
	}
	if said := r.steps["pr"].(map[string]any)["outputs"].(map[string]any)["fork"]; said != strconv.FormatBool(fork) {
		t.Errorf("the fork step says fork=%v, want %t", said, fork)
	}
	a := r.Action
	if a.Outputs["outcome"] != "command" || a.Outputs["exit-code"] != "0" {
		t.Errorf("the action's outputs: %v\n%s", a.Outputs, r.Log.String())
	}
	wantContains(t, "the step's log", a.Result.Stdout+a.Result.Stderr, platform+" of release v1 matches its SHA-256")
	wantContains(t, "the job's summary", a.Summary, "## gh-ocdx command: PR #31, comment "+strconv.FormatInt(id, 10), "**command** (exit 0)")
	branch := testkit.Git(t, r.workspace, "branch", "--show-current")
	reviews := len(w.gh.Reviews(repo, loopPR))
	if !fork {
		if branch != w.repo.Head || reviews != 1 {
			t.Errorf("the workspace is on %q with %d reviews on the PR, want the PR's branch and the one review /ocdx review asked for\n%s", branch, reviews, r.Log.String())
		}
		return
	}
	if branch != w.repo.Base || reviews != 0 {
		t.Errorf("a fork's PR: the workspace is on %q with %d reviews, want the default branch and none", branch, reviews)
	}
	kept := exec.Command("git", "config", "--local", "--get-regexp", "extraheader")
	kept.Dir = r.workspace
	if out, _ := kept.Output(); len(out) > 0 {
		t.Errorf("the checkout kept its credential in a fork's PR's workspace: %s", out)
	}
	var answers []string
	for _, c := range w.gh.Comments(repo, loopPR) {
		if c.Login == w.gh.Login {
			answers = append(answers, c.Body)
		}
	}
	if len(answers) != 1 || !strings.Contains(answers[0], "do not run on a pull request from a fork (eve/widgets)") {
		t.Errorf("answers: %q", answers)
	}
}

// The commands workflow's job starts, as the simulated runner reads its
// if:, for exactly the comments the README says it answers.
func TestCommandsWorkflowStartsForTheCommentsTheREADMESays(t *testing.T) {
	t.Parallel()
	job, ok := workflows(t)["README.md: ocdx-commands"].Jobs["command"]
	if !ok {
		t.Fatal("the README's ocdx-commands workflow has no job command")
	}
	comment := func(event, body, association, userType string, extra map[string]any) map[string]any {
		c := map[string]any{"id": float64(7), "body": body, "author_association": association, "user": map[string]any{"login": "mona", "type": userType}}
		for k, v := range extra {
			c[k] = v
		}
		p := map[string]any{"comment": c}
		if event == "issue_comment" {
			p["issue"] = map[string]any{"number": float64(31), "pull_request": map[string]any{"url": "u"}}
		} else {
			p["pull_request"] = map[string]any{"number": float64(31)}
		}
		return p
	}
	for _, tc := range []struct {
		name, event string
		payload     map[string]any
		runs        bool
	}{
		{"an owner's command", "issue_comment", comment("issue_comment", "/ocdx review", "OWNER", "User", nil), true},
		{"a member's command in a review thread", "pull_request_review_comment", comment("", "/ocdx ask why?", "MEMBER", "User", nil), true},
		{"a collaborator's reply in a review thread", "pull_request_review_comment", comment("", "It is bounded now.", "COLLABORATOR", "User", map[string]any{"in_reply_to_id": float64(5)}), true},
		{"a contributor's command", "issue_comment", comment("issue_comment", "/ocdx fix", "CONTRIBUTOR", "User", nil), false},
		{"a bot's command", "issue_comment", comment("issue_comment", "/ocdx review", "OWNER", "Bot", nil), false},
		{"an owner's comment that is no command", "issue_comment", comment("issue_comment", "Looks good", "OWNER", "User", nil), false},
		{"an owner's new review comment that is no command", "pull_request_review_comment", comment("", "Nit: a name", "OWNER", "User", nil), false},
		{"a command on an issue", "issue_comment", map[string]any{"issue": map[string]any{"number": float64(9)},
			"comment": map[string]any{"id": float64(7), "body": "/ocdx review", "author_association": "OWNER", "user": map[string]any{"login": "mona", "type": "User"}}}, false},
	} {
		r := &runner{t: t, ctx: map[string]any{"github": map[string]any{"event": tc.payload, "event_name": tc.event}}}
		if got := truthy(r.eval(job.If)); got != tc.runs {
			t.Errorf("%s: the job runs %t, want %t", tc.name, got, tc.runs)
		}
	}
}
