package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/verify"
)

// Every field of a run the index row holds survives its encoding, so that
// state show and its --json say the same from the index as from the PRs'
// own records; a field added to Run and not to the codec fails here.
func TestIndexRowKeepsEveryFieldOfTheRun(t *testing.T) {
	var run Run
	v := reflect.ValueOf(&run).Elem()
	at := time.Date(2026, 11, 25, 17, 14, 3, 5, time.FixedZone("CET", 3600))
	for i := range v.NumField() {
		f := v.Field(i)
		switch name := v.Type().Field(i).Name; {
		case name == "Rounds": // never in a row
		case f.Type() == reflect.TypeOf(time.Time{}):
			f.Set(reflect.ValueOf(at.Add(time.Duration(i) * time.Hour)))
		case f.Kind() == reflect.String:
			f.SetString("value of " + name)
		case f.Kind() == reflect.Int:
			f.SetInt(int64(i + 1))
		case f.Kind() == reflect.Bool:
			f.SetBool(true)
		default:
			t.Fatalf("Run.%s is a %s: teach the index row (encodeRows) to keep it", name, f.Type())
		}
	}
	rows := []indexRow{{Key: "github.com/o/r#1", Runs: 3, Rounds: 2, Stuck: 1, WIP: "fixing", Leased: true, Last: &run}, {Key: "local/x@main"}}
	got, err := decodeRows(encodeRows(rows))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(rows)
	have, _ := json.Marshal(got)
	if string(want) != string(have) {
		t.Errorf("rows changed in the index:\n%s\nwant\n%s", have, want)
	}
	for _, bad := range [][]byte{nil, {9}, encodeRows(rows)[:20]} {
		if _, err := decodeRows(bad); err == nil {
			t.Errorf("%q decoded", bad)
		}
	}
}

// listByPR is List as it reads a file whose index is not whole: PR by PR.
func listByPR(t testing.TB, s *Store) []Summary {
	t.Helper()
	db, err := bolt.Open(s.Path(), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Delete(keyIndexed) })
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func jsonOf(v any) string { b, _ := json.MarshalIndent(v, "", " "); return string(b) }

// state show lists from the index what the PRs' own records say: after
// every kind of write, a Clear, and a write by a gh-ocdx that does not
// keep the index (an older one), which the next write repairs.
func TestListFromTheIndexIsListPRByPR(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), "state.db"), &Options{HeartbeatEvery: time.Hour})
	key := func(i int) Key { return NewKey("github.com", "o", "r", i) }
	for i := 1; i <= 5; i++ {
		a, err := s.Begin(key(i), "review-loop")
		if err != nil {
			t.Fatal(err)
		}
		a.StartRound(1, "abc")
		a.Complete(1, PhaseReviewed, func(r *Round) { r.StuckIDs = []string{"SEC-1"}[:i%2] })
		if i%3 == 0 {
			a.UpdateWIP(func(w *WIP) { w.Phase = "fixing" })
		}
		if i < 4 {
			a.End(OutcomeBlocked, "max rounds")
		} // 4 and 5 stay leased
	}
	if _, err := s.Begin(Key{Local: "github.com/o/r", Branch: "topic"}, "review"); err != nil {
		t.Fatal(err)
	}
	if err := s.Clear(key(2)); err != nil {
		t.Fatal(err)
	}
	fast, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if slow := listByPR(t, s); jsonOf(fast) != jsonOf(slow) || len(fast) != 5 {
		t.Fatalf("the index lists\n%s\nthe PRs say\n%s", jsonOf(fast), jsonOf(slow))
	}

	// A write that does not keep the index: PR 3 forgotten, as an older
	// gh-ocdx's Clear does.
	db, err := bolt.Open(s.Path(), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketPRs).DeleteBucket(keyBytes(key(3))) })
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.List()
	if err != nil || len(list) != 4 || slices.ContainsFunc(list, func(x Summary) bool { return x.Key == key(3) }) {
		t.Fatalf("after a write that did not keep the index: %v\n%s", err, jsonOf(list))
	}
	if _, err := s.Begin(key(6), "fix"); err != nil { // the next write rebuilds it
		t.Fatal(err)
	}
	db, _ = bolt.Open(s.Path(), 0o600, &bolt.Options{ReadOnly: true})
	whole := db.View(func(tx *bolt.Tx) error {
		if !indexed(tx) {
			return errors.New("not whole")
		}
		return nil
	})
	db.Close()
	fast, _ = s.List()
	if slow := listByPR(t, s); whole != nil || jsonOf(fast) != jsonOf(slow) || len(fast) != 5 {
		t.Fatalf("after the repair (%v): the index lists\n%s\nthe PRs say\n%s", whole, jsonOf(fast), jsonOf(slow))
	}
}

