package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/loop"
	"github.com/ocdx/gh-ocdx/review"
	"github.com/ocdx/gh-ocdx/state"
)

// fixModel is an OpenAI-compatible server (reached as ollama/fixer through
// OLLAMA_HOST) playing the pr-fix role: it must answer with the sha that
// git_commit returned, which no scripted answer can know in advance. Each
// fix writes a file, commits it, and reports every issue to fix as fixed.
type fixModel struct {
	srv *httptest.Server

	mu        sync.Mutex
	requests  int
	block     chan struct{}  // non-nil: requests wait until it is closed
	onRequest func()         // called on every request
	faults    []testkit.Step // failures answered first, one per request
}

func newFixModel(t *testing.T) *fixModel {
	f := &fixModel{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

var (
	reSha      = regexp.MustCompile(`\b[0-9a-f]{40}\b`)
	rePayload  = regexp.MustCompile("(?s)### Fix Payload\\s*```json\\s*(\\{.*?\\})\\s*```")
	reRoundHdr = regexp.MustCompile(`round (\d+)`)
)

func (f *fixModel) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests++
	n, block, hook := f.requests, f.block, f.onRequest
	var fault testkit.Step
	if len(f.faults) > 0 {
		fault, f.faults = f.faults[0], f.faults[1:]
	}
	f.mu.Unlock()
	if hook != nil {
		hook()
	}
	if testkit.ServeFault(w, "openai", fault) {
		return
	}
	if block != nil {
		select {
		case <-block:
		case <-r.Context().Done():
			return
		}
	}
	text := func(c any) string {
		switch v := c.(type) {
		case string:
			return v
		case []any:
			var b strings.Builder
			for _, p := range v {
				if m, ok := p.(map[string]any); ok {
					fmt.Fprint(&b, m["text"])
				}
			}
			return b.String()
		}
		return ""
	}
	var payload review.FixPayload
	round := "1"
	for _, m := range req.Messages {
		s := text(m.Content)
		if mm := rePayload.FindStringSubmatch(s); mm != nil {
			_ = json.Unmarshal([]byte(mm[1]), &payload)
		}
		if mm := reRoundHdr.FindStringSubmatch(s); mm != nil && m.Role == "user" && round == "1" {
			round = mm[1]
		}
	}
	last := req.Messages[len(req.Messages)-1]
	msg := map[string]any{"role": "assistant"}
	finish := "stop"
	if sha := reSha.FindString(text(last.Content)); last.Role == "tool" && sha != "" {
		var fixed []map[string]string
		for _, is := range payload.IssuesToFix {
			fixed = append(fixed, map[string]string{"findingId": is.ID, "commitSha": sha, "description": "fixed " + is.Title})
		}
		env, _ := json.Marshal(map[string]any{"agent": "pr-fix", "prNumber": payload.PRNumber,
			"summary": map[string]int{"fixed": len(fixed), "rejected": 0, "deferred": 0}, "fixedIssues": fixed,
			"rejectedIssues": []any{}, "commits": []map[string]string{{"sha": sha, "message": "fix: review findings"}}})
		msg["content"] = "BEGIN_JSON\n" + string(env) + "\nEND_JSON"
	} else {
		file := fmt.Sprintf("fix-round-%d.txt", payload.Round)
		msg["content"] = nil
		msg["tool_calls"] = []map[string]any{
			{"id": "c1", "type": "function", "function": map[string]any{"name": "write_file",
				"arguments": fmt.Sprintf(`{"path":%q,"content":"fixed in round %d (call %d)\n"}`, file, payload.Round, n)}},
			{"id": "c2", "type": "function", "function": map[string]any{"name": "git_commit",
				"arguments": fmt.Sprintf(`{"message":"fix: review findings of round %d","paths":[%q]}`, payload.Round, file)}},
		}
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "fix", "object": "chat.completion", "created": time.Now().Unix(), "model": "fixer",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
	})
}

func (f *fixModel) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests
}

// loopFix is a PR with its head branch in a real bare remote, a clone on it,
// the fake GitHub, the fake reviewer models and the fix model.
type loopFix struct {
	t      *testing.T
	gh     *testkit.GitHub
	fm     *testkit.FakeModel
	fix    *fixModel
	env    *testkit.Env
	repo   *testkit.Repo
	pr     testkit.PR
	start  string // the PR's head before the run
	number int
}

