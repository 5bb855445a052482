package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/worknote"
)

// randomModel is an in-process Model that answers with random tool calls
// (parallel, repeated or empty ids, unknown tools, huge arguments) and
// checks every request it is sent.
type randomModel struct {
	t      *testing.T
	rng    *rand.Rand
	budget int
	turns  int
	last   []ToolCall // the calls of the previous answer
	seq    int
	talked bool // answered once without an envelope
	asked  int  // answers with tool calls so far
	cut    int  // requests whose history had lost an exchange to the budget
}

func (m *randomModel) Chat(_ context.Context, req Request) (Response, error) {
	m.checkRequest(req)
	m.turns--
	if m.turns <= 0 || req.NoTools {
		return Response{Text: `BEGIN_JSON {"done": true} END_JSON`, Usage: tokens.Usage{Input: 1, Output: 1}}, nil
	}
	if !m.talked && m.rng.IntN(30) == 0 {
		m.talked = true // earns the corrective turn
		m.last = nil
		return Response{Text: strings.Repeat("thinking ", m.rng.IntN(4000))}, nil
	}
	n := 1 + m.rng.IntN(4)
	if m.rng.IntN(10) == 0 {
		n = 1 + m.rng.IntN(2*MaxCallsPerTurn)
	}
	var calls []ToolCall
	for range n {
		m.seq++
		id := fmt.Sprintf("c%d", m.seq)
		switch m.rng.IntN(10) {
		case 0:
			id = ""
		case 1:
			id = "dup"
		}
		name := []string{"read_file", "search", "edit_file", "nope"}[m.rng.IntN(4)]
		args, _ := json.Marshal(map[string]any{"path": fmt.Sprintf("f%d.go", m.rng.IntN(50)), "new_string": strings.Repeat("x", m.rng.IntN(3)*m.rng.IntN(12000)), "n": m.rng.IntN(9)})
		calls = append(calls, ToolCall{ID: id, Name: name, Args: args})
	}
	m.last = calls
	m.asked++
	text := ""
	if m.rng.IntN(3) == 0 {
		text = strings.Repeat("plan ", m.rng.IntN(300))
	}
	return Response{Text: text, Calls: calls, Usage: tokens.Usage{Input: 1, Output: 1}}, nil
}

