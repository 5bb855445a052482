package state

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/ocdx/gh-ocdx/finding"
)

// leaseError is returned when another live run holds the PR. It matches
// ErrLeaseHeld.
type leaseError struct {
	Key    Key
	Holder Lease
}

func (e *leaseError) Error() string {
	return fmt.Sprintf("%s is already being worked on by %s; wait for it to finish or stop it", e.Key, e.Holder)
}

func (e *leaseError) Unwrap() error { return ErrLeaseHeld }

// Active is a run in progress: it holds its PR's lease, refreshes it in the
// background, and records rounds and phases. Every write checks that the
// lease is still ours (else errLeaseLost). Call End when the run finishes,
// or Release to leave it resumable (interrupted, cancelled).
type Active struct {
	s       *Store
	key     Key
	id      string
	token   string
	seq     []byte
	resumed bool

	mu   sync.Mutex
	run  Run
	done bool

	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
}

// Begin claims key for a run of kind ("review-loop", "fix"). When the PR's
// last run of the same kind never ended (crash, Ctrl-C), that run is resumed:
// same ID, rounds and phases as recorded, Resumed() true. A live lease of
// another run gives a *leaseError; a lease whose process is gone (same host)
// or whose heartbeat is older than StaleAfter is taken over.
func (s *Store) Begin(key Key, kind string) (*Active, error) {
	if err := key.valid(); err != nil {
		return nil, err
	}
	a := &Active{s: s, key: key, stop: make(chan struct{})}
	err := s.update(func(prs *bolt.Bucket) error {
		now := s.o.Now()
		b, err := prs.CreateBucketIfNotExists(keyBytes(key))
		if err != nil {
			return err
		}
		var l Lease
		if ok, err := get(b, keyLease, &l); err != nil {
			return err
		} else if ok && s.Live(l) {
			return &leaseError{Key: key, Holder: l}
		}
		runs, err := b.CreateBucketIfNotExists(bucketRuns)
		if err != nil {
			return err
		}
		var r Run
		if k, v := runs.Cursor().Last(); k != nil {
			var last Run
			if err := unmarshal(v, &last); err != nil {
				return err
			}
			switch {
			case last.Outcome == "" && last.Kind == kind:
				r, a.seq, a.resumed = last, slices.Clone(k), true
				r.Resumes++
			case last.Outcome == "":
				last.Ended, last.Outcome = now, OutcomeAbandoned
				last.Reason = "interrupted, then superseded by a " + kind + " run"
				if err := put(runs, k, last); err != nil {
					return err
				}
			}
		}
		if !a.resumed {
			n, err := runs.NextSequence()
			if err != nil {
				return err
			}
			r, a.seq = Run{ID: newRunID(now), Kind: kind, Started: now}, seqKey(n)
		}
		a.id, a.token = r.ID, randomHex(8)
		l = Lease{RunID: r.ID, Token: a.token, PID: os.Getpid(), Host: s.o.Hostname, Started: now, Heartbeat: now}
		if err := put(b, keyLease, l); err != nil {
			return err
		}
		if err := put(runs, a.seq, r); err != nil {
			return err
		}
		if err := trim(runs, s.o.KeepRuns); err != nil {
			return err
		}
		a.run = r
		return writeSummary(key, b, r)
	})
	if err != nil {
		return nil, err
	}
	a.wg.Add(1)
	go a.heartbeat()
	return a, nil
}

// BeginOn is Begin for a command that works on the PR at head: an
// interrupted run is resumed only while it Describes head; else it ends
// (OutcomeBlocked, with the reason) and a new run begins. gaveUp is the
// run ended so, nil when there was none.
func (s *Store) BeginOn(key Key, kind, head string) (a *Active, gaveUp *Run, err error) {
	if a, err = s.Begin(key, kind); err != nil || !a.Resumed() {
		return a, nil, err
	}
	old := a.Run()
	if old.Describes(head) {
		return a, nil, nil
	}
	if err := a.End(OutcomeBlocked, "interrupted; the PR head moved before it was resumed"); err != nil {
		return nil, nil, err
	}
	a, err = s.Begin(key, kind)
	return a, &old, err
}