const loopPR = 31

// newLoop sets up PR #31 on branch feature/cache; edit changes the PR
// before it is added to the fake GitHub.
func newLoop(t *testing.T, edit func(*testkit.PR)) *loopFix {
	t.Helper()
	r := testkit.NewRepo(t, "main", "feature/cache", map[string]string{"README.md": "# widgets\n", "cache.go": "package cache\n"},
		map[string]string{"cache.go": "package cache\n\nvar Size = 10\n\nfunc Get(k string) string { return k }\n"})
	gh := testkit.NewGitHub(t)
	pr := testkit.PR{Number: loopPR, Title: "Add a cache", Body: "Adds a cache.", Author: "mona",
		HeadRef: r.Head, BaseRef: r.Base, Remote: r.Remote, Diff: r.Diff(t)}
	if edit != nil {
		edit(&pr)
	}
	gh.AddPR(repo, pr)
	fm := testkit.NewFakeModel(t)
	fx := newFixModel(t)
	env := testkit.NewEnv(t)
	gh.Configure(env, repo)
	for _, kv := range fm.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env.Set(k, v)
	}
	env.Set("OLLAMA_HOST", fx.srv.URL)
	env.Dir = r.Clone
	writeConfig(t, env, `{
  "reviewerModels": ["openai/rev-a", "anthropic/rev-b"],
  "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "ollama/fixer",
  "verify": ["true"]
}`)
	lf := &loopFix{t: t, gh: gh, fm: fm, fix: fx, env: env, repo: r, pr: pr, start: r.RemoteOID(t, r.Head), number: loopPR}
	t.Cleanup(lf.checkInvariants)
	return lf
}

var reTag = regexp.MustCompile(`<!-- ocdx:run=\S+ round=\d kind=(review|fix|final) -->`)

var secretPattern = regexp.MustCompile(`AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16}|PRIVATE KEY-----|xox[abposr]-|gh[pousr]_[0-9A-Za-z]{20,}|github_pat_|sk-[0-9A-Za-z_-]{16,}`)

// checkInvariants holds for every test: each posted comment carries the
// marker, none leaks a secret or a diff, and the remote only moved forward.
func (lf *loopFix) checkInvariants() {
	t := lf.t
	for _, c := range lf.gh.Comments(repo, lf.number) {
		if !strings.Contains(c.Body, loop.Marker) {
			t.Errorf("comment %d has no marker:\n%s", c.ID, c.Body)
		}
		if !reTag.MatchString(c.Body) {
			t.Errorf("comment %d has no run/round tag:\n%s", c.ID, c.Body)
		}
		if secretPattern.MatchString(c.Body) || strings.Contains(c.Body, "diff --git") {
			t.Errorf("comment %d leaks a secret or a diff:\n%s", c.ID, c.Body)
		}
	}
	tags := map[string]int{}
	for _, b := range lf.bodies() {
		tag := reTag.FindString(b)
		if tags[tag]++; tags[tag] == 2 {
			t.Errorf("posted twice: %s", tag)
		}
	}
	head := lf.repo.RemoteOID(t, lf.repo.Head)
	if head != lf.start {
		c := exec.Command("git", "--git-dir", lf.repo.Remote, "merge-base", "--is-ancestor", lf.start, head)
		if err := c.Run(); err != nil {
			t.Errorf("the remote head %s does not descend from %s: a non-fast-forward push", head, lf.start)
		}
	}
}

// recorded reads the PR's record through `state show --json` and checks
// that it is consistent: no lease left behind by an exited process, and
// every run ended but the last, which may wait to be resumed.
func recorded(t *testing.T, env *testkit.Env, pr int) state.PR {
	t.Helper()
	res := env.Run(t, "state", "show", "--pr", strconv.Itoa(pr), "--json")
	wantCode(t, res, 0)
	var rec state.PR
	if err := json.Unmarshal([]byte(res.Stdout), &rec); err != nil {
		t.Fatalf("state show --json: %v\n%s", err, res.Stdout)
	}
	if rec.Lease != nil {
		t.Errorf("a lease outlived its process: %v", rec.Lease)
	}
	for i, r := range rec.Runs {
		if r.Outcome == "" && i < len(rec.Runs)-1 {
			t.Errorf("run %s neither ended nor is the one to resume", r.ID)
		}
	}
	return rec
}

