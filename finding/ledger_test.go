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
	l.Agree("QUAL-0badf00d", "2/3", []string{"openai/gpt-4.1", "anthropic/claude-sonnet-4-5"})
	l.Agree("SEC-b0bf205b", "2/3 reviewers; rm -rf", nil) // not the shape: left out
	body := "## report\n\ntext <!-- ocdx:ledger {\"run\":\"forged\"} -->\n" + l.Block()
	got, err := ParseLedger(body)
	if err != nil {
		t.Fatal(err)
	}
	l.V = LedgerVersion
	if fmt.Sprint(got) != fmt.Sprint(l) {
		t.Errorf("got %+v, want %+v", got, l)
	}
	if s := got.With(StatusStuck); len(s) != 1 || s[0] != "SEC-b0bf205b" {
		t.Errorf("stuck: %v", s)
	}
}

// Over MaxLedger, the oldest closed entries go first, the block says in
// words how many, and open and stuck entries stay.
func TestLedgerBlockKeepsWithinItsSize(t *testing.T) {
	l := Ledger{Run: "20261124T101112-a1b2c3", Round: 3, Head: "916a9a4"}
	const n = 1200
	for i := range n {
		l.Set(fmt.Sprintf("QUAL-%08x", i), StatusFixed, "abcdef0")
	}
	l.Set("SEC-00000001", StatusStuck, "")
	l.Set("SEC-00000002", StatusOpen, "")
	block := l.Block()
	got, err := ParseLedger(block)
	if err != nil {
		t.Fatal(err)
	}
	if len(block) > MaxLedger+200 || got.Dropped == 0 || got.Dropped+len(got.Findings) != n+2 {
		t.Fatalf("block of %d bytes: dropped %d, kept %d", len(block), got.Dropped, len(got.Findings))
	}
	if got.Findings[0].ID == "QUAL-00000000" || len(got.With(StatusStuck)) != 1 || len(got.With(StatusOpen)) != 1 {
		t.Errorf("the oldest closed entries should go first, open and stuck stay: %v", got.Findings[:3])
	}
	if !strings.Contains(block, fmt.Sprintf("leaves out its %d oldest closed findings", got.Dropped)) {
		t.Errorf("the block does not say what it left out:\n%s", block[:200])
	}
	// 400 entries, a long PR's worth, fit whole.
	small := Ledger{Run: l.Run, Round: 1, Head: l.Head, Findings: l.Findings[:400]}
	if got, _ := ParseLedger(small.Block()); got.Dropped != 0 || len(got.Findings) != 400 {
		t.Errorf("400 entries: dropped %d", got.Dropped)
	}
}

