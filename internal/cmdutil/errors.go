package cmdutil

import (
	"context"
	"errors"
)

// The error kinds below are what ExitCode turns into exit codes
// (docs/architecture.md, Packages). Any other error means exit 1.

// ErrCancelled: the user aborted (Ctrl-C, or "Abort" at a prompt). Exit 130.
var ErrCancelled = errors.New("cancelled")

// UsageError is a bad invocation: unknown flag, missing or malformed argument.
// It is raised before any network request, git command or state write. Exit 2.
type UsageError struct {
	Msg   string // what is wrong
	Usage string // the verb's usage text, printed after the message
	Err   error  // the kind, when there is one: ErrNoTerminal
}

func (e *UsageError) Unwrap() error { return e.Err }

// ErrNoTerminal: a verb would ask the person and stdin or stdout is not a
// terminal. Every verb says it the same way (FlagSet.NeedsTerminal): before it
// starts, as a usage error naming the flag that answers instead, as gh's
// "… required when not running interactively" is a flag error. Exit 2.
var ErrNoTerminal = errors.New("not a terminal")

func (e *UsageError) Error() string {
	if e.Usage == "" {
		return e.Msg
	}
	return e.Msg + "\n\n" + e.Usage
}

// ErrShown: the command failed (exit 1) and its output already says how,
// line by line, as gh auth status does; nothing more is said.
var ErrShown = errors.New("failed, as shown above")

// IncompleteError means the command finished without reaching its goal
// (loop not converged, stuck findings, review-only PR, verification failed).
// Exit 3.
type IncompleteError struct {
	Reason string
	Shown  bool // the verb already said it on stderr ("run ended, blocked — …")
}

func (e *IncompleteError) Error() string { return e.Reason }

// ShownError is a failure the verb's result on the terminal already says
// (a summary's outcome): exit 1, without an "error:" line saying it again.
type ShownError struct{ Err error }

func (e ShownError) Error() string { return e.Err.Error() }
func (e ShownError) Unwrap() error { return e.Err }

// ExitCode is the one place where a verb's error becomes the process's exit
// code. A cancelled ctx (SIGINT, SIGTERM) is 130 whatever the error.
func ExitCode(ctx context.Context, err error) int {
	var usage *UsageError
	var incomplete *IncompleteError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, ErrCancelled), ctx.Err() != nil:
		return 130
	case errors.As(err, &usage):
		return 2
	case errors.As(err, &incomplete):
		return 3
	default:
		return 1
	}
}

// EndMessage is the one line stderr gets about how a command ended; "" when
// there is nothing more to say. Only a failure is an "error:": a cancelled
// command says so once (one line, not each role's "context canceled"); a
// verb that resumes says so in its error (ErrCancelled wrapped), and an
// incomplete one gives its outcome once.
func EndMessage(code int, err error) string {
	var incomplete *IncompleteError
	var shown ShownError
	switch {
	case err == nil, errors.As(err, &shown):
		return ""
	case errors.Is(err, ErrShown):
		return ""
	case code == 130:
		if errors.Is(err, ErrCancelled) && err.Error() != ErrCancelled.Error() {
			return err.Error() // what was cancelled, and what became of it
		}
		return "cancelled"
	case errors.As(err, &incomplete):
		if incomplete.Shown {
			return ""
		}
		return incomplete.Reason
	}
	return "error: " + err.Error()
}
