package state

import (
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/verify"
)

// FixStatus is how a fix ended.
type FixStatus string

const (
	FixPushed         FixStatus = "pushed"              // verified, pushed, reported
	FixVerified       FixStatus = "verified"            // verified, not pushed (--dry-run)
	FixDeclined       FixStatus = "declined"            // the user said no to the push; the commits stay local
	FixVerifyFailed   FixStatus = "verification-failed" // still failing after MaxAttempts; nothing pushed
	FixNoChange       FixStatus = "no-change"           // the agent committed nothing: nothing to verify or push
	FixNothingToFix   FixStatus = "nothing-to-fix"      // the payload held no finding to fix
	FixResultRejected FixStatus = "result-rejected"     // the agent's envelope broke the contract; nothing pushed
	FixInterrupted    FixStatus = "interrupted"         // cancelled; --continue resumes
	FixFailed         FixStatus = "failed"              // an error (git, GitHub, the model) stopped it
)

// FixResult is what a fix did: the one record of it, written to the round
// (Round.Fix) by package fix alone and read back by the loop,
// fix's summary and state show (docs/architecture.md, A round of
// review-loop). Its JSON is part of review-loop's --json output.
type FixResult struct {
	Status     FixStatus               `json:"status"`
	Fixed      []finding.FixedIssue    `json:"fixed"`
	Rejected   []finding.RejectedIssue `json:"rejected"`
	Commits    []finding.Commit        `json:"commits"`
	Attempts   int                     `json:"attempts,omitempty"` // verification attempts
	Verified   bool                    `json:"verified"`           // the verify commands passed
	Pushed     bool                    `json:"pushed"`
	HeadOID    string                  `json:"headOid,omitempty"` // local HEAD after the fix (and on GitHub when pushed)
	CommentURL string                  `json:"commentUrl,omitempty"`
	Failure    string                  `json:"failure,omitempty"` // why it stopped, when it did not end well
	Usage      tokens.Usage            `json:"usage"`
	Model      string                  `json:"model,omitempty"` // the fix model, as configured
	// Verification is the last attempt's results; the round records them
	// on their own (state.Round.Verification), whose output decays.
	Verification []verify.Result `json:"-"`
}

// Kept reports whether the fix's commits are on the branch: pushed, or
// verified and left in place.
func (r *FixResult) Kept() bool { return r.Status == FixPushed || r.Status == FixVerified }

// FixedIDs are the IDs the fix reported fixed.
func (r *FixResult) FixedIDs() []string {
	var ids []string
	for _, x := range r.Fixed {
		ids = append(ids, x.FindingID)
	}
	return ids
}

// Record stores a copy of r as round n's fix result, the round's one
// record of what its fix did. A caller that takes a fix's commits back
// afterwards (a local review the user did not keep) records the result it
// ended with.
func (r *FixResult) Record(run *Active, n int) error {
	c := *r
	return run.UpdateRound(n, func(rd *Round) { rd.Fix = &c })
}
