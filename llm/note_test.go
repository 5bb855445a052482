package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestNoteStaysWithinItsCap(t *testing.T) {
	n := NewNote(WIP{}, 2048)
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

func TestNoteResumesFromWIP(t *testing.T) {
	n := NewNote(WIP{Done: []string{"edited a.go"}, Files: []string{"a.go"}, Notes: []string{"next: run the tests"}}, 0)
	tool := NoteTool(n)
	if _, err := tool.Run(context.Background(), json.RawMessage(`{"text":"  tests pass; commit  "}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := tool.Run(context.Background(), json.RawMessage(`{"text":""}`)); err == nil {
		t.Error("an empty note was accepted")
	}
	w := n.WIP()
	if strings.Join(w.Notes, "|") != "next: run the tests|tests pass; commit" || w.Files[0] != "a.go" {
		t.Errorf("%+v", w)
	}
	b, _ := json.Marshal(w)
	var back WIP
	if json.Unmarshal(b, &back) != nil || NewNote(back, 0).String() != n.String() {
		t.Errorf("WIP does not round-trip: %s", b)
	}
}
