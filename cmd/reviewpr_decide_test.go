package cmd

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
	"github.com/ocdx/gh-ocdx/reviewpr"
)

// An empty "narrow" answer would tell the reviewer nothing: it is asked
// again.
func TestOrientAsksAgainForAnEmptyNarrowing(t *testing.T) {
	d, _, errOut := cmdtest.Deps()
	p := &cmdtest.Prompter{Pick: 1, Inputs: []string{"  ", "only auth.go"}}
	got, err := (&terminalConfirmer{d: d, p: p}).Orient(t.Context(), "read everything")
	if err != nil || got.Action != reviewpr.Narrow || got.Text != "only auth.go" {
		t.Fatalf("Orient = %+v, %v", got, err)
	}
	if n := strings.Count(strings.Join(p.Asked, "\n"), "What should it fetch instead?"); n != 2 || !strings.Contains(errOut.String(), "an empty answer narrows nothing") {
		t.Errorf("asked %q\n%s", p.Asked, errOut)
	}
}

// Edit at Decide: the edit is shown and asked about again, an empty one is
// not kept, and Post posts the edit.
func TestDecideEdit(t *testing.T) {
	d, out, errOut := cmdtest.Deps()
	p := &cmdtest.Prompter{Picks: []int{1, 1, 0}, Edits: []string{"\n", "My own words.\n"}}
	got, err := (&terminalConfirmer{d: d, p: p}).Decide(t.Context(), reviewpr.Proposal{Event: github.RequestChanges, Body: "The model's words.\n"})
	if err != nil || got.Action != reviewpr.Post || !got.Edited || got.Body != "My own words." || got.Event != "" {
		t.Fatalf("Decide = %+v, %v", got, err)
	}
	if s := out.String(); strings.Count(s, "Proposed review: REQUEST_CHANGES") != 2 || !strings.Contains(s, "── Your edited review: REQUEST_CHANGES") || !strings.Contains(s, "My own words.") {
		t.Errorf("shown:\n%s", s)
	}
	if !strings.Contains(errOut.String(), "the edited review is empty: kept the text before the edit") {
		t.Errorf("stderr:\n%s", errOut)
	}
}
