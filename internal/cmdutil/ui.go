package cmdutil

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/charmbracelet/log"

	"github.com/ocdx/gh-ocdx/internal/text"
)

// The lines gh-ocdx writes on stderr for the person, in gh's style: one line
// per fact, "✓" before what went well, "X" before what failed, "!" before
// what needs attention, the marks coloured only on a terminal with colour
// on (NO_COLOR, CLICOLOR=0 turn it off, as in gh). charmbracelet/log's
// leveled key=value lines are for --debug and GH_DEBUG only
// (docs/architecture.md, Output).

const (
	markSuccess = "✓"
	markFailure = "X"
	markWarning = "!"
)

// markFailed is the failure mark of package fix's verification lines,
// coloured as markFailure.
const markFailed = "✗"

// The marks' colours, as gh's ColorScheme: green, red, yellow.
var markColor = map[string]string{markSuccess: "\x1b[32m", markFailure: "\x1b[31m", markFailed: "\x1b[31m", markWarning: "\x1b[33m"}

// Success and Warn write one line with its mark; Info writes one
// line without. Text from outside in a is made inert.
func (d *Deps) Success(format string, a ...any) { d.say(markSuccess, format, a...) }
func (d *Deps) Warn(format string, a ...any)    { d.say(markWarning, format, a...) }
func (d *Deps) Info(format string, a ...any)    { d.say("", format, a...) }

func (d *Deps) say(mark, format string, a ...any) {
	line := fmt.Sprintf(format, a...)
	if mark != "" {
		line = mark + " " + line
	}
	fmt.Fprintln(d.ProgressOut(), line)
}

// colorErr reports whether stderr takes colour: a terminal, with colour not
// turned off.
func (d *Deps) colorErr() bool {
	if !d.IO.StderrTTY || d.IO.RawErr == nil {
		return false
	}
	getenv := d.Getenv
	if getenv == nil {
		return true
	}
	return colourOn(getenv)
}

// colourOn is false when the environment turns colour off, as gh reads it.
func colourOn(getenv func(string) string) bool {
	return getenv("NO_COLOR") == "" && getenv("CLICOLOR") != "0"
}

// ProgressOut is stderr for the lines of the person's run, gh-ocdx's own
// and those the domain packages write (their Progress writer): a line that
// starts with a mark gets it coloured when stderr takes colour; the rest is
// made inert as on ErrOut.
func (d *Deps) ProgressOut() io.Writer { return &markWriter{d: d, start: true} }

type markWriter struct {
	d     *Deps
	mu    sync.Mutex
	start bool // the next write begins a line
}

func (w *markWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	atStart := w.start
	w.start = len(p) > 0 && p[len(p)-1] == '\n'
	if atStart && w.d.colorErr() {
		s := string(p)
		for _, m := range []string{markSuccess, markFailure, markFailed, markWarning} {
			if rest, ok := strings.CutPrefix(s, m+" "); ok {
				// One write, so that the spinner redraws below the whole line.
				if _, err := io.WriteString(w.d.IO.TerminalErr(), markColor[m]+m+"\x1b[0m "+text.Inert(rest)); err != nil {
					return 0, err
				}
				return len(p), nil
			}
		}
	}
	return w.d.IO.ErrOut.Write(p)
}

// debugEnabled is gh's reading of GH_DEBUG: set to anything but "", "0",
// "false" or "no" turns debug output on.
func debugEnabled(getenv func(string) string) bool {
	if getenv == nil {
		return false
	}
	switch strings.ToLower(getenv("GH_DEBUG")) {
	case "", "0", "false", "no":
		return false
	}
	return true
}

// setDebug turns charmbracelet/log's debug lines on (--debug, GH_DEBUG).
func (d *Deps) setDebug() {
	if d.Log != nil {
		d.Log.SetLevel(log.DebugLevel)
	}
}

// Indent indents each line of s by two spaces, as a quote under a
// heading.
func Indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ")
}
