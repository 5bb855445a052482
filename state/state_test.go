package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/verify"

	bolt "go.etcd.io/bbolt"
)

var prKey = NewKey("github.com", "Owner", "Repo", 7)

func newStore(t testing.TB, o *Options) *Store {
	t.Helper()
	return New(filepath.Join(t.TempDir(), "state", "state.db"), o)
}

// must returns v, and panics (failing the test) on an error that only a
// broken setup could cause.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// lockFile holds the file's lock the way a writing gh-ocdx does, until the
// returned function is called.
func lockFile(t *testing.T, path string) func() {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return func() { _ = db.Close() }
}

func TestPath(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"OCDX_STATE_DIR": "/s", "XDG_STATE_HOME": "/x", "HOME": "/h"}, "/s/state.db"},
		{map[string]string{"XDG_STATE_HOME": "/x", "HOME": "/h"}, "/x/gh-ocdx/state.db"},
		{map[string]string{"XDG_STATE_HOME": "relative", "HOME": "/h"}, "/h/.local/state/gh-ocdx/state.db"},
		{map[string]string{"HOME": "/h"}, "/h/.local/state/gh-ocdx/state.db"},
	}
	for _, tt := range tests {
		got, err := Path(func(k string) string { return tt.env[k] })
		if err != nil || got != tt.want {
			t.Errorf("Path(%v) = %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
	if _, err := Path(func(string) string { return "" }); !errors.Is(err, errNoPath) {
		t.Errorf("Path with empty environment: %v, want errNoPath", err)
	}
}

func TestKeyIsCanonical(t *testing.T) {
	if got := prKey.String(); got != "github.com/owner/repo#7" {
		t.Errorf("key %q", got)
	}
	k, err := ParseKey("GHE.example.com:8443/A/B#12")
	if err != nil || k != NewKey("ghe.example.com:8443", "a", "b", 12) {
		t.Errorf("ParseKey = %v, %v", k, err)
	}
	for _, bad := range []string{"", "a/b#1", "h/a/b#0", "h/a/b#x", "h//b#1", "h/a/b/c#1"} {
		if _, err := ParseKey(bad); err == nil {
			t.Errorf("ParseKey(%q) succeeded", bad)
		}
	}
}

// A local review's runs live under the branch, listed beside the PRs, and
// its stuck findings are the branch's.
func TestLocalKeyRecordsABranch(t *testing.T) {
	k := LocalKey("github.com/owner/repo", "feature/a@b")
	if got := k.String(); got != "local/github.com/owner/repo@feature/a@b" {
		t.Errorf("local key %q", got)
	}
	if p, err := ParseKey(k.String()); err != nil || p != k {
		t.Errorf("ParseKey(%q) = %v, %v", k, p, err)
	}
	if got := LocalKey("/home/me/x@y", "main").String(); got != "local//home/me/x%40y@main" {
		t.Errorf("a directory with an @: %q", got)
	}
	s := newStore(t, nil)
	a := must(s.Begin(k, "review"))
	must(a.StartRound(1, "abc"))
	if err := a.Complete(1, PhaseReviewed, func(rd *Round) { rd.StuckIDs = []string{"QUAL-12345678"} }); err != nil {
		t.Fatal(err)
	}
	if err := a.End(OutcomeBlocked, "P1 findings"); err != nil {
		t.Fatal(err)
	}
	list := must(s.List())
	if len(list) != 1 || list[0].Key != k || list[0].Runs != 1 || list[0].Stuck != 1 {
		t.Errorf("List = %+v", list)
	}
	pr := must(s.PR(k))
	if len(pr.Stuck) != 1 || pr.Stuck[0].ID != "QUAL-12345678" {
		t.Errorf("stuck = %+v", pr.Stuck)
	}
}

func TestReadingAMissingFileCreatesNothing(t *testing.T) {
	s := newStore(t, nil)
	list, err := s.List()
	if err != nil || len(list) != 0 {
		t.Fatalf("List = %v, %v", list, err)
	}
	if _, err := s.PR(prKey); !errors.Is(err, ErrNotFound) {
		t.Fatalf("PR = %v, want ErrNotFound", err)
	}
	if _, err := os.Stat(filepath.Dir(s.Path())); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("reading created %s: %v", filepath.Dir(s.Path()), err)
	}
}

func TestBusyFileFailsAfterTimeout(t *testing.T) {
	s := newStore(t, &Options{Timeout: 100 * time.Millisecond})
	a := must(s.Begin(prKey, "review-loop"))
	if err := a.End(OutcomeConverged, ""); err != nil {
		t.Fatal(err)
	}
	unlock := lockFile(t, s.Path())
	defer unlock()
	start := time.Now()
	_, err := s.List()
	if !errors.Is(err, errBusy) || !strings.Contains(err.Error(), s.Path()) {
		t.Fatalf("List on a locked file: %v, want errBusy naming the file", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("gave up after %s, want about the 100ms timeout", d)
	}
}

func TestTwoProcessesWriteTheSameFile(t *testing.T) {
	s := newStore(t, nil)
	a := must(s.Begin(prKey, "review-loop")) // create the file
	if err := a.End(OutcomeFailed, "setup"); err != nil {
		t.Fatal(err)
	}
	unlock := lockFile(t, s.Path())
	start := time.Now()
	c1 := startHelper(t, "write", s.Path(), NewKey("github.com", "o", "one", 1))
	c2 := startHelper(t, "write", s.Path(), NewKey("github.com", "o", "two", 1))
	time.Sleep(300 * time.Millisecond) // both are now waiting for the lock
	unlock()
	for _, c := range []*child{c1, c2} {
		if l := c.line(t); l != "done" {
			t.Fatalf("helper said %q", l)
		}
		if err := c.cmd.Wait(); err != nil {
			t.Fatalf("helper failed: %v", err)
		}
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Fatalf("helpers finished in %s, before the lock was released", d)
	}
	list := must(s.List())
	if len(list) != 11 {
		t.Fatalf("%d PRs recorded, want 11", len(list))
	}
	for _, sum := range list {
		if sum.Key == prKey {
			continue
		}
		if sum.Runs != 1 || sum.Last.Outcome != OutcomeBlocked || sum.Rounds != 1 || sum.Lease != nil {
			t.Errorf("%s: %+v", sum.Key, sum)
		}
	}
}

func TestLeaseAcrossProcesses(t *testing.T) {
	s := newStore(t, &Options{Timeout: 5 * time.Second})
	holder := startHelper(t, "hold", s.Path(), prKey)
	runID := runIDOf(holder.line(t))

	// state show answers while the other process's run goes on.
	start := time.Now()
	list := must(s.List())
	if d := time.Since(start); d > time.Second {
		t.Errorf("List took %s while a run held the PR", d)
	}
	if len(list) != 1 || list[0].Lease == nil || list[0].Lease.PID != holder.cmd.Process.Pid || list[0].Last.ID != runID {
		t.Fatalf("List = %+v, want the holder's lease", list)
	}

	// A second run on the same PR fails at once, naming the holder.
	_, err := s.Begin(prKey, "review-loop")
	var le *leaseError
	if !errors.As(err, &le) || !errors.Is(err, ErrLeaseHeld) || le.Holder.PID != holder.cmd.Process.Pid {
		t.Fatalf("Begin on a held PR: %v", err)
	}
	for _, want := range []string{prKey.String(), runID, "pid " + itoa(holder.cmd.Process.Pid)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("lease error %q does not name %q", err, want)
		}
	}
	if err := s.Clear(prKey); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("Clear of a held PR: %v", err)
	}

	// Another PR proceeds side by side.
	other := must(s.Begin(NewKey("github.com", "owner", "repo", 8), "review-loop"))
	if err := other.End(OutcomeConverged, ""); err != nil {
		t.Fatal(err)
	}

	// Once the holder is killed, its lease is taken over and its run resumed
	// where it stopped: the review was posted, the fix not started.
	holder.kill(t)
	a := must(s.Begin(prKey, "review-loop"))
	defer a.Release()
	if !a.Resumed() || a.ID() != runID {
		t.Fatalf("Begin after the holder died: resumed=%v id=%s, want run %s resumed", a.Resumed(), a.ID(), runID)
	}
	rd := must(a.StartRound(1, "abc"))
	if !rd.Done(PhaseReviewed) || !rd.Done(PhaseCommented) || rd.Done(PhaseFixed) || len(rd.Comments) != 1 {
		t.Fatalf("resumed round: %+v", rd)
	}
	if err := a.Complete(1, PhaseFixed, func(r *Round) { r.Pushing = "def" }); err != nil {
		t.Fatal(err)
	}
	if got := a.Run().Resumes; got != 1 {
		t.Errorf("Resumes = %d", got)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestKilledMidWriteLeavesConsistentRecord(t *testing.T) {
	s := newStore(t, &Options{Timeout: 5 * time.Second})
	c := startHelper(t, "churn", s.Path(), prKey)
	runID := runIDOf(c.line(t))
	time.Sleep(400 * time.Millisecond)
	c.kill(t)

	db, err := bolt.Open(s.Path(), 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	}); err != nil {
		t.Fatalf("file damaged: %v", err)
	}
	db.Close()

	a := must(s.Begin(prKey, "review-loop"))
	defer a.Release()
	run := a.Run()
	if a.ID() != runID || len(run.Rounds) == 0 {
		t.Fatalf("resumed %s with %d rounds, want %s", a.ID(), len(run.Rounds), runID)
	}
	all := []Phase{PhaseReviewed, PhaseCommented, PhaseFixed, PhaseVerified, PhasePushed}
	for i, rd := range run.Rounds {
		// phases are recorded in order, each with its data, none half-written.
		if len(rd.FindingIDs) != len(rd.Phases) {
			t.Fatalf("round %d: %d phases but %d finding IDs", rd.N, len(rd.Phases), len(rd.FindingIDs))
		}
		for j, m := range rd.Phases {
			if m.Phase != all[j] {
				t.Fatalf("round %d: phase %d is %s", rd.N, j, m.Phase)
			}
		}
		if i < len(run.Rounds)-1 && len(rd.Phases) != len(all) {
			t.Fatalf("round %d is incomplete but round %d started", rd.N, rd.N+1)
		}
	}
	t.Logf("killed after %d rounds", len(run.Rounds))
}

// clock is a test's Options.Now, moved by hand instead of sleeping.
type clock struct {
	mu    sync.Mutex
	now   time.Time
	reads int
}

func newClock() *clock { return &clock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	return c.now
}

// Add moves the clock on by d and returns how often it had been read.
func (c *clock) Add(d time.Duration) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.reads
}