// checkRequest asserts the invariants of a composed request: it starts
// with the task, roles alternate, each assistant turn's calls are answered
// by the next user turn (same ids, same order) and nothing else answers
// calls, call ids are unique, the history fits the budget, and both wire
// formats accept it.
func (m *randomModel) checkRequest(req Request) {
	t := m.t
	t.Helper()
	if len(req.Messages) == 0 || req.Messages[0].Role != User || !strings.HasPrefix(req.Messages[0].Text, "the task") {
		t.Fatalf("request does not start with the task: %+v", req.Messages[:1])
	}
	size := 0
	ids := map[string]bool{}
	for i, msg := range req.Messages {
		if want := []Role{User, Assistant}[i%2]; msg.Role != want {
			t.Fatalf("message %d has role %s, want %s", i, msg.Role, want)
		}
		if i == 0 {
			continue
		}
		size += msgSize(msg)
		switch msg.Role {
		case Assistant:
			if i+1 >= len(req.Messages) {
				t.Fatalf("assistant turn %d is last", i)
			}
			res := req.Messages[i+1].Results
			if len(res) != len(msg.Calls) {
				t.Fatalf("turn %d: %d calls, %d results", i, len(msg.Calls), len(res))
			}
			for j, c := range msg.Calls {
				if ids[c.ID] || c.ID == "" {
					t.Fatalf("turn %d: call id %q empty or repeated", i, c.ID)
				}
				ids[c.ID] = true
				if res[j].CallID != c.ID {
					t.Fatalf("turn %d: result %d answers %q, call is %q", i, j, res[j].CallID, c.ID)
				}
				if !json.Valid(c.Args) {
					t.Fatalf("turn %d: arguments are not JSON: %.80s", i, c.Args)
				}
			}
			if len(msg.Calls) > MaxCallsPerTurn {
				t.Fatalf("turn %d: %d calls recorded", i, len(msg.Calls))
			}
		case User:
			if len(msg.Results) > 0 && len(req.Messages[i-1].Calls) == 0 {
				t.Fatalf("turn %d: results without calls", i)
			}
		}
	}
	if size > m.budget {
		t.Fatalf("history of %d bytes exceeds the budget of %d", size, m.budget)
	}
	if exchanges := (len(req.Messages) - 1) / 2; exchanges < m.asked {
		m.cut++
	}
	// The newest exchange is always there.
	if len(m.last) > 0 && len(req.Messages) < 3 {
		t.Fatalf("the latest tool exchange was dropped")
	}
	for _, format := range []string{"openai", "anthropic"} {
		var body []byte
		var err error
		if format == "openai" {
			p, perr := openAIBody("m", req, 100, true)
			if perr != nil {
				t.Fatal(perr)
			}
			body, err = json.Marshal(p)
		} else {
			p, perr := anthropicBody("m", req, 100)
			if perr != nil {
				t.Fatal(perr)
			}
			body, err = json.Marshal(p)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := testkit.CheckRequest(format, body); err != nil {
			t.Fatalf("%s wire: %v", format, err)
		}
	}
}

func TestPropertyComposedRequests(t *testing.T) {
	t.Parallel()
	tools := []Tool{
		{Name: "read_file", Schema: json.RawMessage(`{"type":"object"}`), Parallel: true, Run: randomTool(1)},
		{Name: "search", Schema: json.RawMessage(`{"type":"object"}`), Parallel: true, Run: randomTool(2)},
		{Name: "edit_file", Schema: json.RawMessage(`{"type":"object"}`), Run: randomTool(3)},
	}
	// Up to 35 turns, no longer 80: the history is over budget from the
	// second or third turn on, so every run spends most of its turns being
	// cut (checked below); the later turns repeated what the earlier ones
	// checked, for half the package's time under -race.
	for seed := range uint64(25) {
		rng := rand.New(rand.NewPCG(seed, seed*7+1))
		budget := MinBudget + rng.IntN(16<<10)
		m := &randomModel{t: t, rng: rng, budget: budget, turns: 10 + rng.IntN(25)}
		a := &Agent{Role: "prop", Model: m, System: "s", Task: "the task", Tools: tools, Budget: budget, MaxIters: 200}
		var out struct {
			Done bool `json:"done"`
		}
		if _, err := a.Run(context.Background(), &out); err != nil || !out.Done {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if m.cut < m.asked/2 {
			t.Fatalf("seed %d: the history was cut in %d of %d requests: the budget was not tested", seed, m.cut, m.asked)
		}
	}
}

// randomTool answers with a result of random size, or an error.
func randomTool(seed uint64) func(context.Context, json.RawMessage) (string, error) {
	return func(_ context.Context, args json.RawMessage) (string, error) {
		h := uint64(len(args))*31 + seed
		for _, b := range args {
			h = h*131 + uint64(b)
		}
		switch h % 7 {
		case 0:
			return "", errors.New(strings.Repeat("failed ", int(h%500)))
		case 1:
			return strings.Repeat("é", int(h%12000)), nil // multi-byte runes get cut too
		default:
			return strings.Repeat("line\n", int(h%1500)), nil
		}
	}
}

func TestFitKeepsAnExchangeWithinBudget(t *testing.T) {
	big, _ := json.Marshal(map[string]any{"path": "a.go", "content": strings.Repeat("y", 50000), "n": 3})
	e := fit(exchange{
		ask:   Message{Role: Assistant, Text: "writing", Calls: []ToolCall{{ID: "1", Name: "write_file", Args: big}, {ID: "2", Name: "read_file", Args: json.RawMessage(`{"path":"b.go"}`)}}},
		reply: Message{Role: User, Results: []ToolResult{{CallID: "1", Content: "ok"}, {CallID: "2", Content: strings.Repeat("z", 90000)}}},
	}, MinBudget)
	if e.size > MinBudget || e.size != exchangeSize(e) {
		t.Fatalf("size %d, budget %d", e.size, MinBudget)
	}
	var args map[string]any
	if err := json.Unmarshal(e.ask.Calls[0].Args, &args); err != nil || args["path"] != "a.go" || args["n"] != 3.0 {
		t.Errorf("shrunk arguments %s: %v", e.ask.Calls[0].Args, err)
	}
	if string(e.ask.Calls[1].Args) != `{"path":"b.go"}` || e.reply.Results[0].Content != "ok" || e.ask.Text != "writing" {
		t.Error("small parts were cut")
	}
	if r := e.reply.Results[1].Content; !strings.Contains(r, "[result cut to") || !strings.HasPrefix(r, "zzz") {
		t.Errorf("large result not cut with a notice: %.100s", r)
	}
}

func TestWaterLevel(t *testing.T) {
	for _, c := range []struct {
		sizes []int
		avail int
		want  int
	}{
		{[]int{10, 20}, 100, 100},
		{[]int{10, 100, 100}, 110, 50},
		{[]int{0, 0, 1000}, 10, 10},
		{[]int{5, 5}, 0, 0},
	} {
		if got := waterLevel(c.sizes, c.avail); got != c.want {
			t.Errorf("waterLevel(%v, %d) = %d, want %d", c.sizes, c.avail, got, c.want)
		}
	}
}

// longLoop runs an agent for n model calls against the fake, each reading
// a 3 KB file and taking a note, and returns the size of every request body.
func longLoop(tb testing.TB, format string, n, budget int) []int {
	fm := testkit.NewFakeModel(tb)
	w := wires[0]
	if format == "anthropic" {
		w = wires[1]
	}
	fm.Default(w.name, testkit.CallTools(call("read_file", `{"path":"big.go"}`), call("note", `{"text":"read big.go again, still looking"}`)))
	note := worknote.New(worknote.WIP{}, 0)
	a := &Agent{
		Role: "pr-fix", Model: newModel(tb, fm, w, fast),
		System: "You fix code.", Task: "Fix the findings.",
		Tools:    []Tool{files(map[string]string{"big.go": strings.Repeat("func f() {}\n", 256)}), NoteTool(note)},
		Note:     note,
		MaxIters: n,
		Budget:   budget,
	}
	if _, err := a.Run(context.Background(), nil); !errors.Is(err, ErrIterationCap) {
		tb.Fatalf("run: %v", err)
	}
	reqs := fm.Requests(w.name)
	if len(reqs) != n {
		tb.Fatalf("%d requests, want %d", len(reqs), n)
	}
	sizes := make([]int, n)
	for i, r := range reqs {
		sizes[i] = len(r.Body)
	}
	return sizes
}

func TestRequestSizeStaysFlat(t *testing.T) {
	for _, format := range []string{"openai", "anthropic"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			s := longLoop(t, format, 200, MinBudget)
			peak := 0
			for _, v := range s {
				peak = max(peak, v)
			}
			// Unbounded, 200 turns of 3 KB results would be over 600 KB.
			limit := MinBudget + worknote.DefaultCap + 8<<10
			if peak > limit {
				t.Errorf("largest request %d bytes, limit %d", peak, limit)
			}
			if r := float64(s[199]) / float64(s[99]); r > 1.05 {
				t.Errorf("request 200 is %.2fx request 100 (%d vs %d bytes)", r, s[199], s[99])
			}
			t.Logf("request bytes: #5 %d, #50 %d, #100 %d, #200 %d (ratio 200/5 %.2f)", s[4], s[49], s[99], s[199], float64(s[199])/float64(s[4]))
		})
	}
}

// BenchmarkRequestBytes reports the wire size of the 5th and the 200th
// request of one long tool loop, and their ratio.
func BenchmarkRequestBytes(b *testing.B) {
	for _, format := range []string{"openai", "anthropic"} {
		b.Run(format, func(b *testing.B) {
			var s []int
			for b.Loop() {
				s = longLoop(b, format, 200, DefaultBudget)
			}
			b.ReportMetric(float64(s[4]), "bytes@5")
			b.ReportMetric(float64(s[49]), "bytes@50")
			b.ReportMetric(float64(s[199]), "bytes@200")
			b.ReportMetric(float64(s[199])/float64(s[4]), "ratio")
		})
	}
}
