package fix

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/state"
	"github.com/ocdx/gh-ocdx/verify"
)

// Status is how a fix ended.
type Status string

const (
	StatusPushed         Status = "pushed"              // verified, pushed, reported
	StatusVerified       Status = "verified"            // verified, not pushed (--dry-run)
	StatusDeclined       Status = "declined"            // the user said no to the push; the commits stay local
	StatusVerifyFailed   Status = "verification-failed" // still failing after MaxAttempts; nothing pushed
	StatusNoChange       Status = "no-change"           // the agent committed nothing: nothing to verify or push
	StatusNothingToFix   Status = "nothing-to-fix"      // the payload held no finding to fix
	StatusResultRejected Status = "result-rejected"     // the agent's envelope broke the contract; nothing pushed
	StatusInterrupted    Status = "interrupted"         // cancelled; --continue resumes
	StatusFailed         Status = "failed"              // an error (git, GitHub, the model) stopped it
)

// Result is what a fix did: the one record of it, written to the round
// (state.Round.Fix) by fix alone and read back by the loop, fix's summary
// and state show (docs/architecture.md, A round of review-loop). Its JSON
// is part of review-loop's --json output.
type Result struct {
	Status     Status                  `json:"status"`
	Fixed      []finding.FixedIssue    `json:"fixed"`
	Rejected   []finding.RejectedIssue `json:"rejected"`
	Commits    []finding.Commit        `json:"commits"`
	Attempts   int                     `json:"attempts,omitempty"` // verification attempts
	Verified   bool                    `json:"verified"`           // the verify commands passed
	Pushed     bool                    `json:"pushed"`
	HeadOID    string                  `json:"headOid,omitempty"` // local HEAD after the fix (and on GitHub when pushed)
	CommentURL string                  `json:"commentUrl,omitempty"`
	Failure    string                  `json:"failure,omitempty"` // why it stopped, when it did not end well
	Usage      llm.Usage               `json:"usage"`
	Model      string                  `json:"model,omitempty"` // the fix model, as configured
	// Verification is the last attempt's results; the round records them
	// on their own (state.Round.Verification), whose output decays.
	Verification []verify.Result `json:"-"`
}

// Recorded is the fix result recorded in round rd, if any.
func Recorded(rd state.Round) (*Result, bool) {
	if len(rd.Fix) == 0 {
		return nil, false
	}
	var r Result
	if json.Unmarshal(rd.Fix, &r) != nil {
		return nil, false
	}
	r.Verification = rd.Verification
	return &r, true
}

// Record stores r as round n's fix result, the round's one record of what
// its fix did. A caller that takes a fix's commits back afterwards (a local
// review the user did not keep) records the result it ended with.
func (r *Result) Record(run *state.Active, n int) error {
	return run.UpdateRound(n, func(rd *state.Round) { rd.Fix, _ = json.Marshal(r) })
}

// Kept reports whether the fix's commits are on the branch: pushed, or
// verified and left in place.
func (r *Result) Kept() bool { return r.Status == StatusPushed || r.Status == StatusVerified }

// FixedIDs are the IDs the fix reported fixed.
func (r *Result) FixedIDs() []string {
	var ids []string
	for _, x := range r.Fixed {
		ids = append(ids, x.FindingID)
	}
	return ids
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
