package state

import (
	"path/filepath"
	"testing"
)

// A ledger's run is recorded once, with where it came from; its stuck IDs
// join the PR's stuck set; a run the file knows up to that round is left
// alone.
func TestAdoptRecordsARunFromElsewhereOnce(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), "state.db"), nil)
	key := NewKey("github.com", "octo", "widgets", 7)
	a := Adoption{RunID: "20261124T101112-a1b2c3", Kind: "review-loop", Round: 2, Head: "916a9a4", Stuck: []string{"SEC-b0bf205b"},
		Source: "from PR comment https://github.com/octo/widgets/pull/7#issuecomment-1"}
	for i, want := range []bool{true, false} {
		got, err := s.Adopt(key, a)
		if err != nil || got != want {
			t.Fatalf("adoption %d: %v, %v; want %v", i+1, got, err, want)
		}
	}
	pr, err := s.PR(key)
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Runs) != 1 || pr.Runs[0].Source != a.Source || pr.Runs[0].Outcome != OutcomeElsewhere || pr.Runs[0].Rounds[0].HeadOID != "916a9a4" {
		t.Errorf("runs: %+v", pr.Runs)
	}
	if len(pr.Stuck) != 1 || pr.Stuck[0].ID != "SEC-b0bf205b" {
		t.Errorf("stuck: %+v", pr.Stuck)
	}
	// A later round of the same run is recorded too.
	a.Round = 3
	if got, err := s.Adopt(key, a); err != nil || !got {
		t.Errorf("round 3: %v, %v", got, err)
	}
	if pr, _ := s.PR(key); len(pr.Runs) != 1 || pr.Runs[0].Rounds[0].N != 3 {
		t.Errorf("round 3 replaces round 2's record: %+v", pr.Runs)
	}
	// A new run begins after it, not resuming it.
	run, err := s.Begin(key, "review-loop")
	if err != nil {
		t.Fatal(err)
	}
	defer run.Release()
	if run.Resumed() {
		t.Error("a run from elsewhere was resumed")
	}
}

// review-pr's run, or one adopted from a ledger, is recorded after the PR's
// runs; an interrupted run stays the last, and the next run of its kind
// resumes it.
func TestRecordKeepsAnInterruptedRunToResume(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), "state.db"), nil)
	key := NewKey("github.com", "octo", "widgets", 7)
	run, err := s.Begin(key, "review-loop")
	if err != nil {
		t.Fatal(err)
	}
	loopID := run.ID()
	if err := run.Release(); err != nil { // killed: resumable
		t.Fatal(err)
	}
	posted := Run{ID: "20261124T101112-a1b2c3", Kind: "review-pr", Outcome: OutcomeConverged, Rounds: []Round{{N: 1, HeadOID: "916a9a4"}}}
	if err := s.Record(key, posted); err != nil {
		t.Fatal(err)
	}
	pr, err := s.PR(key)
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Runs) != 2 || pr.Runs[0].ID != posted.ID || pr.Runs[1].ID != loopID {
		t.Fatalf("runs %+v, want review-pr's, then the interrupted loop", pr.Runs)
	}
	if list, err := s.List(); err != nil || len(list) != 1 || list[0].Last.ID != loopID {
		t.Errorf("state show's last run: %+v, %v; want the interrupted %s", list, err, loopID)
	}
	// So does a run adopted from a ledger.
	if ok, err := s.Adopt(key, Adoption{RunID: "20261124T111111-c0ffee", Kind: "review-loop", Round: 1, Head: "916a9a4"}); err != nil || !ok {
		t.Fatalf("adopt: %v, %v", ok, err)
	}
	again, err := s.Begin(key, "review-loop")
	if err != nil {
		t.Fatal(err)
	}
	defer again.Release()
	if !again.Resumed() || again.ID() != loopID {
		t.Errorf("the interrupted run was not resumed (resumed %t, run %s)", again.Resumed(), again.ID())
	}
	// With nothing interrupted, a record is the newest run.
	if err := again.End(OutcomeBlocked, "done"); err != nil {
		t.Fatal(err)
	}
	posted.ID = "20261124T121212-d4e5f6"
	if err := s.Record(key, posted); err != nil {
		t.Fatal(err)
	}
	if pr, _ := s.PR(key); pr.Runs[len(pr.Runs)-1].ID != posted.ID {
		t.Errorf("runs %+v, want the record last", pr.Runs)
	}
}
