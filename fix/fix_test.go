package fix

import (
	"context"
	"errors"
	"fmt"
	"github.com/ocdx/gh-ocdx/change"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/state"
)

// step answers one model request; it sees the request, so it can read the
// sha git_commit returned.
type step func(req llm.Request) llm.Response

type model struct {
	mu    sync.Mutex
	steps []step
	reqs  []llm.Request
}

func (m *model) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, req)
	if len(m.steps) == 0 {
		return llm.Response{}, errors.New("script exhausted")
	}
	s := m.steps[0]
	m.steps = m.steps[1:]
	r := s(req)
	r.Usage = tokens.Usage{Calls: 1, Input: 100, Output: 10}
	return r, nil
}

func calls(cs ...llm.ToolCall) step {
	return func(llm.Request) llm.Response {
		for i := range cs {
			cs[i].ID = fmt.Sprintf("c%d", i)
		}
		return llm.Response{Calls: cs}
	}
}

func tc(name, args string) llm.ToolCall { return llm.ToolCall{Name: name, Args: []byte(args)} }

// lastSha is the sha of the last git_commit result in the request.
func lastSha(req llm.Request) string {
	sha := ""
	for _, m := range req.Messages {
		for _, r := range m.Results {
			if s, ok := strings.CutPrefix(r.Content, "committed "); ok {
				sha = s
			}
		}
	}
	return sha
}

// answer replies with an envelope fixing `fixed` with the last commit and
// rejecting `rejected`.
func answer(fixed, rejected []string) step {
	return func(req llm.Request) llm.Response {
		sha := lastSha(req)
		var f, r, c []string
		for _, id := range fixed {
			f = append(f, fmt.Sprintf(`{"findingId":%q,"commitSha":%q,"description":"done"}`, id, sha))
		}
		for _, id := range rejected {
			r = append(r, fmt.Sprintf(`{"findingId":%q,"reason":"not a bug"}`, id))
		}
		if sha != "" {
			c = append(c, fmt.Sprintf(`{"sha":%q,"message":"fix"}`, sha))
		}
		return llm.Response{Text: fmt.Sprintf("BEGIN_JSON\n{\"agent\":\"pr-fix\",\"prNumber\":24,\"summary\":{\"fixed\":0,\"rejected\":0,\"deferred\":0},"+
			"\"fixedIssues\":[%s],\"rejectedIssues\":[%s],\"commits\":[%s]}\nEND_JSON", strings.Join(f, ","), strings.Join(r, ","), strings.Join(c, ","))}
	}
}

// fakeGitHub reads the head from the bare remote and keeps comments.
type fakeGitHub struct {
	remote, branch string
	mu             sync.Mutex
	comments       []github.Comment
}

func (g *fakeGitHub) PostComment(_ context.Context, _ github.Repo, _ int, body string) (*github.Comment, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := github.Comment{ID: int64(len(g.comments) + 1), Body: body, Author: "ocdx-bot", URL: fmt.Sprintf("https://example.test/c/%d", len(g.comments)+1)}
	g.comments = append(g.comments, c)
	return &c, nil
}

func (g *fakeGitHub) Comments(context.Context, github.Repo, int) ([]github.Comment, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]github.Comment(nil), g.comments...), nil
}

func (g *fakeGitHub) HeadOID(context.Context, github.Repo, int) (string, error) {
	out, err := exec.Command("git", "--git-dir", g.remote, "rev-parse", "refs/heads/"+g.branch).Output()
	return strings.TrimSpace(string(out)), err
}

type fixture struct {
	fx    *testkit.Repo
	gh    *fakeGitHub
	m     *model
	store *state.Store
	run   *state.Active
	opts  Options
	log   *strings.Builder
}

var findings = []finding.Finding{
	{ID: "SEC-00000001", Priority: "P0", Category: "security", File: "a.txt", Title: "a is unsafe", Description: "make it fixed"},
	{ID: "QUAL-0000002", Priority: "P2", Category: "quality", File: "b.txt", Title: "b is fine", Description: "style"},
}

