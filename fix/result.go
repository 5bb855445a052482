package fix

import (
	"context"
	"errors"

	"github.com/ocdx/gh-ocdx/state"
)

// Status is how a fix ended (state.FixStatus).
type Status = state.FixStatus

// How a fix ends.
const (
	StatusPushed         = state.FixPushed
	StatusVerified       = state.FixVerified
	StatusDeclined       = state.FixDeclined
	StatusVerifyFailed   = state.FixVerifyFailed
	StatusNoChange       = state.FixNoChange
	StatusNothingToFix   = state.FixNothingToFix
	StatusResultRejected = state.FixResultRejected
	StatusInterrupted    = state.FixInterrupted
	StatusFailed         = state.FixFailed
)

// Result is what a fix did: state.FixResult, the round's one record of it,
// written by fix alone.
type Result = state.FixResult

// Recorded is the fix result recorded in round rd, if any, with the
// round's verification.
func Recorded(rd state.Round) (*Result, bool) {
	if rd.Fix == nil {
		return nil, false
	}
	r := *rd.Fix
	r.Verification = rd.Verification
	return &r, true
}

// statusOf is how a fix that returned err ended.
func statusOf(ctx context.Context, err error) Status {
	var ve *VerifyError
	var re *ResultError
	switch {
	case errors.As(err, &ve):
		return StatusVerifyFailed
	case errors.Is(err, ErrDeclined):
		return StatusDeclined
	case errors.As(err, &re):
		return StatusResultRejected
	case ctx.Err() != nil:
		return StatusInterrupted
	}
	return StatusFailed
}
