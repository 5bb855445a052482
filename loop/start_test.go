package loop

import (
	"path/filepath"
	"testing"

	"github.com/ocdx/gh-ocdx/state"
)

// Every kind of run begins by start.begin; its rules are parameters: an
// interrupted run whose head moved is given up when the kind says so
// (review-loop, a local review), kept otherwise (a fix goes on at any
// head); an interrupted run is resumed unless a restart reason is given;
// a new run has its round 1 started at the head, a resumed one keeps its
// rounds.
func TestStartBegin(t *testing.T) {
	for _, tc := range []struct {
		name    string
		s       start
		resumed bool   // the interrupted run goes on
		gaveUp  bool   // given up because the head moved
		ended   string // how the interrupted run ended, when not resumed
		rounds  int    // rounds of the run begun
		at      string // the head of its round 1
	}{
		{name: "review-loop at the same head resumes", s: start{kind: Kind, head: "aaa", onHead: true}, resumed: true, rounds: 1, at: "aaa"},
		{name: "review-loop at a moved head starts again", s: start{kind: Kind, head: "bbb", onHead: true}, gaveUp: true, ended: string(state.OutcomeBlocked), rounds: 1, at: "bbb"},
		{name: "a local review starts over", s: start{kind: Kind, head: "aaa", onHead: true, restart: "starts over"}, ended: string(state.OutcomeAbandoned), rounds: 1, at: "aaa"},
		{name: "a continued fix goes on at a moved head", s: start{kind: Kind, head: "bbb"}, resumed: true, rounds: 1, at: "aaa"},
		{name: "a fix not continued is given up", s: start{kind: Kind, head: "bbb", restart: "restarted by the user"}, ended: string(state.OutcomeAbandoned), rounds: 1, at: "bbb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := state.New(filepath.Join(t.TempDir(), "state.db"), nil)
			key := state.NewKey("h", "o", "r", 7)
			first, _, err := start{kind: Kind, head: "aaa"}.begin(st, key)
			if err != nil {
				t.Fatal(err)
			}
			if err := first.Release(); err != nil { // as a killed process leaves it
				t.Fatal(err)
			}
			run, gaveUp, err := tc.s.begin(st, key)
			if err != nil {
				t.Fatal(err)
			}
			defer run.Release()
			if got := run.ID() == first.ID(); got != tc.resumed || run.Resumed() != tc.resumed {
				t.Fatalf("resumed the interrupted run: %v (Resumed %v), want %v", got, run.Resumed(), tc.resumed)
			}
			if (gaveUp != nil) != tc.gaveUp || (gaveUp != nil && gaveUp.ID != first.ID()) {
				t.Errorf("given up for its moved head: %+v, want %v", gaveUp, tc.gaveUp)
			}
			rec, err := st.PR(key)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.resumed && (len(rec.Runs) != 2 || string(rec.Runs[0].Outcome) != tc.ended) {
				t.Errorf("the interrupted run: %+v, want it ended %q and a new run", rec.Runs, tc.ended)
			}
			rds := run.Run().Rounds
			if len(rds) != tc.rounds || (tc.rounds > 0 && rds[0].HeadOID != tc.at) {
				t.Errorf("rounds %+v: want %d, round 1 at %q", rds, tc.rounds, tc.at)
			}
		})
	}
}
