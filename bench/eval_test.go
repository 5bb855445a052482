package bench

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/eval"
	fnd "github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// simulated are the rates of the simulated reviewers: the chance each
// reports a bug of a case at its line, and the false findings it raises
// per case. They are chosen, not measured: the figures this gives are
// those of the machinery (calls, cache, time, the tiers' choices), not
// of any model.
var simulated = []struct {
	model string
	hit   float64
	noise int
}{{"sim-a", 0.6, 1}, {"sim-b", 0.5, 1}, {"sim-c", 0.4, 2}}

// chance is a deterministic number in [0, 1) for its parts.
func chance(parts ...any) float64 {
	h := fnv.New64a()
	fmt.Fprint(h, parts...)
	return float64(h.Sum64()%10000) / 10000
}

// reVerify finds each finding's ID and title in the verifier's task.
var reVerify = regexp.MustCompile(`(?s)"id": "([^"]+)",\s*"priority".*?"title": "([^"]*)"`)

var rePR = regexp.MustCompile(`Pull request #([0-9]+)\.`)

// userText is the first user message of an OpenAI request.
func userText(body []byte) string {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	for _, m := range req.Messages {
		var s string
		if m.Role == "user" && json.Unmarshal(m.Content, &s) == nil {
			return s
		}
	}
	return ""
}

func simAnswer(model string, hit float64, noise int, cases map[int]eval.Case) func(testkit.ModelRequest) testkit.Step {
	return func(r testkit.ModelRequest) testkit.Step {
		task := userText(r.Body)
		m := rePR.FindStringSubmatch(task)
		if m == nil {
			return testkit.Reply("no case")
		}
		pr, _ := strconv.Atoi(m[1])
		var fs []fnd.Finding
		seen := map[string]bool{}
		for _, l := range cases[pr].Buggy {
			if seen[l.Fix] {
				continue
			}
			seen[l.Fix] = true
			if chance(model, pr, l.Fix) < hit {
				fs = append(fs, fnd.Finding{Priority: "P1", Category: "bug", File: l.File, Line: new(l.Line), Title: "simulated bug", Description: "simulated"})
			}
		}
		for i := range noise {
			if chance(model, pr, "noise", i) < 0.5 {
				fs = append(fs, fnd.Finding{Priority: "P2", Category: "quality", File: "noise/" + model + ".go", Line: new(10*pr + i), Title: "simulated noise " + strconv.Itoa(i), Description: "simulated"})
			}
		}
		return envelopeStep(fs)
	}
}

func envelopeStep(fs []fnd.Finding) testkit.Step {
	c := map[string]int{"p0_blocking": 0, "p1_critical": 0, "p2_important": 0, "p3_suggestion": 0}
	for _, f := range fs {
		c[map[string]string{"P1": "p1_critical", "P2": "p2_important"}[f.Priority]]++
	}
	conclusion := "approve"
	if len(fs) > 0 {
		conclusion = "request_changes"
	}
	b, _ := json.Marshal(map[string]any{"agent": "reviewer", "prNumber": 0, "conclusion": conclusion, "issues": c,
		"findings": append([]fnd.Finding{}, fs...), "fullReport": "simulated"})
	return testkit.Reply("BEGIN_JSON\n" + string(b) + "\nEND_JSON")
}

// simVerifier refutes a simulated noise finding 80% of the time and a
// simulated bug 15% of the time.
func simVerifier(r testkit.ModelRequest) testkit.Step {
	var views [][]string
	for _, m := range reVerify.FindAllStringSubmatch(userText(r.Body), -1) {
		views = append(views, m[1:])
	}
	var vs []fnd.VerifierAnswer
	for _, v := range views {
		rate := 0.15
		if strings.HasPrefix(v[1], "simulated noise") {
			rate = 0.8
		}
		verdict := fnd.Confirmed
		if chance("verifier", v[0]) < rate {
			verdict = fnd.Refuted
		}
		vs = append(vs, fnd.VerifierAnswer{ID: v[0], Verdict: verdict, Evidence: "simulated"})
	}
	b, _ := json.Marshal(fnd.VerifierResult{Agent: "verifier", Verdicts: vs})
	return testkit.Reply("BEGIN_JSON\n" + string(b) + "\nEND_JSON")
}

// TestEvalHistorySimulated runs gh ocdx eval history, the binary, on the
// history of the repository OCDX_BENCH_EVAL_REPO names (cloned first),
// with three simulated reviewers and a simulated verifier on the fake
// model server: the wall time of mining, of the first run (every call
// made) and of a rerun (every answer cached), and the report, whose
// figures are those of the simulation.
func TestEvalHistorySimulated(t *testing.T) {
	src := os.Getenv("OCDX_BENCH_EVAL_REPO")
	if src == "" {
		t.Skip("OCDX_BENCH_EVAL_REPO names no repository to mine")
	}
	dir := filepath.Join(t.TempDir(), "repo")
	testkit.Git(t, filepath.Dir(dir), "clone", "--quiet", src, dir)
	fm := testkit.NewFakeModel(t)
	env := testkit.NewEnv(t)
	fm.Configure(env)
	env.Dir = dir
	env.WriteConfig(t, `{"reviewerModels": ["ollama/sim-a", "ollama/sim-b", "ollama/sim-c"], "verifierModel": "ollama/sim-v", "commentsAnalyzerModel": "ollama/sim-a", "prFixModel": "ollama/sim-a"}`)

	list := execBin(t, env, "eval", "history", "--list", "--json")
	if list.code != 0 {
		t.Fatalf("--list: %s", list.stderr)
	}
	var mined eval.Mined
	if err := json.Unmarshal([]byte(list.stdout), &mined); err != nil {
		t.Fatal(err)
	}
	cases := map[int]eval.Case{}
	for _, c := range append(append([]eval.Case{}, mined.Bugs...), mined.Clean...) {
		cases[c.PR] = c
	}
	for _, s := range simulated {
		fm.Answer(s.model, simAnswer(s.model, s.hit, s.noise, cases))
	}
	fm.Answer("sim-v", simVerifier)
	file := filepath.Join(t.TempDir(), "cases.json")
	if err := os.WriteFile(file, []byte(list.stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	first := execBin(t, env, "eval", "history", "--cases", file)
	second := execBin(t, env, "eval", "history", "--cases", file)
	if first.code != 0 || second.code != 0 {
		t.Fatalf("eval: %d %s / %d %s", first.code, first.stderr, second.code, second.stderr)
	}
	auto := execBin(t, env, "eval", "history", "--cases", file, "--json")
	var rep eval.Report
	if err := json.Unmarshal([]byte(auto.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Auto {
		if c.Tier != "standard" {
			t.Logf("auto: #%d (bug %v) at %s: %s", c.PR, c.Bug, c.Tier, c.Why)
		}
	}
	calls := 0
	for _, m := range []string{"sim-a", "sim-b", "sim-c", "sim-v"} {
		calls += len(fm.Requests(m))
	}
	t.Logf("%d bug and %d clean cases; --list (mining) %s; first run %s (%d model requests); rerun %s (cached)\n%s",
		len(mined.Bugs), len(mined.Clean), list.wall.Round(time.Millisecond), first.wall.Round(time.Millisecond), calls,
		second.wall.Round(time.Millisecond), second.stdout)
}
