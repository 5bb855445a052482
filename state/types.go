package state

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/learnings"
	"github.com/ocdx/gh-ocdx/verify"
)

// Key names one pull request: host/owner/repo#number, lower-cased, because
// GitHub names are case-insensitive and two spellings must share one lease.
// A local review's key names a branch instead (LocalKey).
type Key struct {
	Host, Owner, Repo string
	Number            int
	// Local and Branch name the branch of a local review (gh ocdx review):
	// Local is the repository (its origin as host/owner/repo, else its
	// directory), Branch the branch; Host, Owner, Repo and Number are unset.
	Local, Branch string
}

// localPrefix starts every local review's key.
const localPrefix = "local/"

// LocalKey is the key of a local review of branch in the repository named
// by repo (host/owner/repo of its remote, or its directory):
// local/<repo>@<branch>. An @ in repo is escaped, so the first @ ends it.
func LocalKey(repo, branch string) Key {
	return Key{Local: strings.ReplaceAll(repo, "@", "%40"), Branch: branch}
}

// IsLocal reports whether k names a local review's branch, not a PR.
func (k Key) IsLocal() bool { return k.Branch != "" }

// NewKey builds a Key in its canonical (lower-case) form.
func NewKey(host, owner, repo string, number int) Key {
	return Key{Host: strings.ToLower(host), Owner: strings.ToLower(owner), Repo: strings.ToLower(repo), Number: number}
}

func (k Key) String() string {
	if k.IsLocal() {
		return localPrefix + k.Local + "@" + k.Branch
	}
	return fmt.Sprintf("%s/%s/%s#%d", k.Host, k.Owner, k.Repo, k.Number)
}

// ParseKey reads the form String writes.
func ParseKey(s string) (Key, error) {
	if rest, ok := strings.CutPrefix(s, localPrefix); ok && strings.Contains(rest, "@") {
		repo, branch, _ := strings.Cut(rest, "@")
		if repo == "" || branch == "" {
			return Key{}, fmt.Errorf("invalid local review key %q (want local/<repository>@<branch>)", s)
		}
		return Key{Local: repo, Branch: branch}, nil
	}
	path, num, ok := strings.Cut(s, "#")
	parts := strings.Split(path, "/")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n <= 0 || len(parts) != 3 || slices.Contains(parts, "") {
		return Key{}, fmt.Errorf("invalid pull request key %q (want host/owner/repo#number)", s)
	}
	return NewKey(parts[0], parts[1], parts[2], n), nil
}

// MarshalText writes the key as String does, so JSON shows "host/owner/repo#n".
func (k Key) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads what MarshalText wrote.
func (k *Key) UnmarshalText(b []byte) error {
	v, err := ParseKey(string(b))
	*k = v
	return err
}

func (k Key) valid() error {
	_, err := ParseKey(k.String())
	return err
}

// RunOutcome is how a run ended. A run without one was interrupted (or is still
// running) and is resumed by the next Begin on its PR.
type RunOutcome string

const (
	OutcomeConverged RunOutcome = "converged" // goal reached (exit 0); its reports decay to summaries
	OutcomeBlocked   RunOutcome = "blocked"   // finished without converging (exit 3); kept in full
	OutcomeFailed    RunOutcome = "failed"    // error (exit 1); kept in full
	OutcomeFixed     RunOutcome = "fixed"     // a local review's findings fixed and committed, the fix not reviewed again (exit 0); kept in full
	OutcomeAbandoned RunOutcome = "abandoned" // interrupted, then superseded by a run of another kind; kept in full
	OutcomeElsewhere RunOutcome = "elsewhere" // run on another machine: what the ledger of its last report told (Run.Source)
)

// Phase is a step of a round that, once recorded, a resumed run must not redo.
type Phase string

const (
	PhaseReviewed  Phase = "reviewed"  // reviews and comments analysis done, findings recorded
	PhaseCommented Phase = "commented" // review report posted
	PhaseFixed     Phase = "fixed"     // fix agent committed
	PhaseVerified  Phase = "verified"  // verification commands ran
	PhasePushing   Phase = "pushing"   // about to push Round.Pushing
	PhasePushed    Phase = "pushed"    // fix commits pushed
	PhaseReported  Phase = "reported"  // fix report posted
)

// phases are the recorded phases of a round in the order they happen
// (docs/architecture.md, A round of review-loop). A resumed run skips each
// one its round has done; reading the PR and deciding leave no mark, and a
// fix with nothing to commit records neither verified nor pushed.
var phases = []Phase{PhaseReviewed, PhaseCommented, PhaseFixed, PhaseVerified, PhasePushing, PhasePushed, PhaseReported}

