package llm

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/worknote"
)

func TestNoteResumesFromWIP(t *testing.T) {
	n := worknote.New(worknote.WIP{Done: []string{"edited a.go"}, Files: []string{"a.go"}, Notes: []string{"next: run the tests"}}, 0)
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
	var back worknote.WIP
	if json.Unmarshal(b, &back) != nil || worknote.New(back, 0).String() != n.String() {
		t.Errorf("WIP does not round-trip: %s", b)
	}
}
