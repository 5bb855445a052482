package finding

// Status is where a finding is in its life (docs/architecture.md, The
// ledger): one list for every verb, the state file and the ledger.
type Status string

const (
	StatusOpen      Status = "open"      // raised, not yet fixed
	StatusFixed     Status = "fixed"     // a pushed fix commit (Sha) addressed it; locally, committed
	StatusResolved  Status = "resolved"  // a later review judged it resolved, or its lines changed and nobody raised it again
	StatusStuck     Status = "stuck"     // raised again after a fix: never sent to the fix agent again
	StatusDismissed Status = "dismissed" // someone with write permission told gh-ocdx to stop raising it
	StatusDisputed  Status = "disputed"  // conceded in a conversation; blocks until dismissed
	StatusRefuted   Status = "refuted"   // the verifier showed it wrong, with evidence
)

// Statuses are every status, in the order of a finding's life.
var Statuses = []Status{StatusOpen, StatusFixed, StatusResolved, StatusStuck, StatusDismissed, StatusDisputed, StatusRefuted}

// Remaining reports whether a finding with status s is still to be dealt
// with: open, stuck or disputed.
func (s Status) Remaining() bool {
	return s == StatusOpen || s == StatusStuck || s == StatusDisputed
}
