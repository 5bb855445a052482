package worknote

import (
	"fmt"
	"strings"
	"testing"
)

func TestNoteStaysWithinItsCap(t *testing.T) {
	n := New(WIP{}, 2048)
	n.Verified("dx lint: ok; dx build all: FAILED\n" + strings.Repeat("error: x\n", 500))
	for i := range 500 {
		n.Did(fmt.Sprintf("read_file {\"path\":\"f%d.go\"} → ok, %d bytes", i, i*10))
		if i%50 == 0 {
			n.Add(fmt.Sprintf("decision %d", i))
			n.Touched(fmt.Sprintf("f%d.go", i), "common.go")
		}
		if s := n.String(); len(s) > 2048 {
			t.Fatalf("note is %d bytes after %d steps", len(s), i)
		}
	}
	w := n.WIP()
	if w.Done[len(w.Done)-1] != `read_file {"path":"f499.go"} → ok, 4990 bytes` || w.DoneOmitted == 0 {
		t.Errorf("newest step lost or nothing dropped: %+v", w.Done[len(w.Done)-1])
	}
	if len(w.Notes) != 10 || len(w.Files) != 11 || !strings.HasPrefix(w.LastVerification, "dx lint: ok") {
		t.Errorf("notes %d, files %d, verification %q", len(w.Notes), len(w.Files), w.LastVerification[:20])
	}
	s := n.String()
	for _, want := range []string{"earlier steps)", "Files modified: f0.go, common.go", "Last verification: dx lint", "- decision 450"} {
		if !strings.Contains(s, want) {
			t.Errorf("note lacks %q:\n%s", want, s)
		}
	}
}

// Room is what the note may still grow by: the cap less what it holds,
// never below zero.
func TestRoom(t *testing.T) {
	n := New(WIP{}, 1024)
	if n.Room() != 1024 {
		t.Errorf("an empty note has room %d, want its cap", n.Room())
	}
	n.Did("read a.go")
	if got := n.Room(); got != 1024-len(n.String()) || got <= 0 {
		t.Errorf("room %d, want %d", got, 1024-len(n.String()))
	}
	for i := range 200 {
		n.Did(fmt.Sprintf("step %d with some words", i))
	}
	if got := n.Room(); got < 0 || got != 1024-len(n.String()) {
		t.Errorf("room %d of a full note", got)
	}
}
