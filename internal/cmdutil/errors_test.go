package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// How a command ended is said in one line, and only a failure is an error.
func TestEndMessage(t *testing.T) {
	cancelled, stop := context.WithCancel(context.Background())
	stop()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want string
	}{
		{"success", context.Background(), nil, ""},
		{"signal", cancelled, fmt.Errorf("fix phase of round 1: pr-fix: %w", context.Canceled), "cancelled"},
		{"ctrl-c at a prompt", context.Background(), ErrCancelled, "cancelled"},
		{"a verb that resumes", cancelled, fmt.Errorf("%w; run the same command to resume", ErrCancelled), "cancelled; run the same command to resume"},
		{"abort", context.Background(), fmt.Errorf("%w: review aborted: nothing was posted", ErrCancelled), "cancelled: review aborted: nothing was posted"},
		{"incomplete", context.Background(), &IncompleteError{Reason: "verification failed"}, "verification failed"},
		{"incomplete, said", context.Background(), &IncompleteError{Reason: "blocked", Shown: true}, ""},
		{"usage", context.Background(), &UsageError{Msg: "unknown flag: --x", Usage: "Usage: gh ocdx fix\n"}, "error: unknown flag: --x\n\nUsage: gh ocdx fix\n"},
		{"failure", context.Background(), errors.New("GitHub said 500"), "error: GitHub said 500"},
	} {
		if got := EndMessage(ExitCode(tc.ctx, tc.err), tc.err); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
