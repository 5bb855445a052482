// Package progress is the live display of the model calls under way, on
// stderr: a spinner with a line per call on a terminal, a line per retry
// and a "still waiting" line at intervals without one.
package progress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/briandowns/spinner"
	"github.com/charmbracelet/log"

	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/llm"
)

// waitingEvery is how often, without a terminal, a model call still under
// way is reported, so that a log never goes silent for minutes.
const waitingEvery = 30 * time.Second

// Display is the live display of the model calls under way, on stderr. On
// a terminal a spinner shows a line per running call (role, model, elapsed
// time, call count, tokens so far); every line written to stderr meanwhile
// goes above it. Without a terminal it writes a line per retry and a "still
// waiting" line every waitingEvery.
type Display struct {
	out   io.Writer // stderr; text from outside made inert
	width int       // of the terminal; 0 when stderr is not one
	file  *os.File  // the terminal the spinner draws on, when width > 0
	every time.Duration

	draw sync.Mutex // held while the spinner is stopped, started or written around
	spin *spinner.Spinner

	mu      sync.Mutex // the calls below; never held while calling the spinner
	running []*runningCall
	said    map[string]time.Time // a retry's reason, when a line last said it
}

type runningCall struct {
	p           *Display
	role, model string
	call        int64
	start       time.Time
	before      int64        // the role's tokens before this call
	tokens      atomic.Int64 // this call's so far
	stop        chan struct{}
	// retry is the spinner's note of the retry under way ("connection
	// failed, try 2 of 4"), guarded by p.mu.
	retry string
}

// New is the display on out, a terminal width columns wide (file, its
// file, draws the spinner), or not a terminal (width 0).
func New(out io.Writer, width int, file *os.File) *Display {
	return &Display{out: out, width: width, file: file, every: waitingEvery}
}

// Spins reports whether the display draws a spinner (it is on a terminal).
func (p *Display) Spins() bool { return p.width > 0 }

// Writer puts what is written to w above the spinner, which starts again
// below.
func (p *Display) Writer(w io.Writer) io.Writer { return &aboveSpinner{p: p, w: w} }

type aboveSpinner struct {
	p *Display
	w io.Writer
}

func (a *aboveSpinner) Write(b []byte) (int, error) {
	p := a.p
	p.draw.Lock()
	defer p.draw.Unlock()
	if p.spin == nil {
		return a.w.Write(b)
	}
	p.spin.Stop()
	n, err := a.w.Write(b)
	p.startSpinner()
	return n, err
}

// println writes one line of our own above the spinner.
func (p *Display) println(line string) {
	fmt.Fprintln(p.Writer(p.out), p.cut(line))
}

// cut keeps a line within the terminal's width.
func (p *Display) cut(line string) string {
	w := p.width
	if w == 0 {
		w = 160
	}
	if r := []rune(line); len(r) > w-1 {
		return string(r[:w-2]) + "…"
	}
	return line
}

// start reports a model call of role beginning; before is the tokens the
// role has used so far.
func (p *Display) start(role, model string, call, before int64) *runningCall {
	c := &runningCall{p: p, role: role, model: model, call: call, start: time.Now(), before: before, stop: make(chan struct{})}
	p.mu.Lock()
	p.running = append(p.running, c)
	p.mu.Unlock()
	if p.width > 0 {
		p.draw.Lock()
		if p.spin == nil {
			p.startSpinner()
		}
		p.draw.Unlock()
		return c
	}
	go func() {
		t := time.NewTicker(p.every)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-t.C:
				p.println(fmt.Sprintf("still waiting for %s (%s)", role, time.Since(c.start).Round(time.Second)))
			}
		}
	}()
	return c
}

// startSpinner draws the spinner anew (a stopped briandowns spinner cannot
// be started again); p.draw is held.
func (p *Display) startSpinner() {
	p.mu.Lock()
	n := len(p.running)
	p.mu.Unlock()
	if n == 0 {
		p.spin = nil
		return
	}
	s := spinner.New(spinner.CharSets[11], 120*time.Millisecond, spinner.WithWriterFile(p.file))
	s.PreUpdate = func(s *spinner.Spinner) { s.Suffix = p.status() }
	s.Suffix = p.status()
	p.spin = s
	s.Start()
}

// status is the spinner's text: a line per running call.
func (p *Display) status() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	lines := make([]string, len(p.running))
	for i, c := range p.running {
		line := fmt.Sprintf("%s %s · %s · call %d · %s tokens", c.role, c.model,
			time.Since(c.start).Round(time.Second), c.call, count(c.before+c.tokens.Load()))
		if c.retry != "" {
			line += " · " + c.retry
		}
		if i > 0 {
			line = "  " + line
		}
		lines[i] = p.cut(" " + line)
	}
	return strings.Join(lines, "\n")
}

func count(n int64) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%.1fk", float64(n)/1000)
}

