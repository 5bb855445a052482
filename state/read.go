package state

import (
	"fmt"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// List returns a summary of every PR in the file, in key order. A missing
// file is an empty list (and is not created). It reads the index, one
// small row per PR side by side, not the PRs' own records scattered over
// the file (docs/architecture.md, State); a file whose index the
// last write did not keep (an older gh-ocdx wrote it) is read PR by PR.
func (s *Store) List() ([]Summary, error) {
	out := []Summary{}
	err := s.view(func(prs *bolt.Bucket) error {
		if tx := prs.Tx(); indexed(tx) {
			if err := listIndex(tx, &out); err == nil {
				return nil
			}
			out = out[:0] // a damaged index: the PRs' own records say it all
		}
		return prs.ForEachBucket(func(name []byte) error {
			key, err := ParseKey(string(name))
			if err != nil {
				return fmt.Errorf("%w: %q: %v", errRecord, name, err)
			}
			sum, err := rowOf(key, prs.Bucket(name))
			out = append(out, sum)
			return err
		})
	})
	return out, err
}

// listIndex reads every PR's row from the index, in key order.
func listIndex(tx *bolt.Tx, out *[]Summary) error {
	idx, prs := tx.Bucket(bucketIndex), tx.Bucket(bucketPRs)
	// The PRs' bucket is entered as well (a page or two): a file damaged
	// there is met by state show as by every command, and moved aside.
	prs.Cursor().First()
	var rows []indexRow
	err := idx.ForEach(func(shard, v []byte) error {
		var err error
		if rows, err = appendRows(rows, v); err != nil {
			return fmt.Errorf("%w: index shard %s: %v", errRecord, shard, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(rows, func(a, b indexRow) int { return strings.Compare(a.Key, b.Key) })
	*out = slices.Grow(*out, len(rows))
	for _, r := range rows {
		key, err := ParseKey(r.Key)
		if err != nil {
			return fmt.Errorf("%w: index: %q: %v", errRecord, r.Key, err)
		}
		sum := Summary{Key: key, Runs: r.Runs, Last: r.Last, Rounds: r.Rounds, Stuck: r.Stuck, WIP: r.WIP}
		if r.Leased {
			var l Lease
			if ok, err := get(prs.Bucket([]byte(r.Key)), keyLease, &l); err != nil {
				return err
			} else if ok {
				sum.Lease = &l
			}
		}
		*out = append(*out, sum)
	}
	return nil
}

// rowOf is what List shows of the PR whose bucket is b.
func rowOf(key Key, b *bolt.Bucket) (Summary, error) {
	sum := Summary{Key: key}
	var rec summaryRecord
	if ok, err := get(b, keySummary, &rec); err != nil {
		return sum, err
	} else if ok {
		sum.Runs, sum.Rounds, sum.Last = rec.Runs, rec.Rounds, &rec.Last
	}
	var l Lease
	if ok, err := get(b, keyLease, &l); err != nil {
		return sum, err
	} else if ok {
		sum.Lease = &l
	}
	var stuck []Stuck
	if _, err := get(b, keyStuck, &stuck); err != nil {
		return sum, err
	}
	sum.Stuck = len(stuck)
	var w struct{ Phase string }
	if ok, err := get(b, keyWIP, &w); err != nil {
		return sum, err
	} else if ok {
		sum.WIP = w.Phase
		if sum.WIP == "" {
			sum.WIP = "recorded"
		}
	}
	return sum, nil
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
		if _, err := get(b, keyDisputed, &pr.Disputed); err != nil {
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
// It refuses while a live run holds the PR (*leaseError).
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
			return &leaseError{Key: key, Holder: l}
		}
		if err := setRow(prs.Tx(), keyBytes(key), nil); err != nil {
			return err
		}
		return prs.DeleteBucket(keyBytes(key))
	})
}
