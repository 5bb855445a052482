package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// TestLive is the smoke test of script/smoke: one reviewer call (an
// envelope) and one tool call per provider, against the real APIs. It runs
// only with OCDX_LIVE=1, and skips a provider whose key is not set.
func TestLive(t *testing.T) {
	if os.Getenv("OCDX_LIVE") != "1" {
		t.Skip("calls the real APIs: run script/smoke, or set OCDX_LIVE=1 with OPENAI_API_KEY and ANTHROPIC_API_KEY")
	}
	for _, spec := range []string{
		cmp.Or(os.Getenv("OCDX_LIVE_OPENAI"), "openai/gpt-4.1-mini"),
		cmp.Or(os.Getenv("OCDX_LIVE_ANTHROPIC"), "anthropic/claude-haiku-4-5"),
	} {
		t.Run(spec, func(t *testing.T) {
			var streamed int64
			m, err := New(spec, os.Getenv, Options{MaxTokens: 1024, Progress: func(p Progress) { streamed = max(streamed, p.Output) }})
			if err != nil {
				t.Skip(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()

			var verdict struct {
				Conclusion string `json:"conclusion"`
			}
			rev := &Agent{Role: "reviewer-1", Model: m, System: "You review pull requests.",
				Task: "The PR adds a README typo fix. Answer with exactly this envelope and nothing else:\nBEGIN_JSON\n{\"conclusion\": \"approve\"}\nEND_JSON"}
			res, err := rev.Run(ctx, &verdict)
			if err != nil || verdict.Conclusion != "approve" {
				t.Fatalf("reviewer call: %v, %+v", err, verdict)
			}
			if res.Usage.Input == 0 || res.Usage.Output == 0 || streamed == 0 {
				t.Errorf("usage %+v, progress saw %d tokens", res.Usage, streamed)
			}
			t.Logf("reviewer call: %s", res.Usage)

			var asked []string
			read := Tool{Name: "read_file", Description: "Read a file of the repository.",
				Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
				Run: func(_ context.Context, args json.RawMessage) (string, error) {
					var a struct{ Path string }
					json.Unmarshal(args, &a)
					asked = append(asked, a.Path)
					return "package main\n\nconst answer = 42\n", nil
				}}
			tool := &Agent{Role: "reviewer-2", Model: m, System: "You answer questions about code with your tools.",
				Task: "Call read_file on main.go, then reply with the value of the constant answer and nothing else.", Tools: []Tool{read}}
			res, err = tool.Run(ctx, nil)
			if err != nil || len(asked) == 0 || asked[0] != "main.go" || !strings.Contains(res.Text, "42") {
				t.Fatalf("tool call: %v; read %q; answered %q", err, asked, res.Text)
			}
			t.Logf("tool call: %d model calls, %s", len(res.PerCall), res.Usage)
		})
	}
}
