package loop

import (
	"testing"
)

// The opening goes above round 1's report only.
func TestOpeningOnlyOpensRoundOne(t *testing.T) {
	o := Options{Opening: "### What PR #3 does\n"}
	if got := opening(o, 1); got != "### What PR #3 does\n\n---\n\n" {
		t.Errorf("round 1: %q", got)
	}
	if opening(o, 2) != "" || opening(Options{}, 1) != "" {
		t.Error("an opening outside round 1, or without one")
	}
}