// Restart gives up an interrupted fix the user chose not to continue: its
// work in progress is dropped and, when a was a resumed run, that run ends
// (OutcomeAbandoned, reason) and a new run of its kind begins in its place.
func (a *Active) Restart(reason string) (*Active, error) {
	if err := a.ClearWIP(); err != nil {
		return nil, err
	}
	if !a.resumed {
		return a, nil
	}
	kind := a.Run().Kind
	if err := a.End(OutcomeAbandoned, reason); err != nil {
		return nil, err
	}
	return a.s.Begin(a.key, kind)
}

// Live reports whether l still holds its PR: heartbeat fresh and, on this
// host, its process alive.
func (s *Store) Live(l Lease) bool {
	if s.o.Now().Sub(l.Heartbeat) > s.o.StaleAfter {
		return false
	}
	return l.Host != s.o.Hostname || processAlive(l.PID)
}

// NewRunID is an ID for a command that records no run here (review-pr), in
// the runs' format, so that its comment tags read like the loop's.
func NewRunID() string { return newRunID(time.Now()) }

func newRunID(now time.Time) string {
	return now.UTC().Format("20060102T150405") + "-" + randomHex(3)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ID is the run's ID, the one in comment tags (ocdx:run=<id>).
func (a *Active) ID() string { return a.id }

// Key is the PR the run works on.
func (a *Active) Key() Key { return a.key }

// Resumed reports whether Begin picked up an interrupted run.
func (a *Active) Resumed() bool { return a.resumed }

// Run returns the run as last written. Resuming callers look at its rounds'
// phases to skip finished work.
func (a *Active) Run() Run {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := a.run
	r.Rounds = slices.Clone(r.Rounds)
	return r
}

// StartRound adds round n with the PR's head oid and returns it. If the run
// already has round n (resumed run), it is returned as recorded.
func (a *Active) StartRound(n int, headOID string) (Round, error) {
	var out Round
	err := a.write(func(_ *bolt.Bucket, r *Run) error {
		if i := roundIndex(r, n); i >= 0 {
			out = r.Rounds[i]
			return nil
		}
		last := 0
		if len(r.Rounds) > 0 {
			last = r.Rounds[len(r.Rounds)-1].N
		}
		if n <= last || n < 1 {
			return fmt.Errorf("round %d cannot follow round %d", n, last)
		}
		out = Round{N: n, HeadOID: headOID, Started: a.s.o.Now()}
		r.Rounds = append(r.Rounds, out)
		return nil
	})
	return out, err
}

// UpdateRound changes round n with fn, in one transaction.
func (a *Active) UpdateRound(n int, fn func(*Round)) error {
	return a.Complete(n, "", fn)
}

// Complete records that phase p of round n is done, together with what fn
// sets on the round (findings, comment URL, commits, ...), in one
// transaction: after a crash either both are recorded or neither. An empty
// p only applies fn. Stuck IDs set on the round join the PR's stuck set.
func (a *Active) Complete(n int, p Phase, fn func(*Round)) error {
	return a.write(func(b *bolt.Bucket, r *Run) error {
		i := roundIndex(r, n)
		if i < 0 {
			return fmt.Errorf("round %d: %w", n, errNoRound)
		}
		rd := &r.Rounds[i]
		if fn != nil {
			fn(rd)
		}
		rd.N = n
		if p != "" && !rd.Done(p) {
			rd.Phases = append(rd.Phases, PhaseMark{Phase: p, At: a.s.o.Now()})
		}
		return addStuck(b, r.ID, *rd, a.s.o.Now())
	})
}

// UpdateWIP changes the PR's work in progress with fn (merge what is new).
func (a *Active) UpdateWIP(fn func(*WIP)) error {
	return a.write(func(b *bolt.Bucket, r *Run) error {
		var w WIP
		if _, err := get(b, keyWIP, &w); err != nil {
			return err
		}
		fn(&w)
		w.RunID, w.Updated = r.ID, a.s.o.Now()
		return put(b, keyWIP, w)
	})
}

// ClearWIP drops the work in progress (the fix was pushed or given up).
func (a *Active) ClearWIP() error {
	return a.write(func(b *bolt.Bucket, _ *Run) error { return b.Delete(keyWIP) })
}

// Heartbeat refreshes the lease now; Begin also does it every HeartbeatEvery.
func (a *Active) Heartbeat() error {
	return a.write(func(*bolt.Bucket, *Run) error { return nil })
}

// End finishes the run with its outcome and releases the PR. A converged run
// decays: its full findings, reports and verification output are dropped,
// summaries and IDs stay, and the WIP goes. Other outcomes keep everything.
func (a *Active) End(o RunOutcome, reason string) error {
	a.stopHeartbeat()
	err := a.write(func(b *bolt.Bucket, r *Run) error {
		r.Ended, r.Outcome, r.Reason = a.s.o.Now(), o, reason
		if o == OutcomeConverged {
			decay(r)
			if err := b.Delete(keyWIP); err != nil {
				return err
			}
		}
		return b.Delete(keyLease)
	})
	a.finish()
	return err
}

// Release gives the PR up without ending the run, which stays resumable.
// It is a no-op after End.
func (a *Active) Release() error {
	a.stopHeartbeat()
	a.mu.Lock()
	done := a.done
	a.mu.Unlock()
	if done {
		return nil
	}
	err := a.write(func(b *bolt.Bucket, _ *Run) error { return b.Delete(keyLease) })
	a.finish()
	return err
}

func (a *Active) finish() {
	a.mu.Lock()
	a.done = true
	a.mu.Unlock()
}

func (a *Active) stopHeartbeat() {
	a.stopOnce.Do(func() { close(a.stop) })
	a.wg.Wait()
}

func (a *Active) heartbeat() {
	defer a.wg.Done()
	t := time.NewTicker(a.s.o.HeartbeatEvery)
	defer t.Stop()
	for {
		select {
		case <-a.stop:
			return
		case <-t.C:
			// A busy file only delays the beat; a lost lease ends it.
			if err := a.Heartbeat(); errors.Is(err, errLeaseLost) || errors.Is(err, errRunEnded) {
				return
			}
		}
	}
}

// write loads the run, checks the lease is ours, applies fn, refreshes the
// heartbeat and stores the run, all in one transaction.
func (a *Active) write(fn func(b *bolt.Bucket, r *Run) error) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return errRunEnded
	}
	var out Run
	err := a.s.update(func(prs *bolt.Bucket) error {
		b := prs.Bucket(keyBytes(a.key))
		var l Lease
		if b == nil {
			return fmt.Errorf("%s: %w (its state was cleared)", a.key, errLeaseLost)
		}
		if ok, err := get(b, keyLease, &l); err != nil {
			return err
		} else if !ok || l.Token != a.token {
			return fmt.Errorf("%s: %w", a.key, errLeaseLost)
		}
		runs := b.Bucket(bucketRuns)
		v := runs.Get(a.seq)
		if v == nil {
			return fmt.Errorf("%s: %w (its run was deleted)", a.key, errLeaseLost)
		}
		if err := unmarshal(v, &out); err != nil {
			return err
		}
		if err := fn(b, &out); err != nil {
			return err
		}
		if b.Get(keyLease) != nil {
			l.Heartbeat = a.s.o.Now()
			if err := put(b, keyLease, l); err != nil {
				return err
			}
		}
		if err := put(runs, a.seq, out); err != nil {
			return err
		}
		return writeSummary(a.key, b, out)
	})
	if err == nil {
		a.run = out
	}
	return err
}

