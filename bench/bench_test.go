// Package bench measures gh-ocdx against the targets of BENCHMARKS.md: the
// built binary runs against the fakes of internal/testkit (fake GitHub, fake
// models with a configurable latency, a PR of configurable size), and
// TestBench prints one table of figures. It runs only when script/bench sets
// OCDX_BENCH=1: timings are never asserted in the normal test suite.
package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	ocdxfinding "github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/verify"
	"github.com/ocdx/gh-ocdx/worknote"

	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/state"
)

const (
	repo     = "octo/widgets"
	prNumber = 31
)

// params are the knobs of script/bench, read from the environment.
type params struct {
	runs    int           // OCDX_BENCH_RUNS: runs of each scenario
	latency time.Duration // OCDX_BENCH_LATENCY: each model call's latency in the parallel-round scenario
	diffMB  int           // OCDX_BENCH_DIFF_MB: the large PR's diff size
	files   int           // OCDX_BENCH_FILES: the large PR's file count
	prs     int           // OCDX_BENCH_STATE_PRS: PRs in the state file
	starts  int           // OCDX_BENCH_STARTS: cold starts per run
}

func envInt(k string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(k)); err == nil && v > 0 {
		return v
	}
	return def
}

func readParams() params {
	p := params{runs: envInt("OCDX_BENCH_RUNS", 5), latency: 2 * time.Second, diffMB: envInt("OCDX_BENCH_DIFF_MB", 20),
		files: envInt("OCDX_BENCH_FILES", 3000), prs: envInt("OCDX_BENCH_STATE_PRS", 10000), starts: envInt("OCDX_BENCH_STARTS", 41)}
	if d, err := time.ParseDuration(os.Getenv("OCDX_BENCH_LATENCY")); err == nil && d > 0 {
		p.latency = d
	}
	return p
}

// run is one run of the binary: its wall time and the child's peak RSS.
type run struct {
	stdout, stderr string
	code           int
	wall           time.Duration
	maxRSS         int64 // bytes, from execRSS
	lines          []line
}

// line is a line of stderr and when it arrived, for timing the progress
// lines.
type line struct {
	text string
	at   time.Duration // since the start
}

// stamper records the lines written to it with their arrival times.
type stamper struct {
	start   time.Time
	mu      sync.Mutex
	partial strings.Builder
	all     strings.Builder
	lines   []line
}

func (s *stamper) Write(p []byte) (int, error) {
	now := time.Since(s.start)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all.Write(p)
	for _, c := range string(p) {
		if c == '\n' {
			s.lines = append(s.lines, line{s.partial.String(), now})
			s.partial.Reset()
			continue
		}
		s.partial.WriteRune(c)
	}
	return len(p), nil
}

// between is the time from the first line starting with from to the
// first later line starting with to.
func (r run) between(tb testing.TB, from, to string) time.Duration {
	for i, a := range r.lines {
		if strings.HasPrefix(a.text, from) {
			for _, b := range r.lines[i+1:] {
				if strings.HasPrefix(b.text, to) {
					return b.at - a.at
				}
			}
		}
	}
	tb.Fatalf("no line %q followed by %q in\n%s", from, to, r.stderr)
	return 0
}

func execBin(tb testing.TB, e *testkit.Env, args ...string) run {
	tb.Helper()
	return execWith(tb, e, testkit.Binary(tb), args...)
}

func execWith(tb testing.TB, e *testkit.Env, prog string, args ...string) run {
	tb.Helper()
	var out strings.Builder
	c := exec.Command(prog, args...)
	start := time.Now()
	errOut := &stamper{start: start}
	c.Dir, c.Env, c.Stdout, c.Stderr = e.Dir, e.List(), &out, errOut
	c.WaitDelay = 5 * time.Second
	if err := c.Start(); err != nil {
		tb.Fatal(err)
	}
	timer := time.AfterFunc(3*time.Minute, func() { _ = c.Process.Kill() })
	err := c.Wait()
	wall := time.Since(start)
	timer.Stop()
	r := run{stdout: out.String(), stderr: errOut.all.String(), wall: wall, lines: errOut.lines}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		r.code = exit.ExitCode()
	} else if err != nil {
		tb.Fatal(err)
	}
	return r
}

