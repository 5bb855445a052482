package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/roles"
)

// Markers of what no model may be shown: a file committed after the buggy
// pull request was merged, and the fix's message and new line.
const (
	laterMarker = "LATER_MARKER_7f3a"
	fixMarker   = "FIXMSG_MARKER_91c2"
	fixedLine   = "a + b"
)

// fakeModel reads, on its first call, the reviewed file and the file
// committed later, then answers with the findings answer gives for the
// task; the verifier refutes every finding it is sent. Every text of every
// request is recorded.
type fakeModel struct {
	mu       sync.Mutex
	name     string
	answer   func(task string) []finding.Finding
	requests []string
	calls    int
	// onCall, when set, runs before each call is answered, given its task.
	onCall func(task string) error
}

func (m *fakeModel) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	var all strings.Builder
	all.WriteString(req.System)
	for _, msg := range req.Messages {
		all.WriteString(msg.Text + msg.Note)
		for _, r := range msg.Results {
			all.WriteString(r.Content)
		}
	}
	m.requests = append(m.requests, all.String())
	u := tokens.Usage{Calls: 1, Input: 100, Output: 10}
	task := req.Messages[0].Text
	if m.onCall != nil {
		if err := m.onCall(task); err != nil {
			return llm.Response{}, err
		}
	}
	if strings.Contains(req.System, "You check code review findings") {
		var vs []finding.VerifierAnswer
		for _, id := range regexp.MustCompile(`"id": "([^"]+)"`).FindAllStringSubmatch(task, -1) {
			vs = append(vs, finding.VerifierAnswer{ID: id[1], Verdict: finding.Refuted, Evidence: "calc.go:5 reads fine"})
		}
		return llm.Response{Text: envelopeOf(finding.VerifierResult{Agent: "verifier", Verdicts: vs}), Usage: u}, nil
	}
	if len(req.Messages) == 1 && !req.NoTools {
		return llm.Response{Usage: u, Calls: []llm.ToolCall{
			{ID: "1", Name: "read_file", Args: json.RawMessage(`{"path": "calc/calc.go"}`)},
			{ID: "2", Name: "read_file", Args: json.RawMessage(`{"path": "later/later.go"}`)},
			{ID: "3", Name: "search", Args: json.RawMessage(`{"pattern": "package later"}`)},
			{ID: "4", Name: "read_file", Args: json.RawMessage(`{"path": ".git/HEAD"}`)},
		}}, nil
	}
	fs := m.answer(task)
	conclusion := "approve"
	if len(fs) > 0 {
		conclusion = "request_changes"
	}
	c := finding.Counts{}
	for _, f := range fs {
		switch f.Priority {
		case "P1":
			c.P1++
		case "P3":
			c.P3++
		}
	}
	return llm.Response{Text: envelopeOf(map[string]any{"agent": "reviewer", "prNumber": 0, "conclusion": conclusion,
		"issues":   map[string]int{"p0_blocking": 0, "p1_critical": c.P1, "p2_important": 0, "p3_suggestion": c.P3},
		"findings": append([]finding.Finding{}, fs...), "fullReport": "done"}), Usage: u}, nil
}

func envelopeOf(v any) string {
	b, _ := json.Marshal(v)
	return "BEGIN_JSON\n" + string(b) + "\nEND_JSON"
}

// evalRepo is a history with one buggy pull request (#1, calc.go's sign),
// a clean one (#2), a file committed after #1 was merged and the fix.
func evalRepo(t *testing.T) (*git.Repo, *Mined) {
	h := newHistory(t)
	h.mergePR(1, "Add calc", map[string]string{"calc/calc.go": calc})
	h.commit("Add the docs (#2)", map[string]string{"docs/use.md": "Use it.\n"})
	h.commit("Add a later helper", map[string]string{"later/later.go": "package later // " + laterMarker + "\n"})
	h.commit("Fix the sign in Add "+fixMarker, map[string]string{"calc/calc.go": strings.Replace(calc, "a - b", fixedLine, 1)})
	m := h.mine(Options{})
	if len(m.Bugs) != 1 || len(m.Clean) != 1 {
		t.Fatalf("cases: %+v", m)
	}
	g, err := git.Open(context.Background(), h.dir)
	if err != nil {
		t.Fatal(err)
	}
	return g, m
}