func roundIndex(r *Run, n int) int {
	return slices.IndexFunc(r.Rounds, func(rd Round) bool { return rd.N == n })
}

// decay keeps what the next runs and the reader need (IDs, counts,
// consensus, summaries, URLs, usage, and the last round's findings: what
// the PR was left with, the basis of the next run's re-review) and drops
// the bulk.
func decay(r *Run) {
	for i := range r.Rounds {
		rd := &r.Rounds[i]
		if i < len(r.Rounds)-1 {
			rd.Findings, rd.Dismissed = nil, nil
		}
		for j := range rd.Reports {
			rd.Reports[j].Full = ""
		}
		for j := range rd.Verification {
			rd.Verification[j].Tail = ""
		}
	}
	r.Compacted = true
}

// addStuck merges a round's stuck IDs into the PR's stuck set, and its
// disputed IDs into the disputed set (dispute); the findings the round
// knew as dismissed leave the stuck set: a finding has one status.
func addStuck(b *bolt.Bucket, runID string, rd Round, now time.Time) error {
	if len(rd.StuckIDs) == 0 && len(rd.DisputedIDs) == 0 && len(rd.Dismissed) == 0 {
		return nil
	}
	var set []Stuck
	if _, err := get(b, keyStuck, &set); err != nil {
		return err
	}
	changed := false
	for _, id := range rd.StuckIDs {
		if !slices.ContainsFunc(set, func(s Stuck) bool { return s.ID == id }) && !slices.Contains(rd.DisputedIDs, id) {
			set, changed = append(set, Stuck{ID: id, RunID: runID, Round: rd.N, Since: now}), true
		}
	}
	n := len(set)
	set = slices.DeleteFunc(set, func(s Stuck) bool {
		return slices.ContainsFunc(rd.Dismissed, func(f finding.Finding) bool { return f.ID == s.ID })
	})
	if changed || len(set) != n {
		if err := put(b, keyStuck, set); err != nil {
			return err
		}
	}
	_, err := dispute(b, rd.DisputedIDs, now)
	return err
}

