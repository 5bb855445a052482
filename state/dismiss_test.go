package state

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
)

// A local dismissal is kept under the branch's key, once per ID, beside
// its runs, and goes with state clear.
func TestDismissRecordsEachIDOnceForTheBranch(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), "state.db"), nil)
	key := LocalKey("github.com/octo/widgets", "feature")
	added, err := s.Dismiss(key, []string{"QUAL-0badf00d", "SEC-12345678"}, "Ada")
	if err != nil || !slices.Equal(added, []string{"QUAL-0badf00d", "SEC-12345678"}) {
		t.Fatalf("Dismiss: %v, %v", added, err)
	}
	if added, err = s.Dismiss(key, []string{"SEC-12345678", "PERF-0000abcd"}, "Ada"); err != nil || !slices.Equal(added, []string{"PERF-0000abcd"}) {
		t.Fatalf("Dismiss again: %v, %v", added, err)
	}
	a, err := s.Begin(key, "review")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.End(OutcomeConverged, "no findings"); err != nil {
		t.Fatal(err)
	}
	pr, err := s.PR(key)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range pr.Dismissed {
		ids = append(ids, d.ID)
		if d.By != "Ada" || d.At.IsZero() {
			t.Errorf("dismissal %+v lacks who or when", d)
		}
	}
	if !slices.Equal(ids, []string{"QUAL-0badf00d", "SEC-12345678", "PERF-0000abcd"}) || len(pr.Runs) != 1 {
		t.Errorf("recorded %v and %d run(s)", ids, len(pr.Runs))
	}
	if other, err := s.PR(LocalKey("github.com/octo/widgets", "main")); !errors.Is(err, ErrNotFound) {
		t.Errorf("another branch has %+v, %v", other.Dismissed, err)
	}
	if err := s.Clear(key); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PR(key); !errors.Is(err, ErrNotFound) {
		t.Errorf("state clear left the branch: %v", err)
	}
}