// newFixture: check.sh passes once a.txt says "fixed" and fails with
// "boom" until then.
func newFixture(t *testing.T, steps ...step) *fixture {
	t.Helper()
	fx := testkit.NewRepo(t, "main", "feature",
		map[string]string{"a.txt": "a\n", "check.sh": "grep -q fixed a.txt || { echo boom; exit 1; }\n"},
		map[string]string{"b.txt": "b\n"})
	gh := &fakeGitHub{remote: fx.Remote, branch: "feature"}
	head := testkit.Git(t, fx.Clone, "rev-parse", "HEAD")
	store := state.New(t.TempDir()+"/state.db", nil)
	run, err := store.Begin(state.NewKey("github.com", "octo", "widgets", 24), "fix")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Release() })
	m := &model{steps: steps}
	log := &strings.Builder{}
	pr := &github.PullRequest{Number: 24, State: "OPEN", HeadRefName: "feature", HeadRefOid: head, BaseRefName: "main", Title: "T", Viewer: "ocdx-bot"}
	return &fixture{fx: fx, gh: gh, m: m, store: store, run: run, log: log, opts: Options{
		Repo: github.Repo{Host: "github.com", Owner: "octo", Name: "widgets"},
		PR:   pr, Change: change.OfPR(pr),
		Git: &git.Repo{Dir: fx.Clone}, Model: m, ModelName: "openai/fake", Verify: []string{"sh check.sh"},
		Payload: finding.FixPayload{PRNumber: 24, Round: 1, IssuesToFix: findings},
		Run:     run, Round: 1, GitHub: gh, Progress: log,
	}}
}

var (
	editA   = tc("edit_file", `{"path":"a.txt","old_string":"a\n","new_string":"fixed\n"}`)
	commitA = tc("git_commit", `{"message":"fix: a is safe now","paths":["a.txt"]}`)
)

// round is round 1 as the state file holds it.
func (f *fixture) round(t *testing.T) state.Round {
	t.Helper()
	pr, err := f.store.PR(f.run.Key())
	if err != nil || len(pr.Runs) == 0 || len(pr.Runs[0].Rounds) == 0 {
		t.Fatalf("no round recorded: %v", err)
	}
	return pr.Runs[0].Rounds[0]
}

func TestRunFixesVerifiesPushesAndReports(t *testing.T) {
	f := newFixture(t,
		calls(tc("note", `{"text":"a.txt first, then reject b"}`), editA),
		calls(commitA),
		answer([]string{"SEC-00000001"}, []string{"QUAL-0000002"}))
	var plan PushPlan
	f.opts.Confirm = func(_ context.Context, p PushPlan) (bool, error) { plan = p; return true, nil }

	out, err := Run(context.Background(), f.opts)
	if err != nil {
		t.Fatalf("%v\n%s", err, f.log)
	}
	head := testkit.Git(t, f.fx.Clone, "rev-parse", "HEAD")
	if !out.Pushed || out.HeadOID != head || f.fx.RemoteOID(t, "feature") != head || out.Attempts != 1 {
		t.Errorf("outcome %+v, remote %s, head %s", out, f.fx.RemoteOID(t, "feature"), head)
	}
	if len(plan.Commits) != 1 || !strings.Contains(plan.Commits[0], "fix: a is safe now") || !strings.Contains(plan.Diffstat, "a.txt") || plan.Branch != "feature" {
		t.Errorf("plan %+v", plan)
	}
	if out.Status != state.FixPushed || len(out.Fixed) != 1 || len(out.Rejected) != 1 || out.Fixed[0].CommitSha != head || len(out.Commits) != 1 || !out.Verified {
		t.Errorf("result %+v", out)
	}
	if len(f.gh.comments) != 1 {
		t.Fatalf("want one comment, got %d", len(f.gh.comments))
	}
	body := f.gh.comments[0].Body
	for _, want := range []string{posts.Marker, posts.RunTag(f.run.ID(), 1, "fix"), "SEC-00000001", "a is unsafe", "not a bug", head[:7], "fix: a is safe now", "sh check.sh", "passed", "300 in / 30 out tokens"} {
		if !strings.Contains(body, want) {
			t.Errorf("comment lacks %q:\n%s", want, body)
		}
	}
	pr, _ := f.store.PR(f.run.Key())
	if pr.WIP != nil {
		t.Errorf("WIP left after the push: %+v", pr.WIP)
	}
	rd := pr.Runs[0].Rounds[0]
	for _, p := range []state.Phase{state.PhaseFixed, state.PhaseVerified, state.PhasePushing, state.PhasePushed, state.PhaseReported} {
		if !rd.Done(p) {
			t.Errorf("phase %s not recorded", p)
		}
	}
	// The round holds the same result, for the loop and state show.
	rec, ok := Recorded(rd)
	if !ok || len(rd.Comments) != 1 || rec.Status != state.FixPushed || rec.FixedIDs()[0] != "SEC-00000001" || rec.Rejected[0].FindingID != "QUAL-0000002" ||
		rec.Commits[0].Sha != head || rec.CommentURL != out.CommentURL || rec.Usage != out.Usage || !rec.Verification[0].OK {
		t.Errorf("recorded %+v from round %+v", rec, rd)
	}
	// A re-run of the same round posts nothing twice.
	if _, err := Run(context.Background(), f.opts); err != nil || len(f.gh.comments) != 1 {
		t.Errorf("re-run: %v, %d comments", err, len(f.gh.comments))
	}
	if !strings.Contains(f.log.String(), "edit_file") || !strings.Contains(f.log.String(), "tokens") {
		t.Errorf("progress: %s", f.log)
	}
}

