package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/eval"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// evalHistory builds, commit by commit a day apart, a history with two
// buggy pull requests (#1 merged, calc's sign; #3 squashed, the greeting's
// spelling), two clean ones (#2, #4), a file committed after them and the
// two fixes, whose messages carry a marker no model may see.
type evalHistory struct {
	t   *testing.T
	dir string
	day int
}

const (
	evalCalc     = "package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"
	evalGreet    = "package greet\n\nfunc Hello() string {\n\treturn \"helo\"\n}\n"
	evalFixMark  = "FIX_MARKER_5d1e"
	evalLaterMrk = "LATER_MARKER_0b7c"
)

func (h *evalHistory) git(args ...string) string {
	h.t.Helper()
	h.day++
	d := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC).AddDate(0, 0, h.day).Format(time.RFC3339)
	c := exec.Command("git", args...)
	c.Dir = h.dir
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_DATE="+d, "GIT_COMMITTER_DATE="+d)
	out, err := c.CombinedOutput()
	if err != nil {
		h.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (h *evalHistory) commit(msg string, files map[string]string) {
	h.t.Helper()
	testkit.WriteFiles(h.t, h.dir, files)
	h.git("add", "-A")
	h.git("commit", "--quiet", "-m", msg)
}

func newEvalHistory(t *testing.T) string {
	h := &evalHistory{t: t, dir: testkit.InitRepo(t)}
	h.commit("initial", map[string]string{"README.md": "# app\n"})
	h.git("checkout", "--quiet", "-b", "pr-1")
	h.commit("Add calc", map[string]string{"calc/calc.go": evalCalc})
	h.git("checkout", "--quiet", "main")
	h.git("merge", "--quiet", "--no-ff", "-m", "Merge pull request #1 from octo/pr-1", "-m", "Add calc", "pr-1")
	h.commit("Add the docs (#2)", map[string]string{"docs/use.md": "Use it.\n"})
	h.commit("Add a greeting (#3)", map[string]string{"greet/greet.go": evalGreet})
	h.commit("Add notes (#4)", map[string]string{"docs/notes.md": "Notes.\n"})
	h.commit("Add a helper", map[string]string{"later/later.go": "package later // " + evalLaterMrk + "\n"})
	h.commit("Fix the sign in Add "+evalFixMark, map[string]string{"calc/calc.go": strings.Replace(evalCalc, "a - b", "a + b", 1)})
	h.commit("Fix the greeting's spelling "+evalFixMark, map[string]string{"greet/greet.go": strings.Replace(evalGreet, "helo", "hello", 1)})
	return h.dir
}

// evalAnswer is a reviewer's envelope with fs.
func evalAnswer(fs ...finding.Finding) testkit.Step {
	conclusion, p1, p3 := "approve", 0, 0
	for _, f := range fs {
		conclusion = "request_changes"
		if f.Priority == "P1" {
			p1++
		} else {
			p3++
		}
	}
	b, _ := json.Marshal(map[string]any{"agent": "reviewer", "prNumber": 0, "conclusion": conclusion,
		"issues":   map[string]int{"p0_blocking": 0, "p1_critical": p1, "p2_important": 0, "p3_suggestion": p3},
		"findings": append([]finding.Finding{}, fs...), "fullReport": "done"})
	return testkit.Reply("BEGIN_JSON\n" + string(b) + "\nEND_JSON")
}

const evalConfig = `{"reviewerModels": ["ollama/qwen-a", "ollama/qwen-b"], "commentsAnalyzerModel": "ollama/qwen-a", "prFixModel": "ollama/qwen-a"`

// newEvalEnv is the binary's environment in a checkout of newEvalHistory,
// with two reviewers on the fake model server and the fake GitHub named
// (to show that nothing asks it).
func newEvalEnv(t *testing.T) (*testkit.Env, *testkit.FakeModel, *testkit.GitHub) {
	dir := newEvalHistory(t)
	gh := testkit.NewGitHub(t)
	fm := testkit.NewFakeModel(t)
	env := testkit.NewEnv(t)
	gh.Configure(env, repo)
	fm.Configure(env)
	env.Dir = dir
	env.WriteConfig(t, evalConfig+`}`)
	return env, fm, gh
}

// answerEval scripts the reviewers: qwen-a catches calc's sign (line 5,
// the fixed line) and raises a P3 on the docs; qwen-b misses calc (line
// 1, 4 lines off) and catches the greeting. qwen-a stalls on a request
// stall holds for.
func answerEval(fm *testkit.FakeModel, stall func(body string) bool) {
	fm.Answer("qwen-a", func(r testkit.ModelRequest) testkit.Step {
		body := string(r.Body)
		var s testkit.Step
		switch {
		case strings.Contains(body, "calc/calc.go"):
			s = evalAnswer(finding.Finding{Priority: "P1", Category: "bug", File: "calc/calc.go", Line: new(5), Title: "Add subtracts", Description: "a - b"})
		case strings.Contains(body, "docs/use.md"):
			s = evalAnswer(finding.Finding{Priority: "P3", Category: "docs", File: "docs/use.md", Line: new(1), Title: "terse", Description: "say more"})
		default:
			s = evalAnswer()
		}
		if stall != nil && stall(body) {
			s.Stall = time.Minute
		}
		return s
	})
	fm.Answer("qwen-b", func(r testkit.ModelRequest) testkit.Step {
		switch body := string(r.Body); {
		case strings.Contains(body, "calc/calc.go"):
			return evalAnswer(finding.Finding{Priority: "P3", Category: "style", File: "calc/calc.go", Line: new(1), Title: "package doc", Description: "add one"})
		case strings.Contains(body, "greet/greet.go"):
			return evalAnswer(finding.Finding{Priority: "P1", Category: "bug", File: "greet/greet.go", Line: new(4), Title: "typo", Description: "helo"})
		}
		return evalAnswer()
	})
}

// gh ocdx eval history through the binary: --list mines and shows the
// cases without a model call; the list, edited, is reviewed with --cases,
// each model once per case, with no GitHub request and nothing of the
// fixes or of later commits in any prompt; recall, noise and tokens are
// those the scripted findings give; a rerun makes no model call; a bad
// modelCutoffs date is an error naming the file.
func TestEvalHistoryScoresScriptedReviewersFromTheCache(t *testing.T) {
	t.Parallel()
	env, fm, gh := newEvalEnv(t)
	answerEval(fm, nil)

	res := env.Run(t, "eval", "history", "--list")
	wantCode(t, res, 0)
	wantContains(t, "--list", res.Stdout, "2 bug cases and 2 clean cases", "| #1 | bug |", "| #3 | bug |", "| #2 | clean |", "| #4 | clean |")
	if n := len(fm.Requests("qwen-a")) + len(fm.Requests("qwen-b")); n != 0 {
		t.Fatalf("--list made %d model requests", n)
	}
	res = env.Run(t, "eval", "history", "--list", "--json")
	wantCode(t, res, 0)
	var cases eval.Mined
	if err := json.Unmarshal([]byte(res.Stdout), &cases); err != nil || len(cases.Clean) != 2 {
		t.Fatalf("--list --json: %v\n%s", err, res.Stdout)
	}
	cases.Clean = cases.Clean[:1] // the user drops #4
	edited, _ := json.Marshal(cases)
	file := filepath.Join(t.TempDir(), "cases.json")
	if err := os.WriteFile(file, edited, 0o600); err != nil {
		t.Fatal(err)
	}

	res = env.Run(t, "eval", "history", "--cases", file, "--json")
	wantCode(t, res, 0)
	wantContains(t, "stderr", res.Stderr, "case 1/3: #1 (bug", "case 3/3: #2 (clean")
	rep := evalReport(t, res.Stdout)
	calls := len(fm.Requests("qwen-a")) + len(fm.Requests("qwen-b"))
	if calls != 6 {
		t.Errorf("%d model requests, want one per model and case (6)", calls)
	}
	// Each fake call reports its sizes as tokens; a's and b's rows have their own.
	for name, want := range map[string]string{
		"ollama/qwen-a":                      "caught 1/2 noise 1 on 1",
		"ollama/qwen-b":                      "caught 1/2 noise 0 on 1",
		"1 of ollama/qwen-a + ollama/qwen-b": "caught 2/2 noise 1 on 1",
		"2 of ollama/qwen-a + ollama/qwen-b": "caught 0/2 noise 0 on 1",
		"effort standard":                    "caught 2/2 noise 1 on 1",
	} {
		r := rep[name]
		if got := fmt.Sprintf("caught %d/%d noise %d on %d", r.Caught, r.Bugs, r.NoiseFindings, r.CleanPRs); got != want || r.Tokens == 0 {
			t.Errorf("%s: %s, %d tokens; want %s", name, got, r.Tokens, want)
		}
	}
	// auto reviews the docs-only #2 at quick (qwen-a alone) and the rest at standard.
	if r := rep["effort auto"]; r.Tiers["quick"] != 1 || r.Caught != 2 || r.Tokens >= rep["effort standard"].Tokens {
		t.Errorf("auto: %+v", r)
	}
	for _, m := range []string{"qwen-a", "qwen-b"} {
		for _, r := range fm.Requests(m) {
			for _, bad := range []string{evalFixMark, evalLaterMrk, "a + b", "\"hello\""} {
				if strings.Contains(string(r.Body), bad) {
					t.Errorf("a prompt of %s holds %q, which came after the pull request", m, bad)
				}
			}
		}
	}

	res = env.Run(t, "eval", "history", "--cases", file)
	wantCode(t, res, 0)
	wantContains(t, "report", res.Stdout, "0 model calls made, 6 answers from the cache", "within ±3", "The data cannot tell")
	if n := len(fm.Requests("qwen-a")) + len(fm.Requests("qwen-b")); n != calls {
		t.Errorf("the rerun made %d model requests", n-calls)
	}
	if reqs := gh.Requests(); len(reqs) != 0 {
		t.Errorf("eval made %d GitHub requests: %v", len(reqs), reqs)
	}

	env.WriteConfig(t, evalConfig+`, "modelCutoffs": {"ollama/qwen-a": "June 2024"}}`)
	res = env.Run(t, "eval", "history", "--cases", file)
	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, env.Vars["OCDX_CONFIG"], `modelCutoffs["ollama/qwen-a"]`, `"YYYY-MM-DD"`)
	res = env.Run(t, "eval", "history", "--after", "yesterday")
	wantCode(t, res, 2)
}

