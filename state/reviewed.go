package state

import (
	"encoding/json"

	bolt "go.etcd.io/bbolt"

	"github.com/ocdx/gh-ocdx/posts"
)

// What gh ocdx stats read of a repository's pull requests lives in its own
// top-level bucket, beside prs: reviewed{<host/owner/repo>: Reviewed}, so
// that a second run asks GitHub only for the pull requests updated since
// (docs/architecture.md, Stats).
var bucketReviewed = []byte("reviewed")

// Reviewed is what stats read of a repository's pull requests: every pull
// request updated from Through to Newest, as it was when read.
type Reviewed struct {
	// V is the version of what a record keeps of a pull request (stats'
	// readVersion): a record of another is read again from GitHub.
	V       int    `json:"v,omitempty"`
	Newest  string `json:"newest"`  // the newest updatedAt read (RFC 3339)
	Through string `json:"through"` // the oldest updatedAt read: every PR updated since is here
	// Complete says the read went to the repository's first pull request:
	// none is older than Through.
	Complete bool          `json:"complete,omitempty"`
	PRs      []ReviewedPR  `json:"prs"` // the most recently updated first
	Warnings []ReviewedMsg `json:"warnings,omitempty"`
}

// ReviewedMsg is a warning stats gave about a pull request when it read it
// (a ledger left out), said again when the record is read from here.
type ReviewedMsg struct {
	PR  int    `json:"pr"`
	Msg string `json:"msg"`
}

// ReviewedPR is one pull request as stats read it: when it last changed,
// and gh-ocdx's trusted reports on it (docs/architecture.md, Whose posts
// count). A pull request gh-ocdx did not review has no ledger.
type ReviewedPR struct {
	Number  int    `json:"number"`
	URL     string `json:"url"`
	Updated string `json:"updated"` // GitHub's updatedAt when read (RFC 3339)
	// Author is the pull request's author: their own dismissals teach
	// gh ocdx learn nothing (docs/architecture.md, Learnings).
	Author string `json:"author,omitempty"`
	// Ledger is the newest trusted ledger (posts.Trust.Ledger); nil: none.
	Ledger *posts.Ledger `json:"ledger,omitempty"`
	// Posts are the trusted reports carrying a ledger, oldest first.
	Posts []LedgerPost `json:"posts,omitempty"`
}

// LedgerPost is one trusted report's ledger header: which run and round
// posted it, when, whether its review converged, and the run's tokens so
// far per model.
type LedgerPost struct {
	Run       string              `json:"run"`
	Kind      string              `json:"kind,omitempty"`
	Round     int                 `json:"round"`
	At        string              `json:"at"` // when it was posted (RFC 3339)
	Converged bool                `json:"converged,omitempty"`
	Tokens    []posts.ModelTokens `json:"tokens,omitempty"`
}

// ReviewedOf is what stats last read of repo (host/owner/repo); the zero
// value when nothing, or a record this version cannot read: a cache is
// read again from GitHub, never an error.
func (s *Store) ReviewedOf(host, owner, repo string) (Reviewed, error) {
	var r Reviewed
	err := s.view(func(prs *bolt.Bucket) error {
		b := prs.Tx().Bucket(bucketReviewed)
		if b == nil {
			return nil
		}
		if raw := b.Get(repoKey(host, owner, repo)); raw != nil && json.Unmarshal(raw, &r) != nil {
			r = Reviewed{}
		}
		return nil
	})
	return r, err
}

// SetReviewed replaces what stats read of repo.
func (s *Store) SetReviewed(host, owner, repo string, r Reviewed) error {
	return s.update(func(prs *bolt.Bucket) error {
		b, err := prs.Tx().CreateBucketIfNotExists(bucketReviewed)
		if err != nil {
			return err
		}
		return put(b, repoKey(host, owner, repo), r)
	})
}