func TestRunRetriesAfterAFailedVerification(t *testing.T) {
	f := newFixture(t,
		calls(tc("write_file", `{"path":"c.txt","content":"c\n"}`)),
		calls(tc("git_commit", `{"message":"feat: c"}`)),
		answer([]string{"SEC-00000001"}, []string{"QUAL-0000002"}),
		// attempt 2: the task shows the failure
		func(req llm.Request) llm.Response {
			if !strings.Contains(req.Messages[0].Text, "attempt 2 of 3") || !strings.Contains(req.Messages[0].Text, "boom") {
				return llm.Response{Text: "the retry task lacks the failure: " + req.Messages[0].Text}
			}
			return calls(editA)(req)
		},
		calls(commitA),
		answer([]string{"SEC-00000001"}, []string{"QUAL-0000002"}))

	out, err := Run(context.Background(), f.opts)
	if err != nil {
		t.Fatalf("%v\n%s", err, f.log)
	}
	if out.Attempts != 2 || !out.Pushed || len(out.Commits) != 1 || len(f.gh.comments) != 1 {
		t.Errorf("outcome %+v", out)
	}
	// The second attempt's commit folds into the first's, and its message
	// is kept under the first's.
	if msg := testkit.Git(t, f.fx.Clone, "log", "-1", "--format=%B"); msg != "feat: c\n\nfix: a is safe now" {
		t.Errorf("the fix's commit says %q", msg)
	}
}

// A fix that took two attempts is offered for push as one commit: the
// second attempt's commit, made with the same message as the first's,
// folds into it instead of piling up behind it.
func TestRunOffersOneCommitForAFixThatTookTwoAttempts(t *testing.T) {
	f := newFixture(t,
		calls(tc("edit_file", `{"path":"a.txt","old_string":"a\n","new_string":"almost\n"}`)),
		calls(commitA),
		answer([]string{"SEC-00000001"}, []string{"QUAL-0000002"}),
		calls(tc("edit_file", `{"path":"a.txt","old_string":"almost\n","new_string":"fixed\n"}`)),
		calls(commitA),
		answer([]string{"SEC-00000001"}, []string{"QUAL-0000002"}))
	var offered []PushPlan
	f.opts.Confirm = func(_ context.Context, plan PushPlan) (bool, error) {
		offered = append(offered, plan)
		return true, nil
	}
	start := f.fx.RemoteOID(t, "feature")
	trace := t.TempDir() + "/trace"
	t.Setenv("GIT_TRACE", trace)

	out, err := Run(context.Background(), f.opts)

	t.Setenv("GIT_TRACE", "")
	if err != nil {
		t.Fatalf("%v\n%s", err, f.log)
	}
	if out.Attempts != 2 || !out.Pushed {
		t.Fatalf("outcome %+v", out)
	}
	// At the start, after each commit, and around the fold: each agent's
	// last call was its commit.
	if raw, _ := os.ReadFile(trace); strings.Count(string(raw), "trace: built-in: git rev-parse HEAD\n") != 5 {
		t.Errorf("git rev-parse HEAD ran %d times in a fix of two attempts, want 5", strings.Count(string(raw), "trace: built-in: git rev-parse HEAD\n"))
	}
	if len(offered) != 1 || len(offered[0].Commits) != 1 || !strings.HasSuffix(offered[0].Commits[0], " fix: a is safe now") {
		t.Fatalf("offered for push: %+v, want the one commit fix: a is safe now", offered)
	}
	head := f.fx.RemoteOID(t, "feature")
	if log := testkit.Git(t, f.fx.Clone, "log", "--format=%s%n%b", start+".."+head); log != "fix: a is safe now" {
		t.Errorf("pushed commits:\n%s\nwant one, fix: a is safe now, said once", log)
	}
	if got := testkit.Git(t, f.fx.Clone, "show", head+":a.txt"); got != "fixed" {
		t.Errorf("a.txt is %q in the pushed commit", got)
	}
	if len(out.Commits) != 1 || out.Commits[0].Sha != head || len(out.Fixed) != 1 || out.Fixed[0].CommitSha != head {
		t.Errorf("the result names commits %+v, fixed %+v; want only the pushed %s", out.Commits, out.Fixed, head)
	}
	if rec, ok := Recorded(f.round(t)); !ok || len(rec.Commits) != 1 || rec.Commits[0].Sha != head {
		t.Errorf("recorded %+v", rec)
	}
	if body := f.gh.comments[0].Body; strings.Count(body, "fix: a is safe now") != 1 {
		t.Errorf("the report lists the commit %d times:\n%s", strings.Count(body, "fix: a is safe now"), body)
	}
}