// readSince waits until the clock is read after the Add that returned n.
func (c *clock) readSince(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		c.mu.Lock()
		read := c.reads > n
		c.mu.Unlock()
		if read {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the clock was not read within 5s")
		}
	}
}

func TestStaleHeartbeatIsTakenOver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	clk := newClock()
	// A run on another machine: its pid cannot be checked from here.
	there := New(path, &Options{Hostname: "elsewhere", HeartbeatEvery: time.Hour, Now: clk.Now})
	here := New(path, &Options{Hostname: "here", StaleAfter: 200 * time.Millisecond, Now: clk.Now})

	a := must(there.Begin(prKey, "fix"))
	if _, err := here.Begin(prKey, "fix"); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("Begin on a fresh remote lease: %v", err)
	}
	clk.Add(250 * time.Millisecond)
	b := must(here.Begin(prKey, "fix"))
	if b.ID() != a.ID() {
		t.Errorf("took over as run %s, want run %s resumed", b.ID(), a.ID())
	}
	if err := a.UpdateWIP(func(w *WIP) { w.Phase = "late" }); !errors.Is(err, errLeaseLost) {
		t.Fatalf("write by the run that lost its lease: %v", err)
	}
	if err := b.End(OutcomeBlocked, "verification failed"); err != nil {
		t.Fatal(err)
	}
}