// Model a raises the bug on #1 and a noise finding on #2; b raises nothing.
func models() (a, b, v *fakeModel) {
	a = &fakeModel{name: "p/a", answer: func(task string) []finding.Finding {
		if strings.Contains(task, "calc/calc.go") {
			return []finding.Finding{{Priority: "P1", Category: "bug", File: "calc/calc.go", Line: new(5), Title: "Add subtracts", Description: "a - b"}}
		}
		return []finding.Finding{{Priority: "P3", Category: "docs", File: "docs/use.md", Line: new(1), Title: "terse", Description: "say more"}}
	}}
	b = &fakeModel{name: "p/b", answer: func(string) []finding.Finding { return nil }}
	return a, b, &fakeModel{name: "p/v"}
}

func runOpts(g *git.Repo, m *Mined, dir string, a, b, v *fakeModel) RunOptions {
	return RunOptions{Git: g, Cases: append(append([]Case{}, m.Bugs...), m.Clean...), Cache: &Cache{Dir: dir},
		Reviewers: []roles.Role{{Name: "reviewer-1", Model: a.name, LLM: a}, {Name: "reviewer-2", Model: b.name, LLM: b}},
		Verifier:  &roles.Role{Name: "verifier", Model: v.name, LLM: v}}
}

// Each model reviews each case once, alone, as it was: its tools read the
// pull request's head and nothing after it (the later file is not there,
// git's own files are not readable),
// and neither the fix's message nor its line is in any request. A second
// run answers every mix from the cache, without a model call.
func TestRunReviewsAsItWasAndAnswersTheMixesFromTheCache(t *testing.T) {
	g, m := evalRepo(t)
	a, b, v := models()
	dir := t.TempDir()
	res, err := Run(context.Background(), runOpts(g, m, dir, a, b, v))
	if err != nil {
		t.Fatal(err)
	}
	// Two cases, two reviewers, the verifier on a's two findings (b's none: no call).
	if res.Calls != 6 || res.Cached != 0 || a.calls != 4 || b.calls != 4 || v.calls != 2 {
		t.Errorf("calls: run %d (cached %d), a %d, b %d, v %d", res.Calls, res.Cached, a.calls, b.calls, v.calls)
	}
	var read, git bool
	for _, fm := range []*fakeModel{a, b, v} {
		for _, req := range fm.requests {
			for _, bad := range []string{laterMarker, fixMarker, fixedLine} {
				if strings.Contains(req, bad) {
					t.Errorf("%s was shown %q, which came after the pull request:\n%s", fm.name, bad, req)
				}
			}
			read = read || strings.Contains(req, "later/later.go is not tracked at the PR's head")
			git = git || strings.Contains(req, `".git/HEAD" is inside a .git directory`)
		}
	}
	if !read || !git {
		t.Errorf("a read was not refused: the later file %v, .git/HEAD %v", read, git)
	}
	rep := Score(res, ScoreOptions{})
	if r := row(t, rep, "p/a"); r.Caught != 1 || r.Bugs != 1 || r.NoiseFindings != 1 || r.Tokens != 440 {
		t.Errorf("p/a: %+v", r)
	}
	// The verifier refuted both of a's findings.
	if r := row(t, rep, "p/a, verifier"); r.Caught != 0 || r.NoiseFindings != 0 || r.Tokens != 660 {
		t.Errorf("p/a with the verifier: %+v", r)
	}

	a2, b2, v2 := models()
	res2, err := Run(context.Background(), runOpts(g, m, dir, a2, b2, v2))
	if err != nil {
		t.Fatal(err)
	}
	if a2.calls+b2.calls+v2.calls != 0 || res2.Calls != 0 || res2.Cached != 6 {
		t.Errorf("the second run made %d model calls (%d cached)", a2.calls+b2.calls+v2.calls, res2.Cached)
	}
	if got, want := Score(res2, ScoreOptions{}).Rows, rep.Rows; !rowsEqual(got, want) {
		t.Errorf("the cached run scores differently:\n%+v\n%+v", got, want)
	}
}

func rowsEqual(a, b []Row) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// A run killed while its models review the second case keeps the
// answers of the first: the rerun makes only the calls that were not
// answered.
func TestRunResumesAfterAnInterruption(t *testing.T) {
	g, m := evalRepo(t)
	a, b, v := models()
	ctx, cancel := context.WithCancel(context.Background())
	kill := func(task string) error {
		if strings.Contains(task, "docs/use.md") { // the second case
			cancel()
			return context.Canceled
		}
		return nil
	}
	a.onCall, b.onCall = kill, kill
	dir := t.TempDir()
	if _, err := Run(ctx, runOpts(g, m, dir, a, b, v)); err == nil {
		t.Fatal("an interrupted run ended without an error")
	}
	if v.calls != 1 {
		t.Fatalf("before the interruption: the verifier made %d calls, want 1 (a's finding on #1)", v.calls)
	}
	a2, b2, v2 := models()
	res, err := Run(context.Background(), runOpts(g, m, dir, a2, b2, v2))
	if err != nil {
		t.Fatal(err)
	}
	// a's, b's and v's answers on #1 are cached; everything on #2 is asked.
	if res.Cached != 3 || res.Calls != 3 || a2.calls != 2 || b2.calls != 2 || v2.calls != 1 {
		t.Errorf("the rerun: %d calls, %d cached; a %d, b %d, v %d", res.Calls, res.Cached, a2.calls, b2.calls, v2.calls)
	}
}