// execRSS runs the binary and measures its peak RSS. The Maxrss that wait4
// reports for a child of a Go program is useless: Go starts children with
// vfork (CLONE_VM), and at exec Linux folds the hiwater RSS of the mm the
// child leaves, the parent's, into the child's maxrss. So the binary runs
// under GNU time, which forks for real, and whose %M is the child's own
// peak. Without GNU time (or with OCDX_BENCH_SAMPLE_RSS set), VmHWM of
// /proc/PID/status is sampled every 2 ms.
func execRSS(tb testing.TB, e *testkit.Env, args ...string) run {
	tb.Helper()
	if _, err := os.Stat("/usr/bin/time"); err == nil && os.Getenv("OCDX_BENCH_SAMPLE_RSS") == "" {
		f := filepath.Join(tb.TempDir(), "rss")
		r := execWith(tb, e, "/usr/bin/time", append([]string{"-f", "%M", "-o", f, testkit.Binary(tb)}, args...)...)
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		lines := strings.Fields(string(b))
		if len(lines) == 0 {
			tb.Fatalf("GNU time wrote %q", b)
		}
		kib, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
		if err != nil {
			tb.Fatalf("GNU time wrote %q", b)
		}
		r.maxRSS = kib * 1024
		return r
	}
	var out, errOut strings.Builder
	c := exec.Command(testkit.Binary(tb), args...)
	c.Dir, c.Env, c.Stdout, c.Stderr = e.Dir, e.List(), &out, &errOut
	peak, err := testkit.RunPeakRSS(c)
	r := run{stdout: out.String(), stderr: errOut.String(), maxRSS: peak}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		r.code = exit.ExitCode()
	} else if err != nil {
		tb.Fatal(err)
	}
	return r
}

// fixture is a PR whose head branch lives in a bare remote, a clone on it,
// the fake GitHub, the fake reviewer models and the fix model.
type fixture struct {
	gh        *testkit.GitHub
	fm        *testkit.FakeModel
	env       *testkit.Env
	repo      *testkit.Repo
	reviewers []string // model names on the wire
}

// newFixture sets up PR #31 with n reviewers; edit changes the PR before it
// is added to the fake GitHub.
func newFixture(tb testing.TB, n int, edit func(*testkit.PR)) *fixture {
	tb.Helper()
	l := testkit.NewLoopPR(tb, repo, prNumber, edit)
	gh, fm, env := l.GitHub, l.Models, l.Env
	f := &fixture{gh: gh, fm: fm, env: env, repo: l.Repo}
	var specs []string
	for i := range n {
		name := fmt.Sprintf("rev-%d", i+1)
		f.reviewers = append(f.reviewers, name)
		provider := "openai"
		if i%2 == 1 {
			provider = "anthropic"
		}
		specs = append(specs, strconv.Quote(provider+"/"+name))
	}
	cfg := fmt.Sprintf(`{"reviewerModels": [%s], "commentsAnalyzerModel": "openai/analyzer", "prFixModel": "ollama/fixer", "verify": ["true"]}`,
		strings.Join(specs, ", "))
	env.WriteConfig(tb, cfg)
	return f
}

// finding is a reviewer's finding for a scripted answer.
type finding struct {
	Priority, Category, File, Title string
	Line                            int
}

func reviewerText(agent, conclusion string, fs ...finding) string {
	list := []map[string]any{}
	for _, f := range fs {
		list = append(list, map[string]any{"id": "MODEL-ID", "priority": f.Priority, "category": f.Category, "file": f.File, "line": f.Line,
			"title": f.Title, "description": "details of " + f.Title, "suggestion": "do better"})
	}
	b, _ := json.Marshal(map[string]any{"agent": agent, "prNumber": prNumber, "conclusion": conclusion,
		"issues":   map[string]int{"p0_blocking": 0, "p1_critical": 0, "p2_important": 0, "p3_suggestion": 0},
		"findings": list, "fullReport": "Reviewed " + agent + "."})
	return "BEGIN_JSON\n" + string(b) + "\nEND_JSON"
}

func analyzerText() string {
	b, _ := json.Marshal(map[string]any{"agent": "comments-analyzer", "prNumber": prNumber,
		"reviewState": map[string]any{"hasChangesRequested": false, "changesRequestedBy": []any{}},
		"stats":       map[string]int{"totalThreads": 0, "resolvedThreads": 0, "unresolvedThreads": 0}, "threadsTruncated": false,
		"issues":        map[string]int{"p0_blocking": 0, "p1_critical": 0, "p2_important": 0, "p3_suggestion": 0},
		"pendingIssues": []any{}, "fullReport": "Threads analysed."})
	return "BEGIN_JSON\n" + string(b) + "\nEND_JSON"
}

// approveAll makes every reviewer approve and the analyzer find nothing,
// each answer taking latency.
func (f *fixture) approveAll(latency time.Duration) {
	for i, m := range f.reviewers {
		f.fm.Default(m, testkit.Stall(latency, reviewerText(fmt.Sprint("reviewer-", i+1), "approve")))
	}
	f.fm.Default("analyzer", testkit.Stall(latency, analyzerText()))
}

