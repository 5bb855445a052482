package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/AlecAivazis/survey/v2"
	"github.com/AlecAivazis/survey/v2/terminal"
	"github.com/kballard/go-shellquote"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/internal/text"
	"golang.org/x/term"
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
// IOStreams.CanPrompt first: without a terminal every question fails. A
// question still open when ctx ends (SIGINT or SIGTERM from outside the
// terminal) is abandoned as a Ctrl-C would be.
func newPrompter(ctx context.Context, ios *IOStreams) Prompter {
	return &surveyPrompter{ctx: ctx, ios: ios}
}

type surveyPrompter struct {
	ctx context.Context
	ios *IOStreams
}

func (p *surveyPrompter) Confirm(msg string, def bool) (bool, error) {
	var ok bool
	err := p.ask(&survey.Confirm{Message: p.fit(msg), Default: def}, &ok)
	return ok, err
}

func (p *surveyPrompter) Select(msg string, options []string) (int, error) {
	var i int
	err := p.ask(&survey.Select{Message: p.fit(msg), Options: options}, &i)
	return i, err
}

func (p *surveyPrompter) Input(msg string) (string, error) {
	var s string
	err := p.ask(&survey.Input{Message: p.fit(msg)}, &s)
	return s, err
}

// Edit asks first, as gh does, so the editor does not take the screen by
// surprise, then runs it on a file of its own holding text as it is (no
// byte-order mark, which survey's editor prompt writes). An editor that
// cannot start or exits non-zero is an *EditorError: the caller keeps the
// text.
func (p *surveyPrompter) Edit(msg, editor, text string) (string, error) {
	argv, err := shellquote.Split(editor)
	if err != nil || len(argv) == 0 {
		return "", &EditorError{Editor: editor, Err: fmt.Errorf("cannot read it as a command line: %v", err)}
	}
	open := true
	if err := p.ask(&survey.Confirm{Message: p.fit(fmt.Sprintf("%s: open it in %s?", msg, argv[0])), Default: true}, &open); err != nil || !open {
		return text, err
	}
	f, err := os.CreateTemp("", "gh-ocdx-edit-*.md")
	if err != nil {
		return "", &EditorError{Editor: editor, Err: err}
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", &EditorError{Editor: editor, Err: err}
	}
	c := exec.CommandContext(p.ctx, argv[0], append(argv[1:], f.Name())...)
	c.Stdin, c.Stdout, c.Stderr = p.ios.In, p.ios.TerminalOut(), p.ios.TerminalErr()
	if err := c.Run(); err != nil {
		if p.ctx.Err() != nil {
			return "", ErrCancelled
		}
		return "", &EditorError{Editor: editor, Err: err}
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		return "", &EditorError{Editor: editor, Err: err}
	}
	return string(b), nil
}

// EditorError is an editor that could not start, or failed: what was
// being edited is kept (keepDraft), never lost with it.
type EditorError struct {
	Editor string
	Err    error
}

func (e *EditorError) Error() string {
	return fmt.Sprintf("the editor %q failed: %v; set GH_EDITOR (or EDITOR) to an editor this machine has", e.Editor, e.Err)
}

func (e *EditorError) Unwrap() error { return e.Err }

// keepDraft saves text that a failed prompt would otherwise lose (a
// review or an answer the models were paid for) in a file of its own,
// readable only by the user, and returns its path ("" when even that
// failed).
func keepDraft(what, text string) string {
	f, err := os.CreateTemp("", "gh-ocdx-"+what+"-*.md")
	if err != nil {
		return ""
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err != nil || cerr != nil {
		os.Remove(f.Name())
		return ""
	}
	return f.Name()
}

// fit keeps a question within the terminal's width: survey draws its
// message as one line and redraws by counting lines, so a wider one
// garbles the screen. The message is wrapped, every line but its last
// printed first, and the last is the question survey draws.
func (p *surveyPrompter) fit(msg string) string {
	width := p.ios.TerminalWidth() - 4 // survey's "? " before, room for the answer after
	if width < 20 || len([]rune(msg)) <= width {
		return msg
	}
	lines := strings.Split(text.Wrap(msg, width, "", ""), "\n")
	if len(lines) > 1 {
		// Out, not the terminal itself: a question may quote PR text.
		fmt.Fprintln(p.ios.Out, strings.Join(lines[:len(lines)-1], "\n"))
	}
	return lines[len(lines)-1]
}

// editorCommand is the editor gh would open: GH_EDITOR, else git's
// core.editor, else VISUAL, else EDITOR, else nano.
func editorCommand(ctx context.Context, d *Deps) string {
	if e := d.Getenv("GH_EDITOR"); e != "" {
		return e
	}
	if wd, err := d.workDir(); err == nil {
		if e, err := (&git.Repo{Dir: wd}).Run(ctx, "config", "--get", "core.editor"); err == nil && e != "" {
			return e
		}
	}
	return cmp.Or(d.Getenv("VISUAL"), d.Getenv("EDITOR"), "nano")
}

// ask runs one survey question; Ctrl-C becomes ErrCancelled (exit 130).
func (p *surveyPrompter) ask(q survey.Prompt, resp any) error {
	in, inOK := p.ios.In.(terminal.FileReader)
	out, outOK := p.ios.TerminalOut().(terminal.FileWriter)
	if !inOK || !outOK || !p.ios.CanPrompt() {
		return noTerminal("gh-ocdx needs to ask you", "run it in a terminal, or pass --yes where the command offers it", "")
	}
	// survey blocks on the terminal and knows nothing of ctx: it asks in a
	// goroutine, and on cancellation the terminal's mode is put back from
	// here (survey left it raw) while that goroutine is abandoned.
	saved, _ := term.GetState(int(in.Fd()))
	done := make(chan error, 1)
	go func() { done <- survey.AskOne(q, resp, survey.WithStdio(in, out, p.ios.TerminalErr())) }()
	var err error
	select {
	case err = <-done:
	case <-p.ctx.Done():
		if saved != nil {
			_ = term.Restore(int(in.Fd()), saved)
		}
		fmt.Fprintln(p.ios.ErrOut)
		return ErrCancelled
	}
	if errors.Is(err, terminal.InterruptErr) {
		return ErrCancelled
	}
	if err != nil {
		return fmt.Errorf("prompt: %w", err)
	}
	return nil
}