func TestHeartbeatKeepsTheLease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	clk := newClock()
	there := New(path, &Options{Hostname: "elsewhere", HeartbeatEvery: 20 * time.Millisecond, Now: clk.Now})
	here := New(path, &Options{Hostname: "here", StaleAfter: 150 * time.Millisecond, Now: clk.Now})
	a := must(there.Begin(prKey, "review-loop"))
	defer a.Release()
	// 400 ms pass in steps of 100, each followed by a beat of the holder's
	// own ticker (the only reader of the clock meanwhile).
	for range 4 {
		clk.readSince(t, clk.Add(100*time.Millisecond))
	}
	if _, err := here.Begin(prKey, "review-loop"); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("Begin while the holder beats: %v", err)
	}
}

func fullRound(a *Active, n int) error {
	if _, err := a.StartRound(n, "oid"); err != nil {
		return err
	}
	return a.Complete(n, PhaseVerified, func(r *Round) {
		r.Findings = []finding.Finding{{ID: "SEC-1", Description: strings.Repeat("x", 1000)}}
		r.FindingIDs = []string{"SEC-1"}
		r.Counts = finding.Counts{P0: 1}
		r.Consensus = "needs_major_work"
		r.Reports = []Report{{Role: "reviewer-1", Summary: "one blocker", Full: "# Report\n" + strings.Repeat("y", 1000)}}
		r.Verification = []verify.Result{{Command: "dx lint", OK: true, Tail: "lint ok"}}
		r.Usage = []Usage{{Role: "reviewer-1", Usage: tokens.Usage{Input: 100, Output: 10}}}
		r.Comments = []Comment{{Kind: "review", Tag: "t", URL: "u"}}
	})
}

