// Package prompter asks the person questions on the terminal (survey), and
// opens their editor on a text.
package prompter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/AlecAivazis/survey/v2"
	"github.com/AlecAivazis/survey/v2/terminal"
	"github.com/kballard/go-shellquote"
	"github.com/ocdx/gh-ocdx/internal/text"
	"golang.org/x/term"
)

// Streams are the terminal a Survey asks on.
type Streams struct {
	In     io.Reader
	Out    io.Writer // a long question's first lines (it may quote PR text: made inert)
	ErrOut io.Writer // the line after a question ctx abandoned
	// TermOut and TermErr are the terminal itself, for survey's own
	// escape sequences and the editor.
	TermOut, TermErr io.Writer
	CanPrompt        func() bool // stdin and stdout are a terminal
	Width            func() int  // the terminal's columns
}

// Survey asks questions with survey (unmaintained upstream, kept behind
// the caller's interface).
type Survey struct {
	ctx context.Context
	io  Streams
	// cancelled is returned on Ctrl-C, and when ctx ends while a question
	// or the editor is open; noTerminal when there is no terminal to ask on.
	cancelled, noTerminal error
}

// New returns the survey prompter on s. A question still open when ctx
// ends is abandoned as a Ctrl-C would be (cancelled); without a terminal
// every question fails (noTerminal).
func New(ctx context.Context, s Streams, cancelled, noTerminal error) *Survey {
	return &Survey{ctx: ctx, io: s, cancelled: cancelled, noTerminal: noTerminal}
}

func (p *Survey) Confirm(msg string, def bool) (bool, error) {
	var ok bool
	err := p.ask(&survey.Confirm{Message: p.fit(msg), Default: def}, &ok)
	return ok, err
}

func (p *Survey) Select(msg string, options []string) (int, error) {
	var i int
	err := p.ask(&survey.Select{Message: p.fit(msg), Options: options}, &i)
	return i, err
}

func (p *Survey) Input(msg string) (string, error) {
	var s string
	err := p.ask(&survey.Input{Message: p.fit(msg)}, &s)
	return s, err
}

// Edit asks first, as gh does, so the editor does not take the screen by
// surprise, then runs it on a file of its own holding text as it is (no
// byte-order mark, which survey's editor prompt writes). An editor that
// cannot start or exits non-zero is an *EditorError: the caller keeps the
// text.
func (p *Survey) Edit(msg, editor, text string) (string, error) {
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
	c.Stdin, c.Stdout, c.Stderr = p.io.In, p.io.TermOut, p.io.TermErr
	if err := c.Run(); err != nil {
		if p.ctx.Err() != nil {
			return "", p.cancelled
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
// being edited is kept (KeepDraft), never lost with it.
type EditorError struct {
	Editor string
	Err    error
}

func (e *EditorError) Error() string {
	return fmt.Sprintf("the editor %q failed: %v; set GH_EDITOR (or EDITOR) to an editor this machine has", e.Editor, e.Err)
}

func (e *EditorError) Unwrap() error { return e.Err }

// KeepDraft saves text that a failed prompt would otherwise lose (a
// review or an answer the models were paid for) in a file of its own,
// readable only by the user, and returns its path ("" when even that
// failed).
func KeepDraft(what, text string) string {
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
func (p *Survey) fit(msg string) string {
	width := p.io.Width() - 4 // survey's "? " before, room for the answer after
	if width < 20 || len([]rune(msg)) <= width {
		return msg
	}
	lines := strings.Split(text.Wrap(msg, width, "", ""), "\n")
	if len(lines) > 1 {
		// Out, not the terminal itself: a question may quote PR text.
		fmt.Fprintln(p.io.Out, strings.Join(lines[:len(lines)-1], "\n"))
	}
	return lines[len(lines)-1]
}

// ask runs one survey question; Ctrl-C is p.cancelled.
func (p *Survey) ask(q survey.Prompt, resp any) error {
	in, inOK := p.io.In.(terminal.FileReader)
	out, outOK := p.io.TermOut.(terminal.FileWriter)
	if !inOK || !outOK || !p.io.CanPrompt() {
		return p.noTerminal
	}
	// survey blocks on the terminal and knows nothing of ctx: it asks in a
	// goroutine, and on cancellation the terminal's mode is put back from
	// here (survey left it raw) while that goroutine is abandoned.
	saved, _ := term.GetState(int(in.Fd()))
	done := make(chan error, 1)
	go func() { done <- survey.AskOne(q, resp, survey.WithStdio(in, out, p.io.TermErr)) }()
	var err error
	select {
	case err = <-done:
	case <-p.ctx.Done():
		if saved != nil {
			_ = term.Restore(int(in.Fd()), saved)
		}
		fmt.Fprintln(p.io.ErrOut)
		return p.cancelled
	}
	if errors.Is(err, terminal.InterruptErr) {
		return p.cancelled
	}
	if err != nil {
		return fmt.Errorf("prompt: %w", err)
	}
	return nil
}
