package cmdutil

import (
	"cmp"
	"context"

	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/internal/prompter"
)

// Prompter asks the user questions in the terminal. Verbs take it through
// their Options so tests answer with a fake; survey (unmaintained upstream)
// stays behind this interface.
type Prompter interface {
	Confirm(msg string, def bool) (bool, error)
	Select(msg string, options []string) (int, error)
	Input(msg string) (string, error)
	// Edit opens text in editor (a command line; the file's name is
	// appended) and returns it as saved.
	Edit(msg, editor, text string) (string, error)
}

// newPrompter returns the survey prompter on the process's terminal. Check
// IOStreams.CanPrompt first: without a terminal every question fails
// (ErrNoTerminal). A question still open when ctx ends (SIGINT or SIGTERM
// from outside the terminal) is abandoned as a Ctrl-C would be
// (ErrCancelled).
func newPrompter(ctx context.Context, ios *IOStreams) Prompter {
	return prompter.New(ctx, prompter.Streams{In: ios.In, Out: ios.Out, ErrOut: ios.ErrOut, TermOut: ios.TerminalOut(), TermErr: ios.TerminalErr(),
		CanPrompt: ios.CanPrompt, Width: ios.TerminalWidth},
		ErrCancelled, noTerminal("gh-ocdx needs to ask you", "run it in a terminal, or pass --yes where the command offers it", ""))
}

// EditorCommand is the editor gh would open: GH_EDITOR, else git's
// core.editor, else VISUAL, else EDITOR, else nano.
func EditorCommand(ctx context.Context, d *Deps) string {
	if e := d.Getenv("GH_EDITOR"); e != "" {
		return e
	}
	if wd, err := d.Dir(); err == nil {
		if e, err := (&git.Repo{Dir: wd}).Run(ctx, "config", "--get", "core.editor"); err == nil && e != "" {
			return e
		}
	}
	return cmp.Or(d.Getenv("VISUAL"), d.Getenv("EDITOR"), "nano")
}
