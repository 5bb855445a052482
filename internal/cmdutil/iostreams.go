package cmdutil

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
	"golang.org/x/term"

	"github.com/ocdx/gh-ocdx/internal/text"
)

// IOStreams is the one value that knows where input and output go and whether
// they are terminals. Only the verbs (cmd and the packages under it) write to
// Out or prompt on In.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer // results: Markdown or JSON
	ErrOut io.Writer // progress, logs and errors

	// The terminal itself, for survey's prompts and the logger's colours,
	// whose escape sequences are ours. Out and ErrOut carry text from
	// outside (PR text, model answers) and make its control characters
	// inert; nil in tests, where Out and ErrOut are used instead.
	RawOut, RawErr io.Writer
	errFile        *os.File // stderr's file, for its size and the spinner; nil in tests

	// Whether each stream is a terminal: Streams reads it from the files;
	// a test sets the ones it plays.
	StdinTTY  bool
	StdoutTTY bool
	StderrTTY bool
	width     int // stdout's terminal's, while a pager reads stdout (StartPager); 0: ask it
}

// System returns the process's standard streams.
func System() *IOStreams { return Streams(os.Stdin, os.Stdout, os.Stderr) }

// Streams returns the streams on these files, each a terminal or not as it
// is.
func Streams(in, out, errOut *os.File) *IOStreams {
	return &IOStreams{
		In: in, Out: text.Writer{W: out}, ErrOut: text.Writer{W: errOut},
		RawOut: out, RawErr: errOut, errFile: errOut,
		StdinTTY:  isTerminal(in),
		StdoutTTY: isTerminal(out),
		StderrTTY: isTerminal(errOut),
	}
}

// TerminalOut and TerminalErr are the streams for our own styled output:
// prompts and log lines. Text from outside goes to Out and ErrOut.
func (s *IOStreams) TerminalOut() io.Writer {
	if s.RawOut != nil {
		return s.RawOut
	}
	return s.Out
}

func (s *IOStreams) TerminalErr() io.Writer {
	if s.RawErr != nil {
		return s.RawErr
	}
	return s.ErrOut
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// CanPrompt reports whether the user can answer a confirmation: both stdin and
// stdout must be terminals.
func (s *IOStreams) CanPrompt() bool { return s.StdinTTY && s.StdoutTTY }

// ErrTerminalWidth is the width of the terminal on stderr, 0 when stderr is
// not one.
func (s *IOStreams) ErrTerminalWidth() int {
	if !s.StderrTTY || s.errFile == nil {
		return 0
	}
	w, _, err := term.GetSize(int(s.errFile.Fd()))
	if err != nil || w <= 0 {
		return 80
	}
	return w
}

// TerminalWidth is the width of the terminal on stdout, 80 when it cannot
// be read.
func (s *IOStreams) TerminalWidth() int {
	if s.width > 0 {
		return s.width
	}
	if f, ok := s.RawOut.(interface{ Fd() uintptr }); ok && s.StdoutTTY {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 80
}