// retried writes "! openai/gpt-4.1: 429, retrying in 3s (2 of 4)" once per
// reason: not again while a line said it less than p.every ago, for this
// call's next try or another call's (three reviewers behind one unreachable
// server make one line, not nine). The spinner shows every try.
func (c *runningCall) retried(r llm.Retry, warn func(format string, a ...any)) {
	why := "no answer in time"
	switch {
	case r.Status != 0:
		why = fmt.Sprint(r.Status)
	case r.Err != nil && !errors.Is(r.Err, context.DeadlineExceeded):
		why = "connection failed"
	}
	p := c.p
	p.mu.Lock()
	c.retry = fmt.Sprintf("%s, try %d of %d", why, r.Attempt, r.Of)
	last, said := p.said[why]
	said = said && time.Since(last) < p.every
	if !said {
		if p.said == nil {
			p.said = map[string]time.Time{}
		}
		p.said[why] = time.Now()
	}
	p.mu.Unlock()
	if !said {
		warn("%s", p.cut(fmt.Sprintf("%s %s: %s, retrying in %s (%d of %d)", c.role, c.model, why, r.Wait.Round(100*time.Millisecond), r.Attempt, r.Of)))
	}
}

func (c *runningCall) Done(tokens.Usage, error) {
	close(c.stop)
	p := c.p
	p.mu.Lock()
	for i, r := range p.running {
		if r == c {
			p.running = append(p.running[:i], p.running[i+1:]...)
			break
		}
	}
	empty := len(p.running) == 0
	p.mu.Unlock()
	if empty && p.width > 0 {
		p.draw.Lock()
		if p.spin != nil {
			p.spin.Stop()
			p.spin = nil
		}
		p.draw.Unlock()
	}
}

// Model reports each model call of a role to the display, and, with
// Tools, the tools the model asked for, one per line.
type Model struct {
	llm.Model
	role, name string
	prog       *Display
	log        *log.Logger
	warn       func(format string, a ...any) // a retry's line
	Tools      bool
	// Unlisted are the tools whose calls the verb shows itself (review-pr's
	// Orient and Decide): not listed again as "tool …" lines.
	Unlisted map[string]bool

	calls   atomic.Int64
	tokens  atomic.Int64
	current atomic.Pointer[runningCall] // for the retry observer
	// asked are the tool calls of the last answer, to say which of them
	// did not run once the next request carries their results: a call the
	// tool refused (a fetch the person did not allow) is not left looking
	// as if it ran.
	asked atomic.Pointer[[]llm.ToolCall]
}

// NewModel reports role's calls of model name on p; its llm.Model is set
// once built (with Retried and Streamed as the client's observers).
func NewModel(p *Display, role, name string, log *log.Logger, warn func(format string, a ...any)) *Model {
	return &Model{role: role, name: name, prog: p, log: log, warn: warn}
}

func (m *Model) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	m.listRefused(req)
	n := m.calls.Add(1)
	c := m.prog.start(m.role, m.name, n, m.tokens.Load())
	m.current.Store(c)
	resp, err := m.Model.Chat(ctx, req)
	m.current.Store(nil)
	c.Done(resp.Usage, err)
	elapsed := time.Since(c.start).Round(10 * time.Millisecond)
	if err != nil {
		if ctx.Err() == nil {
			// The log writes to the terminal itself (for its colours): text
			// from outside is made inert here. The person reads the failure
			// once, from the verb that made the call.
			m.log.Debug("model call failed", "model", m.name, "call", n, "elapsed", elapsed, "err", text.Inert(err.Error()))
		}
		return resp, err
	}
	m.tokens.Add(resp.Usage.Input + resp.Usage.Output)
	m.log.Debug("model", "model", m.name, "call", n, "elapsed", elapsed, "tokens", resp.Usage.String())
	if m.Tools {
		for _, tc := range resp.Calls {
			if m.Unlisted[tc.Name] {
				continue
			}
			m.prog.println("  tool " + text.Inert(tc.Name+" "+text.OneLine(string(tc.Args))))
		}
		calls := slices.Clone(resp.Calls)
		m.asked.Store(&calls)
	}
	return resp, nil
}

// listRefused says, one per line, which tool calls of the last answer
// did not run, and why (the first line of what the model was told), as
// req's results show: a role's calls and its next request come one after
// the other.
func (m *Model) listRefused(req llm.Request) {
	asked := m.asked.Swap(nil)
	if asked == nil || len(req.Messages) == 0 {
		return
	}
	results := req.Messages[len(req.Messages)-1].Results
	for _, tc := range *asked {
		if m.Unlisted[tc.Name] {
			continue
		}
		for _, r := range results {
			if r.CallID == tc.ID && r.IsError {
				m.prog.println(text.Inert("  tool " + tc.Name + " not run: " + text.Clip(text.OneLine(r.Content), 160)))
			}
		}
	}
}

// Retried is the llm client's retry observer.
func (m *Model) Retried(r llm.Retry) {
	if c := m.current.Load(); c != nil {
		c.retried(r, m.warn)
	}
}

// Streamed is the llm client's observer of a call's output as it streams.
func (m *Model) Streamed(p llm.Progress) {
	if c := m.current.Load(); c != nil {
		c.tokens.Store(p.Output)
	}
}
