package loop

import "github.com/ocdx/gh-ocdx/state"

// Begins is the state file as a run begins on it; *state.Store is one.
type Begins interface {
	Begin(key state.Key, kind string) (*state.Active, error)
	BeginOn(key state.Key, kind, head string) (*state.Active, *state.Run, error)
}

// start is how a run of kind begins at head: every kind (review-loop at a
// PR's head, a fix, a local review) begins by start.begin, its rules set
// here (docs/architecture.md, A round of review-loop).
type start struct {
	kind, head string
	// onHead gives up an interrupted run whose head moved since
	// (state.Run.Describes) for a new one; else it goes on at any head.
	onHead bool
	// restart, when not "", is why an interrupted run is given up rather
	// than resumed (state.Active.Restart); wip: there is work in progress
	// to drop even when no run is resumed.
	restart string
	wip     bool
	// one: the run has one round, started here at head; else its rounds
	// start as the run goes on (review-loop).
	one bool
}

// begin claims key for a run as s says: the interrupted run resumed or
// given up, and the first round of a run of one started. gaveUp is the
// interrupted run whose head moved (onHead).
func (s start) begin(st Begins, key state.Key) (run *state.Active, gaveUp *state.Run, err error) {
	if s.onHead {
		run, gaveUp, err = st.BeginOn(key, s.kind, s.head)
	} else {
		run, err = st.Begin(key, s.kind)
	}
	if err != nil {
		return nil, nil, err
	}
	if s.restart != "" && (run.Resumed() || s.wip) {
		if run, err = run.Restart(s.restart); err != nil {
			return nil, nil, err
		}
	}
	if s.one {
		if _, err := run.StartRound(1, s.head); err != nil {
			return nil, nil, err
		}
	}
	return run, gaveUp, nil
}
