// Package analyzer runs a repository's configured analyzers
// (docs/architecture.md, Evidence): each command confined as a verify
// command is (package verify: no shell, no credentials, its process group
// stopped with it), within its time limit, its standard output read as
// tool results by package evidence, as untrusted as any.
package analyzer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/evidence"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/verify"
)

// Runner runs the analyzers in one checkout and keeps what they found on
// each tree, so that the results a fix's verification read are the next
// round's evidence without a second run.
type Runner struct {
	Dir       string // the checkout's root: where they run, and what their paths are relative to
	Analyzers []config.Analyzer
	Progress  io.Writer

	mu    sync.Mutex
	cache map[string]Report
}

// Report is what one run of the analyzers gave.
type Report struct {
	Sets []evidence.Set
	// Problems say, one line each, why an analyzer's results are not used
	// (it could not start, it ran past its time limit, its output is not
	// in its format).
	Problems []string
}

// Cached is the report of an earlier Run on tree, if there is one.
func (r *Runner) Cached(tree string) (Report, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rep, ok := r.cache[tree]
	return rep, ok && tree != ""
}

// Run runs each analyzer in Dir, one after the other, and reads their
// output. tree, when not "", names the tree the checkout holds (clean, at a
// commit): the report is kept for it.
func (r *Runner) Run(ctx context.Context, tree string) Report {
	if rep, ok := r.Cached(tree); ok {
		return rep
	}
	var rep Report
	for _, a := range r.Analyzers {
		s, problem := r.one(ctx, a)
		if ctx.Err() != nil {
			return Report{}
		}
		if problem != "" {
			rep.Problems = append(rep.Problems, problem)
			continue
		}
		rep.Sets = append(rep.Sets, s)
	}
	if tree != "" {
		r.mu.Lock()
		if r.cache == nil {
			r.cache = map[string]Report{}
		}
		r.cache[tree] = rep
		r.mu.Unlock()
	}
	return rep
}

// one runs analyzer a: its results, or why there are none to use. Its
// exit status is not a failure: a linter exits 1 when it found something.
func (r *Runner) one(ctx context.Context, a config.Analyzer) (evidence.Set, string) {
	limit := a.Timeout
	if limit <= 0 {
		limit = config.DefaultAnalyzerTimeout
	}
	actx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	progress := r.Progress
	if progress == nil {
		progress = io.Discard
	}
	out := &capped{max: evidence.MaxFileBytes + 1}
	v := verify.Capture(actx, r.Dir, a.Command(), a.Argv, out, progress)
	last := text.Clip(lastLine(v.Tail), 200)
	switch {
	case ctx.Err() != nil:
		return evidence.Set{}, ""
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		return evidence.Set{}, fmt.Sprintf("analyzer %s was stopped after %s, its time limit: its results are not used (raise its \"timeout\", in seconds)", a.Name, limit)
	case v.ExitCode == -1:
		return evidence.Set{}, fmt.Sprintf("analyzer %s could not run: %s", a.Name, last)
	}
	s, err := evidence.Read(bytes.NewReader(out.b), a.Format, a.Name, r.Dir)
	if err != nil {
		return evidence.Set{}, fmt.Sprintf("analyzer %s's output was not read (%v): its results are not used", a.Name, err)
	}
	s.Source = "analyzer " + a.Name
	cut := ""
	if s.Cut {
		cut = fmt.Sprintf(", its output read up to %d MiB", evidence.MaxFileBytes>>20)
	}
	fmt.Fprintf(progress, "analyzer %s: %s (exit %d, %s%s)\n", a.Name, text.Plural(len(s.Results), "result"), v.ExitCode, v.Duration.Round(time.Millisecond), cut)
	if len(s.Results) == 0 && v.ExitCode != 0 && len(bytes.TrimSpace(out.b)) == 0 {
		return s, fmt.Sprintf("analyzer %s exited %d and reported nothing: %s", a.Name, v.ExitCode, last)
	}
	return s, ""
}

// lastLine is the last line of a command's output tail that says something.
func lastLine(tail string) string {
	lines := strings.Split(strings.TrimSpace(tail), "\n")
	return text.OneLine(lines[len(lines)-1])
}

// capped keeps the first max bytes written to it and drops the rest, so
// that an analyzer's output is bounded as a result file is.
type capped struct {
	max int
	b   []byte
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