func TestDecayOnSuccessOnly(t *testing.T) {
	s := newStore(t, nil)
	for _, o := range []RunOutcome{OutcomeFailed, OutcomeBlocked, OutcomeConverged} {
		a := must(s.Begin(prKey, "review-loop"))
		if err := fullRound(a, 1); err != nil {
			t.Fatal(err)
		}
		if o == OutcomeConverged {
			if err := fullRound(a, 2); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.UpdateWIP(func(w *WIP) { w.Phase = "testing"; w.NextStep = "fix the test" }); err != nil {
			t.Fatal(err)
		}
		if err := a.End(o, string(o)); err != nil {
			t.Fatal(err)
		}
		if err := a.Heartbeat(); !errors.Is(err, errRunEnded) {
			t.Fatalf("write after End: %v", err)
		}
	}
	pr := must(s.PR(prKey))
	if len(pr.Runs) != 3 || pr.Lease != nil || pr.WIP != nil {
		t.Fatalf("PR = %+v", pr)
	}
	for _, r := range pr.Runs[:2] {
		rd := r.Rounds[0]
		if r.Compacted || rd.Findings == nil || rd.Reports[0].Full == "" || rd.Verification[0].Tail == "" {
			t.Errorf("%s run lost details: %+v", r.Outcome, r)
		}
	}
	conv := pr.Runs[2]
	rd := conv.Rounds[0]
	if !conv.Compacted || rd.Findings != nil || rd.Reports[0].Full != "" || rd.Verification[0].Tail != "" {
		t.Errorf("converged run kept its full reports: %+v", rd)
	}
	// The last round's findings are what the PR was left with: the next
	// run's re-review starts from them.
	if last := conv.Rounds[1]; len(last.Findings) != 1 || last.Reports[0].Full != "" {
		t.Errorf("converged run's last round: findings %v, full report %q", last.Findings, last.Reports[0].Full)
	}
	if rd.Reports[0].Summary != "one blocker" || rd.FindingIDs[0] != "SEC-1" || rd.Consensus == "" || rd.Usage[0].Input != 100 || rd.Comments[0].URL != "u" || !rd.Done(PhaseVerified) {
		t.Errorf("converged run lost its summary: %+v", rd)
	}
}

func TestStuckSetSurvivesRunsUntilCleared(t *testing.T) {
	s := newStore(t, nil)
	a := must(s.Begin(prKey, "review-loop"))
	must(a.StartRound(1, "a"))
	must(a.StartRound(2, "b"))
	if err := a.UpdateRound(2, func(r *Round) { r.StuckIDs = []string{"SEC-1", "PERF-2"} }); err != nil {
		t.Fatal(err)
	}
	if err := a.Complete(3, PhaseReviewed, nil); !errors.Is(err, errNoRound) {
		t.Fatalf("Complete of a round not started: %v", err)
	}
	if _, err := a.StartRound(2, "c"); err != nil {
		t.Fatal(err) // an existing round is returned, not an error
	}
	if _, err := a.StartRound(1, "c"); err != nil {
		t.Fatal(err)
	}
	if err := a.End(OutcomeConverged, ""); err != nil {
		t.Fatal(err)
	}
	b := must(s.Begin(prKey, "review-loop"))
	must(b.StartRound(1, "d"))
	if err := b.UpdateRound(1, func(r *Round) { r.StuckIDs = []string{"SEC-1", "DOCS-3"} }); err != nil {
		t.Fatal(err)
	}
	if err := b.End(OutcomeBlocked, "stuck findings"); err != nil {
		t.Fatal(err)
	}
	pr := must(s.PR(prKey))
	var ids []string
	for _, st := range pr.Stuck {
		ids = append(ids, st.ID)
	}
	if strings.Join(ids, ",") != "SEC-1,PERF-2,DOCS-3" || pr.Stuck[0].RunID != a.ID() || pr.Stuck[0].Round != 2 {
		t.Fatalf("stuck set %+v", pr.Stuck)
	}
	if err := s.Clear(prKey); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PR(prKey); !errors.Is(err, ErrNotFound) {
		t.Fatalf("PR after Clear: %v", err)
	}
	if err := s.Clear(prKey); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Clear: %v", err)
	}
}

