package state

import (
	"path/filepath"
	"testing"
	"time"
)

func TestApprovalIsRememberedUntilTheCommandsChange(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), "state.db"), nil)
	cmds := []string{"make lint", "go test ./..."}
	if ok, _, err := s.Approved("github.com", "Octo", "Widgets", cmds); ok || err != nil {
		t.Fatalf("before any approval: %v, %v", ok, err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := s.Approve("github.com", "Octo", "Widgets", cmds, at); err != nil {
		t.Fatal(err)
	}
	// GitHub names are case-insensitive.
	ok, when, err := s.Approved("GITHUB.com", "octo", "widgets", cmds)
	if !ok || err != nil || !when.Equal(at) {
		t.Fatalf("after approval: %v %v %v", ok, when, err)
	}
	for _, changed := range [][]string{{"make lint"}, {"go test ./...", "make lint"}, {"make lint", "go test ./... "}, nil} {
		if ok, _, _ := s.Approved("github.com", "octo", "widgets", changed); ok {
			t.Errorf("%q counts as approved", changed)
		}
	}
	if ok, _, _ := s.Approved("github.com", "octo", "other", cmds); ok {
		t.Error("the approval leaked to another repository")
	}
	// The PR records are unaffected: the file still reads as a state file.
	if prs, err := s.List(); err != nil || len(prs) != 0 {
		t.Fatalf("List: %v %v", prs, err)
	}
}
