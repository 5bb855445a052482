package state

import (
	"bytes"
	"encoding/json"
	"errors"

	bolt "go.etcd.io/bbolt"
)

// What gh ocdx stats read of a repository's pull requests lives in its own
// top-level bucket, beside prs: reviewed{<host/owner/repo>: Reviewed}, so
// that a second run asks GitHub only for the pull requests updated since
// (docs/architecture.md, Stats).
var bucketReviewed = []byte("reviewed")

// ReviewedOf is what stats last kept of repo (host/owner/repo), as it
// wrote it (SetReviewed): its own JSON document, nil when none. The record
// is stats' (stats.Reviewed): a cache, read again from GitHub when stats
// cannot read it.
func (s *Store) ReviewedOf(host, owner, repo string) ([]byte, error) {
	var raw []byte
	err := s.view(func(prs *bolt.Bucket) error {
		if b := prs.Tx().Bucket(bucketReviewed); b != nil {
			raw = bytes.Clone(b.Get(repoKey(host, owner, repo)))
		}
		return nil
	})
	return raw, err
}

// SetReviewed replaces what stats keeps of repo: record, a JSON document.
func (s *Store) SetReviewed(host, owner, repo string, record []byte) error {
	if !json.Valid(record) {
		return errors.New("state: stats' record is not JSON")
	}
	return s.update(func(prs *bolt.Bucket) error {
		b, err := prs.Tx().CreateBucketIfNotExists(bucketReviewed)
		if err != nil {
			return err
		}
		return b.Put(repoKey(host, owner, repo), record)
	})
}
