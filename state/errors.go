package state

import "errors"

// Errors returned by the store. They come wrapped with the file's path or the
// PR's key; test them with errors.Is.
var (
	// errBusy: another process held the file lock for longer than
	// Options.Timeout. Nothing was read or written; try again.
	errBusy = errors.New("busy: another gh-ocdx process holds its lock")

	// errForeign: the file exists but is unreadable (not bbolt, bbolt
	// without our records, or corrupt) and could not be moved aside.
	// A file that can be moved aside is, and a fresh one is started.
	errForeign = errors.New("not a readable gh-ocdx state file")

	// errNewerVersion: the file was written by a newer gh-ocdx with a schema
	// this one does not know. It is left untouched.
	errNewerVersion = errors.New("written by a newer gh-ocdx; upgrade gh-ocdx to read it")

	// ErrLeaseHeld: another live run holds the PR. The error is a *leaseError
	// naming the holder.
	ErrLeaseHeld = errors.New("pull request is held by another run")

	// errLeaseLost: this run's lease was taken over (its heartbeat went stale)
	// or cleared; the run must stop writing.
	errLeaseLost = errors.New("lease lost: another run took over this pull request")

	// errRunEnded: the run was ended or released; it takes no more writes.
	errRunEnded = errors.New("run already ended or released")

	// errNoRound: the round was not started with StartRound.
	errNoRound = errors.New("no such round in this run")

	// ErrNotFound: nothing is recorded for the PR.
	ErrNotFound = errors.New("nothing recorded for this pull request")

	// errRecord: one record of the file cannot be decoded; the rest may be
	// fine.
	errRecord = errors.New("a damaged record")

	// errNoPath: no directory for the state file could be found in the
	// environment.
	errNoPath = errors.New("cannot locate the state file: set OCDX_STATE_DIR, XDG_STATE_HOME or HOME")
)