func TestRunStopsAfterThreeFailedVerifications(t *testing.T) {
	var steps []step
	for i := range 3 {
		steps = append(steps,
			calls(tc("write_file", fmt.Sprintf(`{"path":"c.txt","content":"try %d\n"}`, i))),
			calls(tc("git_commit", fmt.Sprintf(`{"message":"try %d"}`, i))),
			answer([]string{"SEC-00000001"}, []string{"QUAL-0000002"}))
	}
	f := newFixture(t, steps...)
	before := f.fx.RemoteOID(t, "feature")

	out, err := Run(context.Background(), f.opts)
	var ve *VerifyError
	// The three attempts' commits stay local as one.
	if !errors.As(err, &ve) || ve.Attempts != 3 || len(ve.Commits) != 1 || !strings.Contains(err.Error(), "not pushed") {
		t.Fatalf("want a VerifyError after 3 attempts, with one commit, got %v", err)
	}
	head := testkit.Git(t, f.fx.Clone, "rev-parse", "HEAD")
	if msg := testkit.Git(t, f.fx.Clone, "log", "-1", "--format=%B"); msg != "try 0\n\ntry 1\n\ntry 2" || len(out.Commits) != 1 || out.Commits[0].Sha != head {
		t.Errorf("the fix's commit says %q; the result names %+v", msg, out.Commits)
	}
	if out.Pushed || f.fx.RemoteOID(t, "feature") != before {
		t.Error("nothing may be pushed")
	}
	if rec, ok := Recorded(f.round(t)); !ok || out.Status != state.FixVerifyFailed || rec.Status != state.FixVerifyFailed || rec.Verified || !strings.Contains(rec.Failure, "verification failed") {
		t.Errorf("status %q, recorded %+v", out.Status, rec)
	}
	if len(f.gh.comments) != 1 || !strings.Contains(f.gh.comments[0].Body, "nothing was pushed") || out.CommentURL == "" {
		t.Errorf("want one fix report saying nothing was pushed: %+v", f.gh.comments)
	}
	pr, _ := f.store.PR(f.run.Key())
	if pr.WIP == nil || pr.WIP.Phase != "verification failed" || len(pr.WIP.Verification) == 0 || pr.WIP.LastCommit != head {
		t.Errorf("the WIP must say where it stopped: %+v", pr.WIP)
	}
}

func TestRunRejectsABrokenResult(t *testing.T) {
	for name, last := range map[string]step{
		"invariant":       answer([]string{"SEC-00000001"}, nil),
		"unknown finding": answer([]string{"SEC-00000001"}, []string{"QUAL-0000002", "OTHER-99999999"}),
		"twice":           answer([]string{"SEC-00000001", "SEC-00000001"}, nil),
		"unknown commit": func(req llm.Request) llm.Response {
			r := answer([]string{"SEC-00000001"}, []string{"QUAL-0000002"})(req)
			r.Text = strings.ReplaceAll(r.Text, lastSha(req), "deadbeefdeadbeef")
			return r
		},
		"commit before the fix": func(req llm.Request) llm.Response {
			r := answer([]string{"SEC-00000001"}, []string{"QUAL-0000002"})(req)
			r.Text = strings.ReplaceAll(r.Text, lastSha(req), lastSha(req)[:10]+"^")
			return r
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, calls(editA), calls(commitA), last)
			before := f.fx.RemoteOID(t, "feature")
			_, err := Run(context.Background(), f.opts)
			var re *ResultError
			if !errors.As(err, &re) {
				t.Fatalf("want a ResultError, got %v", err)
			}
			if f.fx.RemoteOID(t, "feature") != before || len(f.gh.comments) != 0 {
				t.Error("nothing may be pushed or posted")
			}
		})
	}
}