// dispute records ids in the PR's disputed set and takes them out of its
// stuck set: a finding is recorded in one status. changed says whether
// either set changed.
func dispute(b *bolt.Bucket, ids []string, now time.Time) (changed bool, err error) {
	if len(ids) == 0 {
		return false, nil
	}
	var stuck []Stuck
	var disputed []conceded
	if _, err := get(b, keyStuck, &stuck); err != nil {
		return false, err
	}
	if _, err := get(b, keyDisputed, &disputed); err != nil {
		return false, err
	}
	n := len(stuck)
	if stuck = slices.DeleteFunc(stuck, func(s Stuck) bool { return slices.Contains(ids, s.ID) }); len(stuck) != n {
		if err := put(b, keyStuck, stuck); err != nil {
			return false, err
		}
		changed = true
	}
	n = len(disputed)
	for _, id := range ids {
		if !slices.ContainsFunc(disputed, func(d conceded) bool { return d.ID == id }) {
			disputed = append(disputed, conceded{ID: id, Since: now})
		}
	}
	if len(disputed) != n {
		if err := put(b, keyDisputed, disputed); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

// trim keeps the newest keep runs of a PR, so its history stays bounded.
func trim(runs *bolt.Bucket, keep int) error {
	var keys [][]byte
	c := runs.Cursor()
	for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
		if keep > 0 {
			keep--
			continue
		}
		keys = append(keys, slices.Clone(k))
	}
	for _, k := range keys {
		if err := runs.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// writeSummary stores what `state show` lists for the PR, so listing all PRs
// never decodes their rounds: in the PR's bucket, and its row in the index
// (indexRow). last is the PR's newest run; b is key's bucket, as
// every other write in the transaction left it.
func writeSummary(key Key, b *bolt.Bucket, last Run) error {
	sum := summaryRecord{Runs: b.Bucket(bucketRuns).Stats().KeyN, Last: last, Rounds: len(last.Rounds)}
	sum.Last.Rounds = nil
	if err := put(b, keySummary, sum); err != nil {
		return err
	}
	return refreshRow(key, b)
}

// refreshRow writes key's row of the index from its bucket b, after a
// write that changed what state show lists of it (runs, stuck set, WIP).
func refreshRow(key Key, b *bolt.Bucket) error {
	row, err := rowOf(key, b)
	if err != nil {
		// A damaged record: no row, and the end of the transaction
		// rebuilds the index (not whole: List reads PR by PR and says so).
		if err := setRow(b.Tx(), keyBytes(key), nil); err != nil {
			return err
		}
		return b.Tx().Bucket(bucketMeta).Delete(keyIndexed)
	}
	ir := rowFor(row)
	return setRow(b.Tx(), keyBytes(key), &ir)
}

type summaryRecord struct {
	Runs   int `json:"runs"`
	Last   Run `json:"last"`
	Rounds int `json:"rounds"`
}
