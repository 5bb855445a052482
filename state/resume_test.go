package state

import (
	"testing"
	"time"
)

// mark is a round with phases ps recorded.
func mark(n int, head string, ps ...Phase) Round {
	rd := Round{N: n, HeadOID: head}
	for _, p := range ps {
		rd.Phases = append(rd.Phases, PhaseMark{Phase: p})
	}
	return rd
}

func TestWhichInterruptedRunStillDescribesThePR(t *testing.T) {
	pushing := mark(1, "aaa", PhaseReviewed, PhaseCommented, PhaseFixed, PhaseVerified, PhasePushing)
	pushing.Pushing = "bbb"
	for _, c := range []struct {
		name   string
		rounds []Round
		head   string
		want   bool
	}{
		{"no round yet", nil, "zzz", true},
		{"the head it reviewed", []Round{mark(1, "aaa", PhaseReviewed)}, "aaa", true},
		{"someone pushed", []Round{mark(1, "aaa", PhaseReviewed, PhaseCommented)}, "zzz", false},
		{"its own recorded push", []Round{mark(1, "aaa", PhaseReviewed, PhasePushed)}, "bbb", true},
		{"killed between its push and the record: its commit is the head", []Round{pushing}, "bbb", true},
		{"killed while pushing, and the push never landed", []Round{pushing}, "aaa", true},
		{"killed while pushing, and someone else pushed", []Round{pushing}, "zzz", false},
		{"the last round counts", []Round{mark(1, "aaa", phases...), mark(2, "bbb", PhaseReviewed)}, "aaa", false},
	} {
		if got := (Run{Rounds: c.rounds}).Describes(c.head); got != c.want {
			t.Errorf("%s: Describes(%s) = %v, want %v", c.name, c.head, got, c.want)
		}
	}
}

func TestNextRoundOfAResumedRun(t *testing.T) {
	pushedNoReport := mark(2, "b", PhaseReviewed, PhaseCommented, PhaseFixed, PhaseVerified, PhasePushing, PhasePushed)
	failedReported := mark(1, "a", PhaseReviewed, PhaseCommented, PhaseFixed, PhaseVerified, PhaseReported)
	for _, c := range []struct {
		name   string
		rounds []Round
		want   int
	}{
		{"no round", nil, 1},
		{"reviewed only", []Round{mark(1, "a", PhaseReviewed)}, 1},
		{"pushed, report missing: the report first", []Round{mark(1, "a", phases...), pushedNoReport}, 2},
		{"pushed and reported", []Round{mark(1, "a", phases...)}, 2},
		{"reported a failed verification, nothing pushed", []Round{failedReported}, 1},
	} {
		if got := (Run{Rounds: c.rounds}).NextRound(); got != c.want {
			t.Errorf("%s: NextRound = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestBeginOnResumesOrEndsTheInterruptedRun(t *testing.T) {
	c := newClock()
	s := newStore(t, &Options{Now: c.Now})
	a := must(s.Begin(prKey, "review-loop"))
	must(a.StartRound(1, "aaa"))
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}

	// The PR is still at the head it reviewed: the same run goes on.
	b, gaveUp, err := s.BeginOn(prKey, "review-loop", "aaa")
	if err != nil || !b.Resumed() || b.ID() != a.ID() || gaveUp != nil {
		t.Fatalf("same head: resumed=%v id=%s gaveUp=%v err=%v, want run %s resumed", b.Resumed(), b.ID(), gaveUp, err, a.ID())
	}
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}

	// Someone pushed: the run is ended, now, and a new one begins.
	c.Add(time.Hour)
	n, gaveUp, err := s.BeginOn(prKey, "review-loop", "zzz")
	if err != nil {
		t.Fatal(err)
	}
	defer n.Release()
	if n.Resumed() || n.ID() == a.ID() || gaveUp == nil || gaveUp.ID != a.ID() || gaveUp.Rounds[0].HeadOID != "aaa" {
		t.Fatalf("moved head: resumed=%v id=%s gaveUp=%+v", n.Resumed(), n.ID(), gaveUp)
	}
	pr := must(s.PR(prKey))
	old := pr.Runs[0]
	if old.Outcome != OutcomeBlocked || !old.Ended.Equal(c.Now()) || old.Reason != "interrupted; the PR head moved before it was resumed" {
		t.Errorf("the run given up: outcome %q, ended %v (now %v), reason %q", old.Outcome, old.Ended, c.Now(), old.Reason)
	}
}

func TestRestartAbandonsTheInterruptedFix(t *testing.T) {
	c := newClock()
	s := newStore(t, &Options{Now: c.Now})
	a := must(s.Begin(prKey, "fix"))
	if err := a.UpdateWIP(func(w *WIP) { w.Phase = "fixing" }); err != nil {
		t.Fatal(err)
	}
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	c.Add(time.Minute)
	r := must(s.Begin(prKey, "fix"))
	n, err := r.Restart("restarted by the user")
	if err != nil {
		t.Fatal(err)
	}
	defer n.Release()
	pr := must(s.PR(prKey))
	if n.Resumed() || n.ID() == a.ID() || pr.WIP != nil || len(pr.Runs) != 2 {
		t.Fatalf("restart: resumed=%v id=%s, WIP %+v, %d runs", n.Resumed(), n.ID(), pr.WIP, len(pr.Runs))
	}
	if old := pr.Runs[0]; old.Outcome != OutcomeAbandoned || old.Reason != "restarted by the user" || !old.Ended.Equal(c.Now()) {
		t.Errorf("the run given up: %+v", old)
	}

	// A run that was not resumed keeps going; only an older WIP goes.
	if err := n.UpdateWIP(func(w *WIP) { w.Phase = "old" }); err != nil {
		t.Fatal(err)
	}
	same, err := n.Restart("restarted by the user")
	if err != nil || same != n || must(s.PR(prKey)).WIP != nil {
		t.Errorf("fresh run: %v, same %v", err, same == n)
	}
}
