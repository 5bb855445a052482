package loop

import (
	"path/filepath"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/state"
)

// A fix begins by one path (gh ocdx fix, /ocdx fix): an interrupted fix the
// user continues keeps its run and work in progress; one not continued is
// given up for a new run, its work in progress dropped, the findings to fix
// recorded in the new run's round.
func TestBeginFix(t *testing.T) {
	st := state.New(filepath.Join(t.TempDir(), "state.db"), nil)
	key := state.NewKey("h", "o", "r", 7)
	p := finding.FixPayload{Round: 1, IssuesToFix: []finding.Finding{{ID: "OCDX-1", Priority: "P1", File: "a.go", Title: "t"}}}
	interrupt := func() string {
		t.Helper()
		run, err := BeginFix(st, key, "aaa", false, false, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := run.UpdateWIP(func(w *state.WIP) { w.FilesModified = []string{"a.go"} }); err != nil {
			t.Fatal(err)
		}
		if err := run.Release(); err != nil { // as a killed process leaves it
			t.Fatal(err)
		}
		return run.ID()
	}

	first := interrupt()
	run, err := BeginFix(st, key, "aaa", true, true, p)
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := st.PR(key)
	if run.ID() != first || rec.WIP == nil {
		t.Fatalf("continued: run %s (want %s), WIP %v: the interrupted fix must go on", run.ID(), first, rec.WIP)
	}
	if err := run.Release(); err != nil {
		t.Fatal(err)
	}

	run, err = BeginFix(st, key, "aaa", false, true, p)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Release()
	rec, _ = st.PR(key)
	if run.ID() == first || rec.WIP != nil {
		t.Fatalf("not continued: run %s, WIP %v: want a new run and no work in progress", run.ID(), rec.WIP)
	}
	if got := rec.Runs[0].Outcome; got != state.OutcomeAbandoned {
		t.Errorf("the given-up run ended %q, want %q", got, state.OutcomeAbandoned)
	}
	rd := run.Run().Rounds
	if len(rd) != 1 || rd[0].HeadOID != "aaa" || len(rd[0].FindingIDs) != 1 || rd[0].FindingIDs[0] != "OCDX-1" {
		t.Errorf("the new run's round is %+v: want round 1 at aaa with the finding to fix", rd)
	}
}