func evalReport(t *testing.T, out string) map[string]eval.Row {
	t.Helper()
	var rep eval.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	rows := map[string]eval.Row{}
	for _, r := range rep.Rows {
		rows[r.Name] = r
	}
	return rows
}

// A run killed (SIGKILL: no handler) while a model reviews the second
// case keeps every answer it had: the rerun asks only what was not
// answered, and its report counts every case.
func TestEvalHistoryResumesAfterAKill(t *testing.T) {
	t.Parallel()
	env, fm, _ := newEvalEnv(t)
	answerEval(fm, func(body string) bool { return strings.Contains(body, "greet/greet.go") })
	c := exec.Command(testkit.Binary(t), "eval", "history")
	c.Dir, c.Env = env.Dir, env.List()
	stderr := &testkit.Buffer{}
	c.Stderr = stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	stalled := func() bool {
		for _, r := range fm.Requests("qwen-a") {
			if strings.Contains(string(r.Body), "greet/greet.go") {
				return true
			}
		}
		return false
	}
	for deadline := time.Now().Add(30 * time.Second); !stalled(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			c.Process.Kill()
			c.Wait()
			t.Fatalf("qwen-a never reviewed the second case; stderr:\n%s", stderr.String())
		}
	}
	c.Process.Kill()
	c.Wait()
	before := len(fm.Requests("qwen-a"))
	answerEval(fm, nil)

	res := env.Run(t, "eval", "history", "--json")

	wantCode(t, res, 0)
	for _, r := range fm.Requests("qwen-a")[before:] {
		if strings.Contains(string(r.Body), "calc/calc.go") {
			t.Error("the rerun asked qwen-a about the first case again")
		}
	}
	if got := len(fm.Requests("qwen-a")) - before; got != 3 {
		t.Errorf("the rerun made %d qwen-a requests, want 3 (the second case and the two clean ones)", got)
	}
	if r := evalReport(t, res.Stdout)["effort standard"]; r.Bugs != 2 || r.CleanPRs != 2 {
		t.Errorf("the resumed run counts %d bugs and %d clean cases, want 2 and 2", r.Bugs, r.CleanPRs)
	}
}