// Lease marks the run that owns a PR.
type Lease struct {
	RunID     string    `json:"runId"`
	Token     string    `json:"token"` // new on every Begin: a resumed run has the same RunID
	PID       int       `json:"pid"`
	Host      string    `json:"host"`
	Started   time.Time `json:"started"`
	Heartbeat time.Time `json:"heartbeat"`
}

func (l Lease) String() string {
	return fmt.Sprintf("run %s (pid %d on %s, started %s, last heartbeat %s)",
		l.RunID, l.PID, l.Host, l.Started.UTC().Format(time.RFC3339), l.Heartbeat.UTC().Format(time.RFC3339))
}

// Run is the record of one run of review-loop or fix on a PR.
type Run struct {
	ID        string     `json:"id"`
	Kind      string     `json:"kind"` // "review-loop", "fix"
	Started   time.Time  `json:"started"`
	Ended     time.Time  `json:"ended,omitzero"`
	Outcome   RunOutcome `json:"outcome,omitempty"`
	Reason    string     `json:"reason,omitempty"` // why it ended so, in words
	Resumes   int        `json:"resumes,omitempty"`
	Compacted bool       `json:"compacted,omitempty"` // full reports dropped (memory decay)
	// Source is where the record came from: "" for this machine, else
	// "from PR comment <url>", the report whose ledger it was rebuilt from.
	Source string  `json:"source,omitempty"`
	Rounds []Round `json:"rounds,omitempty"`
}

// Round is one review (and fix) round of a run.
type Round struct {
	N       int         `json:"n"`
	HeadOID string      `json:"headOid"`
	Started time.Time   `json:"started"`
	Phases  []PhaseMark `json:"phases,omitempty"`
	// Findings is the round's full list of findings, nil until the round
	// was reviewed (or given its findings) and after decay; empty when the
	// review found none.
	Findings   []finding.Finding `json:"findings"`
	FindingIDs []string          `json:"findingIds,omitempty"`
	// Dismissed are the dismissed findings the round knew, located at its
	// head: raised again there, or followed from the review before. Raised
	// again at a line that moved, a finding keeps its ID, and with it its
	// dismissal (docs/architecture.md, Re-reviews). Decayed as Findings.
	Dismissed   []finding.Finding `json:"dismissed,omitempty"`
	Counts      finding.Counts    `json:"counts,omitzero"`
	Consensus   string            `json:"consensus,omitempty"`
	FailedRoles []string          `json:"failedRoles,omitempty"`
	Reports     []Report          `json:"reports,omitempty"`
	StuckIDs    []string          `json:"stuckIds,omitempty"` // also merged into the PR's stuck set
	// DisputedIDs are the findings gh-ocdx conceded in a conversation:
	// blocking, for a person to dismiss. A finding is one or the other, so
	// these leave the PR's stuck set.
	DisputedIDs  []string        `json:"disputedIds,omitempty"`
	Fix          *FixResult      `json:"fix,omitempty"`     // what the round's fix did
	Pushing      string          `json:"pushing,omitempty"` // the commit the push sends, recorded before it
	Comments     []Comment       `json:"comments,omitempty"`
	Verification []verify.Result `json:"verification,omitempty"`
	Usage        []Usage         `json:"usage,omitempty"`
	// Coverage is how much of the diff the reviewers were given.
	Coverage *diff.Coverage `json:"coverage,omitempty"`
	// Learned is what the learnings file left out and lowered: a review
	// repeated from this record says it as the first did.
	Learned *learnings.Applied `json:"learned,omitempty"`
	// Fingerprint names what a local review read (its commit, working
	// tree, merge base, policy and reviewers) as one digest, so that an
	// unchanged branch reuses the review; package loop computes it.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// Done reports whether phase p of the round was recorded.
func (r Round) Done(p Phase) bool {
	return slices.ContainsFunc(r.Phases, func(m PhaseMark) bool { return m.Phase == p })
}

// PushedHead reports whether the round's fix pushed head: its push was
// recorded, or it was killed between pushing and recording it, and the
// commit it was pushing is head, the PR's head on GitHub now.
func (r Round) PushedHead(head string) bool {
	return r.Done(PhasePushed) || r.Done(PhasePushing) && r.Pushing != "" && r.Pushing == head
}

// Describes reports whether an interrupted run still describes the PR at
// head, so that resuming it is right: its last round reviewed head, or its
// fix pushed head. Otherwise the PR moved under it (someone pushed), and
// its findings and phases are about code that is gone.
func (r Run) Describes(head string) bool {
	if len(r.Rounds) == 0 {
		return true
	}
	last := r.Rounds[len(r.Rounds)-1]
	return last.HeadOID == head || last.PushedHead(head)
}

// NextRound is the round a resumed run goes on with: its last one, unless
// that round is done to its fix report, then the one after. 1 for a run
// without rounds.
func (r Run) NextRound() int {
	if len(r.Rounds) == 0 {
		return 1
	}
	last := r.Rounds[len(r.Rounds)-1]
	if last.Done(PhasePushed) && last.Done(PhaseReported) {
		return last.N + 1
	}
	return last.N
}

// PhaseMark records when a phase completed.
type PhaseMark struct {
	Phase Phase     `json:"phase"`
	At    time.Time `json:"at"`
}

// Report is one role's report. Full is dropped on decay; Summary stays.
type Report struct {
	Role    string `json:"role"`
	Model   string `json:"model,omitempty"`
	Summary string `json:"summary"`
	Full    string `json:"full,omitempty"`
}

// Comment is a comment or review gh-ocdx posted, with its ocdx tag so a
// resumed run can tell it was already posted.
type Comment struct {
	Kind string `json:"kind"` // review, fix, final
	Tag  string `json:"tag"`
	URL  string `json:"url"`
}

// Usage is the token usage of one role in a round.
type Usage struct {
	Role  string `json:"role"`
	Model string `json:"model,omitempty"`
	tokens.Usage
	// CostUSD is the estimated cost in dollars, with a price configured
	// for the model when the round ran.
	CostUSD float64 `json:"estimatedCostUsd,omitempty"`
}

// Stuck is a finding reported fixed in one round that came back in a later
// one. It stays in the PR's stuck set until `state clear`.
type Stuck struct {
	ID    string    `json:"id"`
	RunID string    `json:"runId"`
	Round int       `json:"round"`
	Since time.Time `json:"since"`
}

// WIP is the fix agent's work in progress: where an interrupted
// fix stopped and what to do next.
type WIP struct {
	RunID              string          `json:"runId,omitempty"`
	Round              int             `json:"round,omitempty"`
	Phase              string          `json:"phase,omitempty"`
	FilesModified      []string        `json:"filesModified,omitempty"`
	UncommittedChanges bool            `json:"uncommittedChanges,omitempty"`
	LastCommit         string          `json:"lastCommit,omitempty"`
	Verification       []verify.Result `json:"verification,omitempty"`
	Errors             []wipError      `json:"errors,omitempty"`    // AddError
	Decisions          []decision      `json:"decisions,omitempty"` // SetDecisions
	Context            string          `json:"context,omitempty"`
	NextStep           string          `json:"nextStep,omitempty"`
	Updated            time.Time       `json:"updated"`
}

// wipError is an error met while fixing.
type wipError struct {
	Type    string `json:"type,omitempty"`
	File    string `json:"file,omitempty"`
	Message string `json:"message"`
}

// decision is a choice the fix agent made, with its reason.
type decision struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
}