func (f *fixture) loop(tb testing.TB) run {
	tb.Helper()
	r := execBin(tb, f.env, "review-loop", "--yes")
	if r.code != 0 {
		tb.Fatalf("review-loop exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	return r
}

var reTag = regexp.MustCompile(`round=(\d) kind=(\w+)`)

// requestsPerRound attributes every GitHub request to the round of the next
// comment posted (a round ends with its review report, or with its fix
// report when it fixes); requests after the last post go to the last round.
func requestsPerRound(reqs []testkit.Request) map[int][]string {
	out := map[int][]string{}
	var pending []string
	last := 0
	for _, r := range reqs {
		pending = append(pending, r.Kind)
		if (r.Kind == "comment" || r.Kind == "review") && r.Method == "POST" {
			if m := reTag.FindStringSubmatch(r.Body); m != nil {
				last, _ = strconv.Atoi(m[1])
				out[last] = append(out[last], pending...)
				pending = nil
			}
		}
	}
	out[last] = append(out[last], pending...)
	return out
}

// scenarioRequests runs three rounds: a fix in rounds 1 and 2, approval in
// round 3. Round 1 also carries the preflight's lookup of the branch's PR.
func scenarioRequests(tb testing.TB) (withFix, withoutFix []string) {
	f := newFixture(tb, 2, nil)
	f.fm.Script("rev-1",
		testkit.Reply(reviewerText("reviewer-1", "request_changes", finding{"P1", "quality", "cache.go", "Cache size is not bounded", 3})),
		testkit.Reply(reviewerText("reviewer-1", "request_changes", finding{"P2", "testing", "cache.go", "Get has no test", 5})),
		testkit.Reply(reviewerText("reviewer-1", "approve")))
	f.fm.Default("rev-2", testkit.Reply(reviewerText("reviewer-2", "approve")))
	f.fm.Default("analyzer", testkit.Reply(analyzerText()))
	r := f.loop(tb)
	per := requestsPerRound(f.gh.Requests())
	if len(per) != 3 || !strings.Contains(r.stdout, "## Round 3") {
		tb.Fatalf("want 3 rounds, got requests %v\nstdout:\n%s\nstderr:\n%s", per, r.stdout, r.stderr)
	}
	return per[2], per[3]
}

// scenarioRound runs a fix in round 1 (models instant) and a review round
// 2 in which every model takes latency and approves. It returns round 2's
// wall time, from the line saying round 1's fix report was posted (the PR
// is read again next) to the line saying round 2's review report was
// posted, and the process's wall time.
func scenarioRound(tb testing.TB, latency time.Duration) (round, process time.Duration) {
	f := newFixture(tb, 5, nil)
	for i, m := range f.reviewers {
		first := testkit.Reply(reviewerText(fmt.Sprint("reviewer-", i+1), "approve"))
		if i == 0 {
			first = testkit.Reply(reviewerText("reviewer-1", "request_changes", finding{"P1", "quality", "cache.go", "Cache size is not bounded", 3}))
		}
		f.fm.Script(m, first)
		f.fm.Default(m, testkit.Stall(latency, reviewerText(fmt.Sprint("reviewer-", i+1), "approve")))
	}
	f.fm.Script("analyzer", testkit.Reply(analyzerText()))
	f.fm.Default("analyzer", testkit.Stall(latency, analyzerText()))
	r := f.loop(tb)
	return r.between(tb, "fix report posted", "posted the review report of round 2"), r.wall
}

// scenarioReReview runs three rounds on a PR whose diff is kb kilobytes
// over 20 files: round 1 finds a P1, round 2 (which reviews the fix
// commits, one file) a P2, round 3 approves. It returns the reviewer input
// of each round: the bytes of every reviewer request, summed per round.
func scenarioReReview(tb testing.TB, kb int) (perRound [3]int) {
	diff := kbDiff(kb, 20)
	f := newFixture(tb, 2, func(pr *testkit.PR) { pr.Diff, pr.Files = diff, testkit.ParseDiff(diff) })
	f.fm.Script("rev-1",
		testkit.Reply(reviewerText("reviewer-1", "request_changes", finding{"P1", "quality", "cache.go", "Cache size is not bounded", 3})),
		testkit.Reply(reviewerText("reviewer-1", "request_changes", finding{"P2", "testing", "cache.go", "Eviction has no test", 5})),
		testkit.Reply(reviewerText("reviewer-1", "approve")))
	f.fm.Default("rev-2", testkit.Reply(reviewerText("reviewer-2", "approve")))
	f.fm.Default("analyzer", testkit.Reply(analyzerText()))
	r := f.loop(tb)
	if !strings.Contains(r.stdout, "## Round 3") || !strings.Contains(r.stderr, "converged") {
		tb.Fatalf("want 3 rounds and convergence\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	for _, m := range f.reviewers {
		reqs := f.fm.Requests(m)
		if len(reqs) != 3 {
			tb.Fatalf("%s: %d requests, want one per round", m, len(reqs))
		}
		for i, q := range reqs {
			perRound[i] += len(q.Body)
		}
	}
	return perRound
}

// scenarioPushAfterApproval runs review-loop on a PR whose diff is kb
// kilobytes over 20 files, which the reviewers approve at once, then again
// after the author pushed a one-line change on top: the reviewer input of
// each run.
func scenarioPushAfterApproval(tb testing.TB, kb int) (first, second int) {
	diff := kbDiff(kb, 20)
	f := newFixture(tb, 2, func(pr *testkit.PR) { pr.Diff, pr.Files = diff, testkit.ParseDiff(diff) })
	for _, m := range f.reviewers {
		f.fm.Default(m, testkit.Reply(reviewerText(m, "approve")))
	}
	f.fm.Default("analyzer", testkit.Reply(analyzerText()))
	f.loop(tb)
	testkit.WriteFiles(tb, f.repo.Clone, map[string]string{"cache.go": "package cache\n\nvar Size = 20\n\nfunc Get(k string) string { return k }\n"})
	testkit.Git(tb, f.repo.Clone, "commit", "--quiet", "-am", "a larger cache")
	testkit.Git(tb, f.repo.Clone, "push", "--quiet", "origin", "HEAD")
	f.loop(tb)
	for _, m := range f.reviewers {
		reqs := f.fm.Requests(m)
		if len(reqs) != 2 {
			tb.Fatalf("%s: %d requests, want one per run", m, len(reqs))
		}
		first, second = first+len(reqs[0].Body), second+len(reqs[1].Body)
	}
	return first, second
}

// kbDiff is a unified diff of about kb kilobytes over n added files.
func kbDiff(kb, n int) string {
	per := kb << 10 / n
	line := "+	x := compute(\"a line of a large generated change\", 42) // padding\n"
	var b strings.Builder
	for i := range n {
		p := fmt.Sprintf("pkg/gen/file%04d.go", i)
		lines := max(per/len(line), 1)
		fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", p, p, p, lines)
		for range lines {
			b.WriteString(line)
		}
	}
	return b.String()
}

// bigDiff is a unified diff of about mb megabytes over n added files.
func bigDiff(mb, n int) string {
	per := mb << 20 / n
	line := "+\tx := compute(\"a line of a large generated change\", 42) // padding\n"
	lines := max(per/len(line), 1)
	var b strings.Builder
	b.Grow(mb<<20 + n*200)
	for i := range n {
		p := fmt.Sprintf("pkg/gen/file%04d.go", i)
		fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", p, p, p, lines)
		for range lines {
			b.WriteString(line)
		}
	}
	return b.String()
}

// scenarioBigPR reviews a PR of the given size once (every reviewer
// approves) and returns the largest reviewer request body and the peak RSS.
func scenarioBigPR(tb testing.TB, diff string, files []testkit.File) (prompt int, rss int64) {
	f := newFixture(tb, 5, func(pr *testkit.PR) { pr.Diff, pr.Files = diff, files })
	f.approveAll(0)
	r := execRSS(tb, f.env, "review-loop", "--yes")
	if r.code != 0 {
		tb.Fatalf("review-loop exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, m := range f.reviewers {
		for _, q := range f.fm.Requests(m) {
			prompt = max(prompt, len(q.Body))
		}
	}
	return prompt, r.maxRSS
}

// fixAgentRatio runs the fix agent's context (the llm.Agent with the fix
// agent's budget and working note) for 200 tool iterations, each reading a
// 3 KB file and taking a note, and returns request bytes #200 ÷ #10.
func fixAgentRatio(tb testing.TB) (at10, at200 int) {
	fm := testkit.NewFakeModel(tb)
	fm.Default("gpt-test", testkit.CallTools(testkit.FakeCall{Name: "read_file", Args: `{"path":"big.go"}`},
		testkit.FakeCall{Name: "note", Args: `{"text":"read big.go again, still looking"}`}))
	m, err := llm.New("openai/gpt-test", fm.Getenv, llm.Options{Timeout: 10 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	big := strings.Repeat("func f() {}\n", 256)
	read := llm.Tool{Name: "read_file", Description: "Read a file of the repository.",
		Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`), Parallel: true,
		Run: func(context.Context, json.RawMessage) (string, error) { return big, nil }}
	note := worknote.New(worknote.WIP{}, 0) // as fix.Run: the default cap
	a := &llm.Agent{Role: "pr-fix", Model: m, System: "You fix code.", Task: "Fix the findings.",
		Tools: []llm.Tool{read, llm.NoteTool(note)}, Note: note, MaxIters: 200} // Budget 0: the fix agent's default
	if _, err := a.Run(context.Background(), nil); !errors.Is(err, llm.ErrIterationCap) {
		tb.Fatalf("run: %v", err)
	}
	reqs := fm.Requests("gpt-test")
	if len(reqs) != 200 {
		tb.Fatalf("%d requests", len(reqs))
	}
	return len(reqs[9].Body), len(reqs[199].Body)
}

// writeState fills a state file with prs PRs × 3 rounds of realistic size,
// each run ended blocked (kept in full, the largest a file gets).
func writeState(tb testing.TB, dir string, prs int) {
	s := state.New(filepath.Join(dir, "state.db"), &state.Options{HeartbeatEvery: time.Hour})
	findings := []ocdxfinding.Finding{{ID: "QUAL-1b2c3d4e", Priority: "P1", Title: "a finding", Description: strings.Repeat("a finding with its description and suggestion. ", 100)}}
	full := strings.Repeat("a reviewer's full Markdown report. ", 60)
	for i := range prs {
		a, err := s.Begin(state.NewKey("github.com", "owner", fmt.Sprint("repo", i%10), i+1), "review-loop")
		if err != nil {
			tb.Fatal(err)
		}
		for n := 1; n <= 3; n++ {
			if _, err := a.StartRound(n, "0123456789abcdef0123456789abcdef01234567"); err != nil {
				tb.Fatal(err)
			}
			err := a.Complete(n, state.PhaseReviewed, func(r *state.Round) {
				r.Findings = findings
				r.FindingIDs = []string{"SEC-0a1b2c3d", "QUAL-1b2c3d4e", "TEST-2c3d4e5f"}
				r.Counts = ocdxfinding.Counts{P0: 0, P1: 1, P2: 2, P3: 3}
				r.Consensus = "request_changes"
				for k := range 3 {
					r.Reports = append(r.Reports, state.Report{Role: fmt.Sprint("reviewer-", k+1), Summary: "1 P1, 2 P2", Full: full})
				}
				r.Verification = []verify.Result{{Command: "dx lint", OK: true, Tail: full[:1000]}}
			})
			if err != nil {
				tb.Fatal(err)
			}
		}
		if err := a.End(state.OutcomeBlocked, "max rounds"); err != nil {
			tb.Fatal(err)
		}
	}
}

// figure is one row of the table.
type figure struct {
	name, target, unit string
	limit              float64
	atLeast            bool // limit is a floor, not a ceiling
	values             []float64
}

func (f *figure) add(v float64) { f.values = append(f.values, v) }

func (f *figure) stats() (med, lo, hi float64) {
	v := slices.Clone(f.values)
	slices.Sort(v)
	if len(v) == 0 {
		return 0, 0, 0
	}
	med = v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return med, v[0], v[len(v)-1]
}

func format(v float64, unit string) string {
	switch unit {
	case "ms":
		return fmt.Sprintf("%.1f ms", v)
	case "KiB":
		return fmt.Sprintf("%.1f KiB", v)
	case "MB":
		return fmt.Sprintf("%.1f MB", v)
	case "x":
		return fmt.Sprintf("%.3f", v)
	case "%":
		return fmt.Sprintf("%.1f%%", v)
	}
	return fmt.Sprintf("%.0f", v)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func TestBench(t *testing.T) {
	if os.Getenv("OCDX_BENCH") == "" {
		t.Skip("run by script/bench (OCDX_BENCH=1)")
	}
	p := readParams()
	testkit.Binary(t)
	t.Logf("runs %d, model latency %s, PR %d MB over %d files, state %d PRs × 3 rounds", p.runs, p.latency, p.diffMB, p.files, p.prs)

	noFix := &figure{name: "GitHub requests, review round without fix", target: "≤ 3", limit: 3}
	withFix := &figure{name: "GitHub requests, round with fix", target: "≤ 5", limit: 5}
	ratio := &figure{name: fmt.Sprintf("round wall ÷ slowest model call (5 reviewers + analyzer, %s each)", p.latency), target: "≤ 1.15", limit: 1.15, unit: "x"}
	own := &figure{name: "gh-ocdx's own time per round (instant models, local fakes)", target: "≤ 150 ms", limit: 150, unit: "ms"}
	wholeRun := &figure{name: "(for reference) whole review-loop run of one round, instant models", target: "—", limit: 1e9, unit: "ms"}
	prompt := &figure{name: fmt.Sprintf("largest reviewer prompt, %d MB diff / %d files", p.diffMB, p.files), target: "≤ 64 KiB", limit: 64, unit: "KiB"}
	rss := &figure{name: "peak RSS of review-loop on that PR", target: "≤ 100 MB", limit: 100, unit: "MB"}
	fixRatio := &figure{name: "fix agent request bytes #200 ÷ #10", target: "≤ 1.1", limit: 1.1, unit: "x"}
	start := &figure{name: fmt.Sprintf("(for reference) `--version` cold start (median of %d)", p.starts), target: "—", limit: 1e9, unit: "ms"}
	startRatio := &figure{name: fmt.Sprintf("`--version` cold start ÷ a hello-world Go binary's (%d interleaved pairs, medians)", p.starts), target: "≤ 4", limit: 4, unit: "x"}
	size := &figure{name: "binary size (`go build`, not stripped)", target: "≤ 22 MB", limit: 22, unit: "MB"}
	ghStart := &figure{name: "(for reference) `gh --version` cold start, in the same pairs", target: "—", limit: 1e9, unit: "ms"}
	ghRatio := &figure{name: "(for reference) gh-ocdx's `--version` ÷ gh's", target: "—", limit: 1e9, unit: "x"}
	show := &figure{name: fmt.Sprintf("`state show`, %d PRs × 3 rounds", p.prs), target: "≤ 50 ms", limit: 50, unit: "ms"}
	showRSS := &figure{name: fmt.Sprintf("peak RSS of `state show`, %d PRs × 3 rounds", p.prs), target: "≤ 50 MB", limit: 50, unit: "MB"}
	reRound := &figure{name: "re-review: round 2 reviewer input ÷ round 1 (48 KB diff, the fix touches one file)", target: "≤ 0.35", limit: 0.35, unit: "x"}
	reLoop := &figure{name: "re-review: reviewer input of a 3-round loop ÷ one full review", target: "≤ 1.8", limit: 1.8, unit: "x"}
	rePush := &figure{name: "re-review: a run after a push on top of an approved head ÷ the approving run (48 KB diff)", target: "≤ 0.35", limit: 0.35, unit: "x"}
	var cacheLoop, cacheFull [2]*figure
	for i, provider := range []string{"OpenAI", "Anthropic"} {
		cacheLoop[i] = &figure{name: "prompt cache, " + provider + ": share of reviewer input read from it over a 3-round loop (48 KB diff, a file read each round)", target: "≥ 50%", limit: 50, atLeast: true, unit: "%"}
		cacheFull[i] = &figure{name: "prompt cache, " + provider + ": share over a --full re-review of the same head", target: "≥ 90%", limit: 90, atLeast: true, unit: "%"}
	}
	figures := []*figure{noFix, withFix, ratio, own, wholeRun, prompt, rss, fixRatio, start, startRatio, size, show, showRSS, reRound, reLoop, rePush, cacheLoop[0], cacheLoop[1], cacheFull[0], cacheFull[1]}
	// gh itself, where it is installed, is the start users know.
	gh, _ := exec.LookPath("gh")
	if gh != "" {
		figures = slices.Insert(figures, slices.Index(figures, size)+1, ghStart, ghRatio)
	}

	hello := helloWorld(t)
	diff := bigDiff(p.diffMB, p.files)
	files := testkit.ParseDiff(diff)
	stateEnv := testkit.NewEnv(t)
	t0 := time.Now()
	writeState(t, stateEnv.Vars["OCDX_STATE_DIR"], p.prs)
	t.Logf("state file written in %s", time.Since(t0).Round(time.Millisecond))

	for i := range p.runs {
		t.Run(fmt.Sprint("run", i+1), func(t *testing.T) {
			wf, nf := scenarioRequests(t)
			t.Logf("round with fix %v; without %v", wf, nf)
			withFix.add(float64(len(wf)))
			noFix.add(float64(len(nf)))

			round, process := scenarioRound(t, p.latency)
			t.Logf("round 2 with %s models: %s (process %s)", p.latency, round, process)
			ratio.add(round.Seconds() / p.latency.Seconds())

			round, process = scenarioRound(t, 0)
			t.Logf("round 2 with instant models: %s (process %s)", round, process)
			own.add(float64(round.Microseconds()) / 1000)

			f := newFixture(t, 5, nil)
			f.approveAll(0)
			r := f.loop(t)
			t.Logf("a whole run converging in round 1, instant models (start, preflight, round): %s", r.wall)
			wholeRun.add(float64(r.wall.Microseconds()) / 1000)

			pb, m := scenarioBigPR(t, diff, files)
			prompt.add(float64(pb) / 1024)
			rss.add(float64(m) / 1e6)

			in := scenarioReReview(t, 48)
			t.Logf("reviewer input per round: %v bytes", in)
			reRound.add(float64(in[1]) / float64(in[0]))
			reLoop.add(float64(in[0]+in[1]+in[2]) / float64(in[0]))
			first, second := scenarioPushAfterApproval(t, 48)
			t.Logf("reviewer input: the approving run %d bytes, the run after a push %d", first, second)
			rePush.add(float64(second) / float64(first))

			loop, full := scenarioCache(t, 48, true)
			for i := range 2 {
				cacheLoop[i].add(100 * loop[i])
				cacheFull[i].add(100 * full[i])
			}

			at10, at200 := fixAgentRatio(t)
			t.Logf("fix agent request bytes #10 %d, #200 %d", at10, at200)
			fixRatio.add(float64(at200) / float64(at10))

			// The start is measured against a hello-world Go binary started
			// alternately with it: on a shared machine the load moves both.
			e := testkit.NewEnv(t)
			var walls, hellos, ghs []time.Duration
			for range p.starts {
				r := execBin(t, e, "--version")
				if r.code != 0 {
					t.Fatalf("--version: exit %d: %s", r.code, r.stderr)
				}
				walls = append(walls, r.wall)
				h := execWith(t, e, hello)
				if h.code != 0 {
					t.Fatalf("hello-world: exit %d: %s", h.code, h.stderr)
				}
				hellos = append(hellos, h.wall)
				if gh != "" {
					g := execWith(t, e, gh, "--version")
					if g.code != 0 {
						t.Fatalf("gh --version: exit %d: %s", g.code, g.stderr)
					}
					ghs = append(ghs, g.wall)
				}
			}
			start.add(float64(median(walls).Microseconds()) / 1000)
			startRatio.add(float64(median(walls)) / float64(median(hellos)))
			if len(ghs) > 0 {
				ghStart.add(float64(median(ghs).Microseconds()) / 1000)
				ghRatio.add(float64(median(walls)) / float64(median(ghs)))
			}
			t.Logf("--version %s, hello-world %s (medians of %d)", median(walls), median(hellos), p.starts)
			if fi, err := os.Stat(testkit.Binary(t)); err == nil {
				size.add(float64(fi.Size()) / 1e6)
			}

			r = execBin(t, stateEnv, "state", "show")
			if r.code != 0 || strings.Count(r.stdout, "\n") < p.prs {
				t.Fatalf("state show: exit %d, %d lines: %s", r.code, strings.Count(r.stdout, "\n"), r.stderr)
			}
			show.add(float64(r.wall.Microseconds()) / 1000)
			showRSS.add(float64(execRSS(t, stateEnv, "state", "show").maxRSS) / 1e6)
		})
	}

	var b strings.Builder
	fmt.Fprintf(&b, "\n| figure | target | median | min–max | result |\n|---|---|---|---|---|\n")
	for _, f := range figures {
		med, lo, hi := f.stats()
		res := "pass"
		switch {
		case len(f.values) < p.runs && f.target != "—":
			res = fmt.Sprintf("FAIL (%d of %d runs)", len(f.values), p.runs)
		case f.target == "—":
			res = "—"
		case med > f.limit && !f.atLeast, med < f.limit && f.atLeast:
			res = "FAIL"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s–%s | %s |\n", f.name, f.target, format(med, f.unit), format(lo, f.unit), format(hi, f.unit), res)
	}
	fmt.Fprintf(&b, "\n%d runs of each scenario; timings are wall clock on a shared machine.\n", p.runs)
	fmt.Print(b.String())
	if out := os.Getenv("OCDX_BENCH_OUT"); out != "" {
		_ = os.WriteFile(out, []byte(b.String()), 0o644)
	}
}

// TestCountFigures asserts the figures that do not depend on the machine:
// GitHub requests per round, the largest reviewer prompt on a PR of 3,000
// files, and the fix agent's request growth. It runs in the normal suite (a
// few seconds), unlike TestBench. Its PR is 4 MB, not the benchmark's 20:
// four times what a round reads of a diff (change.DiffReadLimit) and ten
// times the paths a prompt lists prove the same cut, for a fifth of the bytes.
func TestCountFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	t.Parallel()
	t.Run("requests", func(t *testing.T) {
		t.Parallel()
		withFix, withoutFix := scenarioRequests(t)
		t.Logf("requests: with fix %v, without %v", withFix, withoutFix)
		if len(withoutFix) > 3 || len(withFix) > 5 {
			t.Errorf("requests per round: %d without fix %v (target ≤ 3), %d with fix %v (target ≤ 5)", len(withoutFix), withoutFix, len(withFix), withFix)
		}
	})
	t.Run("prompt", func(t *testing.T) {
		t.Parallel()
		diff := bigDiff(4, 3000)
		prompt, _ := scenarioBigPR(t, diff, testkit.ParseDiff(diff))
		if prompt > 64<<10 {
			t.Errorf("largest reviewer prompt %d bytes, target ≤ 64 KiB", prompt)
		}
	})
	t.Run("rereview", func(t *testing.T) {
		t.Parallel()
		in := scenarioReReview(t, 48)
		round2, loop := float64(in[1])/float64(in[0]), float64(in[0]+in[1]+in[2])/float64(in[0])
		t.Logf("reviewer input per round %v bytes: round 2 is %.2f× round 1; the 3-round loop %.2f× one full review", in, round2, loop)
		if round2 > 0.35 || loop > 1.8 {
			t.Errorf("round 2 reviewer input %.2f× round 1 (target ≤ 0.35), 3 rounds %.2f× a full review (target ≤ 1.8)", round2, loop)
		}
	})
	t.Run("push-after-approval", func(t *testing.T) {
		t.Parallel()
		first, second := scenarioPushAfterApproval(t, 48)
		r := float64(second) / float64(first)
		t.Logf("reviewer input: the approving run %d bytes, the run after a push %d: %.3f×", first, second, r)
		if r > 0.35 {
			t.Errorf("a run after a push on top of an approved head takes %.2f× the reviewer input of a full review (target ≤ 0.35)", r)
		}
	})
	t.Run("prompt-cache", func(t *testing.T) {
		t.Parallel()
		loop, full := scenarioCache(t, 48, true)
		t.Logf("share of reviewer input read from the prompt cache (OpenAI, Anthropic): 3-round loop %.3f, --full re-review %.3f", loop, full)
		for i, provider := range []string{"OpenAI", "Anthropic"} {
			if loop[i] < 0.5 || full[i] < 0.9 {
				t.Errorf("%s: %.0f%% of reviewer input cached over a 3-round loop (target ≥ 50%%), %.0f%% over a --full re-review (target ≥ 90%%)", provider, 100*loop[i], 100*full[i])
			}
		}
	})
	t.Run("fix-agent", func(t *testing.T) {
		t.Parallel()
		at10, at200 := fixAgentRatio(t)
		if r := float64(at200) / float64(at10); r > 1.1 {
			t.Errorf("fix agent request #200 is %.3f× #10 (%d vs %d bytes), target ≤ 1.1", r, at200, at10)
		}
	})
}

// cacheShare is the share of reviewer input tokens the providers served
// from their prompt cache, per provider (reviewer-1 talks to the OpenAI
// fake, reviewer-2 to the Anthropic one), in the rounds of rounds.
func cacheShare(tb testing.TB, stdout string) (openai, anthropic float64) {
	var out struct {
		Rounds []struct {
			Usage map[string]struct {
				Input  int64 `json:"inputTokens"`
				Cached int64 `json:"cachedInputTokens"`
			} `json:"usage"`
		} `json:"rounds"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		tb.Fatalf("review-loop --json: %v\n%s", err, stdout)
	}
	var in, cached [2]int64
	for _, rd := range out.Rounds {
		for i, role := range []string{"reviewer-1", "reviewer-2"} {
			in[i] += rd.Usage[role].Input
			cached[i] += rd.Usage[role].Cached
		}
	}
	share := func(i int) float64 { return float64(cached[i]) / float64(max(in[i], 1)) }
	return share(0), share(1)
}

// scenarioCache runs a 3-round loop on a PR whose diff is kb kilobytes
// (0: the small PR of every other scenario), then a --full review of the
// head it converged on: the share of reviewer input read from the
// providers' prompt caches in each, per provider ([0] OpenAI, [1]
// Anthropic).
func scenarioCache(tb testing.TB, kb int, reads bool) (loop, full [2]float64) {
	var edit func(*testkit.PR)
	if kb > 0 {
		diff := kbDiff(kb, 20)
		edit = func(pr *testkit.PR) { pr.Diff, pr.Files = diff, testkit.ParseDiff(diff) }
	}
	f := newFixture(tb, 2, edit)
	// With reads, each review reads a file before it answers, as reviewers
	// do: two calls a round.
	answer := func(text string) []testkit.Step {
		if !reads {
			return []testkit.Step{testkit.Reply(text)}
		}
		return []testkit.Step{testkit.CallTools(testkit.FakeCall{Name: "read_file", Args: `{"path":"cache.go"}`}), testkit.Reply(text)}
	}
	f.fm.Script("rev-1", slices.Concat(
		answer(reviewerText("reviewer-1", "request_changes", finding{"P1", "quality", "cache.go", "Cache size is not bounded", 3})),
		answer(reviewerText("reviewer-1", "request_changes", finding{"P2", "testing", "cache.go", "Eviction has no test", 5})),
		answer(reviewerText("reviewer-1", "approve")),
		answer(reviewerText("reviewer-1", "approve")))...)
	f.fm.Script("rev-2", slices.Repeat(answer(reviewerText("reviewer-2", "approve")), 4)...)
	f.fm.Default("analyzer", testkit.Reply(analyzerText()))
	r := execBin(tb, f.env, "review-loop", "--yes", "--json", "rounds")
	if r.code != 0 || !strings.Contains(r.stdout, `"n": 3`) {
		tb.Fatalf("want 3 rounds and convergence: exit %d\n%s", r.code, r.stderr)
	}
	loop[0], loop[1] = cacheShare(tb, r.stdout)
	r = execBin(tb, f.env, "review-loop", "--yes", "--full", "--json", "rounds")
	if r.code != 0 {
		tb.Fatalf("--full: exit %d\n%s", r.code, r.stderr)
	}
	full[0], full[1] = cacheShare(tb, r.stdout)
	return loop, full
}

// helloWorld builds the program a Go binary's start is compared with: one
// that prints a line with fmt and exits.
func helloWorld(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello, world\") }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "hello")
	c := exec.Command("go", "build", "-o", bin, ".")
	c.Dir = dir
	c.Env = append(os.Environ(), "GOWORK=off")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("go build hello-world: %v\n%s", err, out)
	}
	return bin
}
