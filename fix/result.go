package fix

import (
	"context"
	"errors"

	"github.com/ocdx/gh-ocdx/state"
)

// Recorded is the fix result recorded in round rd, if any, with the
// round's verification.
func Recorded(rd state.Round) (*state.FixResult, bool) {
	if rd.Fix == nil {
		return nil, false
	}
	r := *rd.Fix
	r.Verification = rd.Verification
	return &r, true
}

// statusOf is how a fix that returned err ended.
func statusOf(ctx context.Context, err error) state.FixStatus {
	var ve *VerifyError
	var re *ResultError
	switch {
	case errors.As(err, &ve):
		return state.FixVerifyFailed
	case errors.Is(err, ErrDeclined):
		return state.FixDeclined
	case errors.As(err, &re):
		return state.FixResultRejected
	case ctx.Err() != nil:
		return state.FixInterrupted
	}
	return state.FixFailed
}
