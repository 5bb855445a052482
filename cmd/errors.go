package cmd

import "errors"

// The error kinds below are what main turns into exit codes
// (docs/architecture.md, Packages). Any other error means exit 1.

// ErrCancelled: the user aborted (Ctrl-C, or "Abort" at a prompt). Exit 130.
var ErrCancelled = errors.New("cancelled")

// UsageError is a bad invocation: unknown flag, missing or malformed argument.
// It is raised before any network request, git command or state write. Exit 2.
type UsageError struct {
	Msg   string // what is wrong
	Usage string // the verb's usage text, printed after the message
}

func (e *UsageError) Error() string {
	if e.Usage == "" {
		return e.Msg
	}
	return e.Msg + "\n\n" + e.Usage
}

// IncompleteError means the command finished without reaching its goal
// (loop not converged, stuck findings, review-only PR, verification failed).
// Exit 3.
type IncompleteError struct{ Reason string }

func (e *IncompleteError) Error() string { return e.Reason }