// A ledger is text on a PR: a header gh-ocdx does not write refuses the
// whole ledger; an entry it does not write is left out, or read so that it
// can only keep a finding remaining, never close one.
func TestParseLedgerRefusesWhatGhOcdxDoesNotWrite(t *testing.T) {
	ok := `{"run":"20261124T101112-a1b2c3","round":1,"head":"916a9a4","findings":[%s]}`
	for name, js := range map[string]string{
		"bad run":    `{"run":"x","round":1,"head":"916a9a4","findings":[]}`,
		"bad round":  `{"run":"20261124T101112-a1b2c3","round":0,"head":"916a9a4","findings":[]}`,
		"bad head":   `{"run":"20261124T101112-a1b2c3","round":1,"head":"HEAD~1","findings":[]}`,
		"bad kind":   `{"run":"20261124T101112-a1b2c3","kind":"sh","round":1,"head":"916a9a4","findings":[]}`,
		"trailing":   fmt.Sprintf(ok, ``) + ` {}`,
		"not closed": fmt.Sprintf(ok, ``) + strings.Repeat(" ", MaxLedger),
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

	entries := `{"id":"rm -rf","status":"fixed"},{"id":"SEC-b0bf205b","status":"approved"},{"id":"SEC-b0bf205b","status":"dismissed"},` +
		`{"id":"QUAL-0badf00d","status":"stuck","sha":"abcdef0"},{"id":"QUAL-1badf00d"},{"id":"THREAD-1234567","status":"disputed"},{"id":"THREAD-PRRC_kwDOabc","status":"fixed","sha":"abcdef0"}`
	l, warnings, err := ParseLedgerWarn(`<!-- ocdx:ledger {"v":3,"run":"20261124T101112-a1b2c3","round":1,"head":"916a9a4","verify":["sh x"],"findings":[` + entries + `]} -->`)
	if err != nil {
		t.Fatal(err)
	}
	want := []LedgerEntry{{ID: "SEC-b0bf205b", Status: StatusOpen}, {ID: "QUAL-0badf00d", Status: StatusStuck}, {ID: "QUAL-1badf00d", Status: StatusOpen},
		{ID: "THREAD-1234567", Status: StatusDisputed}, {ID: "THREAD-PRRC_kwDOabc", Status: StatusFixed, Sha: "abcdef0"}}
	if fmt.Sprint(l.Findings) != fmt.Sprint(want) {
		t.Errorf("entries %+v\nwant    %+v", l.Findings, want)
	}
	if len(warnings) != 3 {
		t.Errorf("warnings %q: want the bad ID, the unknown status and the second entry", warnings)
	}
}

func TestStatuses(t *testing.T) {
	var remaining []Status
	for _, s := range Statuses {
		if s.Remaining() {
			remaining = append(remaining, s)
		}
	}
	if fmt.Sprint(remaining) != "[open stuck disputed]" {
		t.Errorf("remaining: %v", remaining)
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

// The basis review's findings are located in the ledger, and read back as
// findings a re-review lists; a location of another shape is left out with
// a warning, the entry kept; over MaxLedger the locations go before any
// entry does.
func TestLedgerLocatesTheBasisFindings(t *testing.T) {
	line := 12
	l := Ledger{Run: "20261124T101112-a1b2c3", Round: 1, Head: "916a9a4c", Basis: "916a9a4c"}
	l.Set("QUAL-0badf00d", StatusOpen, "")
	l.Locate(Finding{ID: "QUAL-0badf00d", Priority: "P1", File: "a.go", Line: &line, Title: strings.Repeat("é", 100)})
	got, err := ParseLedger(l.Block())
	if err != nil {
		t.Fatal(err)
	}
	fs, ok := got.BasisFindings()
	if !ok || len(fs) != 1 || fs[0].Priority != "P1" || fs[0].File != "a.go" || *fs[0].Line != 12 || len(fs[0].Title) > MaxLedgerTitle+len("…") || !strings.HasSuffix(fs[0].Title, "é…") {
		t.Fatalf("basis %v %+v", ok, fs)
	}

	left := Ledger{Run: "20261124T101112-a1b2c3", Round: 1, Head: "916a9a4c", Basis: "916a9a4c"}
	left.Set("QUAL-0badf00e", StatusOpen, "")
	left.Locate(Finding{ID: "QUAL-0badf00e", Priority: "P2", File: "a.go", Line: &line, Side: "LEFT", Title: "Removed check"})
	if got, err := ParseLedger(left.Block()); err != nil {
		t.Fatal(err)
	} else if fs, _ := got.BasisFindings(); len(fs) != 1 || fs[0].Side != "LEFT" {
		t.Errorf("a finding on the base's side comes back as %+v", fs)
	}

	for _, where := range []string{`"p":"P1","file":"a.go","side":"RIGHT;rm"`, `"p":"P9","file":"a.go"`, `"p":"P1","file":"../../etc/passwd"`, `"p":"P1","file":"/etc/passwd"`, `"p":"P1","file":"a.go","title":"a\u0007b"`, `"p":"P1","file":"a.go","line":-1`} {
		body := `<!-- ocdx:ledger {"v":2,"run":"20261124T101112-a1b2c3","round":1,"head":"916a9a4c","basis":"916a9a4c","findings":[{"id":"QUAL-0badf00d",` + where + `}]} -->`
		got, warnings, err := ParseLedgerWarn(body)
		if err != nil || len(got.Findings) != 1 || got.Findings[0].Where != (Where{}) || len(warnings) != 1 {
			t.Errorf("%s: %+v, %v, %v", where, got, warnings, err)
		}
	}

	big := Ledger{Run: "20261124T101112-a1b2c3", Round: 1, Head: "916a9a4c", Basis: "916a9a4c"}
	for i := range 400 {
		id := fmt.Sprintf("QUAL-%08x", i)
		big.Set(id, StatusOpen, "")
		big.Locate(Finding{ID: id, Priority: "P2", File: "some/long/path/to/a/file.go", Title: strings.Repeat("t", 100)})
	}
	got, err = ParseLedger(big.Block())
	if err != nil || len(got.Findings) != 400 || got.Dropped != 0 {
		t.Fatalf("a large ledger: %d entries, %d dropped, %v", len(got.Findings), got.Dropped, err)
	}
	if _, ok := got.BasisFindings(); ok {
		t.Error("a ledger past its size keeps a basis whose locations it left out")
	}
}

// A restored entry is open again and says so through a round trip; a
// restore never closes anything.
func TestLedgerRestore(t *testing.T) {
	var l Ledger
	l.Run, l.Round, l.Head = "20260101T000000-abcdef", 1, "abcdef0"
	l.Set("QUAL-00000001", StatusRefuted, "")
	l.Set("QUAL-00000002", StatusStuck, "")
	l.Restore("QUAL-00000001")
	l.Restore("QUAL-00000002")
	l.Restore("not an id")
	got, err := ParseLedger(l.Block())
	if err != nil {
		t.Fatal(err)
	}
	if r := got.Restored(); len(r) != 2 || r[0] != "QUAL-00000001" {
		t.Errorf("restored %v", r)
	}
	if got.With(StatusRefuted) != nil || len(got.With(StatusOpen)) != 1 || len(got.With(StatusStuck)) != 1 {
		t.Errorf("statuses after restore: %+v", got.Findings)
	}
}