func TestRunPushRejectedKeepsTheCommits(t *testing.T) {
	f := newFixture(t, calls(editA), calls(commitA), answer([]string{"SEC-00000001"}, []string{"QUAL-0000002"}))
	// Someone else pushes to the branch meanwhile.
	other := t.TempDir()
	testkit.Git(t, other, "clone", "--quiet", "--branch", "feature", f.fx.Remote, ".")
	testkit.WriteFiles(t, other, map[string]string{"d.txt": "d\n"})
	testkit.Git(t, other, "add", ".")
	testkit.Git(t, other, "commit", "-qm", "theirs")
	testkit.Git(t, other, "push", "--quiet", "origin", "feature")
	theirs := f.fx.RemoteOID(t, "feature")

	out, err := Run(context.Background(), f.opts)
	var pe *git.PushError
	if !errors.As(err, &pe) {
		t.Fatalf("want a PushError, got %v", err)
	}
	if f.fx.RemoteOID(t, "feature") != theirs || out.Pushed || len(f.gh.comments) != 0 {
		t.Error("the remote must keep their commit")
	}
	if got := testkit.Git(t, f.fx.Clone, "log", "-1", "--format=%s"); got != "fix: a is safe now" {
		t.Errorf("local commit lost: %q", got)
	}
}

func TestRunDeclinedAndDryRun(t *testing.T) {
	f := newFixture(t, calls(editA), calls(commitA), answer([]string{"SEC-00000001"}, []string{"QUAL-0000002"}))
	before := f.fx.RemoteOID(t, "feature")
	f.opts.Confirm = func(context.Context, PushPlan) (bool, error) { return false, nil }
	if out, err := Run(context.Background(), f.opts); !errors.Is(err, ErrDeclined) || out.Status != state.FixDeclined {
		t.Fatalf("want ErrDeclined, got %v", err)
	}
	if rec, ok := Recorded(f.round(t)); !ok || rec.Status != state.FixDeclined || !rec.Verified || rec.Pushed {
		t.Errorf("recorded %+v", rec)
	}
	if f.fx.RemoteOID(t, "feature") != before || len(f.gh.comments) != 0 {
		t.Error("declined: nothing pushed or posted")
	}

	g := newFixture(t, calls(editA), calls(commitA), answer([]string{"SEC-00000001"}, []string{"QUAL-0000002"}))
	g.opts.DryRun = true
	g.opts.Confirm = func(context.Context, PushPlan) (bool, error) { t.Error("dry run asked to push"); return false, nil }
	out, err := Run(context.Background(), g.opts)
	if err != nil || out.Pushed || out.Status != state.FixVerified || len(g.gh.comments) != 0 || !out.Verification[0].OK {
		t.Errorf("dry run: %+v %v", out, err)
	}
}

func TestRunResumesFromTheWIP(t *testing.T) {
	f := newFixture(t,
		func(req llm.Request) llm.Response {
			all := req.System + req.Messages[0].Text
			for _, m := range req.Messages {
				all += m.Text
			}
			for _, want := range []string{"Resuming an interrupted fix", "edit a.txt next", "Files modified: a.txt", "interrupted"} {
				if !strings.Contains(all, want) {
					return llm.Response{Text: "missing " + want}
				}
			}
			return calls(editA)(req)
		},
		calls(commitA), answer([]string{"SEC-00000001"}, []string{"QUAL-0000002"}))
	f.opts.Resume = &state.WIP{Phase: "fixing (attempt 1 of 3)", FilesModified: []string{"a.txt"},
		NextStep: "edit a.txt next", Context: "read_file a.txt → ok"}
	f.opts.Resume.SetDecisions([]string{"edit a.txt next"})
	out, err := Run(context.Background(), f.opts)
	if err != nil || !out.Pushed {
		t.Fatalf("%v %+v\n%s", err, out, f.log)
	}
}