// AddError records an error of kind met while fixing, w keeping the last
// keep of them.
func (w *WIP) AddError(kind, msg string, keep int) {
	w.Errors = append(w.Errors, wipError{Type: kind, Message: msg})
	if n := len(w.Errors); n > keep {
		w.Errors = w.Errors[n-keep:]
	}
}

// SetDecisions records the choices the fix agent made: its working
// note's notes.
func (w *WIP) SetDecisions(notes []string) {
	w.Decisions = nil
	for _, d := range notes {
		w.Decisions = append(w.Decisions, decision{Decision: d})
	}
}

// PR is everything recorded for one pull request.
type PR struct {
	Key   Key     `json:"pr"`
	Lease *Lease  `json:"lease,omitempty"`
	Stuck []Stuck `json:"stuck"`
	WIP   *WIP    `json:"wip,omitempty"`
	Runs  []Run   `json:"runs"` // oldest first
	// Dismissed are a local review's dismissed findings (Store.Dismiss).
	Dismissed []dismissal `json:"dismissed,omitempty"`
	// Disputed are the findings gh-ocdx conceded (Store.Dispute, or a
	// round's DisputedIDs): none of them is in Stuck.
	Disputed []conceded `json:"disputed,omitempty"`
}

// Summary is one PR's line in `state show`: cheap to read for every PR.
type Summary struct {
	Key    Key    `json:"pr"`
	Runs   int    `json:"runs"`
	Last   *Run   `json:"lastRun,omitempty"` // without its rounds
	Rounds int    `json:"rounds"`            // of the last run
	Stuck  int    `json:"stuck"`
	WIP    string `json:"wip,omitempty"` // its phase, when there is one
	Lease  *Lease `json:"lease,omitempty"`
}
