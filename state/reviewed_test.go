package state

import (
	"path/filepath"
	"reflect"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/posts"
)

// What stats read of a repository comes back as written, per repository;
// a record this version cannot read is read again from GitHub, never an
// error, and the PRs' records are untouched.
func TestReviewedIsKeptPerRepositoryAndADamagedOneIsReadAgain(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), "state.db"), nil)
	if r, err := s.ReviewedOf("github.com", "octo", "widgets"); err != nil || r.Newest != "" {
		t.Fatalf("before any read: %+v, %v", r, err)
	}
	want := Reviewed{Newest: "2026-01-02T00:00:00Z", Through: "2026-01-01T00:00:00Z", Complete: true,
		PRs: []ReviewedPR{
			{Number: 2, URL: "https://github.com/octo/widgets/pull/2", Updated: "2026-01-02T00:00:00Z",
				Ledger: &posts.Ledger{V: 3, Run: "20260101T000000-abcdef", Round: 1, Head: "abcdef0",
					Findings: []posts.LedgerEntry{{ID: "QUAL-00000001", Status: finding.StatusFixed, Reviewers: []string{"openai/gpt-4.1"}}}},
				Posts: []LedgerPost{{Run: "20260101T000000-abcdef", Round: 1, At: "2026-01-02T00:00:00Z", Converged: true,
					Tokens: []posts.ModelTokens{{Model: "openai/gpt-4.1", Input: 10, Output: 1}}}}},
			{Number: 1, Updated: "2026-01-01T00:00:00Z"},
		},
		Warnings: []ReviewedMsg{{PR: 2, Msg: "a warning"}}}
	if err := s.SetReviewed("github.com", "Octo", "Widgets", want); err != nil {
		t.Fatal(err)
	}
	got, err := s.ReviewedOf("github.com", "octo", "widgets")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %+v, %v\nwant %+v", got, err, want)
	}
	if other, _ := s.ReviewedOf("github.com", "octo", "other"); other.Newest != "" {
		t.Errorf("another repository reads %+v", other)
	}
	if prs, err := s.List(); err != nil || len(prs) != 0 {
		t.Fatalf("List: %v %v", prs, err)
	}

	db, err := bolt.Open(s.Path(), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketReviewed).Put(repoKey("github.com", "octo", "widgets"), []byte(`{"prs": "not a list"}`))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.ReviewedOf("github.com", "octo", "widgets"); err != nil || r.Newest != "" || r.PRs != nil {
		t.Errorf("a damaged record reads %+v, %v; want nothing, to be read again", r, err)
	}
}
