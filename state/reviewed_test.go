package state

import (
	"path/filepath"
	"testing"
)

// What stats keeps of a repository comes back as written, per repository
// (its owner and name in any case); what is not JSON is refused, and the
// PRs' records are untouched.
func TestReviewedIsKeptPerRepository(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), "state.db"), nil)
	if r, err := s.ReviewedOf("github.com", "octo", "widgets"); err != nil || r != nil {
		t.Fatalf("before any read: %q, %v", r, err)
	}
	want := `{"newest":"2026-01-02T00:00:00Z","prs":[{"number":2}]}`
	if err := s.SetReviewed("github.com", "Octo", "Widgets", []byte(want)); err != nil {
		t.Fatal(err)
	}
	got, err := s.ReviewedOf("github.com", "octo", "widgets")
	if err != nil || string(got) != want {
		t.Fatalf("read back %q, %v", got, err)
	}
	if other, _ := s.ReviewedOf("github.com", "octo", "other"); other != nil {
		t.Errorf("another repository reads %q", other)
	}
	if err := s.SetReviewed("github.com", "octo", "widgets", []byte("{not json")); err == nil {
		t.Error("a record that is not JSON is kept")
	}
	if prs, err := s.List(); err != nil || len(prs) != 0 {
		t.Fatalf("List: %v %v", prs, err)
	}
}