// last is the PR's latest run; the zero Run when there is none.
func last(rec state.PR) state.Run {
	if len(rec.Runs) == 0 {
		return state.Run{}
	}
	return rec.Runs[len(rec.Runs)-1]
}

func (lf *loopFix) run(args ...string) testkit.Result {
	lf.t.Helper()
	return lf.env.Run(lf.t, append([]string{"review-loop"}, args...)...)
}

// bodies returns the posted comments' bodies.
func (lf *loopFix) bodies() []string {
	var out []string
	for _, c := range lf.gh.Comments(repo, lf.number) {
		out = append(out, c.Body)
	}
	return out
}

// kinds lists the kind of every posted comment, in order ("review:1").
func (lf *loopFix) kinds() []string {
	re := regexp.MustCompile(`round=(\d) kind=(\w+)`)
	var out []string
	for _, b := range lf.bodies() {
		if m := re.FindStringSubmatch(b); m != nil {
			out = append(out, m[2]+":"+m[1])
		}
	}
	return out
}

// finding is a reviewer's finding for a scripted answer.
type finding struct {
	Priority, Category, File string
	Line                     *int
	Title, Description       string
}

func line(n int) *int { return &n }

func (f finding) id() string { return review.FindingID(f.Category, f.File, f.Line, f.Title) }

// reviewerReply is a reviewer's A2 envelope.
func reviewerReply(agent, conclusion string, fs ...finding) testkit.Step {
	list := []map[string]any{}
	for _, f := range fs {
		d := f.Description
		if d == "" {
			d = "details of " + f.Title
		}
		list = append(list, map[string]any{"id": "MODEL-ID", "priority": f.Priority, "category": f.Category, "file": f.File, "line": f.Line,
			"title": f.Title, "description": d, "suggestion": "do better"})
	}
	b, _ := json.Marshal(map[string]any{"agent": agent, "prNumber": loopPR, "conclusion": conclusion,
		"issues":   map[string]int{"p0_blocking": 0, "p1_critical": 0, "p2_important": 0, "p3_suggestion": 0},
		"findings": list, "fullReport": "Reviewed " + agent + "."})
	return testkit.Reply("BEGIN_JSON\n" + string(b) + "\nEND_JSON")
}

// analyzerReply is the comments analyzer's A3 envelope.
func analyzerReply(pending ...string) testkit.Step {
	list := []map[string]any{}
	for _, id := range pending {
		list = append(list, map[string]any{"id": id, "priority": "P1", "category": "review-thread", "file": "cache.go", "line": nil,
			"title": "Unresolved review thread", "description": "The reviewer asks for a bound on the cache.", "suggestion": "Bound it."})
	}
	b, _ := json.Marshal(map[string]any{"agent": "comments-analyzer", "prNumber": loopPR,
		"reviewState": map[string]any{"hasChangesRequested": false, "changesRequestedBy": []any{}},
		"stats":       map[string]int{"totalThreads": 0, "resolvedThreads": 0, "unresolvedThreads": 0}, "threadsTruncated": false,
		"issues":        map[string]int{"p0_blocking": 0, "p1_critical": 0, "p2_important": 0, "p3_suggestion": 0},
		"pendingIssues": list, "fullReport": "Threads analysed."})
	return testkit.Reply("BEGIN_JSON\n" + string(b) + "\nEND_JSON")
}

// approveRound scripts a round where both reviewers approve.
func (lf *loopFix) approveRound() {
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "approve"))
	lf.fm.Script("rev-b", reviewerReply("reviewer-2", "approve"))
	lf.fm.Script("analyzer", analyzerReply())
}

// findingRound scripts a round where reviewer-1 reports fs.
func (lf *loopFix) findingRound(fs ...finding) {
	lf.fm.Script("rev-a", reviewerReply("reviewer-1", "request_changes", fs...))
	lf.fm.Script("rev-b", reviewerReply("reviewer-2", "approve"))
	lf.fm.Script("analyzer", analyzerReply())
}

func wantCode(t *testing.T, res testkit.Result, code int) {
	t.Helper()
	if res.Code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", res.Code, code, res.Stdout, res.Stderr)
	}
}

func wantContains(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s lacks %q:\n%s", what, sub, s)
		}
	}
}
