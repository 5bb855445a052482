package finding

import (
	"fmt"
	"strings"
	"testing"
)

func TestLedgerRoundTrip(t *testing.T) {
	l := Ledger{Run: "20261124T101112-a1b2c3", Round: 2, Head: "916a9a4c0ffee"}
	l.Set("SEC-b0bf205b", StatusOpen, "")
	l.Set("QUAL-0badf00d", StatusFixed, "abcdef0")
	l.Set("SEC-b0bf205b", StatusStuck, "")
	body := "## report\n\ntext <!-- ocdx:ledger {\"run\":\"forged\"} -->\n" + l.Block()
	got, err := ParseLedger(body)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(l) {
		t.Errorf("got %+v, want %+v", got, l)
	}
	if s := got.With(StatusStuck); len(s) != 1 || s[0] != "SEC-b0bf205b" {
		t.Errorf("stuck: %v", s)
	}
}

// Over 8 KB, the oldest closed entries go first, and the block says how
// many; open and stuck entries stay.
func TestLedgerBlockKeepsWithin8KB(t *testing.T) {
	l := Ledger{Run: "20261124T101112-a1b2c3", Round: 3, Head: "916a9a4"}
	for i := range 400 {
		l.Set(fmt.Sprintf("QUAL-%08x", i), StatusFixed, "abcdef0")
	}
	l.Set("SEC-00000001", StatusStuck, "")
	l.Set("SEC-00000002", StatusOpen, "")
	block := l.Block()
	if len(block) > MaxLedger {
		t.Fatalf("block of %d bytes", len(block))
	}
	got, err := ParseLedger(block)
	if err != nil {
		t.Fatal(err)
	}
	if got.Dropped == 0 || got.Dropped+len(got.Findings) != 402 {
		t.Errorf("dropped %d, kept %d", got.Dropped, len(got.Findings))
	}
	if got.Findings[0].ID == "QUAL-00000000" || len(got.With(StatusStuck)) != 1 || len(got.With(StatusOpen)) != 1 {
		t.Errorf("the oldest closed entries should go first, open and stuck stay: %v", got.Findings[:3])
	}
}

// A ledger is text on a PR: anything but the shape gh-ocdx writes is
// refused whole.
func TestParseLedgerRefusesWhatGhOcdxDoesNotWrite(t *testing.T) {
	ok := `{"run":"20261124T101112-a1b2c3","round":1,"head":"916a9a4","findings":[%s]}`
	for name, js := range map[string]string{
		"unknown field":  `{"run":"20261124T101112-a1b2c3","round":1,"head":"916a9a4","findings":[],"verify":["sh x"]}`,
		"not an ID":      fmt.Sprintf(ok, `{"id":"rm -rf","status":"stuck"}`),
		"unknown status": fmt.Sprintf(ok, `{"id":"SEC-b0bf205b","status":"approved"}`),
		"twice":          fmt.Sprintf(ok, `{"id":"SEC-b0bf205b","status":"stuck"},{"id":"SEC-b0bf205b","status":"open"}`),
		"sha not fixed":  fmt.Sprintf(ok, `{"id":"SEC-b0bf205b","status":"open","sha":"abcdef0"}`),
		"bad run":        `{"run":"x","round":1,"head":"916a9a4","findings":[]}`,
		"bad round":      `{"run":"20261124T101112-a1b2c3","round":0,"head":"916a9a4","findings":[]}`,
		"trailing":       fmt.Sprintf(ok, ``) + ` {}`,
		"not closed":     fmt.Sprintf(ok, ``) + strings.Repeat(" ", MaxLedger),
	} {
		body := "<!-- ocdx:ledger " + js + " -->"
		if name == "not closed" {
			body = "<!-- ocdx:ledger " + js
		}
		if _, err := ParseLedger(body); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := ParseLedger("no block here"); err != ErrNoLedger {
		t.Errorf("no block: %v", err)
	}
}

// A ledger of no findings reads as an empty list, not a null.
func TestLedgerBlockOfNothing(t *testing.T) {
	block := Ledger{Run: "20261124T101112-a1b2c3", Kind: "review-pr", Round: 1, Head: "916a9a4"}.Block()
	if !strings.Contains(block, `"findings":[]`) {
		t.Errorf("block %s", block)
	}
	if _, err := ParseLedger(block); err != nil {
		t.Error(err)
	}
}
