package state

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// List returns a summary of every PR in the file, in key order. A missing
// file is an empty list (and is not created).
func (s *Store) List() ([]Summary, error) {
	out := []Summary{}
	err := s.view(func(prs *bolt.Bucket) error {
		return prs.ForEachBucket(func(name []byte) error {
			key, err := ParseKey(string(name))
			if err != nil {
				return fmt.Errorf("%w: %q: %v", errRecord, name, err)
			}
			b := prs.Bucket(name)
			sum := Summary{Key: key}
			var rec summaryRecord
			if ok, err := get(b, keySummary, &rec); err != nil {
				return err
			} else if ok {
				sum.Runs, sum.Rounds, sum.Last = rec.Runs, rec.Rounds, &rec.Last
			}
			var l Lease
			if ok, err := get(b, keyLease, &l); err != nil {
				return err
			} else if ok {
				sum.Lease = &l
			}
			var stuck []Stuck
			if _, err := get(b, keyStuck, &stuck); err != nil {
				return err
			}
			sum.Stuck = len(stuck)
			var w struct{ Phase string }
			if ok, err := get(b, keyWIP, &w); err != nil {
				return err
			} else if ok {
				sum.WIP = w.Phase
				if sum.WIP == "" {
					sum.WIP = "recorded"
				}
			}
			out = append(out, sum)
			return nil
		})
	})
	return out, err
}

// PR returns everything recorded for key, or ErrNotFound.
func (s *Store) PR(key Key) (PR, error) {
	pr := PR{Key: key, Stuck: []Stuck{}, Runs: []Run{}}
	found := false
	err := s.view(func(prs *bolt.Bucket) error {
		b := prs.Bucket(keyBytes(key))
		if b == nil {
			return nil
		}
		found = true
		var l Lease
		if ok, err := get(b, keyLease, &l); err != nil {
			return err
		} else if ok {
			pr.Lease = &l
		}
		var w WIP
		if ok, err := get(b, keyWIP, &w); err != nil {
			return err
		} else if ok {
			pr.WIP = &w
		}
		if _, err := get(b, keyStuck, &pr.Stuck); err != nil {
			return err
		}
		if _, err := get(b, keyDismissed, &pr.Dismissed); err != nil {
			return err
		}
		runs := b.Bucket(bucketRuns)
		if runs == nil {
			return nil
		}
		return runs.ForEach(func(_, v []byte) error {
			var r Run
			if err := unmarshal(v, &r); err != nil {
				return err
			}
			pr.Runs = append(pr.Runs, r)
			return nil
		})
	})
	if err == nil && !found {
		err = fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	return pr, err
}

// Clear forgets everything recorded for key: runs, rounds, stuck set, WIP.
// It refuses while a live run holds the PR (*LeaseError).
func (s *Store) Clear(key Key) error {
	return s.update(func(prs *bolt.Bucket) error {
		b := prs.Bucket(keyBytes(key))
		if b == nil {
			return fmt.Errorf("%s: %w", key, ErrNotFound)
		}
		// A lease that cannot be read holds nothing: clearing is how a
		// damaged record is forgotten.
		var l Lease
		if ok, err := get(b, keyLease, &l); err == nil && ok && s.Live(l) {
			return &LeaseError{Key: key, Holder: l}
		}
		return prs.DeleteBucket(keyBytes(key))
	})
}
