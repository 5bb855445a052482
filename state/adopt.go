package state

import (
	"slices"

	bolt "go.etcd.io/bbolt"
)

// Adoption is what a PR's ledger says of a run this file has no record of,
// or an older one: another machine ran since (docs/architecture.md, The
// ledger).
type Adoption struct {
	RunID  string
	Kind   string
	Round  int    // the ledger's round
	Head   string // the head that round reviewed
	Stuck  []string
	Source string // where it was read: "from PR comment <url>"
}

// Adopt records the PR's run a ledger tells of (replacing an earlier
// adoption of the same run), unless the file knows that run up to that
// round already, or as its own; it adds the ledger's stuck IDs to the
// PR's stuck set either way. It never touches a live run's lease: a run in
// progress here is the newer record. adopted reports that a run was
// recorded.
func (s *Store) Adopt(key Key, a Adoption) (adopted bool, err error) {
	if err := key.valid(); err != nil {
		return false, err
	}
	err = s.update(func(prs *bolt.Bucket) error {
		b, err := prs.CreateBucketIfNotExists(keyBytes(key))
		if err != nil {
			return err
		}
		runs, err := b.CreateBucketIfNotExists(bucketRuns)
		if err != nil {
			return err
		}
		var at []byte // the record of the same run, if any
		known := false
		if err := runs.ForEach(func(k, v []byte) error {
			var r Run
			if err := unmarshal(v, &r); err != nil {
				return err
			}
			if r.ID == a.RunID {
				at = slices.Clone(k)
				known = r.Outcome != OutcomeElsewhere || slices.ContainsFunc(r.Rounds, func(rd Round) bool { return rd.N >= a.Round })
			}
			return nil
		}); err != nil {
			return err
		}
		now := s.o.Now()
		rd := Round{N: a.Round, HeadOID: a.Head, Started: now, StuckIDs: a.Stuck}
		if err := addStuck(b, a.RunID, rd, now); err != nil {
			return err
		}
		if known {
			return refreshRow(key, b) // its stuck set may have grown
		}
		if at == nil {
			if at, err = s.newRunKey(b, runs); err != nil {
				return err
			}
		}
		r := Run{ID: a.RunID, Kind: a.Kind, Started: now, Ended: now, Outcome: OutcomeElsewhere, Source: a.Source, Rounds: []Round{rd}}
		adopted = true
		return putRun(key, b, runs, at, r, s.o.KeepRuns)
	})
	return adopted, err
}

// Record adds r, a run that began and ended in one step (review-pr's posted
// review), to key's runs. An interrupted run no process holds stays the
// last, the one its command resumes (Begin): r goes before it.
func (s *Store) Record(key Key, r Run) error {
	if err := key.valid(); err != nil {
		return err
	}
	return s.update(func(prs *bolt.Bucket) error {
		b, err := prs.CreateBucketIfNotExists(keyBytes(key))
		if err != nil {
			return err
		}
		runs, err := b.CreateBucketIfNotExists(bucketRuns)
		if err != nil {
			return err
		}
		at, err := s.newRunKey(b, runs)
		if err != nil {
			return err
		}
		return putRun(key, b, runs, at, r, s.o.KeepRuns)
	})
}

// newRunKey is where a run that began and ended at once, or elsewhere, goes
// among the PR's runs (b, its bucket): after them, but before an
// interrupted run no process holds, which stays the last, the one its
// command resumes (Begin), moved to the next sequence number.
func (s *Store) newRunKey(b, runs *bolt.Bucket) ([]byte, error) {
	n, err := runs.NextSequence()
	if err != nil {
		return nil, err
	}
	at := seqKey(n)
	k, v := runs.Cursor().Last()
	if k == nil {
		return at, nil
	}
	var last Run
	if err := unmarshal(v, &last); err != nil {
		return nil, err
	}
	var l Lease
	held, err := get(b, keyLease, &l)
	if err != nil || last.Outcome != "" || held && s.Live(l) {
		return at, err
	}
	lastAt := slices.Clone(k) // k is the file's until the next write
	return lastAt, put(runs, at, last)
}

// putRun writes r at key at of runs, trims them to keep and writes the
// PR's summary from its newest run.
func putRun(key Key, b, runs *bolt.Bucket, at []byte, r Run, keep int) error {
	if err := put(runs, at, r); err != nil {
		return err
	}
	if err := trim(runs, keep); err != nil {
		return err
	}
	var last Run
	if _, v := runs.Cursor().Last(); v != nil {
		if err := unmarshal(v, &last); err != nil {
			return err
		}
	}
	return writeSummary(key, b, last)
}
