package cmd

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/log"

	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/llm"
)

// progressModel reports each model call on stderr: elapsed time, tokens
// and the tools the model asked for.
type progressModel struct {
	llm.Model
	name  string
	log   *log.Logger
	calls atomic.Int64
}

func (m *progressModel) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	n := m.calls.Add(1)
	start := time.Now()
	resp, err := m.Model.Chat(ctx, req)
	elapsed := time.Since(start).Round(10 * time.Millisecond)
	if err != nil {
		// The log writes to the terminal itself (for its colours): text from
		// outside is made inert here.
		m.log.Warn("model call failed", "model", m.name, "call", n, "elapsed", elapsed, "err", text.Inert(err.Error()))
		return resp, err
	}
	m.log.Info("model", "model", m.name, "call", n, "elapsed", elapsed, "tokens", resp.Usage.String())
	for _, c := range resp.Calls {
		m.log.Info(text.Inert("tool "+c.Name), "args", text.Inert(oneLine(string(c.Args), 100)))
	}
	return resp, nil
}

func oneLine(s string, n int) string {
	s = text.OneLine(s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