// Each call is reserved in the token budget before it is made, as a
// round's are: a budget too small for a review makes no call.
func TestRunReservesEachCallInTheBudget(t *testing.T) {
	g, m := evalRepo(t)
	a, b, v := models()
	o := runOpts(g, m, t.TempDir(), a, b, v)
	budget := llm.NewBudget(1000)
	for i := range o.Reviewers {
		o.Reviewers[i].LLM = budget.Wrap(o.Reviewers[i].LLM, 4096)
	}
	o.Budget = budget
	_, err := Run(context.Background(), o)
	if !errors.Is(err, llm.ErrBudget) || !strings.Contains(fmt.Sprint(err), "case #1, p/a needs up to") || a.calls+b.calls != 0 {
		t.Errorf("err %v, %d calls: the budget must refuse before the first call", err, a.calls+b.calls)
	}
}

// An edited list of cases is read back and checked against the
// repository: a case without a merge time takes its merge commit's, a
// head the repository does not have is an error naming the file.
func TestReadCases(t *testing.T) {
	g, m := evalRepo(t)
	ctx := context.Background()
	want := m.Bugs[0].Merged
	m.Bugs[0].Merged = time.Time{}
	b, _ := json.Marshal(m)
	got, err := ReadCases(ctx, g, strings.NewReader(string(b)), "cases.json")
	if err != nil || !got.Bugs[0].Merged.Equal(want) {
		t.Fatalf("ReadCases: %v, merged %v want %v", err, got, want)
	}
	for name, edit := range map[string]func(*Mined){
		"is no commit":         func(m *Mined) { m.Bugs[0].Head = strings.Repeat("1", 40) },
		"full commit IDs":      func(m *Mined) { m.Clean[0].Base = "main" },
		"lists no \"buggy\"":   func(m *Mined) { m.Bugs[0].Buggy = nil },
		"listed twice":         func(m *Mined) { m.Clean = append(m.Clean, m.Clean[0]) },
		"needs a \"file\"":     func(m *Mined) { m.Bugs[0].Buggy = []Line{{Line: 3}} },
		"above zero":           func(m *Mined) { m.Clean[0].PR = 0 },
		"lists \"buggy\" line": func(m *Mined) { m.Clean[0].Buggy = m.Bugs[0].Buggy },
	} {
		mm := *m
		mm.Bugs, mm.Clean = append([]Case{}, m.Bugs...), append([]Case{}, m.Clean...)
		edit(&mm)
		b, _ := json.Marshal(mm)
		if _, err := ReadCases(ctx, g, strings.NewReader(string(b)), "cases.json"); err == nil || !strings.Contains(err.Error(), name) || !strings.HasPrefix(err.Error(), "cases.json") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := ReadCases(ctx, g, strings.NewReader(`{"bugs": [], "clean": [], "extra": 1}`), "cases.json"); err == nil || !strings.Contains(err.Error(), "cases.json") {
		t.Errorf("an unknown field: err = %v", err)
	}
}

// A provider that refuses a model's key ends the run at once, naming the
// configuration key: every other call would fail the same.
func TestRunStopsOnAConfigurationError(t *testing.T) {
	g, m := evalRepo(t)
	a, b, v := models()
	a.onCall = func(string) error { return &llm.APIError{Model: "p/a", Status: 401, Message: "bad key"} }
	o := runOpts(g, m, t.TempDir(), a, b, v)
	o.Reviewers[0].Key = "reviewerModels[0]"
	_, err := Run(context.Background(), o)
	var ce *llm.ConfigError
	// b, side by side with a on the first case, finishes it; no other case starts.
	if !errors.As(err, &ce) || ce.Key != "reviewerModels[0]" || a.calls != 1 || b.calls != 2 {
		t.Errorf("err %v, a called %d times, b %d: want the configuration error after the first case", err, a.calls, b.calls)
	}
}