func TestReportIsSanitised(t *testing.T) {
	f := newFixture(t, calls(editA), calls(commitA), func(req llm.Request) llm.Response {
		r := answer([]string{"SEC-00000001"}, nil)(req)
		r.Text = strings.Replace(r.Text, `"rejectedIssues":[]`,
			`"rejectedIssues":[{"findingId":"QUAL-0000002","reason":"token ghp_abcdefghijklmnopqrstuvwxyz0123456789 and diff --git a/x b/x"}]`, 1)
		return r
	})
	if _, err := Run(context.Background(), f.opts); err != nil {
		t.Fatal(err)
	}
	body := f.gh.comments[0].Body
	if strings.Contains(body, "ghp_abc") || strings.Contains(body, "diff --git") {
		t.Errorf("unsanitised comment:\n%s", body)
	}
}

// The fix of a change that is no pull request (a local review's, a dry
// run) needs no PR or GitHub, and its task names no pull request: no
// "PR #0", no URL line.
func TestTaskOfALocalChangeNamesNoPullRequest(t *testing.T) {
	f := newFixture(t)
	f.opts.Change = change.Subject{Title: "Local changes on feature", HeadRef: "feature", HeadOID: f.opts.Change.HeadOID, BaseRef: "origin/main", Files: []github.ChangedFile{{Path: "a.txt"}}}
	f.opts.PR, f.opts.GitHub, f.opts.DryRun = nil, nil, true
	f.opts.Payload.PRNumber = 0
	if _, err := Run(context.Background(), f.opts); err == nil {
		t.Fatal("the script has no answer: the run must fail")
	}
	if len(f.m.reqs) == 0 {
		t.Fatal("the fix agent was not asked")
	}
	task := f.m.reqs[0].Messages[0].Text
	if strings.Contains(task, "PR #") || strings.Contains(task, "URL:") || !strings.Contains(task, "fix the findings of a change that is no pull request, round 1") || !strings.Contains(task, "Title: Local changes on feature") {
		t.Errorf("task:\n%s", task)
	}
}

// A fix round asks git which commit HEAD is only where it may have moved
// (docs/architecture.md, A round of review-loop): at the start, after the
// commit tool, after the agent, and after the verification (the fold reads
// it, and the result takes it from there). Each question is a git process.
func TestRunAsksGitForHEADOnlyWhereItMayHaveMoved(t *testing.T) {
	f := newFixture(t, calls(editA), calls(commitA), answer([]string{"SEC-00000001"}, []string{"QUAL-0000002"}))
	f.opts.Confirm = func(context.Context, PushPlan) (bool, error) { return true, nil }
	trace := t.TempDir() + "/trace"
	t.Setenv("GIT_TRACE", trace) // git's own log of the commands it runs

	out, err := Run(context.Background(), f.opts)

	if err != nil || !out.Pushed {
		t.Fatalf("%v %+v\n%s", err, out, f.log)
	}
	raw, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	asked, here := 0, 0
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.HasSuffix(l, "trace: built-in: git rev-parse HEAD") {
			asked++
		}
		if strings.Contains(l, "trace: built-in: git cat-file") {
			here++
		}
	}
	if here != 0 {
		t.Errorf("git was asked %d times whether a commit is here; the reviewed head is HEAD, read at the start", here)
	}
	if head := testkit.Git(t, f.fx.Clone, "rev-parse", "HEAD"); out.HeadOID != head {
		t.Errorf("the result's head is %s, HEAD is %s", out.HeadOID, head)
	}
	if asked != 3 {
		t.Errorf("git rev-parse HEAD ran %d times in one round, want 3 (start, commit, verified): the agent's last call was the commit", asked)
	}
}

