package cmd

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// IOStreams is the one value that knows where input and output go and whether
// they are terminals. Only cmd writes to Out or prompts on In.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer // results: Markdown or JSON
	ErrOut io.Writer // progress, logs and errors

	stdinTTY  bool
	stdoutTTY bool
}

// System returns the process's standard streams.
func System() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		stdinTTY:  isTerminal(os.Stdin),
		stdoutTTY: isTerminal(os.Stdout),
	}
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// CanPrompt reports whether the user can answer a confirmation: both stdin and
// stdout must be terminals.
func (s *IOStreams) CanPrompt() bool { return s.stdinTTY && s.stdoutTTY }
