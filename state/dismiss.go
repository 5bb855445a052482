package state

import (
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// keyDismissed holds a local review's dismissed findings ([]dismissal).
var keyDismissed = []byte("dismissed")

// dismissal is a finding dismissed for a local review (gh ocdx dismiss
// --branch): the branch's next reviews leave it out of the counts, the
// consensus and the fix. A pull request's dismissals live on the PR, not
// here (docs/architecture.md, Local review).
type dismissal struct {
	ID string    `json:"id"`
	By string    `json:"by,omitempty"` // git's user.name, else the OS user
	At time.Time `json:"at"`
}

// keyDisputed holds a PR's disputed findings ([]conceded).
var keyDisputed = []byte("disputed")

// conceded is a finding gh-ocdx conceded in a conversation (gh ocdx reply):
// it blocks until someone dismisses it on the PR, and is never stuck as
// well. It stays in the PR's record until `state clear`, as stuck ones do.
type conceded struct {
	ID    string    `json:"id"`
	Since time.Time `json:"since"`
}

// Dispute records that gh-ocdx conceded ids on the PR key, taking them out
// of its stuck set, when this machine has a record of the PR (without one
// there is no stuck set to correct: the PR's ledger tells the next run).
func (s *Store) Dispute(key Key, ids []string) error {
	if err := key.valid(); err != nil {
		return err
	}
	return s.update(func(prs *bolt.Bucket) error {
		b := prs.Bucket(keyBytes(key))
		if b == nil {
			return nil
		}
		if changed, err := dispute(b, ids, s.o.Now()); err != nil || !changed {
			return err
		}
		return refreshRow(key, b) // the row counts the stuck findings
	})
}

// Dismiss records ids as dismissed for key, which names a local review's
// branch. added are the IDs not dismissed before, in the order given.
func (s *Store) Dismiss(key Key, ids []string, by string) (added []string, err error) {
	if err := key.valid(); err != nil {
		return nil, err
	}
	err = s.update(func(prs *bolt.Bucket) error {
		b, err := prs.CreateBucketIfNotExists(keyBytes(key))
		if err != nil {
			return err
		}
		var set []dismissal
		if _, err := get(b, keyDismissed, &set); err != nil {
			return err
		}
		now := s.o.Now()
		for _, id := range ids {
			if !slices.ContainsFunc(set, func(d dismissal) bool { return d.ID == id }) {
				set = append(set, dismissal{ID: id, By: by, At: now})
				added = append(added, id)
			}
		}
		if len(added) == 0 {
			return nil
		}
		if err := put(b, keyDismissed, set); err != nil {
			return err
		}
		return refreshRow(key, b) // a branch dismissed before any review is listed too
	})
	return added, err
}