// The push is offered with the commits the fix listed when it checked the
// agent's answer: HEAD did not move since, so they are what is pushed,
// and git is not asked for them again.
func TestRunOffersThePushFromTheCommitsItListed(t *testing.T) {
	f := newFixture(t, calls(editA), calls(commitA), calls(tc("edit_file", `{"path":"b.txt","old_string":"b\n","new_string":"b2\n"}`)),
		calls(tc("git_commit", `{"message":"second: b too\n\nwith a body"}`)), answer([]string{"SEC-00000001"}, []string{"QUAL-0000002"}))
	var plan PushPlan
	f.opts.Confirm = func(_ context.Context, p PushPlan) (bool, error) { plan = p; return true, nil }
	trace := t.TempDir() + "/trace"
	t.Setenv("GIT_TRACE", trace)

	out, err := Run(context.Background(), f.opts)

	t.Setenv("GIT_TRACE", "")
	if err != nil || !out.Pushed {
		t.Fatalf("%v %+v\n%s", err, out, f.log)
	}
	want := strings.Split(testkit.Git(t, f.fx.Clone, "log", "--format=%h %s", "--abbrev=7", f.opts.PR.HeadRefOid+"..HEAD"), "\n")
	if strings.Join(plan.Commits, "|") != strings.Join(want, "|") {
		t.Errorf("offered %q, want %q", plan.Commits, want)
	}
	if raw, _ := os.ReadFile(trace); strings.Contains(string(raw), "git log --oneline") {
		t.Errorf("git was asked again for the commits to push:\n%s", raw)
	}
}

// HEAD after the agent is the commit its last call made, unless a command
// ran after it: a command may move HEAD, which is then read again. The
// fold takes what came after the first attempt's last commit, not that
// commit.
func TestRunReadsHEADAgainWhenACommandRanAfterTheCommit(t *testing.T) {
	move := `sh -c "echo x >> moved.txt && git add moved.txt && git commit --quiet -m moved"`
	f := newFixture(t, calls(editA), calls(commitA),
		calls(tc("run_command", `{"argv":["sh","-c","echo x >> moved.txt && git add moved.txt && git commit --quiet -m moved"]}`)),
		answer([]string{"SEC-00000001"}, []string{"QUAL-0000002"}))
	f.opts.Verify = []string{move}
	var plan PushPlan
	f.opts.Confirm = func(_ context.Context, p PushPlan) (bool, error) { plan = p; return true, nil }

	out, err := Run(context.Background(), f.opts)

	if err != nil || !out.Pushed {
		t.Fatalf("%v %+v\n%s", err, out, f.log)
	}
	if len(plan.Commits) != 2 || !strings.HasSuffix(plan.Commits[0], " moved") || !strings.HasSuffix(plan.Commits[1], " fix: a is safe now") {
		t.Errorf("offered for push: %q, want the agent's commit and the moved ones folded", plan.Commits)
	}
}

// The push goes to the branch's upstream remote, which git is asked for
// only when there is a push: a dry run asks no git config.
func TestRunPushesToTheBranchsUpstreamRemoteAskedOnlyToPush(t *testing.T) {
	upstream := func(f *fixture) {
		testkit.Git(t, f.fx.Clone, "remote", "add", "upstream", f.fx.Remote)
		testkit.Git(t, f.fx.Clone, "config", "branch.feature.remote", "upstream")
	}
	dry := newFixture(t, calls(editA), calls(commitA), answer([]string{"SEC-00000001"}, []string{"QUAL-0000002"}))
	upstream(dry)
	dry.opts.DryRun, dry.opts.GitHub, dry.opts.PR = true, nil, nil
	trace := t.TempDir() + "/trace"
	t.Setenv("GIT_TRACE", trace)
	if out, err := Run(context.Background(), dry.opts); err != nil || !out.Verified {
		t.Fatalf("dry run: %v %+v\n%s", err, out, dry.log)
	}
	t.Setenv("GIT_TRACE", "")
	if raw, _ := os.ReadFile(trace); strings.Contains(string(raw), "built-in: git config") {
		t.Errorf("a dry run asked git for the push remote:\n%s", raw)
	}

	f := newFixture(t, calls(editA), calls(commitA), answer([]string{"SEC-00000001"}, []string{"QUAL-0000002"}))
	upstream(f)
	var plan PushPlan
	f.opts.Confirm = func(_ context.Context, p PushPlan) (bool, error) { plan = p; return true, nil }
	if out, err := Run(context.Background(), f.opts); err != nil || !out.Pushed {
		t.Fatalf("%v %+v\n%s", err, out, f.log)
	}
	if plan.Remote != "upstream" || !strings.Contains(f.log.String(), "pushing 1 commit to upstream feature") {
		t.Errorf("pushed to %q, want the branch's upstream remote:\n%s", plan.Remote, f.log)
	}
}