// BenchmarkList10000PRs is what `state show` reads of 10,000 PRs × 3
// rounds (runs ended blocked, kept in full: a 450 MB file), from the index
// and, for comparison, PR by PR as before the index (and as a file an
// older gh-ocdx wrote last is read). The file is written in one
// transaction by the functions every write uses, since 80,000
// transactions with their fsyncs would take minutes.
//
//	go test -run '^$' -bench List10000PRs -benchmem ./state/
func BenchmarkList10000PRs(b *testing.B) {
	s := New(filepath.Join(b.TempDir(), "state.db"), nil)
	write10000PRs(b, s)
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			if list, err := s.List(); err != nil || len(list) != 10000 {
				b.Fatal(len(list), err)
			}
		}
	})
	listByPR(b, s)
	b.Run("pr-by-pr", func(b *testing.B) {
		for b.Loop() {
			if list, err := s.List(); err != nil || len(list) != 10000 {
				b.Fatal(len(list), err)
			}
		}
	})
}

// write10000PRs fills s with 10,000 PRs × 3 rounds in one transaction.
func write10000PRs(b testing.TB, s *Store) {
	findings := []finding.Finding{{ID: "QUAL-1b2c3d4e", Priority: "P1", Title: "a finding", Description: strings.Repeat("a finding with its description and suggestion. ", 100)}}
	full := strings.Repeat("a reviewer's full Markdown report. ", 60)
	start := time.Now()
	err := s.update(func(prs *bolt.Bucket) error {
		now := time.Now()
		for i := range 10000 {
			key := NewKey("github.com", "owner", fmt.Sprint("repo", i%10), i+1)
			b, err := prs.CreateBucket(keyBytes(key))
			if err != nil {
				return err
			}
			runs, err := b.CreateBucket(bucketRuns)
			if err != nil {
				return err
			}
			r := Run{ID: newRunID(now), Kind: "review-loop", Started: now, Ended: now, Outcome: OutcomeBlocked, Reason: "max rounds"}
			for n := 1; n <= 3; n++ {
				rd := Round{N: n, HeadOID: "0123456789abcdef0123456789abcdef01234567", Started: now, Findings: findings,
					FindingIDs: []string{"SEC-0a1b2c3d", "QUAL-1b2c3d4e", "TEST-2c3d4e5f"}, Counts: finding.Counts{P1: 1, P2: 2, P3: 3},
					Consensus: "request_changes", Verification: []verify.Result{{Command: "dx lint", OK: true, Tail: full[:1000]}}}
				for k := range 3 {
					rd.Reports = append(rd.Reports, Report{Role: fmt.Sprint("reviewer-", k+1), Summary: "1 P1, 2 P2", Full: full})
				}
				r.Rounds = append(r.Rounds, rd)
			}
			if err := put(runs, seqKey(1), r); err != nil {
				return err
			}
			if err := writeSummary(key, b, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(s.Path())
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("wrote 10,000 PRs × 3 rounds in %s: %d MB", time.Since(start).Round(time.Millisecond), fi.Size()>>20)
}

// What state show lists follows every write that changes it: an adoption
// of a run the file knows that adds stuck findings, and a dismissal of a
// branch never reviewed here.
func TestTheIndexFollowsAdoptionsAndDismissals(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), "state.db"), nil)
	key := NewKey("github.com", "o", "r", 7)
	adopt := func(round int, stuck ...string) {
		if _, err := s.Adopt(key, Adoption{RunID: "20261125T000000-abcdef", Kind: "review-loop", Round: round, Head: "aaaaaaaa", Stuck: stuck, Source: "from PR comment u"}); err != nil {
			t.Fatal(err)
		}
	}
	adopt(2, "SEC-00000001")
	adopt(1, "SEC-00000001", "QUAL-00000002") // the run is known up to round 2: only its stuck set grows
	branch := LocalKey("github.com/o/r", "feature")
	if _, err := s.Dismiss(branch, []string{"QUAL-00000003"}, "me"); err != nil {
		t.Fatal(err)
	}
	rec, err := s.PR(key)
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var stuck int
	var listed bool
	for _, sum := range list {
		if sum.Key == key {
			stuck = sum.Stuck
		}
		listed = listed || sum.Key == branch
	}
	if stuck != len(rec.Stuck) || stuck != 2 {
		t.Errorf("state show lists %d stuck, the PR's record %d", stuck, len(rec.Stuck))
	}
	if !listed {
		t.Error("a branch dismissed before any review is not listed")
	}
}
