package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Approvals of a repository's verify commands live in their own top-level
// bucket, beside prs: approvals{<host/owner/repo>: approval}.
var bucketApprovals = []byte("approvals")

// approval records that the user accepted running a repository's verify
// commands on this machine. Only the hash of the list is kept: a list that
// differs in any byte is a new question.
type approval struct {
	Repo       string    `json:"repo"` // host/owner/repo, lower-cased
	Hash       string    `json:"hash"` // commandsHash of the approved list
	ApprovedAt time.Time `json:"approvedAt"`
}

// commandsHash identifies a list of commands, order and spacing included.
func commandsHash(commands []string) string {
	raw, _ := json.Marshal(commands) // a []string always marshals
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

func repoKey(host, owner, repo string) []byte {
	return []byte(strings.ToLower(host + "/" + owner + "/" + repo))
}

// Approved reports whether the user approved exactly these commands for the
// repository, and when.
func (s *Store) Approved(host, owner, repo string, commands []string) (bool, time.Time, error) {
	var a approval
	found := false
	err := s.view(func(prs *bolt.Bucket) error {
		b := prs.Tx().Bucket(bucketApprovals)
		if b == nil {
			return nil
		}
		var err error
		if found, err = get(b, repoKey(host, owner, repo), &a); err != nil {
			return s.fail(fmt.Errorf("the approval of %s: %w", repoKey(host, owner, repo), err))
		}
		return nil
	})
	if err != nil {
		return false, time.Time{}, err
	}
	if !found || a.Hash != commandsHash(commands) {
		return false, time.Time{}, nil
	}
	return true, a.ApprovedAt, nil
}

// Approve remembers that the user approved these commands for the
// repository, replacing any earlier approval.
func (s *Store) Approve(host, owner, repo string, commands []string, at time.Time) error {
	key := repoKey(host, owner, repo)
	return s.update(func(prs *bolt.Bucket) error {
		b, err := prs.Tx().CreateBucketIfNotExists(bucketApprovals)
		if err != nil {
			return err
		}
		return put(b, key, approval{Repo: string(key), Hash: commandsHash(commands), ApprovedAt: at.UTC()})
	})
}