// A finding gh-ocdx conceded is disputed, not stuck: a round recording it
// disputed takes it out of the PR's stuck set, and a round naming it both
// records it disputed only.
func TestADisputedFindingLeavesTheStuckSet(t *testing.T) {
	s := newStore(t, nil)
	a := must(s.Begin(prKey, "review-loop"))
	must(a.StartRound(1, "a"))
	if err := a.UpdateRound(1, func(r *Round) { r.StuckIDs = []string{"QUAL-1", "PERF-2"} }); err != nil {
		t.Fatal(err)
	}
	must(a.StartRound(2, "b"))
	if err := a.UpdateRound(2, func(r *Round) { r.StuckIDs, r.DisputedIDs = []string{"DOCS-3"}, []string{"QUAL-1", "DOCS-3"} }); err != nil {
		t.Fatal(err)
	}
	pr := must(s.PR(prKey))
	if len(pr.Stuck) != 1 || pr.Stuck[0].ID != "PERF-2" || len(pr.Disputed) != 2 || pr.Disputed[0].ID != "QUAL-1" || pr.Disputed[1].ID != "DOCS-3" {
		t.Fatalf("stuck set %+v, disputed %+v; want PERF-2 stuck, QUAL-1 and DOCS-3 disputed", pr.Stuck, pr.Disputed)
	}
	// gh ocdx reply's concession, between runs.
	if err := s.Dispute(prKey, []string{"PERF-2", "QUAL-1"}); err != nil {
		t.Fatal(err)
	}
	pr = must(s.PR(prKey))
	if len(pr.Stuck) != 0 || len(pr.Disputed) != 3 {
		t.Fatalf("after Dispute: stuck %+v, disputed %+v", pr.Stuck, pr.Disputed)
	}
	if rows := must(s.List()); len(rows) != 1 || rows[0].Stuck != 0 {
		t.Errorf("state show's row counts %+v", rows)
	}
	// A PR this machine has no record of gets none.
	other := NewKey("github.com", "o", "r", 99)
	if err := s.Dispute(other, []string{"QUAL-1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PR(other); !errors.Is(err, ErrNotFound) {
		t.Errorf("Dispute made a record: %v", err)
	}
}

// A finding someone dismissed leaves the PR's stuck set when a round
// records it dismissed: stuck and dismissed at once would be two statuses.
func TestADismissedFindingLeavesTheStuckSet(t *testing.T) {
	s := newStore(t, nil)
	a := must(s.Begin(prKey, "review-loop"))
	must(a.StartRound(1, "a"))
	if err := a.UpdateRound(1, func(r *Round) { r.StuckIDs = []string{"QUAL-1", "PERF-2"} }); err != nil {
		t.Fatal(err)
	}
	must(a.StartRound(2, "b"))
	if err := a.UpdateRound(2, func(r *Round) { r.Dismissed = []finding.Finding{{ID: "QUAL-1"}} }); err != nil {
		t.Fatal(err)
	}
	pr := must(s.PR(prKey))
	if len(pr.Stuck) != 1 || pr.Stuck[0].ID != "PERF-2" {
		t.Fatalf("stuck set %+v, want PERF-2 alone", pr.Stuck)
	}
	if rows := must(s.List()); len(rows) != 1 || rows[0].Stuck != 1 {
		t.Errorf("state show's row counts %+v", rows)
	}
}

func TestInterruptedRunOfAnotherKindIsAbandoned(t *testing.T) {
	s := newStore(t, nil)
	a := must(s.Begin(prKey, "review-loop"))
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	f := must(s.Begin(prKey, "fix"))
	if f.Resumed() || f.ID() == a.ID() {
		t.Fatal("a fix run resumed a review-loop run")
	}
	if err := f.Release(); err != nil {
		t.Fatal(err)
	}
	pr := must(s.PR(prKey))
	if len(pr.Runs) != 2 || pr.Runs[0].Outcome != OutcomeAbandoned || pr.Runs[1].Outcome != "" {
		t.Fatalf("runs %+v", pr.Runs)
	}
}

func TestHistoryIsBoundedAndTheFileShrinks(t *testing.T) {
	s := newStore(t, &Options{KeepRuns: 2, CompactAbove: 32 << 10})
	big := []finding.Finding{{Description: strings.Repeat("z", 20<<10)}}
	run := func(o RunOutcome) {
		a := must(s.Begin(prKey, "review-loop"))
		for n := 1; n <= 3; n++ {
			must(a.StartRound(n, "oid"))
			if err := a.Complete(n, PhaseReviewed, func(r *Round) { r.Findings = big }); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.End(o, ""); err != nil {
			t.Fatal(err)
		}
	}
	size := func() int64 { return must(os.Stat(s.Path())).Size() }
	var peak int64
	for range 8 {
		run(OutcomeFailed) // kept in full, but only the newest 2 runs
		peak = max(peak, size())
	}
	if peak > 1<<20 {
		t.Errorf("file grew to %d bytes for 2 kept runs of 60KB", peak)
	}
	for range 2 {
		run(OutcomeConverged)
	}
	if got := size(); got*4 > peak {
		t.Errorf("after decay the file is %d bytes, peak was %d", got, peak)
	}
	if pr := must(s.PR(prKey)); len(pr.Runs) != 2 {
		t.Errorf("%d runs kept, want 2", len(pr.Runs))
	}
	t.Logf("peak %d bytes, after decay %d bytes", peak, size())
}

func TestNewerFileIsRefusedUntouched(t *testing.T) {
	newer := filepath.Join(t.TempDir(), "newer.db")
	a := must(New(newer, nil).Begin(prKey, "review-loop"))
	if err := a.End(OutcomeConverged, ""); err != nil {
		t.Fatal(err)
	}
	withDB(t, newer, func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keyVersion, []byte("99")) })

	before := must(os.ReadFile(newer))
	s := New(newer, nil)
	_, err1 := s.List()
	_, err2 := s.Begin(prKey, "review-loop")
	err3 := s.Clear(prKey)
	for _, err := range []error{err1, err2, err3} {
		if !errors.Is(err, errNewerVersion) || !strings.Contains(err.Error(), newer) {
			t.Errorf("%v, want errNewerVersion naming the file", err)
		}
	}
	if after := must(os.ReadFile(newer)); !bytes.Equal(before, after) {
		t.Error("the newer file was modified")
	}
}

func withDB(t *testing.T, path string, fn func(*bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}
